// BarrierExits.h - the pass of BarrierExits.cpp (spir64: one exit per barrier region).
#pragma once
#include "llvm/Passes/PassBuilder.h"

namespace tutti::compiler::detail {

// spir64 only: a kernel's return reached both from before a barrier (a uniform early
// return) and from after it gets separate exits, each after-barrier one behind an explicit
// barrier, so that PoCL does not let work-item 0 choose the exit for its whole group.
struct BarrierExitsPass : llvm::PassInfoMixin<BarrierExitsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};
void registerBarrierExits(llvm::PassBuilder &PB);

}  // namespace tutti::compiler::detail
