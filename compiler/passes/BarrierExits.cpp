// BarrierExits.cpp - one exit per barrier region in kernels with barriers (spir64).
//
// A uniform early return before a barrier is valid OpenCL, and after our O2 the return
// block is shared by that early return and by every exit after the barrier:
//
//   entry:   br %uniform_cond, %ret, %work      ; before the barrier
//   work:    barrier; br %per_item_cond, %ret, %loop
//   loop:    ...; br %again, %loop, %ret
//   ret:     ret void                           ; reached from before and after the barrier
//
// PoCL's work-group compiler (Debian's 3.1, pthread and basic devices) replicates a
// barrier's tail that the barrier does not dominate once per edge into it
// (BarrierTailReplication), so each exit edge after the barrier gets its own copy of the
// return and its implicit exit barrier. The region after the barrier then ends at several
// barriers, which PoCL takes as a branch that must be uniform: it peels work-item 0 and
// every other work-item of the group follows work-item 0's exit. A group whose work-item 0
// leaves early (here: a loop of no iteration) loses every other work-item's output. This
// lost all 2,025 outputs of mr_StringMatch under TUTTI_MODE=skmd (issue 20). PoCL given
// the same source compiled it to a different shape that happened to work (there too
// work-item 0 decided for its group at the first test after the barrier, task < numTasks,
// harmless only because work-item 0 has its group's smallest task).
//
// Fix: the predecessors of the (unified) return are grouped by the nearest barrier that
// dominates them. When they fall into more than one group, each group that has a barrier
// gets its own exit, `barrier(CLK_LOCAL_MEM_FENCE); ret void`, which that barrier dominates:
// PoCL replicates nothing there and the region after the barrier has one exit. The early
// return keeps the original return. The explicit barrier sits right before a `ret`, where
// PoCL puts its implicit exit barrier at every return anyway, so it synchronises nothing
// that was not synchronised already. It is needed: giving the early return a `ret` of its
// own without it still lost mr_map_overflow's output on both PoCL devices, and so did the
// barrier without the separate exits. Other targets (NVPTX, source) are unchanged.
//
//   module pass: tutti-barrier-exits
#include "llvm/ADT/Triple.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"

#include "../lib/Builtins.h"
#include "../lib/Internal.h"
#include "BarrierExits.h"

using namespace llvm;

namespace tutti::compiler::detail {

namespace {

bool isBarrier(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  return CB && otherBuiltin(demangle(calleeName(*CB)).name) == Other::Barrier;
}

// All returns of F in one block of nothing but `ret void`, or null (F returns a value or
// its one return block does other work first: left alone).
BasicBlock *unifiedReturn(Function &F) {
  std::vector<ReturnInst *> rets;
  for (BasicBlock &BB : F)
    if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator())) {
      if (R->getReturnValue()) return nullptr;
      rets.push_back(R);
    }
  if (rets.empty()) return nullptr;
  if (rets.size() == 1) {
    BasicBlock *BB = rets[0]->getParent();
    return &BB->front() == rets[0] ? BB : nullptr;
  }
  BasicBlock *U = BasicBlock::Create(F.getContext(), "tutti.return", &F);
  ReturnInst::Create(F.getContext(), U);
  for (ReturnInst *R : rets) {
    BranchInst::Create(U, R);
    R->eraseFromParent();
  }
  return U;
}

bool separateExits(Function &F) {
  std::set<BasicBlock *> barrierBlocks;
  CallBase *someBarrier = nullptr;
  for (Instruction &I : instructions(F))
    if (isBarrier(I)) {
      barrierBlocks.insert(I.getParent());
      if (!someBarrier) someBarrier = cast<CallBase>(&I);
    }
  if (barrierBlocks.empty()) return false;
  BasicBlock *R = unifiedReturn(F);
  if (!R) return false;
  DominatorTree DT(F);
  // Predecessors of the return by the nearest barrier block that dominates them (null:
  // none, e.g. an early return), in a fixed order.
  std::map<BasicBlock *, std::vector<BasicBlock *>> groups;
  std::vector<BasicBlock *> order;
  std::set<BasicBlock *> seen;
  for (BasicBlock *P : predecessors(R)) {
    if (!seen.insert(P).second || !DT.isReachableFromEntry(P)) continue;
    BasicBlock *key = nullptr;
    for (DomTreeNode *N = DT.getNode(P); N && !key; N = N->getIDom())
      if (barrierBlocks.count(N->getBlock())) key = N->getBlock();
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(P);
  }
  if (groups.size() < 2) return false;
  Module &M = *F.getParent();
  LLVMContext &C = F.getContext();
  FunctionCallee barrierFn = M.getOrInsertFunction(
      "_Z7barrierj", FunctionType::get(Type::getVoidTy(C), {Type::getInt32Ty(C)}, false));
  for (BasicBlock *key : order) {
    if (!key) continue;
    BasicBlock *E = BasicBlock::Create(C, "tutti.exit.after." + key->getName(), &F, R);
    IRBuilder<> B(E);
    CallInst *CI = B.CreateCall(barrierFn, {B.getInt32(1)});  // CLK_LOCAL_MEM_FENCE
    CI->setCallingConv(someBarrier->getCallingConv());
    CI->addFnAttr(Attribute::Convergent);
    CI->addFnAttr(Attribute::NoUnwind);
    B.CreateRetVoid();
    for (BasicBlock *P : groups[key]) P->getTerminator()->replaceSuccessorWith(R, E);
  }
  if (pred_empty(R)) R->eraseFromParent();
  return true;
}

}  // namespace

PreservedAnalyses BarrierExitsPass::run(Module &M, ModuleAnalysisManager &) {
  if (!Triple(M.getTargetTriple()).isSPIR()) return PreservedAnalyses::all();
  bool changed = false;
  for (Function &F : M)
    if (!F.isDeclaration() && isKernel(F)) changed |= separateExits(F);
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void registerBarrierExits(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-barrier-exits") {
          MPM.addPass(BarrierExitsPass());
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
