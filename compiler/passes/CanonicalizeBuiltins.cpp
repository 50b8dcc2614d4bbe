// Makes OpenCL builtin calls analyzable (semantics-preserving):
//  * every builtin declaration (Itanium-mangled _Z..., printf) gets nounwind
//    and willreturn: OpenCL builtins never throw and always return. Without
//    this a barrier() in a loop makes ScalarEvolution give up on trip counts.
//  * work-item functions (get_global_id ...) lose `convergent` (they are pure)
//    and calls with a constant dimension are hoisted to the kernel entry and
//    shared, so that loop strides such as get_global_size(0) are invariant.
//  * local ids and sizes get !range metadata (sizes >= 1, < 2^20).
//
//   module pass: tutti-canonicalize-builtins
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/MDBuilder.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

struct CanonicalizeBuiltinsPass : PassInfoMixin<CanonicalizeBuiltinsPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &);
};

PreservedAnalyses CanonicalizeBuiltinsPass::run(Module &M, ModuleAnalysisManager &) {
  bool changed = false;
  LLVMContext &C = M.getContext();
  for (Function &F : M) {
    if (!F.isDeclaration() || F.isIntrinsic()) continue;
    StringRef n = F.getName();
    if (!n.startswith("_Z") && n != "printf") continue;
    if (!F.hasFnAttribute(Attribute::NoUnwind)) { F.addFnAttr(Attribute::NoUnwind); changed = true; }
    if (!F.hasFnAttribute(Attribute::WillReturn)) { F.addFnAttr(Attribute::WillReturn); changed = true; }
    if (workItemFn(demangle(n.str()).name) != WI::None) {
      F.removeFnAttr(Attribute::Convergent);
      F.addFnAttr(Attribute::ReadNone);
      changed = true;
    }
  }
  MDBuilder MDB(C);
  for (Function &F : M) {
    if (F.isDeclaration()) continue;
    std::map<std::pair<Function *, uint64_t>, CallInst *> canon;
    std::vector<CallInst *> calls;
    for (Instruction &I : instructions(F))
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (Function *Callee = CI->getCalledFunction())
          if (workItemFn(demangle(Callee->getName().str()).name) != WI::None) calls.push_back(CI);
    BasicBlock &Entry = F.getEntryBlock();
    for (CallInst *CI : calls) {
      Function *Callee = CI->getCalledFunction();
      WI wi = workItemFn(demangle(Callee->getName().str()).name);
      CI->removeFnAttr(Attribute::Convergent);
      if (CI->getType()->isIntegerTy(64) || CI->getType()->isIntegerTy(32)) {
        unsigned w = CI->getType()->getIntegerBitWidth();
        if (wi == WI::LocalId) CI->setMetadata(LLVMContext::MD_range, MDB.createRange(APInt(w, 0), APInt(w, 1 << 20)));
        if (wi == WI::LocalSize || wi == WI::EnqLocalSize)
          CI->setMetadata(LLVMContext::MD_range, MDB.createRange(APInt(w, 1), APInt(w, (1 << 20) + 1)));
        if (wi == WI::WorkDim) CI->setMetadata(LLVMContext::MD_range, MDB.createRange(APInt(w, 1), APInt(w, 4)));
      }
      uint64_t key = ~0ull;
      if (CI->arg_size() == 1) {
        auto *K = dyn_cast<ConstantInt>(CI->getArgOperand(0));
        if (!K) continue;  // non-constant dimension: leave in place
        key = K->getZExtValue();
      } else if (CI->arg_size() != 0) {
        continue;
      }
      auto it = canon.find({Callee, key});
      if (it == canon.end()) {
        CI->moveBefore(&*Entry.getFirstInsertionPt());
        canon[{Callee, key}] = CI;
      } else {
        CI->replaceAllUsesWith(it->second);
        CI->eraseFromParent();
      }
      changed = true;
    }
    // keep allocas first in the entry block
    std::vector<AllocaInst *> allocas;
    for (Instruction &I : Entry)
      if (auto *AI = dyn_cast<AllocaInst>(&I)) allocas.push_back(AI);
    for (auto it = allocas.rbegin(); it != allocas.rend(); ++it)
      (*it)->moveBefore(&*Entry.getFirstInsertionPt());
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void registerCanonicalizeBuiltins(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-canonicalize-builtins") {
          MPM.addPass(CanonicalizeBuiltinsPass());
          return true;
        }
        return false;
      });
}

void addCanonicalizeBuiltins(ModulePassManager &MPM) { MPM.addPass(CanonicalizeBuiltinsPass()); }

}  // namespace tutti::compiler::detail
