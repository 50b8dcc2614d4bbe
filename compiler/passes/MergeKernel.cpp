// Merge kernel (thesis Fig. 3.6) for discontiguous kernels.
//
// From K__tutti_pr we build K__tutti_merge, taking in addition one pointer per
// output argument (arguments written with plain stores): the other device's
// partial output. Every store to an output is kept, but its value is replaced
// by a load of the partial output at the same byte offset; atomics on
// combine-rule arguments and printf are removed; then dead code elimination
// (ADCE, loop deletion; the kernel is marked mustprogress since the original
// terminated), dead __local stores and, when no __local memory is left,
// barriers are removed. What remains is index arithmetic, loads from read-only
// inputs that decide addresses, and the copies. The merge kernel is launched
// over the other device's flattened group range with the partition-ready ABI.
// It is rejected (no merge kernel) if it would still read an output argument.
//
//   module pass: tutti-merge-kernel
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Scalar/ADCE.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LoopDeletion.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

AtomicCombine combineRule(const ArgSummary &S, std::string *why);  // KernelInfo.cpp

namespace {

Value *castToAS(IRBuilder<> &B, Value *P, unsigned as) {
  auto *PT = cast<PointerType>(P->getType());
  if (PT->getAddressSpace() == as) return P;
  return B.CreateAddrSpaceCast(P, PointerType::getWithSamePointeeType(PT, as));
}

// Address in `partial` at the same byte offset from `arg` as `ptr`.
Value *mapPtr(IRBuilder<> &B, Value *ptr, Value *arg, Value *partial) {
  unsigned as = ptr->getType()->getPointerAddressSpace();
  Type *I64 = B.getInt64Ty();
  Value *a = castToAS(B, arg, as);
  Value *off = B.CreateSub(B.CreatePtrToInt(ptr, I64), B.CreatePtrToInt(a, I64), "tutti.off");
  Value *p = castToAS(B, partial, as);
  Value *p8 = B.CreateBitCast(p, B.getInt8PtrTy(as));
  Value *g = B.CreateGEP(B.getInt8Ty(), p8, off, "tutti.partial");
  return B.CreateBitCast(g, ptr->getType());
}

void cleanup(Function &F, FunctionAnalysisManager &FAM) {
  FAM.invalidate(F, PreservedAnalyses::none());
  FunctionPassManager FPM;
  FPM.addPass(SROAPass());
  FPM.addPass(EarlyCSEPass());
  FPM.addPass(InstCombinePass());
  FPM.addPass(ADCEPass());
  FPM.addPass(SimplifyCFGPass());
  FPM.addPass(createFunctionToLoopPassAdaptor(LoopDeletionPass()));
  FPM.addPass(ADCEPass());
  FPM.addPass(SimplifyCFGPass());
  FPM.run(F, FAM);
  FAM.invalidate(F, PreservedAnalyses::none());
}

// Local object (a __local variable or argument) behind P, or null.
Value *localObject(Value *P, const AddrSpaces &AS) {
  if (!P->getType()->isPointerTy() || P->getType()->getPointerAddressSpace() != AS.local) return nullptr;
  Value *O = getUnderlyingObject(P, 0);
  if (isa<GlobalVariable>(O) || isa<Argument>(O)) return O;
  return nullptr;
}

// Mark-sweep over __local memory: a store into a __local object is live only
// if some live instruction loads from that object. Roots are all other side
// effects (global stores, barriers' neighbours aside) and terminators. Dead
// stores into __local objects are erased; returns true if any __local access
// remains live.
bool cleanLocal(Function &F, const AddrSpaces &AS, bool &changed) {
  auto localWrite = [&](Instruction *I) -> Value * {
    if (auto *S = dyn_cast<StoreInst>(I)) return localObject(S->getPointerOperand(), AS);
    if (auto *MS = dyn_cast<MemSetInst>(I)) return localObject(MS->getRawDest(), AS);
    if (auto *MT = dyn_cast<MemTransferInst>(I)) return localObject(MT->getRawDest(), AS);
    if ((isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) && I->use_empty())
      return localObject(getLoadStorePointerOperand(I) ? getLoadStorePointerOperand(I)
                                                       : I->getOperand(0), AS);
    if (auto *CB = dyn_cast<CallBase>(I)) {
      if (isa<IntrinsicInst>(CB)) return nullptr;
      AtomicOp op = atomicOp(demangle(calleeName(*CB)).name);
      if (op != AtomicOp::None && op != AtomicOp::Load && CB->use_empty() && CB->arg_size())
        return localObject(CB->getArgOperand(0), AS);
    }
    return nullptr;
  };
  auto localRead = [&](Instruction *I) -> Value * {
    if (auto *L = dyn_cast<LoadInst>(I)) return localObject(L->getPointerOperand(), AS);
    if (auto *MT = dyn_cast<MemTransferInst>(I)) return localObject(MT->getRawSource(), AS);
    if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) return localObject(I->getOperand(0), AS);
    if (auto *CB = dyn_cast<CallBase>(I)) {
      if (auto *II = dyn_cast<IntrinsicInst>(CB))
        if (II->isLifetimeStartOrEnd() || II->isAssumeLikeIntrinsic()) return nullptr;
      for (Value *A : CB->args())
        if (Value *O = localObject(A, AS)) return O;
    }
    return nullptr;
  };
  std::set<Value *> liveObjs;
  SmallPtrSet<Instruction *, 32> live;
  SmallVector<Instruction *, 64> work;
  auto mark = [&](Instruction *I) {
    if (live.insert(I).second) work.push_back(I);
  };
  std::map<Value *, std::vector<Instruction *>> writers;
  for (Instruction &I : instructions(F)) {
    if (Value *O = localWrite(&I)) {
      writers[O].push_back(&I);
      continue;
    }
    if (I.isTerminator() || I.mayHaveSideEffects()) mark(&I);
  }
  while (!work.empty()) {
    Instruction *I = work.pop_back_val();
    if (Value *O = localRead(I))
      if (liveObjs.insert(O).second)
        for (Instruction *W : writers[O]) mark(W);
    if (Value *O = localWrite(I)) liveObjs.insert(O);
    for (Value *Op : I->operands())
      if (auto *OI = dyn_cast<Instruction>(Op)) mark(OI);
  }
  for (auto &[O, ws] : writers)
    for (Instruction *W : ws)
      if (!live.count(W)) {
        W->eraseFromParent();
        changed = true;
      }
  return !liveObjs.empty();
}

