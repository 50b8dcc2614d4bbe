// Instrumented range check (tests): K__tutti_trace is K__tutti_pr plus one
// trailing `__global long *trace` parameter. Every access to argument i at
// byte offset o of s bytes does
//   atomic_min(trace[4i + k], o);  atomic_max(trace[4i + k + 1], o + s - 1)
// with k = 0 for reads and k = 2 for writes/atomics. The host initializes the
// minima to LONG_MAX and the maxima to LONG_MIN, runs a flattened group range
// and compares the observed hulls with accessedRange().
//
//   module pass: tutti-instrument-ranges
#include "llvm/IR/IRBuilder.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

PreservedAnalyses InstrumentRangesPass::run(Module &M, ModuleAnalysisManager &MAM) {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  AddrSpaces AS = AddrSpaces::of(M);
  std::vector<Function *> prs;
  for (Function &F : M)
    if (!F.isDeclaration() && variantOf(F) == "pr") prs.push_back(&F);
  for (Function *P : prs) {
    std::string n = P->getName().str();
    std::string k = n.substr(0, n.size() - std::string("__tutti_pr").size());
    LLVMContext &C = M.getContext();
    Type *TracePtr = Type::getInt64PtrTy(C, AS.global);
    Function *T = cloneKernelWithParams(*P, k + "__tutti_trace", {{TracePtr, "__tutti_trace", "long*", 1}});
    T->addFnAttr("tutti-variant", "trace");
    Value *trace = T->getArg(T->arg_size() - 1);
    unsigned nargs = origArgCount(*T);
    auto &AA = FAM.getResult<ArgAccessAnalysis>(*T);
    std::vector<AccessRec> recs = AA.accesses;
    for (const AccessRec &a : recs) {
      if (a.arg < 0 || (unsigned)a.arg >= nargs || a.unknownObject || a.size == 0) continue;
      IRBuilder<> B(a.inst);
      Type *I64 = B.getInt64Ty();
      unsigned as = a.ptr->getType()->getPointerAddressSpace();
      Value *arg = T->getArg(a.arg);
      auto *PT = cast<PointerType>(arg->getType());
      if (PT->getAddressSpace() != as)
        arg = B.CreateAddrSpaceCast(arg, PointerType::getWithSamePointeeType(PT, as));
      Value *off = B.CreateSub(B.CreatePtrToInt(a.ptr, I64), B.CreatePtrToInt(arg, I64));
      Value *last = B.CreateAdd(off, ConstantInt::get(I64, a.size - 1));
      unsigned slot = 4 * a.arg + (a.kind == 0 ? 0 : 2);
      Value *pmin = B.CreateGEP(I64, trace, ConstantInt::get(I64, slot));
      Value *pmax = B.CreateGEP(I64, trace, ConstantInt::get(I64, slot + 1));
      B.CreateAtomicRMW(AtomicRMWInst::Min, pmin, off, Align(8), AtomicOrdering::Monotonic);
      B.CreateAtomicRMW(AtomicRMWInst::Max, pmax, last, Align(8), AtomicOrdering::Monotonic);
    }
    FAM.invalidate(*T, PreservedAnalyses::none());
  }
  return PreservedAnalyses::none();
}

void registerInstrumentRanges(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-instrument-ranges") {
          MPM.addPass(InstrumentRangesPass());
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
