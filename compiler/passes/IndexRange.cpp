// Index-range analysis: the byte offset of every global access, relative to
// its argument, as an expression over group ids, local ids, NDRange sizes,
// scalar arguments and loop iterations (from ScalarEvolution). The runtime
// evaluates these expressions with interval arithmetic over a flattened group
// range (accessedRange) and tests contiguity per launch (writesContiguous).
// Non-affine or data-dependent indices are recorded as unknown.
//
//   analysis: tutti-index-range         printer: print<tutti-index-range>
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"

#include <algorithm>
#include <iterator>
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

AnalysisKey IndexRangeAnalysis::Key;

ScevToExpr::ScevToExpr(Function &F, ScalarEvolution &SE, LoopInfo &LI, ExprData &D)
    : F(F), SE(SE), LI(LI), D(D) {}

int32_t ScevToExpr::convert(const SCEV *S, std::string &why) { return conv(S, why); }

// ScalarEvolution gives up on `for (i = gid; i < n; i += (int)get_global_size(0))`
// because the non-unit stride might wrap. The latch test still bounds every
// value the IV takes in the body: the first is `start`, each later one passed
// `next < n`. So the backedge-taken count is at most
//   smax(n - 1 - start, 0) /u step      (compare of the incremented value)
// for a positive loop-invariant step (a wrapping IV would index out of bounds,
// which a valid kernel does not do).
//
// A loop left only from its header (not rotated, e.g. `for (j = max(y - r, 0);
// j <= min(y + r, h - 1); ++j)`, whose calls keep LoopRotate away) is bounded
// the same way: every value the IV takes in the body passed the test itself,
// so the count above (one more than the body needs) still covers it.
const SCEV *ScevToExpr::boundFromExitTest(const Loop *L) {
  BasicBlock *Latch = L->getLoopLatch();
  BasicBlock *Exiting = L->getExitingBlock();
  if (!Latch || !Exiting || (Exiting != Latch && Exiting != L->getHeader()))
    return SE.getCouldNotCompute();
  auto *Br = dyn_cast<BranchInst>(Exiting->getTerminator());
  if (!Br || !Br->isConditional()) return SE.getCouldNotCompute();
  auto *Cmp = dyn_cast<ICmpInst>(Br->getCondition());
  if (!Cmp) return SE.getCouldNotCompute();
  ICmpInst::Predicate P = Cmp->getPredicate();
  if (!L->contains(Br->getSuccessor(0))) P = ICmpInst::getInversePredicate(P);
  const SCEV *LHS = SE.getSCEV(Cmp->getOperand(0)), *RHS = SE.getSCEV(Cmp->getOperand(1));
  // `j <= min(y + r, h - 1)`: the builtin call sits in the loop (it is not
  // known to be pure, so nothing hoists it), but its value is the min of
  // loop-invariant operands
  auto expand = [&](const SCEV *S) {
    if (auto *U = dyn_cast<SCEVUnknown>(S))
      if (auto *CI = dyn_cast<CallInst>(U->getValue()))
        if (const SCEV *MM = minMaxBuiltin(*CI)) return MM;
    return S;
  };
  LHS = expand(LHS);
  RHS = expand(RHS);
  if (!isa<SCEVAddRecExpr>(LHS) && isa<SCEVAddRecExpr>(RHS)) {
    std::swap(LHS, RHS);
    P = ICmpInst::getSwappedPredicate(P);
  }
  auto *AR = dyn_cast<SCEVAddRecExpr>(LHS);
  if (!AR || AR->getLoop() != L || !AR->isAffine() || !SE.isLoopInvariant(RHS, L))
    return SE.getCouldNotCompute();
  if (P != ICmpInst::ICMP_SLT && P != ICmpInst::ICMP_ULT && P != ICmpInst::ICMP_SLE &&
      P != ICmpInst::ICMP_ULE)
    return SE.getCouldNotCompute();
  const SCEV *Step = AR->getStepRecurrence(SE);
  if (!SE.isKnownPositive(Step)) return SE.getCouldNotCompute();
  // the header phi's start: AR is either the phi {s,+,d} or its increment {s+d,+,d}
  const SCEV *Start = AR->getStart();
  bool postInc = false;
  for (PHINode &Phi : L->getHeader()->phis()) {
    auto *PAR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi));
    if (PAR && PAR->getLoop() == L && PAR->getStepRecurrence(SE) == Step &&
        SE.getAddExpr(PAR->getStart(), Step) == AR->getStart()) {
      Start = PAR->getStart();
      postInc = true;
      break;
    }
  }
  Type *T = RHS->getType();
  const SCEV *One = SE.getOne(T);
  const SCEV *Bound = (P == ICmpInst::ICMP_SLT || P == ICmpInst::ICMP_ULT) ? SE.getMinusSCEV(RHS, One) : RHS;
  const SCEV *Span = SE.getSMaxExpr(SE.getMinusSCEV(Bound, Start), SE.getZero(T));
  const SCEV *Cnt = SE.getUDivExpr(Span, Step);
  if (!postInc) Cnt = SE.getAddExpr(Cnt, One);
  return Cnt;
}