struct Merger {
  Module &M;
  FunctionAnalysisManager &FAM;
  AddrSpaces AS;

  bool build(Function &P, MergeOutcome &out) {
    auto fail = [&](const std::string &s) {
      out.ok = false;
      out.reason = s;
      return false;
    };
    auto &AA = FAM.getResult<ArgAccessAnalysis>(P);
    unsigned n = origArgCount(P);
    if (AA.unknownGlobalAccess) return fail("global memory accessed through an unknown pointer");
    std::vector<unsigned> outputs;
    std::set<unsigned> combineArgs;
    for (unsigned i = 0; i < n && i < AA.args.size(); ++i) {
      const ArgSummary &S = AA.args[i];
      if (S.escapes) return fail("argument " + std::to_string(i) + " escapes: " + S.escapeReason);
      if (S.atomic) {
        std::string why;
        if (combineRule(S, &why) == AtomicCombine::None) return fail(why);
        combineArgs.insert(i);
        continue;
      }
      if (S.written) outputs.push_back(i);
    }
    if (outputs.empty()) return fail("no argument written with plain stores");
    for (const AccessRec &a : AA.accesses)
      if (a.kind == 1 && a.args.size() > 1)
        for (unsigned x : a.args)
          if (std::find(outputs.begin(), outputs.end(), x) != outputs.end())
            return fail("a store may target several arguments");

    std::vector<ExtraParam> extra;
    MDNode *tyMD = P.getMetadata("kernel_arg_type");
    for (unsigned i : outputs) {
      std::string ty = "void*";
      if (tyMD && i < tyMD->getNumOperands())
        if (auto *s = dyn_cast<MDString>(tyMD->getOperand(i))) ty = s->getString().str();
      std::string nm = P.getArg(i)->getName().str();
      extra.push_back({P.getArg(i)->getType(), "__tutti_partial_" + (nm.empty() ? std::to_string(i) : nm),
                       ty, 1});
    }
    std::string kname = P.getName().str();
    kname = kname.substr(0, kname.size() - std::string("__tutti_pr").size());
    Function *MF = cloneKernelWithParams(P, kname + "__tutti_merge", extra);
    MF->addFnAttr("tutti-variant", "merge");
    std::map<unsigned, Value *> partial;
    for (size_t j = 0; j < outputs.size(); ++j) partial[outputs[j]] = MF->getArg(P.arg_size() + j);

    auto reject = [&](const std::string &s) {
      FAM.clear(*MF, MF->getName());
      MF->eraseFromParent();
      return fail(s);
    };

    auto &AA2 = FAM.getResult<ArgAccessAnalysis>(*MF);
    std::vector<AccessRec> recs = AA2.accesses;
    std::vector<Instruction *> toErase;
    for (const AccessRec &a : recs) {
      bool isOut = a.arg >= 0 && partial.count((unsigned)a.arg);
      if (a.kind == 1 && isOut) {
        Value *arg = MF->getArg(a.arg);
        IRBuilder<> B(a.inst);
        if (auto *S = dyn_cast<StoreInst>(a.inst)) {
          Value *np = mapPtr(B, S->getPointerOperand(), arg, partial[a.arg]);
          LoadInst *L = B.CreateAlignedLoad(S->getValueOperand()->getType(), np, S->getAlign(),
                                            "tutti.merged");
          S->setOperand(0, L);
        } else if (auto *MT = dyn_cast<MemTransferInst>(a.inst)) {
          if (MT->getRawDest() != a.ptr) continue;
          Value *np = mapPtr(B, MT->getRawDest(), arg, partial[a.arg]);
          B.CreateMemCpy(MT->getRawDest(), MT->getDestAlign(), np, MT->getDestAlign(), MT->getLength());
          toErase.push_back(MT);
        } else if (auto *MS = dyn_cast<MemSetInst>(a.inst)) {
          Value *np = mapPtr(B, MS->getRawDest(), arg, partial[a.arg]);
          B.CreateMemCpy(MS->getRawDest(), MS->getDestAlign(), np, MS->getDestAlign(), MS->getLength());
          toErase.push_back(MS);
        } else {
          return reject("unsupported write to output argument " + std::to_string(a.arg) +
                        " (builtin store)");
        }
      } else if (a.kind == 2) {
        if (a.arg >= 0 && combineArgs.count((unsigned)a.arg) && a.inst->use_empty())
          toErase.push_back(a.inst);
        else
          return reject("atomic that cannot be removed");
      }
    }
    for (Instruction &I : instructions(*MF))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (otherBuiltin(demangle(calleeName(*CB)).name) == Other::Printf) toErase.push_back(CB);
    for (Instruction *I : toErase) {
      if (!I->use_empty()) I->replaceAllUsesWith(UndefValue::get(I->getType()));
      I->eraseFromParent();
    }
    MF->addFnAttr(Attribute::MustProgress);
    cleanup(*MF, FAM);
    for (int it = 0; it < 4; ++it) {
      bool changed = false;
      bool localLeft = cleanLocal(*MF, AS, changed);
      if (!localLeft) {
        std::vector<Instruction *> fences;
        for (Instruction &I : instructions(*MF))
          if (auto *CB = dyn_cast<CallBase>(&I)) {
            Other o = otherBuiltin(demangle(calleeName(*CB)).name);
            if (o == Other::Barrier || o == Other::MemFence) fences.push_back(CB);
          }
        for (Instruction *I : fences) I->eraseFromParent();
        changed |= !fences.empty();
      }
      if (!changed) break;
      cleanup(*MF, FAM);
    }
    // validation
    auto &AA3 = FAM.getResult<ArgAccessAnalysis>(*MF);
    if (AA3.unknownGlobalAccess) return reject("merge kernel accesses unknown memory");
    for (const AccessRec &a : AA3.accesses) {
      for (unsigned x : a.args) {
        bool isOut = partial.count(x);
        if (a.kind == 0 && isOut)
          return reject("merge kernel would still read output argument " + std::to_string(x));
        if (a.kind == 2) return reject("merge kernel still contains atomics");
      }
    }
    out.ok = true;
    out.partialArgs = std::vector<uint32_t>(outputs.begin(), outputs.end());
    return true;
  }
};

}  // namespace

PreservedAnalyses MergeKernelPass::run(Module &M, ModuleAnalysisManager &MAM) {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  std::vector<Function *> prs;
  for (Function &F : M)
    if (!F.isDeclaration() && variantOf(F) == "pr") prs.push_back(&F);
  Merger mg{M, FAM, AddrSpaces::of(M)};
  for (Function *P : prs) {
    MergeOutcome o;
    std::string n = P->getName().str();
    o.kernel = n.substr(0, n.size() - std::string("__tutti_pr").size());
    mg.build(*P, o);
    if (outcomes) outcomes->push_back(o);
  }
  return PreservedAnalyses::none();
}

void registerMergeKernel(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-merge-kernel") {
          MPM.addPass(MergeKernelPass());
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
