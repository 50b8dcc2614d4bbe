// Paged-access kernel (VAST, thesis §4.4.2 and Eq. 4.2): K__tutti_paged.
//
// Cloned from K__tutti_pr (so it runs any flattened range of groups, one VAST
// slice) with extra trailing parameters:
//   uint __tutti_page_shift                 log2(page size), 12..21
//   __global const uint *__tutti_lpt<i>     one LPT per __global/__constant
//                                           buffer argument i, in argument order
// Buffer argument i is bound to its *frame buffer*: the pages the slice
// touches, each at a multiple of the page size in any order. For logical byte
// offset o of argument i (the offset the original kernel would use):
//   page = o >> shift,  frame = lpt<i>[page],
//   address = frame_buffer_i + (frame << shift) + (o & (page size - 1)).
// We compute it as p + ((frame - page) << shift) on the original pointer p:
// one LPT load, one subtract, one shift, one add per access, and the access
// keeps its type and alignment. Pointers that may come from several buffers
// (phis/selects of arguments) carry their LPT along (bufferShadow).
//
// An access that is not aligned to its own size (vloadN on element
// alignment, packed structs) may straddle a page boundary, and the next page's
// frame need not follow; it is split into pieces of its alignment, each
// translated on its own. Aligned accesses of up to 128 bytes never straddle a
// page of at least 4 KiB, so they stay one access.
//
// Refused (no variant, reason given): accesses through pointers of unknown
// origin (loaded from memory, inttoptr), buffer pointers that escape, and
// builtins that touch a buffer by themselves (vload3/vload_half, async copies).
//
//   module pass: tutti-paged-access
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

namespace {

struct Pager {
  Function &NF;
  unsigned nOrig;
  std::vector<unsigned> bufArgs;
  std::map<unsigned, unsigned> lptParam;  // buffer argument -> parameter index
  Value *shift = nullptr;                 // i64
  DenseMap<Value *, Value *> baseMemo, lptMemo;
  std::string why;

  Instruction *entryPt() { return &*NF.getEntryBlock().getFirstInsertionPt(); }

  // New address of an access through p (inserted at B).
  Value *translate(IRBuilder<> &B, Value *p) {
    LLVMContext &C = NF.getContext();
    Type *I64 = Type::getInt64Ty(C);
    Type *I32 = Type::getInt32Ty(C);
    auto stripInbounds = [](GetElementPtrInst &G) { G.setIsInBounds(false); };
    Value *base = bufferShadow(
        p,
        [&](Argument &A) -> Value * {
          if (!lptParam.count(A.getArgNo())) return nullptr;
          IRBuilder<> E(entryPt());
          return E.CreatePtrToInt(&A, I64);
        },
        I64, baseMemo, why, stripInbounds);
    Value *lpt = bufferShadow(
        p,
        [&](Argument &A) -> Value * {
          auto it = lptParam.find(A.getArgNo());
          return it == lptParam.end() ? nullptr : NF.getArg(it->second);
        },
        PointerType::get(I32, 1), lptMemo, why);
    if (!base || !lpt) return nullptr;
    Value *off = B.CreateSub(B.CreatePtrToInt(p, I64), base, "vast.off");
    Value *page = B.CreateLShr(off, shift, "vast.page");
    LoadInst *fr = B.CreateAlignedLoad(I32, B.CreateGEP(I32, lpt, page), Align(4), "vast.frame");
    fr->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(C, {}));
    Value *delta = B.CreateShl(B.CreateSub(B.CreateZExt(fr, I64), page), shift, "vast.delta");
    unsigned as = p->getType()->getPointerAddressSpace();
    Type *I8P = Type::getInt8PtrTy(C, as);
    Value *q = B.CreateGEP(Type::getInt8Ty(C), B.CreateBitCast(p, I8P), delta, "vast.addr");
    return B.CreateBitCast(q, p->getType());
  }

