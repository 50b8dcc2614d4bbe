// Argument access analysis: for each __global/__constant pointer argument of a
// kernel, is it read, written (plain stores), updated atomically, or does it
// escape the analysis. Pointers are followed through local pointer variables
// (after SROA), casts, GEPs, phis and selects via getUnderlyingObjects; vector
// loads/stores are plain vector memory operations after tutti-lower-vload,
// helper functions are inlined beforehand (tutti-force-inline). Every access
// site is recorded for the index-range analysis.
//
//   analysis: tutti-arg-access          printer: print<tutti-arg-access>
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

AnalysisKey ArgAccessAnalysis::Key;

namespace {

std::string mdString(const Function &F, const char *kind, unsigned i) {
  MDNode *md = F.getMetadata(kind);
  if (!md || i >= md->getNumOperands()) return "";
  if (auto *s = dyn_cast_or_null<MDString>(md->getOperand(i).get())) return s->getString().str();
  return "";
}

int mdInt(const Function &F, const char *kind, unsigned i) {
  MDNode *md = F.getMetadata(kind);
  if (!md || i >= md->getNumOperands()) return -1;
  if (auto *c = dyn_cast_or_null<ConstantAsMetadata>(md->getOperand(i).get()))
    if (auto *ci = dyn_cast<ConstantInt>(c->getValue())) return (int)ci->getZExtValue();
  return -1;
}

ArgKind argKind(const Function &F, const Argument &A, const AddrSpaces &AS) {
  unsigned i = A.getArgNo();
  std::string ty = mdString(F, "kernel_arg_type", i);
  std::string q = mdString(F, "kernel_arg_type_qual", i);
  if (ty.find("image") != std::string::npos) return ArgKind::Image;
  if (ty.find("sampler_t") != std::string::npos) return ArgKind::Sampler;
  if (q.find("pipe") != std::string::npos) return ArgKind::Pipe;
  if (!A.getType()->isPointerTy()) return ArgKind::Scalar;
  if (A.hasByValAttr()) return ArgKind::Scalar;
  int mas = mdInt(F, "kernel_arg_addr_space", i);
  if (mas >= 0) {
    switch (mas) {
      case 1: return ArgKind::GlobalBuffer;
      case 2: return ArgKind::ConstantBuffer;
      case 3: return ArgKind::LocalBuffer;
      default: return ArgKind::Other;
    }
  }
  unsigned as = A.getType()->getPointerAddressSpace();
  if (as == AS.global) return ArgKind::GlobalBuffer;
  if (as == AS.constant) return ArgKind::ConstantBuffer;
  if (as == AS.local) return ArgKind::LocalBuffer;
  return ArgKind::Other;
}

bool isBufferKind(ArgKind k) { return k == ArgKind::GlobalBuffer || k == ArgKind::ConstantBuffer; }

struct Collector {
  Function &F;
  LoopInfo &LI;
  AddrSpaces AS;
  ArgAccessResult R;

  Collector(Function &F, LoopInfo &LI) : F(F), LI(LI), AS(AddrSpaces::of(*F.getParent())) {}

  // Resolve the objects behind P. Returns true if P may address global memory.
  bool resolve(Value *P, AccessRec &r, bool isWrite) {
    if (!P->getType()->isPointerTy()) return false;
    unsigned as = P->getType()->getPointerAddressSpace();
    if (as != AS.global && as != AS.constant && as != AS.generic) return false;
    SmallVector<const Value *, 4> objs;
    getUnderlyingObjects(P, objs, &LI, 0);
    bool globalish = false;
    for (const Value *o : objs) {
      if (auto *A = dyn_cast<Argument>(o)) {
        if (A->getParent() == &F && A->getArgNo() < R.args.size() &&
            isBufferKind(R.args[A->getArgNo()].kind)) {
          r.args.push_back(A->getArgNo());
          globalish = true;
        }
        continue;
      }
      if (isa<AllocaInst>(o) || isa<ConstantPointerNull>(o) || isa<UndefValue>(o)) continue;
      if (auto *GV = dyn_cast<GlobalVariable>(o)) {
        unsigned gas = GV->getAddressSpace();
        if (gas == AS.global || (gas == AS.generic && gas != AS.priv)) {
          if (isWrite) R.programGlobalWrites = true;
          globalish = true;
        }
        continue;
      }
      // loaded pointer, inttoptr, call result ...
      r.unknownObject = true;
      globalish = true;
    }
    std::sort(r.args.begin(), r.args.end());
    r.args.erase(std::unique(r.args.begin(), r.args.end()), r.args.end());
    if (r.args.size() == 1 && !r.unknownObject) r.arg = (int)r.args[0];
    return globalish;
  }