const SCEV *ScevToExpr::minMaxBuiltin(CallInst &CI) {
  Function *Callee = CI.getCalledFunction();
  if (!Callee || !CI.getType()->isIntegerTy() || !SE.isSCEVable(CI.getType())) return nullptr;
  Demangled dm = demangle(Callee->getName().str());
  unsigned n = dm.name == "clamp" ? 3 : (dm.name == "min" || dm.name == "max") ? 2 : 0;
  // scalar integer overloads only: every parameter mangled as one builtin
  // integer type letter (c a h s t i j l m), all of the call's type
  if (n == 0 || CI.arg_size() != n || dm.params.size() != n) return nullptr;
  for (unsigned i = 0; i < n; ++i)
    if (CI.getArgOperand(i)->getType() != CI.getType()) return nullptr;
  char t = dm.params[0];
  bool sgn;
  if (std::string("cashil").find(t) != std::string::npos) sgn = true;
  else if (std::string("htjm").find(t) != std::string::npos) sgn = false;
  else return nullptr;
  if (dm.params.find_first_not_of(t) != std::string::npos) return nullptr;
  auto mx = [&](const SCEV *a, const SCEV *b) { return sgn ? SE.getSMaxExpr(a, b) : SE.getUMaxExpr(a, b); };
  auto mn = [&](const SCEV *a, const SCEV *b) { return sgn ? SE.getSMinExpr(a, b) : SE.getUMinExpr(a, b); };
  const SCEV *A = SE.getSCEV(CI.getArgOperand(0)), *B = SE.getSCEV(CI.getArgOperand(1));
  if (dm.name == "min") return mn(A, B);
  if (dm.name == "max") return mx(A, B);
  return mn(mx(A, B), SE.getSCEV(CI.getArgOperand(2)));
}