  // Load/store not aligned to its size: copy through a private temporary, one
  // aligned piece at a time.
  bool splitAccess(Instruction *I, Value *p, Type *T, Align al, uint64_t size) {
    const DataLayout &DL = NF.getParent()->getDataLayout();
    LLVMContext &C = NF.getContext();
    uint64_t piece = al.value();
    if (piece == 0 || size % piece) piece = 1;
    Type *PT = Type::getIntNTy(C, (unsigned)piece * 8);
    unsigned as = p->getType()->getPointerAddressSpace();
    auto *tmp = new AllocaInst(T, DL.getAllocaAddrSpace(), "vast.tmp", entryPt());
    IRBuilder<> B(I);
    Value *src8 = B.CreateBitCast(p, Type::getInt8PtrTy(C, as));
    Value *tmp8 = B.CreateBitCast(tmp, Type::getInt8PtrTy(C, DL.getAllocaAddrSpace()));
    auto *St = dyn_cast<StoreInst>(I);
    if (St) B.CreateStore(St->getValueOperand(), tmp);
    bool vol = isa<LoadInst>(I) ? cast<LoadInst>(I)->isVolatile() : St->isVolatile();
    for (uint64_t k = 0; k < size; k += piece) {
      Value *g = B.CreateBitCast(B.CreateGEP(B.getInt8Ty(), src8, B.getInt64(k)), PointerType::get(PT, as));
      Value *t = B.CreateBitCast(B.CreateGEP(B.getInt8Ty(), tmp8, B.getInt64(k)),
                                 PointerType::get(PT, DL.getAllocaAddrSpace()));
      Value *x = translate(B, g);
      if (!x) return false;
      if (St) {
        B.CreateAlignedStore(B.CreateAlignedLoad(PT, t, Align(piece)), x, Align(piece), vol);
      } else {
        Value *v = B.CreateAlignedLoad(PT, x, Align(piece), vol);
        B.CreateAlignedStore(v, t, Align(piece));
      }
    }
    if (!St) I->replaceAllUsesWith(B.CreateLoad(T, tmp));
    I->eraseFromParent();
    return true;
  }

  bool run(FunctionAnalysisManager &FAM) {
    std::vector<AccessRec> recs;
    if (!vastAccesses(NF, FAM, bufArgs, recs, why)) return false;
    // a logical pointer may lie beyond the bound frame buffer: no GEP on a
    // buffer may claim to stay inside it (comparisons included)
    for (Instruction &I : instructions(NF))
      if (auto *G = dyn_cast<GetElementPtrInst>(&I))
        if (auto *A = dyn_cast<Argument>(getUnderlyingObject(G, 0)))
          if (lptParam.count(A->getArgNo())) G->setIsInBounds(false);
    {
      IRBuilder<> E(entryPt());
      shift = E.CreateZExt(NF.getArg(nOrig + kAbiArgs), E.getInt64Ty(), "vast.shift");
    }
    for (const AccessRec &r : recs) {
      Instruction *I = r.inst;
      if (auto *L = dyn_cast<LoadInst>(I)) {
        Align al = L->getAlign();
        if (r.size > 1 && al.value() < r.size) {
          if (!splitAccess(I, r.ptr, L->getType(), al, r.size)) return false;
          continue;
        }
      } else if (auto *S = dyn_cast<StoreInst>(I)) {
        Align al = S->getAlign();
        if (r.size > 1 && al.value() < r.size) {
          if (!splitAccess(I, r.ptr, S->getValueOperand()->getType(), al, r.size)) return false;
          continue;
        }
      }
      // atomics (instructions and builtins) are naturally aligned: never straddle
      IRBuilder<> B(I);
      Value *x = translate(B, r.ptr);
      if (!x) return false;
      for (Use &U : I->operands())
        if (U.get() == r.ptr) U.set(x);
    }
    return true;
  }
};

}  // namespace

PreservedAnalyses PagedAccessPass::run(Module &M, ModuleAnalysisManager &MAM) {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  LLVMContext &C = M.getContext();
  auto params = [&](const std::vector<unsigned> &bufs) {
    std::vector<ExtraParam> extra{{Type::getInt32Ty(C), "__tutti_page_shift", "uint", 0}};
    for (unsigned a : bufs)
      extra.push_back({PointerType::get(Type::getInt32Ty(C), 1), "__tutti_lpt" + std::to_string(a), "uint*", 1});
    return extra;
  };
  auto transform = [&](Function &NF, const std::vector<unsigned> &bufs, VastOutcome &out) {
    // DenseMap spelled out: its default constructor is explicit, which clang (unlike gcc)
    // refuses for a {} initializer.
    Pager pg{NF, origArgCount(NF), bufs, {}, nullptr, DenseMap<Value *, Value *>(),
             DenseMap<Value *, Value *>(), {}};
    unsigned idx = origArgCount(NF) + kAbiArgs + 1;
    for (unsigned a : bufs) {
      pg.lptParam[a] = idx;
      NF.addParamAttr(idx, Attribute::NoAlias);
      NF.addParamAttr(idx, Attribute::ReadOnly);
      NF.addParamAttr(idx, Attribute::NoCapture);
      ++idx;
    }
    bool ok = pg.run(FAM);
    out.reason = pg.why;
    return ok;
  };
  cloneVastVariants(M, MAM, "paged", params, transform, outcomes);
  return PreservedAnalyses::none();
}

void registerPagedAccess(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "tutti-paged-access") {
          MPM.addPass(PagedAccessPass());
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
