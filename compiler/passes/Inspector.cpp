// Inspector kernel (VAST, thesis §4.4.1-4.4.2, Fig. 4.4/4.5a): K__tutti_insp.
//
// Cloned from K__tutti_pr (runs any flattened range of groups) with extra
// trailing parameters:
//   uint  __tutti_page_shift        log2(page size)
//   ulong __tutti_wg_per_pas        consecutive groups sharing one PAS (Eq. 4.1)
//   ulong __tutti_pas_first_set     PAS set held at the start of the buffers
//   then per __global/__constant buffer argument i, in argument order:
//   __global uchar *__tutti_pas<i>  page-accessed sets of argument i
//   ulong __tutti_pas_pages<i>      pages of argument i: ceil(size / page size)
// The group with flattened id g (full launch) belongs to set s = g / wg_per_pas
// and marks byte pas<i>[((s - first_set) * 2 + rw) * pages<i> + page] = 1,
// rw = 0 for reads, 1 for writes (atomics mark both). The host zeroes the PAS
// buffers first. Byte entries need no atomics: every writer stores the same 1.
//
// What stays: the address of every global access and the branches that decide
// whether an access (or a value an address needs) happens, i.e. the control
// dependences of live blocks, with everything they depend on (a mark-sweep
// slice, thesis [78]); other branches go to one successor (leaving dead loops);
// loads of private or __local memory pull in the stores (and, for __local, the
// barriers) that feed them. Everything else is deleted: no global store or
// global atomic is left. An address that depends on buffer contents keeps the
// load (the host must then bind that buffer with its pre-launch contents:
// dataArgs). The kernel may write that buffer too, as long as no store or
// atomic of the same work-item can precede the load (and there is no barrier);
// no address may depend on a global atomic's result. Otherwise the inspector
// would see other values than the kernel: no inspector (reason given).
//
// An access not aligned to its size may straddle a page: the page of its last
// byte is marked too.
//
//   module pass: tutti-inspector
#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/IteratedDominanceFrontier.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Scalar/ADCE.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

namespace {

struct Inspector {
  Function &NF;
  unsigned nOrig;
  std::vector<unsigned> bufArgs;
  std::map<unsigned, unsigned> pasParam;  // buffer argument -> its PAS parameter index
  std::set<unsigned> dataArgs;
  SmallPtrSet<BasicBlock *, 16> liveBlocks;
  std::string why;
  AddrSpaces AS;

  Instruction *entryPt() { return &*NF.getEntryBlock().getFirstInsertionPt(); }

  bool isGlobalAS(unsigned as) { return as == AS.global || as == AS.constant || as == AS.generic; }

  // The inspector reads the pre-launch contents. That is what load L of
  // buffer `arg` sees in the kernel too, unless a store or atomic of this
  // work-item to `arg` may come first, or a barrier may order another
  // work-item's store before it (other orders are races in OpenCL).
  bool writtenBefore(LoadInst *L, unsigned arg, const std::vector<AccessRec> &recs) {
    if (!dt) {
      dt = std::make_unique<DominatorTree>(NF);
      li = std::make_unique<LoopInfo>(*dt);
    }
    for (Instruction &I : instructions(NF))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (otherBuiltin(demangle(calleeName(*CB)).name) == Other::Barrier) return true;
    for (const AccessRec &r : recs)
      if (r.kind != 0 && std::find(r.args.begin(), r.args.end(), arg) != r.args.end() &&
          isPotentiallyReachable(r.inst, L, nullptr, dt.get(), li.get()))
        return true;
    return false;
  }
  std::unique_ptr<DominatorTree> dt;
  std::unique_ptr<LoopInfo> li;

