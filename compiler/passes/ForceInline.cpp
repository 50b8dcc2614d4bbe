// Prepares a module for per-kernel analysis "after inlining": every helper
// function becomes internal + alwaysinline (OpenCL forbids recursion), kernels
// lose noinline/optnone so that a kernel called from another kernel is inlined
// too, and debug info is dropped. Followed by always-inline and globaldce.
//
//   module pass: tutti-force-inline
#include "llvm/IR/DebugInfo.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

PreservedAnalyses ForceInlinePass::run(Module &M, ModuleAnalysisManager &) {
  bool changed = StripDebugInfo(M);
  for (Function &F : M) {
    if (F.isDeclaration()) continue;
    if (F.hasFnAttribute(Attribute::OptimizeNone)) { F.removeFnAttr(Attribute::OptimizeNone); changed = true; }
    if (F.hasFnAttribute(Attribute::NoInline)) { F.removeFnAttr(Attribute::NoInline); changed = true; }
    if (!isKernel(F)) {
      F.addFnAttr(Attribute::AlwaysInline);
      if (!F.hasLocalLinkage()) F.setLinkage(GlobalValue::InternalLinkage);
      changed = true;
    } else {
      // a kernel may be called by another kernel: inline such calls too
      bool called = false;
      for (User *U : F.users())
        if (isa<CallBase>(U)) called = true;
      if (called) { F.addFnAttr(Attribute::AlwaysInline); changed = true; }
    }
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void registerForceInline(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-force-inline") {
          MPM.addPass(ForceInlinePass());
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
