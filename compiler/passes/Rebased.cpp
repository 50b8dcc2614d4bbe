// Rebased.cpp - VAST's fast path kernel (thesis §4.4 without an inspector): K__tutti_rb.
//
// Where the index ranges bound each slice's bytes, a slice's window of every buffer is one
// run of pages, copied to the start of that buffer's frame buffer. The paged kernel's
// page-table load per access is then always the same translation, yet it costs a load and
// three integer operations on every access (FDTD3d's stencil: 2.3x NVIDIA's build of the
// original per slice on the H100). K__tutti_rb is K__tutti_pr with one trailing parameter
// per __global/__constant buffer argument, in argument order:
//   ulong __tutti_rebase<i>   the logical byte offset of the frame buffer's first byte
// and each such argument is moved back by it once, at entry, so logical offset o lands at
// frame + (o - rebase): no per-access work, and every derived pointer (casts, helpers,
// private copies, vector accesses) follows. GEPs on a moved argument lose `inbounds`: the
// moved pointer lies before the frame buffer it was bound to.
//
//   module pass: tutti-rebased
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

PreservedAnalyses RebasedPass::run(Module &M, ModuleAnalysisManager &MAM) {
  LLVMContext &C = M.getContext();
  auto params = [&](const std::vector<unsigned> &bufs) {
    std::vector<ExtraParam> extra;
    for (unsigned a : bufs)
      extra.push_back({Type::getInt64Ty(C), "__tutti_rebase" + std::to_string(a), "ulong", 0});
    return extra;
  };
  auto transform = [&](Function &NF, const std::vector<unsigned> &bufs, VastOutcome &) {
    const unsigned first = origArgCount(NF) + kAbiArgs;
    IRBuilder<> B(&*NF.getEntryBlock().getFirstInsertionPt());
    std::set<Value *> moved;
    for (unsigned j = 0; j < bufs.size(); ++j) {
      Argument *A = NF.getArg(bufs[j]);
      auto *I8P = Type::getInt8PtrTy(C, A->getType()->getPointerAddressSpace());
      Value *p8 = B.CreateBitCast(A, I8P);
      Value *q = B.CreateGEP(B.getInt8Ty(), p8, B.CreateNeg(NF.getArg(first + j)), "vast.rebased");
      Value *m = B.CreateBitCast(q, A->getType());
      A->replaceUsesWithIf(m, [&](Use &U) { return U.getUser() != p8 && U.getUser() != q; });
      moved.insert(A);
    }
    // Through selects and phis too (a moved buffer or null, say).
    for (Instruction &I : instructions(NF))
      if (auto *G = dyn_cast<GetElementPtrInst>(&I)) {
        SmallVector<const Value *, 4> objs;
        getUnderlyingObjects(G, objs, nullptr, 0);
        for (const Value *o : objs)
          if (moved.count(const_cast<Value *>(o))) G->setIsInBounds(false);
      }
    return true;
  };
  cloneVastVariants(M, MAM, "rb", params, transform, outcomes);
  return PreservedAnalyses::none();
}

void registerRebased(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "tutti-rebased") return false;
        MPM.addPass(RebasedPass());
        return true;
      });
}

}  // namespace tutti::compiler::detail