  // Everything the addresses and the control flow depend on.
  bool slice(const ArgAccessResult &AA, const std::vector<AccessRec> &recs,
             SmallPtrSetImpl<Instruction *> &keep) {
    std::vector<Instruction *> work;
    std::vector<BasicBlock *> newLive;
    auto markBlock = [&](BasicBlock *B) {
      if (liveBlocks.insert(B).second) newLive.push_back(B);
    };
    auto push = [&](Value *V) {
      if (auto *I = dyn_cast<Instruction>(V))
        if (keep.insert(I).second) {
          work.push_back(I);
          markBlock(I->getParent());
        }
    };
    for (const AccessRec &r : recs) {
      push(r.ptr);
      markBlock(r.inst->getParent());  // its marks go there
    }
    bool localPulled = false;
    std::set<const Value *> privPulled;
    auto writers = [&](auto pred) {
      for (Instruction &I : instructions(NF)) {
        Value *p = nullptr;
        if (auto *S = dyn_cast<StoreInst>(&I)) p = S->getPointerOperand();
        else if (auto *R = dyn_cast<AtomicRMWInst>(&I)) p = R->getPointerOperand();
        else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I)) p = X->getPointerOperand();
        if (p && pred(p)) { push(&I); continue; }
        if (auto *CB = dyn_cast<CallBase>(&I)) {
          if (isa<IntrinsicInst>(CB) && cast<IntrinsicInst>(CB)->isAssumeLikeIntrinsic()) continue;
          if (CB->onlyReadsMemory()) continue;
          Other o = otherBuiltin(demangle(calleeName(*CB)).name);
          bool isBarrier = o == Other::Barrier || o == Other::MemFence;
          bool touches = false;
          for (Value *op : CB->args())
            if (op->getType()->isPointerTy() && pred(op)) touches = true;
          if (touches || (isBarrier && localPulled)) push(CB);
        }
      }
    };
    PostDominatorTree PDT(NF);
    while (!work.empty() || !newLive.empty()) {
      if (work.empty()) {
        // a live block needs the branches it is control dependent on
        // (reverse dominance frontier), not every branch of the kernel
        ReverseIDFCalculator IDF(PDT);
        SmallPtrSet<BasicBlock *, 16> def(newLive.begin(), newLive.end());
        newLive.clear();
        IDF.setDefiningBlocks(def);
        SmallVector<BasicBlock *, 16> deps;
        IDF.calculate(deps);
        for (BasicBlock *B : deps) push(B->getTerminator());
        continue;
      }
      Instruction *I = work.back();
      work.pop_back();
      for (Value *op : I->operands()) push(op);
      if (auto *Phi = dyn_cast<PHINode>(I))
        for (BasicBlock *B : Phi->blocks()) push(B->getTerminator());
      Value *memPtr = nullptr;
      if (auto *L = dyn_cast<LoadInst>(I)) memPtr = L->getPointerOperand();
      if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) memPtr = I->getOperand(0);
      if (auto *CB = dyn_cast<CallBase>(I)) {
        if (atomicOp(demangle(calleeName(*CB)).name) != AtomicOp::None && CB->arg_size())
          memPtr = CB->getArgOperand(0);
        else
          for (Value *op : CB->args())
            if (op->getType()->isPointerTy() && isGlobalAS(op->getType()->getPointerAddressSpace()) &&
                op->getType()->getPointerAddressSpace() != AS.generic) {
              why = "an address depends on builtin '" + demangle(calleeName(*CB)).name +
                    "' reading global memory";
              return false;
            }
      }
      if (!memPtr) continue;
      bool isRead = isa<LoadInst>(I);
      unsigned as = memPtr->getType()->getPointerAddressSpace();
      if (as == AS.local) {
        if (!localPulled) {
          localPulled = true;
          writers([&](Value *p) { return p->getType()->getPointerAddressSpace() == AS.local; });
        }
        continue;
      }
      SmallVector<const Value *, 4> objs;
      getUnderlyingObjects(memPtr, objs, nullptr, 0);
      for (const Value *o : objs) {
        if (isa<AllocaInst>(o)) {
          if (privPulled.insert(o).second)
            writers([&](Value *p) {
              SmallVector<const Value *, 4> po;
              getUnderlyingObjects(p, po, nullptr, 0);
              return std::find(po.begin(), po.end(), o) != po.end();
            });
          continue;
        }
        if (isa<ConstantPointerNull>(o) || isa<UndefValue>(o)) continue;
        if (!isRead) {
          why = "an address or a branch depends on the result of a global atomic";
          return false;
        }
        auto *A = dyn_cast<Argument>(o);
        if (!A || A->getArgNo() >= nOrig) {
          if (isa<GlobalVariable>(o) && as != AS.generic) continue;  // program-scope data
          why = "an address or a branch depends on global memory of unknown origin";
          return false;
        }
        const ArgSummary &S = AA.args[A->getArgNo()];
        if ((S.written || S.atomic) && writtenBefore(cast<LoadInst>(I), A->getArgNo(), recs)) {
          why = "an address or a branch depends on buffer argument " + std::to_string(A->getArgNo()) +
                ", which the kernel may have written before";
          return false;
        }
        dataArgs.insert(A->getArgNo());
      }
    }
    return true;
  }

  // No live block depends on these branches: any successor does, as long as
  // loops that hold nothing live are left rather than re-entered (a dead loop
  // test must not spin on values the inspector no longer computes).
  void dropDeadBranches(SmallPtrSetImpl<Instruction *> &keep, LoopInfo &LI) {
    for (BasicBlock &BB : NF) {
      Instruction *T = BB.getTerminator();
      if (keep.count(T) || T->getNumSuccessors() < 2) continue;
      Loop *L = LI.getLoopFor(&BB);
      BasicBlock *target = nullptr;
      for (BasicBlock *S : successors(&BB))
        if (L && !L->contains(S)) { target = S; break; }
      if (!target)
        for (BasicBlock *S : successors(&BB))
          if (!L || S != L->getHeader()) { target = S; break; }
      if (!target) target = T->getSuccessor(0);
      bool kept = false;
      for (BasicBlock *S : successors(&BB)) {
        if (S == target && !kept) { kept = true; continue; }
        S->removePredecessor(&BB, /*KeepOneInputPHIs=*/true);
      }
      BranchInst::Create(target, T);
      T->eraseFromParent();
    }
  }

  bool run(FunctionAnalysisManager &FAM) {
    AS = AddrSpaces::of(*NF.getParent());
    std::vector<AccessRec> recs;
    const ArgAccessResult *AA = vastAccesses(NF, FAM, bufArgs, recs, why);
    if (!AA) return false;
    SmallPtrSet<Instruction *, 32> keep;
    if (!slice(*AA, recs, keep)) return false;
    dropDeadBranches(keep, FAM.getResult<LoopAnalysis>(NF));
    std::vector<Instruction *> original;
    for (Instruction &I : instructions(NF)) original.push_back(&I);

    LLVMContext &C = NF.getContext();
    Type *I64 = Type::getInt64Ty(C);
    Type *I8 = Type::getInt8Ty(C);
    Value *shift, *set;
    {
      IRBuilder<> E(entryPt());
      unsigned abi = nOrig;
      shift = E.CreateZExt(NF.getArg(abi + kAbiArgs), I64, "vast.shift");
      // flattened group id of the full launch, from the partition-ready ABI
      Value *g[3];
      CallingConv::ID cc =
          Triple(NF.getParent()->getTargetTriple()).isSPIR() ? CallingConv::SPIR_FUNC : CallingConv::C;
      FunctionCallee hw = NF.getParent()->getOrInsertFunction(
          "_Z12get_group_idj", FunctionType::get(I64, {E.getInt32Ty()}, false));
      if (auto *HF = dyn_cast<Function>(hw.getCallee()))
        if (HF->use_empty()) {
          HF->setCallingConv(cc);
          HF->addFnAttr(Attribute::NoUnwind);
          HF->addFnAttr(Attribute::ReadNone);
          HF->addFnAttr(Attribute::WillReturn);
        }
      for (unsigned d = 0; d < 3; ++d) {
        CallInst *CI = E.CreateCall(hw, {E.getInt32(d)});
        CI->setCallingConv(cc);
        g[d] = E.CreateAdd(CI, NF.getArg(abi + d));
      }
      Value *flat = E.CreateAdd(
          g[0], E.CreateMul(NF.getArg(abi + 3), E.CreateAdd(g[1], E.CreateMul(NF.getArg(abi + 4), g[2]))),
          "vast.group");
      set = E.CreateSub(E.CreateUDiv(flat, NF.getArg(abi + kAbiArgs + 1)), NF.getArg(abi + kAbiArgs + 2),
                        "vast.set");
    }
    DenseMap<Value *, Value *> baseMemo, pasMemo, pagesMemo;
    auto shadow = [&](Value *p, DenseMap<Value *, Value *> &memo, Type *Ty, unsigned which) {
      return bufferShadow(
          p,
          [&](Argument &A) -> Value * {
            auto it = pasParam.find(A.getArgNo());
            if (it == pasParam.end()) return nullptr;
            if (which == 1) return NF.getArg(it->second);
            if (which == 2) return NF.getArg(it->second + 1);
            IRBuilder<> E(entryPt());
            return E.CreatePtrToInt(&A, I64);
          },
          Ty, memo, why);
    };
    for (const AccessRec &r : recs) {
      Value *base = shadow(r.ptr, baseMemo, I64, 0);
      Value *pas = shadow(r.ptr, pasMemo, Type::getInt8PtrTy(C, 1), 1);
      Value *pages = shadow(r.ptr, pagesMemo, I64, 2);
      if (!base || !pas || !pages) return false;
      IRBuilder<> B(r.inst);
      Value *off = B.CreateSub(B.CreatePtrToInt(r.ptr, I64), base, "vast.off");
      Align al(r.size);
      if (auto *L = dyn_cast<LoadInst>(r.inst)) al = L->getAlign();
      if (auto *S = dyn_cast<StoreInst>(r.inst)) al = S->getAlign();
      std::vector<Value *> pageVals{B.CreateLShr(off, shift, "vast.page")};
      if (r.size > 1 && al.value() < r.size)
        pageVals.push_back(B.CreateLShr(B.CreateAdd(off, B.getInt64(r.size - 1)), shift, "vast.lastpage"));
      Value *maxPage = B.CreateSub(pages, B.getInt64(1));
      for (Value *pg : pageVals) {
        // out-of-bounds accesses (undefined in the kernel) must not write
        // outside the PAS
        Value *cl = B.CreateSelect(B.CreateICmpULT(pg, pages), pg, maxPage);
        for (unsigned rw = 0; rw < 2; ++rw) {
          if (r.kind == 0 && rw == 1) continue;
          if (r.kind == 1 && rw == 0) continue;
          Value *row = B.CreateAdd(B.CreateShl(set, 1), B.getInt64(rw));
          Value *idx = B.CreateAdd(B.CreateMul(row, pages), cl, "vast.mark");
          B.CreateStore(B.getInt8(1), B.CreateGEP(I8, pas, idx));
        }
      }
    }
    // sweep
    for (auto it = original.rbegin(); it != original.rend(); ++it) {
      Instruction *I = *it;
      if (keep.count(I) || I->isTerminator()) continue;
      if (!I->use_empty()) I->replaceAllUsesWith(PoisonValue::get(I->getType()));
      I->eraseFromParent();
    }
    FAM.invalidate(NF, PreservedAnalyses::none());
    FunctionPassManager FPM;
    FPM.addPass(ADCEPass());
    FPM.addPass(SimplifyCFGPass());
    FPM.run(NF, FAM);
    return true;
  }
};

}  // namespace

