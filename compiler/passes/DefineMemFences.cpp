// DefineMemFences.cpp - mem_fence, read_mem_fence and write_mem_fence get bodies (spir64).
//
// PoCL's kernel library (Debian's pocl 3.1) does not define the OpenCL 1.x fences: its own
// front end lowers them itself, so a program given to it as SPIR that calls them fails to
// link ("Cannot find symbol _Z9mem_fencej in kernel library") and no launch of it could
// split (found by the MapReduce library's MapCG pipeline, issue 20). Each becomes an LLVM
// fence: acquire for a read fence, release for a write fence, both for mem_fence. The
// flags (local, global) are not distinguished: a fence over all memory is never weaker.
//
//   module pass: tutti-define-mem-fences
#include "llvm/ADT/Triple.h"
#include "llvm/IR/IRBuilder.h"

#include "DefineMemFences.h"

using namespace llvm;

namespace tutti::compiler::detail {

PreservedAnalyses DefineMemFencesPass::run(Module &M, ModuleAnalysisManager &) {
  if (!Triple(M.getTargetTriple()).isSPIR()) return PreservedAnalyses::all();
  static const std::pair<const char *, AtomicOrdering> fences[] = {
      {"_Z9mem_fencej", AtomicOrdering::AcquireRelease},
      {"_Z14read_mem_fencej", AtomicOrdering::Acquire},
      {"_Z15write_mem_fencej", AtomicOrdering::Release},
  };
  bool changed = false;
  for (auto [name, order] : fences) {
    Function *F = M.getFunction(name);
    if (!F || !F->isDeclaration() || F->arg_size() != 1 || !F->getReturnType()->isVoidTy()) continue;
    IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", F));
    B.CreateFence(order);
    B.CreateRetVoid();
    F->setLinkage(GlobalValue::InternalLinkage);
    F->addFnAttr(Attribute::AlwaysInline);
    changed = true;
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void registerDefineMemFences(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-define-mem-fences") {
          MPM.addPass(DefineMemFencesPass());
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