// ScalarEvolution (LLVM 15) turns `a < b ? a : b` into smin but not the
// shifted forms that clamped neighbours compile to, e.g. `x > 0 ? x - 1 : 0`
// or `x + 1 < w ? x + 1 : w - 1`. With the compare written as A < B or A <= B
// (either signedness), select(cond, X + c, Y + c) is min(X, Y) + c and
// select(cond, Y + c, X + c) is max(X, Y) + c, for any c, whenever cond
// orders X and Y: X <= Y where cond holds, Y <= X where it fails. That is
// true for (X, Y) = (A, B), and for A < B also (A + 1, B) and (A, B - 1),
// for A <= B also (A - 1, B) and (A, B + 1), as long as the shifted operand
// does not wrap; the min/max node's fit checks on its operands make the
// evaluation verify that.
int32_t ScevToExpr::selectMinMax(SelectInst &S) {
  auto *Cmp = dyn_cast<ICmpInst>(S.getCondition());
  if (!Cmp || !S.getType()->isIntegerTy() || Cmp->getOperand(0)->getType() != S.getType() ||
      !SE.isSCEVable(S.getType()))
    return -1;
  ICmpInst::Predicate P = Cmp->getPredicate();
  const SCEV *A = SE.getSCEV(Cmp->getOperand(0)), *B = SE.getSCEV(Cmp->getOperand(1));
  const SCEV *T = SE.getSCEV(S.getTrueValue()), *F = SE.getSCEV(S.getFalseValue());
  switch (P) {
    case ICmpInst::ICMP_SGT: case ICmpInst::ICMP_SGE: case ICmpInst::ICMP_UGT: case ICmpInst::ICMP_UGE:
      std::swap(A, B);
      P = ICmpInst::getSwappedPredicate(P);
      break;
    case ICmpInst::ICMP_SLT: case ICmpInst::ICMP_SLE: case ICmpInst::ICMP_ULT: case ICmpInst::ICMP_ULE:
      break;
    default:
      return -1;
  }
  bool sgn = P == ICmpInst::ICMP_SLT || P == ICmpInst::ICMP_SLE;
  bool strict = P == ICmpInst::ICMP_SLT || P == ICmpInst::ICMP_ULT;
  const SCEV *One = SE.getOne(A->getType());
  std::pair<const SCEV *, const SCEV *> pairs[3] = {
      {A, B},
      strict ? std::make_pair(SE.getAddExpr(A, One), B) : std::make_pair(SE.getMinusSCEV(A, One), B),
      strict ? std::make_pair(A, SE.getMinusSCEV(B, One)) : std::make_pair(A, SE.getAddExpr(B, One))};
  unsigned w = (unsigned)SE.getTypeSizeInBits(S.getType());
  // a match without addend first: a plain min/max node is what an enclosing
  // select's nested-clamp form below looks for
  for (int pass = 0; pass < 2; ++pass)
  for (auto [X, Y] : pairs) {
    bool isMin = true;
    const SCEV *c = SE.getMinusSCEV(T, X);
    if (c != SE.getMinusSCEV(F, Y)) {
      isMin = false;
      c = SE.getMinusSCEV(T, Y);
      if (c != SE.getMinusSCEV(F, X)) continue;
    }
    if (pass == 0 && !c->isZero()) continue;
    // built as Expr nodes, not as a SCEV that might fold the min/max away
    // together with the fit checks this identity relies on
    std::string why;
    int32_t x = conv(X, why), y = conv(Y, why), k = conv(c, why);
    if (x < 0 || y < 0 || k < 0) return -1;
    Op op = isMin ? (sgn ? Op::SMin : Op::UMin) : (sgn ? Op::SMax : Op::UMax);
    uint32_t m = D.nary(op, {(uint32_t)x, (uint32_t)y}, w);
    if (c->isZero()) return (int32_t)m;
    return (int32_t)D.nary(Op::Add, {m, (uint32_t)k}, w);
  }
  // Nested clamps, `j < 0 ? 0 : (j >= w ? w - 1 : j)`: with the same pairs,
  //   select(X <= Y, Y + c, c + min(X, Z..)) = max(Y, min(X, Z..)) + c
  //   select(X <= Y, c + max(X, Z..), Y + c) = min(Y, max(X, Z..)) + c
  // provided every Z >= Y (resp. Z <= Y): a clamp whose low end does not
  // exceed its high end. Each such condition becomes a fit check (Z - Y,
  // resp. Y - Z, must fit the unsigned type: be >= 0) carried by a zero term,
  // so a launch where it fails leaves the range unknown.
  for (auto [X, Y] : pairs) {
    for (int form = 0; form < 2; ++form) {
      const SCEV *Bd = form == 0 ? T : F, *Other = form == 0 ? F : T;
      const SCEV *c = SE.getMinusSCEV(Bd, Y);
      std::string why;
      int32_t x = conv(X, why), y = conv(Y, why), in = conv(SE.getMinusSCEV(Other, c), why);
      int32_t k = conv(c, why);
      if (x < 0 || y < 0 || in < 0 || k < 0) continue;
      Op innerOp = form == 0 ? (sgn ? Op::SMin : Op::UMin) : (sgn ? Op::SMax : Op::UMax);
      const Node &n = D.nodes[in];
      if (n.op != innerOp) continue;
      std::vector<uint32_t> zs;
      bool hasX = false;
      for (uint32_t i = 0; i < n.count; ++i) {
        uint32_t z = D.kids[n.first + i];
        if (z == (uint32_t)x && !hasX) hasX = true;
        else zs.push_back(z);
      }
      if (!hasX || zs.empty()) continue;
      std::vector<uint32_t> terms;
      Op outerOp = form == 0 ? (sgn ? Op::SMax : Op::UMax) : (sgn ? Op::SMin : Op::UMin);
      terms.push_back(D.nary(outerOp, {(uint32_t)y, (uint32_t)in}, w));
      if (!c->isZero()) terms.push_back((uint32_t)k);
      for (uint32_t z : zs) {
        uint32_t diff = form == 0 ? D.nary(Op::Add, {z, D.nary(Op::Mul, {D.cst(-1, w), (uint32_t)y}, w)}, w)
                                  : D.nary(Op::Add, {(uint32_t)y, D.nary(Op::Mul, {D.cst(-1, w), z}, w)}, w);
        terms.push_back(D.nary(Op::Mul, {D.cst(0, w), D.cast(Op::ZExt, diff, 128)}, w));
      }
      return (int32_t)D.nary(Op::Add, terms, w);
    }
  }
  return -1;
}

int32_t ScevToExpr::loopId(const Loop *L, std::string &why) {
  auto it = loopIds.find(L);
  if (it != loopIds.end()) return it->second;
  int32_t id = (int32_t)D.loop_btc.size();
  loopIds[L] = id;
  loopList.push_back(L);
  D.loop_btc.push_back(-1);
  D.loop_trip.push_back(-1);
  const SCEV *B = SE.getSymbolicMaxBackedgeTakenCount(L);
  if (isa<SCEVCouldNotCompute>(B)) B = boundFromExitTest(L);
  if (isa<SCEVCouldNotCompute>(B)) B = SE.getConstantMaxBackedgeTakenCount(L);
  if (isa<SCEVCouldNotCompute>(B)) {
    why = "trip count of loop '" + L->getHeader()->getName().str() + "' not computable";
    return id;
  }
  std::string w2;
  int32_t b = conv(B, w2);
  if (b < 0) {
    why = "trip count of loop '" + L->getHeader()->getName().str() + "': " + w2;
    return id;
  }
  D.loop_btc[id] = b;
  unsigned w = D.nodes[b].width;
  D.loop_trip[id] = (int32_t)D.bin(Op::Add, (uint32_t)b, D.cst(1, w), w);
  return id;
}

