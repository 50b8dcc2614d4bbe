// NvptxFastDivide.cpp - single-precision division as PTX's div.full.f32 where OpenCL allows it.
//
// The NVPTX backend lowers every fdiv float to div.rn.f32 (correctly rounded: a reciprocal,
// Newton steps and a slow path, about 20 instructions) unless the whole process sets
// -nvptx-prec-divf32. OpenCL allows 2.5 ulp for x / y unless the program asks for
// -cl-fp32-correctly-rounded-divide-sqrt, and clang says which in !fpmath; div.full.f32 is
// full-range with at most 2 ulp; 1 / y is rcp.approx.f32 (1 ulp). libclc's pow divides too. BlackScholes' paged
// kernel, with six divisions and libclc's exp/log, ran 2.1x NVIDIA's build of the original
// on the H100. Runs after the optimisation pipeline, so what it leaves is only what the
// backend sees (an inline asm is opaque to the optimiser).
//
//   module pass: tutti-nvptx-fast-divide
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Operator.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

namespace {

// The ulp clang allows for this division: 0 when it must be correctly rounded.
float allowedUlp(const Instruction &I) {
  if (auto *FP = dyn_cast<FPMathOperator>(&I)) return FP->getFPAccuracy();
  return 0;
}

CallInst *asmCall(IRBuilder<> &B, const char *text, const char *constraints, ArrayRef<Value *> args) {
  Type *F = B.getFloatTy();
  auto *T = FunctionType::get(F, SmallVector<Type *, 2>(args.size(), F), false);
  CallInst *C = B.CreateCall(InlineAsm::get(T, text, constraints, /*sideEffects=*/false), args);
  C->setDoesNotThrow();
  C->setDoesNotAccessMemory();
  return C;
}

// 1 / b as rcp.approx.f32 (at most 1 ulp, subnormals kept), as NVIDIA's compiler does;
// a / b otherwise.
Value *divFull(IRBuilder<> &B, Value *a, Value *b) {
  if (auto *C = dyn_cast<ConstantFP>(a))
    if (C->isExactlyValue(1.0)) return asmCall(B, "rcp.approx.f32 $0, $1;", "=f,f", {b});
  return asmCall(B, "div.full.f32 $0, $1, $2;", "=f,f,f", {a, b});
}

}  // namespace

PreservedAnalyses NvptxFastDividePass::run(Module &M, ModuleAnalysisManager &) {
  if (Triple(M.getTargetTriple()).getArch() != Triple::nvptx64) return PreservedAnalyses::all();
  std::vector<BinaryOperator *> divs;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (I.getOpcode() == Instruction::FDiv && I.getType()->getScalarType()->isFloatTy() &&
          allowedUlp(I) >= 2.0f)
        divs.push_back(cast<BinaryOperator>(&I));
  for (BinaryOperator *D : divs) {
    IRBuilder<> B(D);
    Value *r = perLane(B, {D->getOperand(0), D->getOperand(1)},
                       [](IRBuilder<> &B, ArrayRef<Value *> v) { return divFull(B, v[0], v[1]); });
    r->takeName(D);
    D->replaceAllUsesWith(r);
    D->eraseFromParent();
  }
  return divs.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

void registerNvptxFastDivide(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "tutti-nvptx-fast-divide") return false;
        MPM.addPass(NvptxFastDividePass());
        return true;
      });
}

}  // namespace tutti::compiler::detail
