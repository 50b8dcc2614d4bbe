// NvptxNativeMath.cpp - float math intrinsics the NVPTX backend cannot lower, as PTX's own.
//
// libclc defines native_exp2, native_log2, native_exp, native_log, native_log10,
// native_sin, native_cos (and through them native_exp10, native_powr, native_tan) as
// calls to llvm.exp2, llvm.log2, ... on float. LLVM 15's NVPTX backend has no
// instruction for those (sin and cos only under unsafe-fp-math) and expands them into
// calls of expf, exp2f, ... which do not exist on the GPU: `LLVM ERROR: Undefined
// external symbol "exp2f"` or `Cannot select: fsin` aborted the whole process (found by
// fuzz_kernel_source on a GEGL kernel using native_powr). OpenCL leaves the accuracy of
// native_* to the implementation, and NVIDIA's own compiler uses the same PTX
// instructions: ex2.approx.f32, lg2.approx.f32, sin.approx.f32, cos.approx.f32 (not the
// .ftz forms, so subnormals stay as the program's denormal mode says). Vectors are done
// element by element. Other types are left alone (emitPTX drops a kernel that still
// calls one, see Codegen.cpp).
//
//   module pass: tutti-nvptx-native-math
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

namespace {

constexpr float kLog2e = 1.44269504088896340736f;
constexpr float kLn2 = 0.693147180559945309417f;
constexpr float kLog10Of2 = 0.301029995663981195214f;

// The PTX form of one float operation, or nullptr where id is not one of ours.
Value *lowerScalar(IRBuilder<> &B, Intrinsic::ID id, Value *x, Value *y) {
  Module *M = B.GetInsertBlock()->getModule();
  auto nv = [&](Intrinsic::ID n, Value *a) {
    return B.CreateCall(Intrinsic::getDeclaration(M, n), {a});
  };
  auto c = [&](float v) { return ConstantFP::get(B.getFloatTy(), v); };
  switch (id) {
    case Intrinsic::exp2: return nv(Intrinsic::nvvm_ex2_approx_f, x);
    case Intrinsic::exp: return nv(Intrinsic::nvvm_ex2_approx_f, B.CreateFMul(x, c(kLog2e)));
    case Intrinsic::log2: return nv(Intrinsic::nvvm_lg2_approx_f, x);
    case Intrinsic::log: return B.CreateFMul(nv(Intrinsic::nvvm_lg2_approx_f, x), c(kLn2));
    case Intrinsic::log10: return B.CreateFMul(nv(Intrinsic::nvvm_lg2_approx_f, x), c(kLog10Of2));
    case Intrinsic::sin: return nv(Intrinsic::nvvm_sin_approx_f, x);
    case Intrinsic::cos: return nv(Intrinsic::nvvm_cos_approx_f, x);
    // powr's domain (x >= 0): exp2(y * log2(x)), as libclc's native_powr.
    case Intrinsic::pow:
      return nv(Intrinsic::nvvm_ex2_approx_f, B.CreateFMul(y, nv(Intrinsic::nvvm_lg2_approx_f, x)));
    default: return nullptr;
  }
}

bool ours(Intrinsic::ID id) {
  switch (id) {
    case Intrinsic::exp2: case Intrinsic::exp: case Intrinsic::log2: case Intrinsic::log:
    case Intrinsic::log10: case Intrinsic::sin: case Intrinsic::cos: case Intrinsic::pow:
      return true;
    default: return false;
  }
}

}  // namespace

bool nvptxCannotLower(const Function &F) { return F.isIntrinsic() && ours(F.getIntrinsicID()); }

PreservedAnalyses NvptxNativeMathPass::run(Module &M, ModuleAnalysisManager &) {
  if (Triple(M.getTargetTriple()).getArch() != Triple::nvptx64) return PreservedAnalyses::all();
  std::vector<CallInst *> calls;
  for (Function &F : M) {
    if (!nvptxCannotLower(F) || !F.getReturnType()->getScalarType()->isFloatTy()) continue;
    for (User *U : F.users())
      if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledFunction() == &F) calls.push_back(CI);
  }
  for (CallInst *CI : calls) {
    IRBuilder<> B(CI);
    B.setFastMathFlags(CI->getFastMathFlags());
    Intrinsic::ID id = CI->getCalledFunction()->getIntrinsicID();
    SmallVector<Value *, 2> ops(CI->args());
    Value *r = perLane(B, ops, [id](IRBuilder<> &B, ArrayRef<Value *> v) {
      return lowerScalar(B, id, v[0], v.size() > 1 ? v[1] : nullptr);
    });
    r->takeName(CI);
    CI->replaceAllUsesWith(r);
    CI->eraseFromParent();
  }
  return calls.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

void registerNvptxNativeMath(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "tutti-nvptx-native-math") return false;
        MPM.addPass(NvptxNativeMathPass());
        return true;
      });
}

}  // namespace tutti::compiler::detail
