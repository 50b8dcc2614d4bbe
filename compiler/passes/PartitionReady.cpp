// Partition-ready kernel (work-group virtualization).
//
// The thesis (Fig. 3.4/4.1) launches the whole NDRange and lets disabled
// groups return early. Here the runtime launches only the assigned groups, as
// up to five box-shaped sub-launches (planPartialLaunch), and the kernel is
// told where its box lies in the full launch. For kernel K we add K__tutti_pr
// with 16 trailing ulong parameters (see compiler.h / README.md) and rewrite
// every work-item function so that it answers as in the full launch:
//
//   get_group_id(d)          = hw_group_id(d) + wg_offset[d]
//   get_global_id(d)         = hw_global_id(d) + gid_base[d]
//                              (gid_base = wg_offset*local_size + global_offset, from the host)
//   get_num_groups(d)        = num_groups[d]
//   get_global_size(d)       = global_size[d]
//   get_global_offset(d)     = gid_base[d] - wg_offset[d]*local_size[d]
//   get_enqueued_local_size  = local_size[d]
//   get_work_dim()           = work_dim
//   get_global_linear_id()   from the rewritten global ids
//   get_local_linear_id      from local ids and sizes (libclc lacks it)
//   get_local_id / get_local_size: unchanged
//
// Sub-launches use offset 0, so hw_global_id = hw_group_id*hw_local_size +
// local_id; the single-group piece that holds a non-uniform last group runs
// with local size = remainder and hw_group_id 0, which the formula also
// covers. The cost inside the kernel is one add per query, and skipped groups
// cost nothing.
//
//   module pass: tutti-partition-ready
#include "llvm/ADT/Triple.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

namespace {

FunctionCallee workItemDecl(Module &M, const char *mangled, Type *ret, bool hasDim, CallingConv::ID cc) {
  LLVMContext &C = M.getContext();
  FunctionType *FT = hasDim ? FunctionType::get(ret, {Type::getInt32Ty(C)}, false)
                            : FunctionType::get(ret, {}, false);
  FunctionCallee FC = M.getOrInsertFunction(mangled, FT);
  if (auto *F = dyn_cast<Function>(FC.getCallee())) {
    if (F->empty() && F->use_empty()) {
      F->setCallingConv(cc);
      F->addFnAttr(Attribute::NoUnwind);
      F->addFnAttr(Attribute::ReadNone);
      F->addFnAttr(Attribute::WillReturn);
    }
  }
  return FC;
}

struct Rewriter {
  Function &NF;
  unsigned base;  // index of the first ABI argument
  CallingConv::ID cc;

  Value *abi(unsigned group, unsigned d) { return NF.getArg(base + group * 3 + d); }

  // Select the per-dimension ABI value; out-of-range dimensions give `def`.
  Value *sel(IRBuilder<> &B, unsigned group, Value *dim, uint64_t def) {
    Type *I64 = B.getInt64Ty();
    if (auto *C = dyn_cast<ConstantInt>(dim)) {
      uint64_t d = C->getZExtValue();
      return d < 3 ? abi(group, (unsigned)d) : ConstantInt::get(I64, def);
    }
    Value *v = ConstantInt::get(I64, def);
    for (int d = 2; d >= 0; --d) {
      Value *eq = B.CreateICmpEQ(dim, ConstantInt::get(dim->getType(), d));
      v = B.CreateSelect(eq, abi(group, (unsigned)d), v);
    }
    return v;
  }

  Value *hwCall(IRBuilder<> &B, const char *mangled, Value *dim) {
    Module &M = *NF.getParent();
    FunctionCallee FC = workItemDecl(M, mangled, B.getInt64Ty(), true, cc);
    CallInst *CI = B.CreateCall(FC, {dim});
    CI->setCallingConv(cc);
    return CI;
  }

  Value *fitRet(IRBuilder<> &B, Value *v, Type *T) {
    if (v->getType() == T) return v;
    return B.CreateZExtOrTrunc(v, T);
  }

