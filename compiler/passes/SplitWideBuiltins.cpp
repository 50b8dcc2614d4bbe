// SplitWideBuiltins.cpp - builtins on vectors wider than 32 bytes as calls on halves (spir64).
//
// PoCL's x86-64 kernel library (Debian's pocl 3.1, every CPU variant) defines many builtins
// on 64- and 128-byte vectors (float16, double8, double16, long8, int16, ...) as wrappers
// that pass their arguments to an internal implementation in memory (byval) but lost the
// stores that put them there: atan2(float16) computes on uninitialized stack. PoCL's own
// front end calls the implementation directly, so only programs given to it as SPIR, as
// Tutti's are, meet the wrappers: piglit's builtin-float-{atan2,cbrt,erf,fmod,log2,powr,
// sinh,tgamma} float16 tests failed under a split (issue 21). An element-wise builtin on
// such a vector gets a body here that applies the same builtin to both halves, recursively
// down to 32 bytes, whose library definitions take their arguments by value.
//
//   module pass: tutti-split-wide-builtins
#include <set>

#include "llvm/IR/IRBuilder.h"

#include "../lib/Builtins.h"
#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

namespace {

constexpr uint64_t kMaxBytes = 32;

// OpenCL C builtins that apply to each element on its own (math, integer, common,
// relational, geometric-free), so that a call on a vector is a call per half.
bool elementWise(const std::string &n) {
  static const std::set<std::string> names = {
      "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2", "atanh", "atanpi",
      "atan2pi", "cbrt", "ceil", "copysign", "cos", "cosh", "cospi", "erfc", "erf", "exp", "exp2",
      "exp10", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "fract", "frexp",
      "hypot", "ilogb", "ldexp", "lgamma", "lgamma_r", "log", "log2", "log10", "log1p", "logb",
      "mad", "maxmag", "minmag", "modf", "nan", "nextafter", "pow", "pown", "powr", "remainder",
      "remquo", "rint", "rootn", "round", "rsqrt", "sin", "sincos", "sinh", "sinpi", "sqrt", "tan",
      "tanh", "tanpi", "tgamma", "trunc", "half_cos", "half_divide", "half_exp", "half_exp2",
      "half_exp10", "half_log", "half_log2", "half_log10", "half_powr", "half_recip",
      "half_rsqrt", "half_sin", "half_sqrt", "half_tan", "native_cos", "native_divide",
      "native_exp", "native_exp2", "native_exp10", "native_log", "native_log2", "native_log10",
      "native_powr", "native_recip", "native_rsqrt", "native_sin", "native_sqrt", "native_tan",
      "abs", "abs_diff", "add_sat", "hadd", "rhadd", "clamp", "clz", "ctz", "mad_hi", "mad_sat",
      "max", "min", "mul_hi", "rotate", "sub_sat", "popcount", "mad24", "mul24", "degrees",
      "radians", "sign", "step", "smoothstep", "mix", "isequal", "isnotequal", "isgreater",
      "isgreaterequal", "isless", "islessequal", "islessgreater", "isfinite", "isinf", "isnan",
      "isnormal", "isordered", "isunordered", "signbit", "bitselect", "select"};
  return names.count(n) > 0;
}

// The element count of a wide vector among F's return and parameter types, or 0 when there
// is none or when vectors of different counts meet (the pointer parameters of fract, modf,
// frexp, lgamma_r, remquo and sincos are to vectors of the same count: typed pointers only).
unsigned wideCount(const Function &F, const DataLayout &DL) {
  unsigned count = 0;
  bool wide = false;
  auto see = [&](Type *T) {
    if (auto *P = dyn_cast<PointerType>(T)) {
      if (P->isOpaque()) return true;  // cannot tell what it points to: leave F alone
      T = P->getNonOpaquePointerElementType();
    }
    auto *V = dyn_cast<FixedVectorType>(T);
    if (!V) return true;
    if (count && V->getNumElements() != count) return false;
    count = V->getNumElements();
    wide |= DL.getTypeAllocSize(V) > kMaxBytes;
    return true;
  };
  if (!see(F.getReturnType())) return 0;
  for (Type *T : F.getFunctionType()->params())
    if (!see(T)) return 0;
  return wide && count % 2 == 0 ? count : 0;
}

Type *halfOf(Type *T, unsigned half) {
  if (auto *P = dyn_cast<PointerType>(T)) {
    Type *E = P->getNonOpaquePointerElementType();
    if (isa<FixedVectorType>(E)) return PointerType::get(halfOf(E, half), P->getAddressSpace());
    return T;
  }
  if (auto *V = dyn_cast<FixedVectorType>(T)) return FixedVectorType::get(V->getElementType(), half);
  return T;
}

// "_Z5atan2Dv16_fS_" -> "_Z5atan2Dv8_fS_": every vector of `count` elements in the mangled
// parameters becomes one of `half` (substitutions refer to types, not counts).
std::string halfName(const std::string &mangled, unsigned count, unsigned half) {
  std::string from = "Dv" + std::to_string(count) + "_", to = "Dv" + std::to_string(half) + "_";
  std::string out;
  size_t pos = 0, at;
  while ((at = mangled.find(from, pos)) != std::string::npos) {
    out += mangled.substr(pos, at - pos) + to;
    pos = at + from.size();
  }
  return out + mangled.substr(pos);
}

// F's body: the builtin on elements [0, half) and [half, count), joined.
void defineByHalves(Function &F, unsigned count) {
  Module &M = *F.getParent();
  unsigned half = count / 2;
  std::vector<Type *> params;
  for (Type *T : F.getFunctionType()->params()) params.push_back(halfOf(T, half));
  FunctionType *HT = FunctionType::get(halfOf(F.getReturnType(), half), params, false);
  FunctionCallee H = M.getOrInsertFunction(halfName(F.getName().str(), count, half), HT);
  if (auto *HF = dyn_cast<Function>(H.getCallee())) {
    HF->setCallingConv(F.getCallingConv());
    HF->setAttributes(F.getAttributes());
  }
  BasicBlock *BB = BasicBlock::Create(F.getContext(), "entry", &F);
  IRBuilder<> B(BB);
  SmallVector<int, 16> lo, hi;
  for (unsigned i = 0; i < half; ++i) lo.push_back(int(i)), hi.push_back(int(half + i));
  Value *parts[2];
  for (int p = 0; p < 2; ++p) {
    std::vector<Value *> args;
    for (Argument &A : F.args()) {
      Type *T = A.getType();
      if (isa<FixedVectorType>(T)) {
        args.push_back(B.CreateShuffleVector(&A, p ? hi : lo));
      } else if (auto *P = dyn_cast<PointerType>(T); P && isa<FixedVectorType>(P->getNonOpaquePointerElementType())) {
        Type *HP = halfOf(T, half);
        Value *base = B.CreateBitCast(&A, HP);
        args.push_back(p ? B.CreateConstInBoundsGEP1_64(cast<PointerType>(HP)->getNonOpaquePointerElementType(), base, 1)
                         : base);
      } else {
        args.push_back(&A);
      }
    }
    CallInst *C = B.CreateCall(H, args);
    C->setCallingConv(F.getCallingConv());
    parts[p] = C;
  }
  if (F.getReturnType()->isVoidTy()) {
    B.CreateRetVoid();
  } else {
    SmallVector<int, 16> all;
    for (unsigned i = 0; i < count; ++i) all.push_back(int(i));
    B.CreateRet(B.CreateShuffleVector(parts[0], parts[1], all));
  }
  F.setLinkage(GlobalValue::InternalLinkage);
  F.addFnAttr(Attribute::AlwaysInline);
}

}  // namespace

PreservedAnalyses SplitWideBuiltinsPass::run(Module &M, ModuleAnalysisManager &) {
  if (!Triple(M.getTargetTriple()).isSPIR()) return PreservedAnalyses::all();
  const DataLayout &DL = M.getDataLayout();
  bool changed = false;
  // The halves are new declarations that may be wide still (double16 -> double8): again
  // until none is left.
  for (bool more = true; more;) {
    more = false;
    std::vector<std::pair<Function *, unsigned>> todo;
    for (Function &F : M) {
      if (!F.isDeclaration() || F.use_empty() || !F.getName().startswith("_Z")) continue;
      if (!elementWise(demangle(F.getName().str()).name)) continue;
      if (unsigned count = wideCount(F, DL)) todo.push_back({&F, count});
    }
    for (auto [F, count] : todo) defineByHalves(*F, count);
    more = !todo.empty();
    changed |= more;
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void registerSplitWideBuiltins(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-split-wide-builtins") {
          MPM.addPass(SplitWideBuiltinsPass());
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
