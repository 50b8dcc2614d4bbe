// NvptxFastBuiltins.cpp - single-precision rsqrt and sqrt as the GPU's own instructions.
//
// libclc's nvptx rsqrt is 1.0f / sqrt(x), which the NVPTX backend lowers to sqrt.rn.f32 and
// rcp.rn.f32: correctly rounded, several instructions each, where OpenCL asks for 2 ulp
// (rsqrt) and 3 ulp (sqrt, unless -cl-fp32-correctly-rounded-divide-sqrt). NVIDIA's own
// OpenCL compiler uses rsqrt.approx.f32 / sqrt.approx.f32 (about 1 ulp). On the H100 the
// partition-ready Nbody kernel ran 2.1x slower per work-group than NVIDIA's build of the
// original, so a split over two GPUs took as long as one GPU running it whole. Calls to the
// float overloads get a body here, before libclc is linked, so libclc's is never pulled in.
//
//   module pass: tutti-nvptx-fast-builtins       (sqrt too)
//                tutti-nvptx-fast-builtins<cr>   (-cl-fp32-correctly-rounded-divide-sqrt:
//                                                 rsqrt only)
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

#include "../lib/Builtins.h"
#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

namespace {

// The NVVM intrinsic for a builtin's name, or none.
Intrinsic::ID approxFor(const std::string &name, bool correctlyRounded) {
  if (name == "rsqrt" || name == "native_rsqrt" || name == "half_rsqrt") return Intrinsic::nvvm_rsqrt_approx_f;
  if (name == "native_sqrt" || name == "half_sqrt") return Intrinsic::nvvm_sqrt_approx_f;
  if (name == "sqrt" && !correctlyRounded) return Intrinsic::nvvm_sqrt_approx_f;
  return Intrinsic::not_intrinsic;
}

// float or a vector of float, one parameter of the same type as the result.
bool floatUnary(const Function &F) {
  FunctionType *T = F.getFunctionType();
  if (T->getNumParams() != 1 || T->getParamType(0) != T->getReturnType()) return false;
  return T->getReturnType()->getScalarType()->isFloatTy();
}

void defineWith(Function &F, Intrinsic::ID id) {
  Module &M = *F.getParent();
  Function *op = Intrinsic::getDeclaration(&M, id);
  BasicBlock *BB = BasicBlock::Create(F.getContext(), "entry", &F);
  IRBuilder<> B(BB);
  Value *x = F.getArg(0);
  Value *r;
  if (auto *VT = dyn_cast<FixedVectorType>(x->getType())) {
    r = UndefValue::get(VT);
    for (unsigned i = 0; i < VT->getNumElements(); ++i)
      r = B.CreateInsertElement(r, B.CreateCall(op, {B.CreateExtractElement(x, i)}), i);
  } else {
    r = B.CreateCall(op, {x});
  }
  B.CreateRet(r);
  F.setLinkage(GlobalValue::InternalLinkage);
  F.addFnAttr(Attribute::AlwaysInline);
}

}  // namespace

PreservedAnalyses NvptxFastBuiltinsPass::run(Module &M, ModuleAnalysisManager &) {
  if (Triple(M.getTargetTriple()).getArch() != Triple::nvptx64) return PreservedAnalyses::all();
  bool changed = false;
  for (Function &F : M) {
    if (!F.isDeclaration() || !F.getName().startswith("_Z") || !floatUnary(F)) continue;
    Intrinsic::ID id = approxFor(demangle(F.getName().str()).name, correctlyRounded);
    if (id == Intrinsic::not_intrinsic) continue;
    defineWith(F, id);
    changed = true;
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void registerNvptxFastBuiltins(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-nvptx-fast-builtins" || Name == "tutti-nvptx-fast-builtins<cr>") {
          NvptxFastBuiltinsPass P;
          P.correctlyRounded = Name.endswith("<cr>");
          MPM.addPass(std::move(P));
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
