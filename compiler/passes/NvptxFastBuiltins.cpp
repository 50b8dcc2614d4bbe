// NvptxFastBuiltins.cpp - single-precision rsqrt, sqrt, exp and log as the GPU would do them.
//
// libclc's nvptx rsqrt is 1.0f / sqrt(x), which the NVPTX backend lowers to sqrt.rn.f32 and
// rcp.rn.f32: correctly rounded, several instructions each, where OpenCL asks for 2 ulp
// (rsqrt) and 3 ulp (sqrt, unless -cl-fp32-correctly-rounded-divide-sqrt). NVIDIA's own
// OpenCL compiler uses rsqrt.approx.f32 / sqrt.approx.f32 (about 1 ulp). On the H100 the
// partition-ready Nbody kernel ran 2.1x slower per work-group than NVIDIA's build of the
// original, so a split over two GPUs took as long as one GPU running it whole. Calls to the
// float overloads get a body here, before libclc is linked, so libclc's is never pulled in.
//
// exp and log (OpenCL: 3 ulp): libclc's divide and read a table from constant memory;
// NVIDIA's build of BlackScholes (one log, five exps per option) uses short FMA sequences
// and ran 2.2x faster than ours. Here: exp by Cody-Waite reduction to |r| <= ln2/2, a
// degree-7 Taylor polynomial and a scaling by 2^k in two steps (so subnormal results round
// once); log by splitting x into 2^e * m with m in [sqrt(1/2), sqrt(2)) and
// log1p(m - 1) = f + f^2 P(f), P a degree-8 least-squares fit. An exhaustive test of every
// float against double precision (the same operations in C with fmaf) gave at most 0.94
// ulp (exp) and 0.95 ulp (log), subnormals, infinities and NaNs included.
//
//   module pass: tutti-nvptx-fast-builtins       (sqrt too)
//                tutti-nvptx-fast-builtins<cr>   (-cl-fp32-correctly-rounded-divide-sqrt:
//                                                 rsqrt, exp and log only)
#include <functional>
#include <limits>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

#include "../lib/Builtins.h"
#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