  void add(Instruction *I, Value *P, uint8_t kind, uint64_t size, Value *sizeVal = nullptr) {
    AccessRec r;
    r.inst = I;
    r.ptr = P;
    r.kind = kind;
    r.size = size;
    r.sizeVal = sizeVal;
    if (!resolve(P, r, kind != 0)) return;
    if (r.args.empty() && !r.unknownObject) return;  // program globals only
    R.accesses.push_back(std::move(r));
  }

  uint64_t storeSize(Type *T) {
    return F.getParent()->getDataLayout().getTypeStoreSize(T).getFixedSize();
  }

  void visitCall(CallBase &CB) {
    if (auto *II = dyn_cast<IntrinsicInst>(&CB)) {
      if (auto *MI = dyn_cast<MemIntrinsic>(II)) {
        auto *len = dyn_cast<ConstantInt>(MI->getLength());
        uint64_t n = len ? len->getZExtValue() : 0;
        add(&CB, MI->getRawDest(), 1, n, len ? nullptr : MI->getLength());
        if (auto *MT = dyn_cast<MemTransferInst>(MI))
          add(&CB, MT->getRawSource(), 0, n, len ? nullptr : MT->getLength());
        return;
      }
      if (II->isAssumeLikeIntrinsic() || II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II))
        return;
      if (II->getIntrinsicID() == Intrinsic::prefetch) return;
      // any other intrinsic touching a global pointer: conservative
      for (Value *op : CB.args())
        if (op->getType()->isPointerTy()) {
          add(&CB, op, 0, 0);
          add(&CB, op, 1, 0);
        }
      return;
    }
    std::string name = calleeName(CB);
    Demangled d = demangle(name);
    if (workItemFn(d.name) != WI::None) return;
    AtomicOp aop = atomicOp(d.name);
    if (aop != AtomicOp::None && CB.arg_size() > 0) {
      AccessRec r;
      r.inst = &CB;
      r.ptr = CB.getArgOperand(0);
      r.kind = 2;
      r.aop = aop;
      r.atomicType = firstPointeeType(d.params);
      r.size = typeBytes(r.atomicType);
      if (!r.size && !CB.getType()->isVoidTy()) r.size = storeSize(CB.getType());
      r.atomicResultUsed = !CB.use_empty();
      if (resolve(r.ptr, r, true) && (!r.args.empty() || r.unknownObject))
        R.accesses.push_back(std::move(r));
      // other pointer operands (e.g. `expected` of compare_exchange)
      for (unsigned i = 1; i < CB.arg_size(); ++i)
        if (CB.getArgOperand(i)->getType()->isPointerTy()) {
          add(&CB, CB.getArgOperand(i), 0, 0);
          add(&CB, CB.getArgOperand(i), 1, 0);
        }
      return;
    }
    switch (otherBuiltin(d.name)) {
      case Other::Barrier: case Other::MemFence: case Other::Printf: case Other::Prefetch:
      case Other::ImageRead: case Other::ImageWrite: case Other::ImageQuery:
      case Other::WaitEvents: case Other::SubGroup: case Other::WorkGroupCollective:
        return;
      case Other::VLoad: case Other::VLoadHalf:
        if (CB.arg_size()) add(&CB, CB.getArgOperand(CB.arg_size() - 1), 0, 0);
        return;
      case Other::VStore: case Other::VStoreHalf:
        if (CB.arg_size()) add(&CB, CB.getArgOperand(CB.arg_size() - 1), 1, 0);
        return;
      case Other::AsyncCopy:
        if (CB.arg_size() >= 2) {
          add(&CB, CB.getArgOperand(0), 1, 0);
          add(&CB, CB.getArgOperand(1), 0, 0);
        }
        return;
      default: break;
    }
    // Anything else: every global pointer operand may be read and written.
    for (Value *op : CB.args())
      if (op->getType()->isPointerTy()) {
        add(&CB, op, 0, 0);
        add(&CB, op, 1, 0);
      }
  }

