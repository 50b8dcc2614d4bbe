// Static cost function (thesis §5.3, Table 5.1): loop trip counts as
// expressions over scalar arguments and NDRange sizes (ScalarEvolution's
// symbolic maximum backedge-taken count + 1), combined into
//   f(x) = sum over blocks B of  insts(B) * prod_{loops L containing B} trip(L)
// i.e. an estimate of the dynamic instructions per work-item. The runtime's
// time model is  y = b1 * T * f(x) + b2 * T + e  (Equation 5.3).
//
//   analysis: tutti-cost                printer: print<tutti-cost>
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Support/raw_ostream.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

AnalysisKey StaticCostAnalysis::Key;

namespace {
unsigned countInsts(const BasicBlock &BB) {
  unsigned n = 0;
  for (const Instruction &I : BB)
    if (!isa<PHINode>(I) && !I.isDebugOrPseudoInst()) ++n;
  return n;
}
}  // namespace

CostResult StaticCostAnalysis::run(Function &F, FunctionAnalysisManager &FAM) {
  CostResult R;
  auto &IR = FAM.getResult<IndexRangeAnalysis>(F);
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  ExprData &D = *IR.exprs;
  ScevToExpr &C = *IR.conv;
  const unsigned W = 64;
  bool known = true;
  std::string why;

  // trip count node of each loop (64-bit)
  std::function<int32_t(const Loop *)> trip = [&](const Loop *L) -> int32_t {
    std::string w;
    int32_t id = C.loopId(L, w);
    if (D.loop_trip[id] < 0) {
      if (why.empty()) why = w.empty() ? "trip count unknown" : w;
      return -1;
    }
    uint32_t t = (uint32_t)D.loop_trip[id];
    if (D.nodes[t].width != W) t = D.cast(D.nodes[t].width < W ? Op::ZExt : Op::Trunc, t, W);
    return (int32_t)t;
  };

  // g(L) = insts directly in L + sum_{S in subloops} trip(S) * g(S)
  std::function<int32_t(const Loop *)> body = [&](const Loop *L) -> int32_t {
    unsigned direct = 0;
    for (const BasicBlock *BB : L->blocks())
      if (LI.getLoopFor(BB) == L) direct += countInsts(*BB);
    std::vector<uint32_t> terms{D.cst(direct, W)};
    for (const Loop *S : L->getSubLoops()) {
      int32_t t = trip(S), g = body(S);
      if (t < 0 || g < 0) { known = false; continue; }
      terms.push_back(D.nary(Op::Mul, {(uint32_t)t, (uint32_t)g}, W));
    }
    return (int32_t)D.nary(Op::Add, terms, W);
  };

  unsigned top = 0;
  for (const BasicBlock &BB : F)
    if (!LI.getLoopFor(&BB)) top += countInsts(BB);
  std::vector<uint32_t> terms{D.cst(top, W)};
  for (const Loop *L : LI) {
    int32_t t = trip(L), g = body(L);
    if (t < 0 || g < 0) { known = false; continue; }
    terms.push_back(D.nary(Op::Mul, {(uint32_t)t, (uint32_t)g}, W));
  }
  int32_t f = (int32_t)D.nary(Op::Add, terms, W);
  R.known = known;
  R.why = why;
  if (known) {
    D.cost = f;
    R.text = D.str(f, &IR.argNames);
  }
  std::string tc;
  for (const Loop *L : LI.getLoopsInPreorder()) {
    std::string w;
    int32_t id = C.loopId(L, w);
    if (!tc.empty()) tc += "; ";
    tc += "loop " + L->getHeader()->getName().str() + " (depth " +
          std::to_string(L->getLoopDepth()) + "): " +
          (D.loop_trip[id] >= 0 ? D.str(D.loop_trip[id], &IR.argNames) : "unknown");
  }
  R.tripCounts = tc;
  return R;
}

namespace {
struct CostPrinter : PassInfoMixin<CostPrinter> {
  raw_ostream &OS;
  explicit CostPrinter(raw_ostream &OS) : OS(OS) {}
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    if (!isKernel(F)) return PreservedAnalyses::all();
    auto &R = FAM.getResult<StaticCostAnalysis>(F);
    OS << "cost '" << F.getName() << "': f(x) = " << (R.known ? R.text : "unknown (" + R.why + ")")
       << "\n";
    if (!R.tripCounts.empty()) OS << "  " << R.tripCounts << "\n";
    return PreservedAnalyses::all();
  }
};
}  // namespace

void registerStaticCost(PassBuilder &PB) {
  PB.registerAnalysisRegistrationCallback(
      [](FunctionAnalysisManager &FAM) { FAM.registerPass([] { return StaticCostAnalysis(); }); });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<tutti-cost>") {
          FPM.addPass(CostPrinter(outs()));
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
