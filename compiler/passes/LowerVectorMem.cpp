// Lowers the vloadN / vstoreN builtins (N = 2, 4, 8, 16; integer and float
// element types) to plain vector loads and stores with element alignment, so
// that the access, range and merge machinery sees ordinary memory operations.
// vload3/vstore3 and the half variants stay builtin calls (treated
// conservatively by the analyses).
//
//   function pass: tutti-lower-vload
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

PreservedAnalyses LowerVectorMemPass::run(Function &F, FunctionAnalysisManager &) {
  std::vector<CallInst *> todo;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I)) {
      Other o = otherBuiltin(demangle(calleeName(*CI)).name);
      if (o == Other::VLoad || o == Other::VStore) todo.push_back(CI);
    }
  bool changed = false;
  const DataLayout &DL = F.getParent()->getDataLayout();
  for (CallInst *CI : todo) {
    std::string name = demangle(calleeName(*CI)).name;
    bool isLoad = name.rfind("vload", 0) == 0;
    unsigned n = 0;
    std::string num = name.substr(isLoad ? 5 : 6);
    if (num != "2" && num != "4" && num != "8" && num != "16") continue;
    n = (unsigned)std::stoul(num);
    auto *VT = dyn_cast<FixedVectorType>(isLoad ? CI->getType()
                                                : (CI->arg_size() ? CI->getArgOperand(0)->getType() : nullptr));
    if (!VT || VT->getNumElements() != n || CI->arg_size() != (isLoad ? 2u : 3u)) continue;
    Type *ET = VT->getElementType();
    if (!ET->isIntegerTy() && !ET->isFloatTy() && !ET->isDoubleTy()) continue;
    Value *off = CI->getArgOperand(isLoad ? 0 : 1);
    Value *ptr = CI->getArgOperand(isLoad ? 1 : 2);
    if (!ptr->getType()->isPointerTy()) continue;
    IRBuilder<> B(CI);
    unsigned as = ptr->getType()->getPointerAddressSpace();
    Value *p = B.CreateBitCast(ptr, PointerType::get(ET, as));
    Value *idx = B.CreateMul(B.CreateZExtOrTrunc(off, B.getInt64Ty()), B.getInt64(n));
    Value *g = B.CreateInBoundsGEP(ET, p, idx);
    Value *vp = B.CreateBitCast(g, PointerType::get(VT, as));
    Align al = DL.getABITypeAlign(ET);
    if (isLoad) {
      LoadInst *L = B.CreateAlignedLoad(VT, vp, al);
      CI->replaceAllUsesWith(L);
    } else {
      B.CreateAlignedStore(CI->getArgOperand(0), vp, al);
    }
    CI->eraseFromParent();
    changed = true;
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void registerLowerVectorMem(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-lower-vload") {
          FPM.addPass(LowerVectorMemPass());
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