  // Does the pointer argument escape the analysis?
  void escapes(Argument &A, ArgSummary &S) {
    SmallVector<Value *, 16> work{&A};
    SmallPtrSet<Value *, 32> seen;
    while (!work.empty()) {
      Value *V = work.pop_back_val();
      if (!seen.insert(V).second) continue;
      for (User *U : V->users()) {
        auto *I = dyn_cast<Instruction>(U);
        if (!I) { S.escapes = true; S.escapeReason = "used by a constant expression"; return; }
        if (isa<GetElementPtrInst>(I) || isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I) ||
            isa<PHINode>(I) || isa<SelectInst>(I)) {
          if (auto *Sel = dyn_cast<SelectInst>(I))
            if (Sel->getCondition() == V) continue;
          work.push_back(I);
          continue;
        }
        if (isa<LoadInst>(I) || isa<ICmpInst>(I)) continue;
        if (auto *St = dyn_cast<StoreInst>(I)) {
          if (St->getValueOperand() == V) {
            S.escapes = true;
            S.escapeReason = "pointer stored to memory";
            return;
          }
          continue;
        }
        if (auto *RMW = dyn_cast<AtomicRMWInst>(I)) {
          if (RMW->getValOperand() == V) { S.escapes = true; S.escapeReason = "pointer used as atomic value"; return; }
          continue;
        }
        if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I)) {
          if (CX->getPointerOperand() != V) { S.escapes = true; S.escapeReason = "pointer used as cmpxchg value"; return; }
          continue;
        }
        if (auto *CB = dyn_cast<CallBase>(I)) {
          Function *Callee = CB->getCalledFunction();
          if (Callee && Callee->isDeclaration()) continue;  // builtin/intrinsic: modelled as accesses
          S.escapes = true;
          S.escapeReason = "passed to a function that was not inlined";
          return;
        }
        S.escapes = true;
        S.escapeReason = std::string("used by '") + I->getOpcodeName() + "'";
        return;
      }
    }
  }

  void run() {
    R.args.resize(F.arg_size());
    for (Argument &A : F.args()) {
      ArgSummary &S = R.args[A.getArgNo()];
      S.kind = argKind(F, A, AS);
      if (A.getType()->isPointerTy()) S.addrSpace = A.getType()->getPointerAddressSpace();
    }
    for (Instruction &I : instructions(F)) {
      if (auto *L = dyn_cast<LoadInst>(&I)) {
        add(&I, L->getPointerOperand(), 0, storeSize(L->getType()));
      } else if (auto *S = dyn_cast<StoreInst>(&I)) {
        add(&I, S->getPointerOperand(), 1, storeSize(S->getValueOperand()->getType()));
      } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
        AccessRec r;
        r.inst = &I;
        r.ptr = RMW->getPointerOperand();
        r.kind = 2;
        r.size = storeSize(RMW->getValOperand()->getType());
        bool isInt = RMW->getValOperand()->getType()->isIntegerTy();
        switch (RMW->getOperation()) {
          case AtomicRMWInst::Add: r.aop = AtomicOp::Add; break;
          case AtomicRMWInst::Sub: r.aop = AtomicOp::Sub; break;
          case AtomicRMWInst::And: r.aop = AtomicOp::And; break;
          case AtomicRMWInst::Or: r.aop = AtomicOp::Or; break;
          case AtomicRMWInst::Xor: r.aop = AtomicOp::Xor; break;
          case AtomicRMWInst::Max: r.aop = AtomicOp::Max; r.atomicType = r.size == 8 ? 'l' : 'i'; break;
          case AtomicRMWInst::Min: r.aop = AtomicOp::Min; r.atomicType = r.size == 8 ? 'l' : 'i'; break;
          case AtomicRMWInst::UMax: r.aop = AtomicOp::Max; r.atomicType = r.size == 8 ? 'm' : 'j'; break;
          case AtomicRMWInst::UMin: r.aop = AtomicOp::Min; r.atomicType = r.size == 8 ? 'm' : 'j'; break;
          case AtomicRMWInst::Xchg: r.aop = AtomicOp::Xchg; break;
          default: r.aop = AtomicOp::Other; break;
        }
        if (!r.atomicType) r.atomicType = isInt ? (r.size == 8 ? 'm' : r.size == 4 ? 'j' : 'h') : 'f';
        r.atomicResultUsed = !I.use_empty();
        if (resolve(r.ptr, r, true) && (!r.args.empty() || r.unknownObject))
          R.accesses.push_back(std::move(r));
      } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
        AccessRec r;
        r.inst = &I;
        r.ptr = CX->getPointerOperand();
        r.kind = 2;
        r.aop = AtomicOp::CmpXchg;
        r.size = storeSize(CX->getCompareOperand()->getType());
        r.atomicResultUsed = true;
        if (resolve(r.ptr, r, true) && (!r.args.empty() || r.unknownObject))
          R.accesses.push_back(std::move(r));
      } else if (auto *CB = dyn_cast<CallBase>(&I)) {
        visitCall(*CB);
      }
    }
    for (AccessRec &a : R.accesses) {
      if (a.unknownObject) {
        R.unknownGlobalAccess = true;
        if (a.kind != 0) R.notes.push_back("global memory written through a pointer of unknown origin");
      }
      for (unsigned i : a.args) {
        ArgSummary &S = R.args[i];
        if (a.kind == 0) S.read = true;
        else if (a.kind == 1) S.written = true;
        else {
          S.atomic = true;
          S.aops.insert(a.aop);
          if (a.atomicType) S.atomicTypes.insert(a.atomicType);
          if (a.atomicResultUsed) S.atomicResultUsed = true;
        }
      }
    }
    for (Argument &A : F.args()) {
      ArgSummary &S = R.args[A.getArgNo()];
      if (!isBufferKind(S.kind)) continue;
      escapes(A, S);
      if (S.escapes) {
        S.read = S.written = true;
        R.notes.push_back("arg " + std::to_string(A.getArgNo()) + " escapes: " + S.escapeReason);
      }
      if (S.kind == ArgKind::ConstantBuffer && S.written) S.written = true;  // UB, keep as is
    }
  }
};

}  // namespace