int32_t ScevToExpr::conv(const SCEV *S, std::string &why) {
  auto it = memo.find(S);
  if (it != memo.end() && it->second >= 0) return it->second;
  unsigned w = (unsigned)SE.getTypeSizeInBits(S->getType());
  int32_t r = -1;
  auto kidsOf = [&](const SCEVNAryExpr *N, std::vector<uint32_t> &out) {
    for (const SCEV *op : N->operands()) {
      int32_t k = conv(op, why);
      if (k < 0) return false;
      out.push_back((uint32_t)k);
    }
    return true;
  };
  switch (S->getSCEVType()) {
    case scConstant: {
      const APInt &v = cast<SCEVConstant>(S)->getAPInt();
      if (v.getMinSignedBits() > 64) { why = "constant too wide"; return -1; }
      r = (int32_t)D.cst(v.getSExtValue(), w);
      break;
    }
    case scTruncate:
    case scZeroExtend:
    case scSignExtend: {
      auto *C = cast<SCEVCastExpr>(S);
      int32_t k = conv(C->getOperand(), why);
      if (k < 0) return -1;
      Op op = S->getSCEVType() == scTruncate ? Op::Trunc
              : S->getSCEVType() == scZeroExtend ? Op::ZExt : Op::SExt;
      r = (int32_t)D.cast(op, (uint32_t)k, w);
      break;
    }
    case scAddExpr:
    case scMulExpr:
    case scSMaxExpr:
    case scUMaxExpr:
    case scSMinExpr:
    case scUMinExpr:
    case scSequentialUMinExpr: {
      std::vector<uint32_t> ops;
      if (!kidsOf(cast<SCEVNAryExpr>(S), ops)) return -1;
      Op op;
      switch (S->getSCEVType()) {
        case scAddExpr: op = Op::Add; break;
        case scMulExpr: op = Op::Mul; break;
        case scSMaxExpr: op = Op::SMax; break;
        case scUMaxExpr: op = Op::UMax; break;
        case scSMinExpr: op = Op::SMin; break;
        default: op = Op::UMin; break;
      }
      r = (int32_t)D.nary(op, ops, w);
      break;
    }
    case scUDivExpr: {
      auto *U = cast<SCEVUDivExpr>(S);
      int32_t a = conv(U->getLHS(), why);
      if (a < 0) return -1;
      int32_t b = conv(U->getRHS(), why);
      if (b < 0) return -1;
      r = (int32_t)D.bin(Op::UDiv, (uint32_t)a, (uint32_t)b, w);
      break;
    }
    case scAddRecExpr: {
      auto *AR = cast<SCEVAddRecExpr>(S);
      if (!AR->isAffine()) { why = "non-affine recurrence"; return -1; }
      int32_t st = conv(AR->getStart(), why);
      if (st < 0) return -1;
      int32_t step = conv(AR->getStepRecurrence(SE), why);
      if (step < 0) return -1;
      std::string lw;
      int32_t lid = loopId(AR->getLoop(), lw);
      if (D.loop_btc[lid] < 0) { why = lw.empty() ? "loop trip count unknown" : lw; return -1; }
      // one iteration atom per loop, whatever the recurrence's type: a
      // recurrence and its extension (which ScalarEvolution may move inside:
      // sext{s,+,1} = {sext s,+,1}) then share it, so bounds on one apply to
      // the other. The atom is an iteration count, not a machine value; the
      // recurrence's own wrapping is caught by the fit checks of its casts.
      uint32_t iv = D.iv((unsigned)lid, 64);
      r = (int32_t)D.nary(Op::Add, {(uint32_t)st, D.nary(Op::Mul, {(uint32_t)step, iv}, w)}, w);
      break;
    }
    case scUnknown: {
      Value *V = cast<SCEVUnknown>(S)->getValue();
      if (auto *A = dyn_cast<Argument>(V)) {
        if (A->getParent() == &F && A->getType()->isIntegerTy()) {
          r = (int32_t)D.sym(Sym::Arg, A->getArgNo(), w);
          break;
        }
        why = "depends on pointer argument '" + A->getName().str() + "'";
        return -1;
      }
      if (auto *CI = dyn_cast<CallInst>(V)) {
        Demangled dm = demangle(calleeName(*CI));
        WI wi = workItemFn(dm.name);
        if (wi != WI::None) {
          unsigned dim = 0;
          if (wi != WI::WorkDim && wi != WI::GlobalLinearId && wi != WI::LocalLinearId) {
            auto *C = CI->arg_size() ? dyn_cast<ConstantInt>(CI->getArgOperand(0)) : nullptr;
            if (!C) { why = dm.name + " with a non-constant dimension"; return -1; }
            dim = (unsigned)C->getZExtValue();
          }
          auto s = [&](Sym k, unsigned d) { return D.sym(k, d, w); };
          if (dim >= 3) {
            bool isSize = wi == WI::GlobalSize || wi == WI::LocalSize || wi == WI::NumGroups ||
                          wi == WI::EnqLocalSize;
            r = (int32_t)D.cst(isSize ? 1 : 0, w);
            break;
          }
          auto gid = [&](unsigned d) {
            return D.nary(Op::Add, {D.nary(Op::Mul, {s(Sym::GroupId, d), s(Sym::EnqLocalSize, d)}, w),
                                    s(Sym::LocalId, d), s(Sym::GlobalOffset, d)}, w);
          };
          switch (wi) {
            case WI::GlobalId: r = (int32_t)gid(dim); break;
            case WI::LocalId: r = (int32_t)s(Sym::LocalId, dim); break;
            case WI::GroupId: r = (int32_t)s(Sym::GroupId, dim); break;
            case WI::GlobalSize: r = (int32_t)s(Sym::GlobalSize, dim); break;
            case WI::LocalSize: r = (int32_t)s(Sym::LocalSize, dim); break;
            case WI::NumGroups: r = (int32_t)s(Sym::NumGroups, dim); break;
            case WI::GlobalOffset: r = (int32_t)s(Sym::GlobalOffset, dim); break;
            case WI::EnqLocalSize: r = (int32_t)s(Sym::EnqLocalSize, dim); break;
            case WI::WorkDim: r = (int32_t)D.sym(Sym::WorkDim, 0, w); break;
            case WI::LocalLinearId: {
              uint32_t l0 = s(Sym::LocalId, 0), l1 = s(Sym::LocalId, 1), l2 = s(Sym::LocalId, 2);
              uint32_t L0 = s(Sym::LocalSize, 0), L1 = s(Sym::LocalSize, 1);
              r = (int32_t)D.nary(Op::Add, {l0, D.nary(Op::Mul, {L0, l1}, w),
                                            D.nary(Op::Mul, {L0, L1, l2}, w)}, w);
              break;
            }
            case WI::GlobalLinearId: {
              // (gid0-off0) + G0*(gid1-off1) + G0*G1*(gid2-off2)
              auto rel = [&](unsigned d) {
                return D.nary(Op::Add, {D.nary(Op::Mul, {s(Sym::GroupId, d), s(Sym::EnqLocalSize, d)}, w),
                                        s(Sym::LocalId, d)}, w);
              };
              uint32_t G0 = s(Sym::GlobalSize, 0), G1 = s(Sym::GlobalSize, 1);
              r = (int32_t)D.nary(Op::Add, {rel(0), D.nary(Op::Mul, {G0, rel(1)}, w),
                                            D.nary(Op::Mul, {G0, G1, rel(2)}, w)}, w);
              break;
            }
            case WI::None: break;
          }
          break;
        }
        // Integer min/max/clamp builtins stay calls until code generation,
        // so ScalarEvolution sees them as opaque; clamped neighbour indices
        // (`in[max(y - 1, 0) * w + x]`) would then be unknown. Their values
        // are smin/smax/umin/umax of the operands (clamp(x, lo, hi) is
        // min(max(x, lo), hi) by the OpenCL spec), which ScalarEvolution
        // folds and the evaluator bounds tightly.
        if (const SCEV *MM = minMaxBuiltin(*CI)) {
          int32_t k = conv(MM, why);
          if (k < 0) return -1;
          r = k;
          break;
        }
      }
      if (auto *Sel = dyn_cast<SelectInst>(V)) {
        int32_t k = selectMinMax(*Sel);
        if (k >= 0) { r = k; break; }
      }
      // A phi (not a loop header) or select whose incoming values are the
      // same expression (e.g. after code sinking merged two identical
      // stores) is that expression.
      if (isa<PHINode>(V) || isa<SelectInst>(V)) {
        auto *I = cast<Instruction>(V);
        bool header = false;
        if (auto *P = dyn_cast<PHINode>(V))
          if (const Loop *L = LI.getLoopFor(P->getParent())) header = L->getHeader() == P->getParent();
        if (!header && depth < 8) {
          std::vector<Value *> ins;
          if (auto *P = dyn_cast<PHINode>(I)) ins.assign(P->incoming_values().begin(), P->incoming_values().end());
          else ins = {cast<SelectInst>(I)->getTrueValue(), cast<SelectInst>(I)->getFalseValue()};
          int32_t same = -1;
          bool ok = !ins.empty();
          ++depth;
          for (Value *In : ins) {
            if (!SE.isSCEVable(In->getType())) { ok = false; break; }
            std::string w;
            int32_t n = conv(SE.getSCEV(In), w);
            if (n < 0 || (same >= 0 && n != same)) { ok = false; break; }
            same = n;
          }
          --depth;
          if (ok && same >= 0) { r = same; break; }
        }
      }
      if (isa<LoadInst>(V)) why = "data-dependent index (loaded value)";
      else if (auto *I = dyn_cast<Instruction>(V))
        why = std::string("index depends on '") + I->getOpcodeName() + "'";
      else why = "index not analyzable";
      return -1;
    }
    default:
      why = "unsupported expression";
      return -1;
  }
  memo[S] = r;
  return r;
}