PreservedAnalyses InspectorPass::run(Module &M, ModuleAnalysisManager &MAM) {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  LLVMContext &C = M.getContext();
  Type *I64 = Type::getInt64Ty(C);
  auto params = [&](const std::vector<unsigned> &bufs) {
    std::vector<ExtraParam> extra{{Type::getInt32Ty(C), "__tutti_page_shift", "uint", 0},
                                  {I64, "__tutti_wg_per_pas", "ulong", 0},
                                  {I64, "__tutti_pas_first_set", "ulong", 0}};
    for (unsigned a : bufs) {
      extra.push_back({Type::getInt8PtrTy(C, 1), "__tutti_pas" + std::to_string(a), "uchar*", 1});
      extra.push_back({I64, "__tutti_pas_pages" + std::to_string(a), "ulong", 0});
    }
    return extra;
  };
  auto transform = [&](Function &NF, const std::vector<unsigned> &bufs, VastOutcome &out) {
    Inspector in{NF, origArgCount(NF), bufs, {}, {}, {}, {}, {}};
    unsigned idx = origArgCount(NF) + kAbiArgs + 3;
    for (unsigned a : bufs) {
      in.pasParam[a] = idx;
      idx += 2;
    }
    bool ok = in.run(FAM);
    out.reason = in.why;
    out.dataArgs.assign(in.dataArgs.begin(), in.dataArgs.end());
    return ok;
  };
  cloneVastVariants(M, MAM, "insp", params, transform, outcomes);
  return PreservedAnalyses::none();
}

void registerInspector(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-inspector") {
          MPM.addPass(InspectorPass());
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
