// Analysis-only assumption: global sizes, offsets, ids and group counts fit in
// 31 bits. Kernels index with `int i = get_global_id(0)` and step loops by
// (int)get_global_size(0); without a range ScalarEvolution cannot tell the
// stride is positive. The range metadata is added right before the analyses
// and removed right after (so code generation never relies on it), and the
// assumption is recorded in the kernel's expressions: the runtime's
// evaluations answer "unknown" for launches that violate it.
//
//   module pass: tutti-assume-ndrange   (tutti-assume-ndrange<remove> strips)
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/MDBuilder.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

void setNDRangeAssumption(Module &M, bool on) {
  MDBuilder MDB(M.getContext());
  for (Function &F : M) {
    if (F.isDeclaration()) continue;
    for (Instruction &I : instructions(F)) {
      auto *CI = dyn_cast<CallInst>(&I);
      if (!CI || !CI->getCalledFunction() || !CI->getType()->isIntegerTy()) continue;
      WI wi = workItemFn(demangle(CI->getCalledFunction()->getName().str()).name);
      bool ids = wi == WI::GlobalId || wi == WI::GroupId || wi == WI::GlobalOffset ||
                 wi == WI::GlobalLinearId;
      bool sizes = wi == WI::GlobalSize || wi == WI::NumGroups;
      if (!ids && !sizes) continue;
      if (!on) {
        CI->setMetadata(LLVMContext::MD_range, nullptr);
        continue;
      }
      unsigned w = CI->getType()->getIntegerBitWidth();
      if (w < 32) continue;
      CI->setMetadata(LLVMContext::MD_range,
                      MDB.createRange(APInt(w, sizes ? 1 : 0), APInt(w, uint64_t(1) << 31)));
    }
  }
}

namespace {
struct AssumeNDRangePass : PassInfoMixin<AssumeNDRangePass> {
  bool on = true;
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    setNDRangeAssumption(M, on);
    return PreservedAnalyses::none();
  }
};
}  // namespace

void registerAssumeNDRange(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-assume-ndrange" || Name == "tutti-assume-ndrange<remove>") {
          AssumeNDRangePass P;
          P.on = Name == "tutti-assume-ndrange";
          MPM.addPass(std::move(P));
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