namespace {
// Bounds on an access offset implied by the branch conditions that dominate
// the access: with `if (X < Y)` and offset = a*X + D (a constant), the access
// only runs with offset <= a*(Y-1) + D (a > 0; a lower bound for a < 0).
// D may contain anything (it is defined as offset - a*X), so the bound holds
// pointwise and its interval maximum over a box is sound.
struct GuardCollector {
  ScalarEvolution &SE;
  ScevToExpr &C;
  const SCEV *Off;
  uint32_t off;  // Expr node of Off
  uint64_t size;
  std::vector<uint32_t> his, los;
  struct Gid { uint8_t dim, upper; uint32_t bound; int32_t expr; };
  std::vector<Gid> gids;

  // X = s*E + rest (s = +-1, rest free of variables): the comparison X <= B
  // (less) or X >= B bounds E.
  bool exprBound(uint32_t ex, uint32_t E, uint32_t B, bool less, uint8_t dim) {
    ExprData &D = C.data();
    const unsigned W = D.nodes[ex].width;
    for (int s : {1, -1}) {
      uint32_t rest = D.nary(Op::Add, {ex, D.nary(Op::Mul, {D.cst(-s, W), E}, W)}, W);
      if (!D.polyVarAtoms(rest).empty()) continue;
      // s=+1: E = X - rest; s=-1: E = rest - X
      uint32_t bound = s > 0 ? D.nary(Op::Add, {B, D.nary(Op::Mul, {D.cst(-1, W), rest}, W)}, W)
                             : D.nary(Op::Add, {rest, D.nary(Op::Mul, {D.cst(-1, W), B}, W)}, W);
      gids.push_back({dim, (uint8_t)((s > 0) == less), bound, dim == kGuardExpr ? (int32_t)E : -1});
      return true;
    }
    return false;
  }