  // Global id of dimension `dim` as in the full launch.
  Value *globalId(IRBuilder<> &B, Value *dim) {
    Value *hw = hwCall(B, "_Z13get_global_idj", dim);
    return B.CreateAdd(hw, sel(B, 4, dim, 0));
  }

  // get_global_offset(dim) = gid_base - wg_offset * local_size
  Value *globalOffset(IRBuilder<> &B, Value *dim) {
    return B.CreateSub(sel(B, 4, dim, 0), B.CreateMul(sel(B, 0, dim, 0), sel(B, 3, dim, 1)));
  }

  bool run() {
    std::vector<CallInst *> calls;
    for (Instruction &I : instructions(NF))
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (workItemFn(demangle(calleeName(*CI)).name) != WI::None) calls.push_back(CI);
    for (CallInst *CI : calls) {
      WI wi = workItemFn(demangle(calleeName(*CI)).name);
      IRBuilder<> B(CI);
      Type *RT = CI->getType();
      Value *dim = CI->arg_size() ? CI->getArgOperand(0) : nullptr;
      Value *nv = nullptr;
      switch (wi) {
        case WI::GroupId: {
          nv = B.CreateAdd(fitRet(B, hwCall(B, "_Z12get_group_idj", dim), B.getInt64Ty()), sel(B, 0, dim, 0));
          break;
        }
        case WI::GlobalId: nv = globalId(B, dim); break;
        case WI::NumGroups: nv = sel(B, 1, dim, 1); break;
        case WI::GlobalSize: nv = sel(B, 2, dim, 1); break;
        case WI::EnqLocalSize: nv = sel(B, 3, dim, 1); break;
        case WI::GlobalOffset: nv = globalOffset(B, dim); break;
        case WI::WorkDim: nv = NF.getArg(base + 15); break;
        case WI::GlobalLinearId: {
          Value *r[3];
          for (unsigned d = 0; d < 3; ++d) {
            Value *D = B.getInt32(d);
            // global id - global offset = hw global id + wg_offset * local_size
            r[d] = B.CreateAdd(hwCall(B, "_Z13get_global_idj", D), B.CreateMul(abi(0, d), abi(3, d)));
          }
          Value *G0 = abi(2, 0), *G1 = abi(2, 1);
          nv = B.CreateAdd(r[0], B.CreateMul(G0, B.CreateAdd(r[1], B.CreateMul(G1, r[2]))));
          break;
        }
        case WI::LocalLinearId: {
          // not in libclc for NVPTX: compute from local ids and sizes
          Value *l[3], *ls[2];
          for (unsigned d = 0; d < 3; ++d) l[d] = hwCall(B, "_Z12get_local_idj", B.getInt32(d));
          for (unsigned d = 0; d < 2; ++d) ls[d] = hwCall(B, "_Z14get_local_sizej", B.getInt32(d));
          nv = B.CreateAdd(l[0], B.CreateMul(ls[0], B.CreateAdd(l[1], B.CreateMul(ls[1], l[2]))));
          break;
        }
        default: continue;  // local id / size: unchanged
      }
      nv = fitRet(B, nv, RT);
      CI->replaceAllUsesWith(nv);
      CI->eraseFromParent();
    }
    return true;
  }
};

}  // namespace

PreservedAnalyses PartitionReadyPass::run(Module &M, ModuleAnalysisManager &) {
  std::vector<Function *> kernels;
  for (Function &F : M)
    if (isKernel(F) && variantOf(F).empty() && (only.empty() || only.count(F.getName().str())))
      kernels.push_back(&F);
  if (kernels.empty()) return PreservedAnalyses::all();
  CallingConv::ID cc = Triple(M.getTargetTriple()).isSPIR() ? CallingConv::SPIR_FUNC : CallingConv::C;
  for (Function *F : kernels) {
    Function *NF = cloneKernelWithParams(*F, F->getName().str() + "__tutti_pr", abiParams(M.getContext()));
    NF->addFnAttr("tutti-variant", "pr");
    Rewriter R{*NF, (unsigned)F->arg_size(), cc};
    R.run();
  }
  return PreservedAnalyses::none();
}

void registerPartitionReady(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-partition-ready") {
          MPM.addPass(PartitionReadyPass());
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