namespace {

using Scalar = std::function<Value *(IRBuilder<> &, Value *)>;

Value *f32(IRBuilder<> &B, float v) { return ConstantFP::get(B.getFloatTy(), v); }

Value *fma(IRBuilder<> &B, Value *a, Value *b, Value *c) {
  return B.CreateIntrinsic(Intrinsic::fma, {B.getFloatTy()}, {a, b, c});
}

// exp(x), see the file comment. NaN passes the clamps (ordered compares are false).
Value *expBody(IRBuilder<> &B, Value *x) {
  Type *I32 = B.getInt32Ty();
  Value *xc = B.CreateSelect(B.CreateFCmpOGT(x, f32(B, 89.0f)), f32(B, 89.0f), x);
  xc = B.CreateSelect(B.CreateFCmpOLT(xc, f32(B, -104.0f)), f32(B, -104.0f), xc);
  // k = rint(x / ln2): adding 1.5 * 2^23 rounds to an integer
  Value *k = B.CreateFSub(fma(B, xc, f32(B, 1.44269504f), f32(B, 12582912.0f)), f32(B, 12582912.0f));
  Value *r = fma(B, k, f32(B, -0.693145752f), xc);
  r = fma(B, k, f32(B, -1.42860677e-06f), r);
  Value *p = f32(B, 1.0f / 5040.0f);
  for (float c : {1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f, 1.0f}) p = fma(B, p, r, f32(B, c));
  // (a NaN k would make fptosi poison; its result is NaN through p anyway)
  Value *ki = B.CreateFPToSI(B.CreateSelect(B.CreateFCmpORD(k, k), k, f32(B, 0.0f)), I32);
  Value *k1 = B.CreateAShr(ki, 1), *k2 = B.CreateSub(ki, k1);
  auto pow2 = [&](Value *e) { return B.CreateBitCast(B.CreateShl(B.CreateAdd(e, B.getInt32(127)), 23), B.getFloatTy()); };
  return B.CreateFMul(B.CreateFMul(p, pow2(k1)), pow2(k2));
}

// log(x), see the file comment.
Value *logBody(IRBuilder<> &B, Value *x) {
  Type *I32 = B.getInt32Ty();
  Value *den = B.CreateFCmpOLT(x, f32(B, 1.17549435e-38f));  // subnormal (or <= 0)
  Value *xs = B.CreateSelect(den, B.CreateFMul(x, f32(B, 8388608.0f)), x);
  Value *eadj = B.CreateSelect(den, f32(B, -23.0f), f32(B, 0.0f));
  Value *b = B.CreateBitCast(xs, I32);
  Value *e = B.CreateAShr(B.CreateSub(b, B.getInt32(0x3f3504f3)), 23);
  Value *m = B.CreateBitCast(B.CreateSub(b, B.CreateShl(e, 23)), B.getFloatTy());
  Value *f = B.CreateFSub(m, f32(B, 1.0f));
  Value *P = f32(B, -0.07473200559616089f);
  for (float c : {0.12819518148899078f, -0.13262003660202026f, 0.14196686446666718f, -0.16608595848083496f,
                  0.200011745095253f, -0.2500157654285431f, 0.3333333730697632f, -0.49999988079071045f})
    P = fma(B, P, f, f32(B, c));
  Value *l = fma(B, B.CreateFMul(f, P), f, f);
  Value *ef = B.CreateFAdd(B.CreateSIToFP(e, B.getFloatTy()), eadj);
  Value *r = fma(B, ef, f32(B, 0.693147182f), l);
  r = fma(B, ef, f32(B, -1.90465421e-09f), r);
  // log(+0) = -inf, log(+inf) = +inf, log(x < 0) = NaN, log(NaN) = NaN
  float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  r = B.CreateSelect(B.CreateFCmpOEQ(x, f32(B, inf)), f32(B, inf), r);
  r = B.CreateSelect(B.CreateFCmpOEQ(x, f32(B, 0.0f)), f32(B, -inf), r);
  return B.CreateSelect(B.CreateFCmpOGE(x, f32(B, 0.0f)), r, f32(B, nan));
}

Scalar intrinsicBody(Module &M, Intrinsic::ID id) {
  Function *op = Intrinsic::getDeclaration(&M, id);
  return [op](IRBuilder<> &B, Value *x) -> Value * { return B.CreateCall(op, {x}); };
}

// The body for a builtin's name, or none.
Scalar bodyFor(Module &M, const std::string &name, bool correctlyRounded) {
  if (name == "rsqrt" || name == "native_rsqrt" || name == "half_rsqrt") return intrinsicBody(M, Intrinsic::nvvm_rsqrt_approx_f);
  if (name == "native_sqrt" || name == "half_sqrt") return intrinsicBody(M, Intrinsic::nvvm_sqrt_approx_f);
  if (name == "sqrt" && !correctlyRounded) return intrinsicBody(M, Intrinsic::nvvm_sqrt_approx_f);
  if (name == "exp") return expBody;
  if (name == "log") return logBody;
  return nullptr;
}

// float or a vector of float, one parameter of the same type as the result.
bool floatUnary(const Function &F) {
  FunctionType *T = F.getFunctionType();
  if (T->getNumParams() != 1 || T->getParamType(0) != T->getReturnType()) return false;
  return T->getReturnType()->getScalarType()->isFloatTy();
}

void defineWith(Function &F, const Scalar &body) {
  BasicBlock *BB = BasicBlock::Create(F.getContext(), "entry", &F);
  IRBuilder<> B(BB);
  B.CreateRet(perLane(B, {F.getArg(0)}, [&body](IRBuilder<> &B, ArrayRef<Value *> v) { return body(B, v[0]); }));
  F.setLinkage(GlobalValue::InternalLinkage);
  F.addFnAttr(Attribute::AlwaysInline);
}

}  // namespace

PreservedAnalyses NvptxFastBuiltinsPass::run(Module &M, ModuleAnalysisManager &) {
  if (Triple(M.getTargetTriple()).getArch() != Triple::nvptx64) return PreservedAnalyses::all();
  bool changed = false;
  for (Function &F : M) {
    if (!F.isDeclaration() || !F.getName().startswith("_Z") || !floatUnary(F)) continue;
    Scalar body = bodyFor(M, demangle(F.getName().str()).name, correctlyRounded);
    if (!body) continue;
    defineWith(F, body);
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