  // X = s*get_global_id(d) + rest: the comparison bounds the global id
  // itself, which the evaluator uses for every expression of the access (its
  // offset, its fit checks, min/max operands), not just for offsets linear in
  // X with a constant factor. Otherwise X = s*recurrence + rest bounds the
  // recurrence's value as a whole (the loop's own exit test, or a test in its
  // body), which its start and iteration count bound separately only loosely.
  void gidBound(uint32_t ex, const SCEV *EX, const SCEV *SX, uint32_t B, bool less,
                const std::vector<uint32_t> &vx) {
    ExprData &D = C.data();
    for (uint32_t a : vx) {
      const Node &n = D.nodes[a];
      if (n.op != Op::Sym || n.sym != (uint8_t)Sym::LocalId || n.idx >= 3) continue;
      unsigned d = n.idx, w = n.width;
      // built exactly as the get_global_id(d) conversion builds it
      uint32_t gid = D.nary(Op::Add, {D.nary(Op::Mul, {D.sym(Sym::GroupId, d, w), D.sym(Sym::EnqLocalSize, d, w)}, w),
                                      a, D.sym(Sym::GlobalOffset, d, w)}, w);
      if (exprBound(ex, gid, B, less, (uint8_t)d)) return;
    }
    // the extended operand first (ScalarEvolution may have moved the
    // extension into the recurrence: sext{s,+,1} = {sext s,+,1}), else the
    // compared value's own recurrence under its casts
    for (const SCEV *S : {EX, SX}) {
      while (auto *Cast = dyn_cast<SCEVCastExpr>(S)) S = Cast->getOperand();
      if (auto *AR = dyn_cast<SCEVAddRecExpr>(S)) {
        std::string why;
        int32_t E = C.convert(AR, why);
        if (E >= 0 && exprBound(ex, (uint32_t)E, B, less, kGuardExpr)) return;
      }
    }
  }
  void cmp(ICmpInst::Predicate P, Value *X, Value *Y) {
    if (!X->getType()->isIntegerTy() || !Y->getType()->isIntegerTy()) return;
    if (P == ICmpInst::ICMP_EQ || P == ICmpInst::ICMP_NE) return;
    bool sgn = ICmpInst::isSigned(P);
    Type *T = Off->getType();
    if (SE.getTypeSizeInBits(X->getType()) > SE.getTypeSizeInBits(T)) return;
    const SCEV *SX = SE.getSCEV(X), *SY = SE.getSCEV(Y);
    const SCEV *EX = sgn ? SE.getSignExtendExpr(SX, T) : SE.getZeroExtendExpr(SX, T);
    const SCEV *EY = sgn ? SE.getSignExtendExpr(SY, T) : SE.getZeroExtendExpr(SY, T);
    bool less = P == ICmpInst::ICMP_SLT || P == ICmpInst::ICMP_ULT || P == ICmpInst::ICMP_SLE ||
                P == ICmpInst::ICMP_ULE;
    bool strict = P == ICmpInst::ICMP_SLT || P == ICmpInst::ICMP_ULT || P == ICmpInst::ICMP_SGT ||
                  P == ICmpInst::ICMP_UGT;
    std::string why;
    int32_t ex = C.convert(EX, why), ey = C.convert(EY, why);
    if (ex < 0 || ey < 0) return;
    ExprData &D = C.data();
    // The comparison is of machine values; the bounds below use the
    // polynomials' values. A widening cast of the predicate's signedness
    // adds the fit checks that make them equal: without it an operand of the
    // offset's own width (size_t `x - 4 >= n`) could wrap unnoticed.
    ex = (int32_t)D.cast(sgn ? Op::SExt : Op::ZExt, (uint32_t)ex, 128);
    ey = (int32_t)D.cast(sgn ? Op::SExt : Op::ZExt, (uint32_t)ey, 128);
    const unsigned W = D.nodes[off].width;
    std::vector<uint32_t> vx = D.polyVarAtoms((uint32_t)ex);
    if (vx.empty()) return;  // X must be the varying side
    // bound on X: X <= Y-1 / X <= Y (less), X >= Y+1 / X >= Y (greater)
    uint32_t B = strict ? D.nary(Op::Add, {(uint32_t)ey, D.cst(less ? -1 : 1, W)}, W) : (uint32_t)ey;
    gidBound((uint32_t)ex, EX, SX, B, less, vx);
    int64_t cands[] = {(int64_t)size, 1, 2, 4, 8, 16, 32, 64, -(int64_t)size, -1, -2, -4, -8, -16};
    for (int64_t a : cands) {
      if (a == 0) continue;
      // offset = a*X + d with d = offset - a*X; the polynomial form cancels X
      // inside casts too (the casts' fit checks travel with the bound)
      uint32_t d = D.nary(Op::Add, {off, D.nary(Op::Mul, {D.cst(-a, W), (uint32_t)ex}, W)}, W);
      std::vector<uint32_t> vd = D.polyVarAtoms(d), both;
      std::set_intersection(vx.begin(), vx.end(), vd.begin(), vd.end(), std::back_inserter(both));
      if (!both.empty()) continue;
      uint32_t bound = D.nary(Op::Add, {D.nary(Op::Mul, {D.cst(a, W), B}, W), d}, W);
      // a > 0 keeps the direction of the comparison, a < 0 flips it
      if ((a > 0) == less) his.push_back(bound);
      else los.push_back(bound);
      return;
    }
  }

