// DefineMemFences.h - the pass of DefineMemFences.cpp (spir64: OpenCL 1.x fences defined).
#pragma once
#include "llvm/Passes/PassBuilder.h"

namespace tutti::compiler::detail {

// spir64 only: the OpenCL 1.x fences PoCL's library lacks become LLVM fences.
struct DefineMemFencesPass : llvm::PassInfoMixin<DefineMemFencesPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};
void registerDefineMemFences(llvm::PassBuilder &PB);

}  // namespace tutti::compiler::detail