ArgAccessResult ArgAccessAnalysis::run(Function &F, FunctionAnalysisManager &FAM) {
  Collector c(F, FAM.getResult<LoopAnalysis>(F));
  c.run();
  return std::move(c.R);
}

namespace {
struct ArgAccessPrinter : PassInfoMixin<ArgAccessPrinter> {
  raw_ostream &OS;
  explicit ArgAccessPrinter(raw_ostream &OS) : OS(OS) {}
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    if (!isKernel(F)) return PreservedAnalyses::all();
    auto &R = FAM.getResult<ArgAccessAnalysis>(F);
    OS << "arg-access '" << F.getName() << "'\n";
    static const char *kinds[] = {"scalar", "global", "constant", "local", "image", "sampler", "pipe", "other"};
    for (unsigned i = 0; i < R.args.size(); ++i) {
      const ArgSummary &S = R.args[i];
      OS << "  arg " << i << " " << F.getArg(i)->getName() << ": " << kinds[(int)S.kind];
      if (isBufferKind(S.kind)) {
        std::string acc;
        if (S.read) acc += "R";
        if (S.written) acc += "W";
        if (S.atomic) acc += "A";
        OS << " " << (acc.empty() ? "-" : acc);
        if (S.atomic) {
          OS << " ops=";
          bool first = true;
          for (AtomicOp op : S.aops) {
            OS << (first ? "" : ",") << atomicOpName(op);
            first = false;
          }
          if (S.atomicResultUsed) OS << " result-used";
        }
        if (S.escapes) OS << " escapes(" << S.escapeReason << ")";
      }
      OS << "\n";
    }
    if (R.unknownGlobalAccess) OS << "  unknown-global-access\n";
    if (R.programGlobalWrites) OS << "  program-global-writes\n";
    return PreservedAnalyses::all();
  }
};
}  // namespace

void registerArgAccess(PassBuilder &PB) {
  PB.registerAnalysisRegistrationCallback(
      [](FunctionAnalysisManager &FAM) { FAM.registerPass([] { return ArgAccessAnalysis(); }); });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<tutti-arg-access>") {
          FPM.addPass(ArgAccessPrinter(outs()));
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