  // A 3-D boundary test (`x < R || x >= dx - R || y < R || ... || z >= dz - R`)
  // becomes a chain of six selects and ands: follow chains that deep, within
  // a budget of visited values per access.
  unsigned budget = 256;
  void cond(Value *V, bool holds, int depth = 0) {
    if (depth > 16 || budget == 0) return;
    --budget;
    if (auto *BO = dyn_cast<BinaryOperator>(V)) {
      if ((BO->getOpcode() == Instruction::And && holds) || (BO->getOpcode() == Instruction::Or && !holds)) {
        cond(BO->getOperand(0), holds, depth + 1);
        cond(BO->getOperand(1), holds, depth + 1);
      }
      return;
    }
    if (auto *Sel = dyn_cast<SelectInst>(V)) {  // logical and/or
      auto *FV = dyn_cast<ConstantInt>(Sel->getFalseValue());
      auto *TV = dyn_cast<ConstantInt>(Sel->getTrueValue());
      if (holds && FV && FV->isZero()) {
        cond(Sel->getCondition(), true, depth + 1);
        cond(Sel->getTrueValue(), true, depth + 1);
      } else if (!holds && TV && TV->isOne()) {
        cond(Sel->getCondition(), false, depth + 1);
        cond(Sel->getFalseValue(), false, depth + 1);
      }
      return;
    }
    auto *Cmp = dyn_cast<ICmpInst>(V);
    if (!Cmp) return;
    ICmpInst::Predicate P = holds ? Cmp->getPredicate() : Cmp->getInversePredicate();
    cmp(P, Cmp->getOperand(0), Cmp->getOperand(1));
    cmp(ICmpInst::getSwappedPredicate(P), Cmp->getOperand(1), Cmp->getOperand(0));
  }

  void collect(BasicBlock *BB, DominatorTree &DT) {
    DomTreeNode *N = DT.getNode(BB);
    for (; N; N = N->getIDom()) {
      BasicBlock *D = N->getBlock();
      auto *Br = dyn_cast<BranchInst>(D->getTerminator());
      if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1)) continue;
      if (D != BB && DT.dominates(BasicBlockEdge(D, Br->getSuccessor(0)), BB)) cond(Br->getCondition(), true);
      else if (D != BB && DT.dominates(BasicBlockEdge(D, Br->getSuccessor(1)), BB)) cond(Br->getCondition(), false);
    }
  }
};
}  // namespace

IndexRangeResult IndexRangeAnalysis::run(Function &F, FunctionAnalysisManager &FAM) {
  IndexRangeResult R;
  auto &AA = FAM.getResult<ArgAccessAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  R.exprs = std::make_shared<ExprData>();
  R.conv = std::make_shared<ScevToExpr>(F, SE, LI, *R.exprs);
  for (Argument &A : F.args()) R.argNames.push_back(A.getName().str());
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  for (const AccessRec &a : AA.accesses) {
    std::string why;
    int32_t node = -1;
    int32_t clampLo = -1, clampHi = -1;
    size_t gidText = 0;
    if (a.unknownObject) why = "pointer of unknown origin";
    else if (a.args.size() > 1) why = "pointer may point into several arguments";
    else if (a.size == 0) why = a.sizeVal ? "variable access size" : "access size unknown (builtin)";
    else if (a.arg >= 0) {
      const SCEV *S = SE.getSCEV(a.ptr);
      const SCEV *Base = SE.getPointerBase(S);
      const SCEV *ArgS = SE.getSCEV(F.getArg(a.arg));
      if (Base != ArgS) {
        why = "address not a computable offset from the argument";
      } else {
        const SCEV *Off = SE.removePointerBase(S);
        if (isa<SCEVCouldNotCompute>(Off)) why = "offset not computable";
        else node = R.conv->convert(Off, why);
        if (node >= 0) {
          GuardCollector G{SE, *R.conv, Off, (uint32_t)node, a.size, {}, {}, {}};
          G.collect(a.inst->getParent(), DT);
          ExprData &D = *R.exprs;
          if (!G.his.empty()) clampHi = (int32_t)D.nary(Op::SMin, G.his, 64);
          if (!G.los.empty()) clampLo = (int32_t)D.nary(Op::SMax, G.los, 64);
          // node >= 0 means exactly one argument: the access pushed below
          for (auto &g : G.gids)
            D.gid_guards.push_back({(uint32_t)D.accesses.size(), g.dim, g.upper, 0, (int32_t)g.bound, g.expr});
          gidText = G.gids.size();
        }
      }
    }
    for (unsigned arg : a.args) {
      Access acc;
      acc.arg = arg;
      acc.kind = a.kind;
      acc.size = (uint32_t)a.size;
      acc.offset = node;
      acc.clamp_lo = clampLo;
      acc.clamp_hi = clampHi;
      R.exprs->accesses.push_back(acc);
    }
    if (a.args.empty()) {
      Access acc;
      acc.arg = ~0u;
      acc.kind = a.kind;
      acc.offset = -1;
      R.exprs->accesses.push_back(acc);
    }
    std::string text = node >= 0 ? R.exprs->str(node, &R.argNames) : why;
    if (clampHi >= 0) text += "  [<= " + R.exprs->str(clampHi, &R.argNames) + "]";
    if (clampLo >= 0) text += "  [>= " + R.exprs->str(clampLo, &R.argNames) + "]";
    for (size_t g = R.exprs->gid_guards.size() - gidText; g < R.exprs->gid_guards.size(); ++g) {
      const GidGuard &gg = R.exprs->gid_guards[g];
      std::string what = gg.dim == kGuardExpr ? R.exprs->str(gg.expr, &R.argNames)
                                              : std::string("gid.") + "xyz"[gg.dim];
      text += "  [" + what + (gg.upper ? " <= " : " >= ") + R.exprs->str(gg.bound, &R.argNames) + "]";
    }
    R.siteText.push_back(text);
    // siteText is per access record; str() above may prepare polynomials early,
    // which ExprData supports incrementally.
  }
  return R;
}

namespace {
struct IndexRangePrinter : PassInfoMixin<IndexRangePrinter> {
  raw_ostream &OS;
  explicit IndexRangePrinter(raw_ostream &OS) : OS(OS) {}
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    if (!isKernel(F)) return PreservedAnalyses::all();
    auto &AA = FAM.getResult<ArgAccessAnalysis>(F);
    auto &R = FAM.getResult<IndexRangeAnalysis>(F);
    OS << "index-range '" << F.getName() << "'\n";
    for (size_t i = 0; i < AA.accesses.size(); ++i) {
      const AccessRec &a = AA.accesses[i];
      OS << "  " << (a.kind == 0 ? "load" : a.kind == 1 ? "store" : "atomic") << " ";
      if (a.arg >= 0) OS << "arg" << a.arg;
      else OS << "?";
      OS << " " << a.size << "B: " << R.siteText[i] << "\n";
    }
    const ExprData &D = *R.exprs;
    for (size_t l = 0; l < D.loop_btc.size(); ++l)
      OS << "  loop i" << l << ": trip count " << D.str(D.loop_trip[l], &R.argNames) << "\n";
    return PreservedAnalyses::all();
  }
};
}  // namespace

void registerIndexRange(PassBuilder &PB) {
  PB.registerAnalysisRegistrationCallback(
      [](FunctionAnalysisManager &FAM) { FAM.registerPass([] { return IndexRangeAnalysis(); }); });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<tutti-index-range>") {
          FPM.addPass(IndexRangePrinter(outs()));
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
