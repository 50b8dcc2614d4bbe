// IR helpers shared by the passes: address spaces, kernel identification,
// cloning a kernel with extra parameters.
#include "llvm/ADT/Triple.h"
#include <functional>

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include "Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

AddrSpaces AddrSpaces::of(const Module &M) {
  AddrSpaces a;
  Triple T(M.getTargetTriple());
  if (T.isNVPTX()) {
    a.priv = 0;
    a.global = 1;
    a.constant = 4;
    a.local = 3;
    a.generic = 0;
  }
  return a;
}

bool isKernel(const Function &F) {
  if (F.isDeclaration()) return false;
  if (F.getCallingConv() == CallingConv::SPIR_KERNEL || F.getCallingConv() == CallingConv::PTX_Kernel)
    return true;
  return F.getMetadata("kernel_arg_addr_space") != nullptr;
}

std::string variantOf(const Function &F) {
  if (!F.hasFnAttribute("tutti-variant")) return "";
  return F.getFnAttribute("tutti-variant").getValueAsString().str();
}

unsigned origArgCount(const Function &F) {
  if (F.hasFnAttribute("tutti-orig-args")) {
    unsigned n = 0;
    if (!F.getFnAttribute("tutti-orig-args").getValueAsString().getAsInteger(10, n)) return n;
  }
  return F.arg_size();
}

std::string calleeName(const CallBase &CB) {
  if (const Function *F = CB.getCalledFunction()) return F->getName().str();
  if (auto *F = dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts()))
    return F->getName().str();
  return "";
}

static MDNode *extendMD(LLVMContext &C, MDNode *old, unsigned oldCount,
                        const std::vector<Metadata *> &add) {
  std::vector<Metadata *> ops;
  if (old)
    for (unsigned i = 0; i < old->getNumOperands(); ++i) ops.push_back(old->getOperand(i).get());
  // pad if metadata was shorter than the argument list
  while (ops.size() < oldCount) ops.push_back(MDString::get(C, ""));
  ops.insert(ops.end(), add.begin(), add.end());
  return MDNode::get(C, ops);
}

static Constant *remapConstant(Constant *C, GlobalVariable *from, GlobalVariable *to) {
  if (C == from) return to;
  auto *CE = dyn_cast<ConstantExpr>(C);
  if (!CE) return C;
  SmallVector<Constant *, 4> ops;
  bool changed = false;
  for (Use &op : CE->operands()) {
    Constant *o = cast<Constant>(op.get());
    Constant *n = remapConstant(o, from, to);
    changed |= n != o;
    ops.push_back(n);
  }
  return changed ? CE->getWithOperands(ops) : C;
}

// PoCL recognizes a kernel's automatic __local variables by their name
// ("<kernel>.<var>") and gives each concurrently running work-group its own
// copy; a variant must therefore own renamed copies of the variables it uses.
static void privatizeLocals(Function &F, Function &NF) {
  Module &M = *NF.getParent();
  unsigned localAS = AddrSpaces::of(M).local;
  std::vector<GlobalVariable *> locals;
  for (GlobalVariable &GV : M.globals())
    if (GV.getAddressSpace() == localAS && !GV.isDeclaration()) locals.push_back(&GV);
  std::string prefix = F.getName().str() + ".";
  for (GlobalVariable *GV : locals) {
    std::function<bool(Constant *)> refs = [&](Constant *K) -> bool {
      if (K == GV) return true;
      if (auto *CE = dyn_cast<ConstantExpr>(K))
        for (Use &u : CE->operands())
          if (refs(cast<Constant>(u.get()))) return true;
      return false;
    };
    bool used = false;
    for (Instruction &I : instructions(NF)) {
      for (Use &op : I.operands())
        if (auto *C = dyn_cast<Constant>(op.get()))
          if (refs(C)) used = true;
      if (used) break;
    }
    if (!used) continue;
    std::string n = GV->getName().str();
    std::string suffix = n.rfind(prefix, 0) == 0 ? n.substr(prefix.size()) : n;
    auto *NG = new GlobalVariable(M, GV->getValueType(), GV->isConstant(), GV->getLinkage(),
                                  GV->hasInitializer() ? GV->getInitializer() : nullptr,
                                  NF.getName().str() + "." + suffix, nullptr, GV->getThreadLocalMode(),
                                  GV->getAddressSpace());
    NG->copyAttributesFrom(GV);
    for (Instruction &I : instructions(NF))
      for (Use &op : I.operands())
        if (auto *C = dyn_cast<Constant>(op.get())) {
          Constant *R = remapConstant(C, GV, NG);
          if (R != C) op.set(R);
        }
  }
}

Function *cloneKernelWithParams(Function &F, const std::string &name,
                                const std::vector<ExtraParam> &extra) {
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  std::vector<Type *> params(F.getFunctionType()->param_begin(), F.getFunctionType()->param_end());
  for (auto &e : extra) params.push_back(e.type);
  FunctionType *FT = FunctionType::get(F.getReturnType(), params, false);
  if (Function *old = M.getFunction(name)) old->eraseFromParent();
  Function *NF = Function::Create(FT, F.getLinkage(), F.getAddressSpace(), name, &M);
  ValueToValueMapTy VMap;
  auto NI = NF->arg_begin();
  for (Argument &A : F.args()) {
    NI->setName(A.getName());
    VMap[&A] = &*NI;
    ++NI;
  }
  for (auto &e : extra) {
    NI->setName(e.name);
    ++NI;
  }
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(NF, &F, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns);
  NF->setCallingConv(F.getCallingConv());
  privatizeLocals(F, *NF);
  if (!NF->hasFnAttribute("tutti-orig-args"))
    NF->addFnAttr("tutti-orig-args", std::to_string(F.arg_size()));

  unsigned n = F.arg_size();
  auto strs = [&](auto get) {
    std::vector<Metadata *> v;
    for (auto &e : extra) v.push_back(MDString::get(C, get(e)));
    return v;
  };
  std::vector<Metadata *> as;
  for (auto &e : extra)
    as.push_back(ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(C), e.clAddrSpace)));
  auto set = [&](const char *kind, const std::vector<Metadata *> &add) {
    MDNode *old = F.getMetadata(kind);
    if (!old && std::string(kind) == "kernel_arg_name") return;
    NF->setMetadata(kind, extendMD(C, old, n, add));
  };
  set("kernel_arg_addr_space", as);
  set("kernel_arg_access_qual", strs([](const ExtraParam &) { return std::string("none"); }));
  set("kernel_arg_type", strs([](const ExtraParam &e) { return e.clType; }));
  set("kernel_arg_base_type", strs([](const ExtraParam &e) { return e.clType; }));
  set("kernel_arg_type_qual", strs([](const ExtraParam &) { return std::string(""); }));
  set("kernel_arg_name", strs([](const ExtraParam &e) { return e.name; }));

  if (NamedMDNode *ann = M.getNamedMetadata("nvvm.annotations")) {
    bool isK = false;
    for (MDNode *op : ann->operands()) {
      if (op->getNumOperands() < 3) continue;
      auto *v = dyn_cast_or_null<ValueAsMetadata>(op->getOperand(0).get());
      auto *s = dyn_cast_or_null<MDString>(op->getOperand(1).get());
      if (v && v->getValue() == &F && s && s->getString() == "kernel") isK = true;
    }
    if (isK) {
      Metadata *ops[] = {ValueAsMetadata::get(NF), MDString::get(C, "kernel"),
                         ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(C), 1))};
      ann->addOperand(MDNode::get(C, ops));
    }
  }
  return NF;
}

std::vector<ExtraParam> abiParams(LLVMContext &C) {
  std::vector<ExtraParam> v;
  Type *I64 = Type::getInt64Ty(C);
  const char *names[] = {"wg_offset", "num_groups", "global_size", "local_size", "gid_base"};
  for (int g = 0; g < 5; ++g)
    for (int d = 0; d < 3; ++d)
      v.push_back({I64, std::string("__tutti_") + names[g] + std::to_string(d), "ulong", 0});
  v.push_back({I64, "__tutti_work_dim", "ulong", 0});
  return v;
}

}  // namespace tutti::compiler::detail

namespace tutti::compiler::detail {

// A pointer may reach its buffer argument through phis and selects of several
// arguments (aliasing pointers); a parallel value per pointer ("shadow") then
// carries that argument's per-buffer data (its base, its LPT or PAS) along the
// same phis and selects, so the rewritten access needs no knowledge of which
// argument it got.
Value *bufferShadow(Value *P, const std::function<Value *(Argument &)> &leaf, Type *Ty,
                    DenseMap<Value *, Value *> &memo, std::string &why,
                    const std::function<void(GetElementPtrInst &)> &onGep) {
  if (auto it = memo.find(P); it != memo.end()) return it->second;
  Value *res = nullptr;
  if (auto *A = dyn_cast<Argument>(P)) {
    res = leaf(*A);
    if (!res) why = "pointer derived from argument " + std::to_string(A->getArgNo()) + " that is not a buffer";
  } else if (isa<ConstantPointerNull>(P) || isa<UndefValue>(P)) {
    res = Constant::getNullValue(Ty);
  } else if (auto *G = dyn_cast<GetElementPtrInst>(P)) {
    if (onGep) onGep(*G);
    res = bufferShadow(G->getPointerOperand(), leaf, Ty, memo, why, onGep);
  } else if (isa<BitCastInst>(P) || isa<AddrSpaceCastInst>(P)) {
    res = bufferShadow(cast<Instruction>(P)->getOperand(0), leaf, Ty, memo, why, onGep);
  } else if (auto *CE = dyn_cast<ConstantExpr>(P)) {
    if (CE->getOpcode() == Instruction::GetElementPtr || CE->isCast())
      res = bufferShadow(CE->getOperand(0), leaf, Ty, memo, why, onGep);
    else
      why = "pointer from a constant expression";
  } else if (auto *S = dyn_cast<SelectInst>(P)) {
    Value *a = bufferShadow(S->getTrueValue(), leaf, Ty, memo, why, onGep);
    Value *b = a ? bufferShadow(S->getFalseValue(), leaf, Ty, memo, why, onGep) : nullptr;
    if (a && b) {
      if (a == b) res = a;
      else res = SelectInst::Create(S->getCondition(), a, b, "", S);
    }
  } else if (auto *Phi = dyn_cast<PHINode>(P)) {
    // placeholder first: loops reach the phi again through their back edge
    PHINode *NP = PHINode::Create(Ty, Phi->getNumIncomingValues(), "", Phi);
    memo[P] = NP;
    bool ok = true;
    for (unsigned i = 0; i < Phi->getNumIncomingValues() && ok; ++i) {
      Value *v = bufferShadow(Phi->getIncomingValue(i), leaf, Ty, memo, why, onGep);
      if (!v) ok = false;
      else NP->addIncoming(v, Phi->getIncomingBlock(i));
    }
    if (!ok) {
      memo[P] = nullptr;
      NP->replaceAllUsesWith(UndefValue::get(Ty));
      NP->eraseFromParent();
      return nullptr;
    }
    Value *same = nullptr;
    bool uniform = true;
    for (Value *v : NP->incoming_values()) {
      if (v == NP) continue;
      if (same && v != same) uniform = false;
      same = v;
    }
    res = NP;
    if (uniform && same) {
      NP->replaceAllUsesWith(same);
      NP->eraseFromParent();
      res = same;
    }
  } else {
    why = std::string("pointer of unknown origin (") +
          (isa<Instruction>(P) ? cast<Instruction>(P)->getOpcodeName() : "value") + ")";
  }
  memo[P] = res;
  return res;
}

std::vector<unsigned> pagedBufferArgs(const Function &F) {
  std::vector<unsigned> v;
  const MDNode *md = F.getMetadata("kernel_arg_addr_space");
  unsigned n = origArgCount(F);
  for (unsigned i = 0; i < n && i < F.arg_size(); ++i) {
    if (!F.getArg(i)->getType()->isPointerTy() || F.getArg(i)->hasByValAttr()) continue;
    int as = -1;
    if (md && i < md->getNumOperands())
      if (auto *c = dyn_cast_or_null<ConstantAsMetadata>(md->getOperand(i).get()))
        if (auto *ci = dyn_cast<ConstantInt>(c->getValue())) as = (int)ci->getZExtValue();
    if (as == 1 || as == 2) v.push_back(i);
  }
  return v;
}

}  // namespace tutti::compiler::detail

#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/LowerMemIntrinsics.h"

namespace tutti::compiler::detail {

bool expandGlobalMemIntrinsics(Function &F, std::string &why) {
  AddrSpaces AS = AddrSpaces::of(*F.getParent());
  auto globalish = [&](Value *p) {
    unsigned as = p->getType()->getPointerAddressSpace();
    return as == AS.global || as == AS.constant || as == AS.generic;
  };
  std::vector<MemIntrinsic *> todo;
  for (Instruction &I : instructions(F))
    if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      bool g = globalish(MI->getRawDest());
      if (auto *MT = dyn_cast<MemTransferInst>(MI)) g |= globalish(MT->getRawSource());
      if (g) todo.push_back(MI);
    }
  TargetTransformInfo TTI(F.getParent()->getDataLayout());
  for (MemIntrinsic *MI : todo) {
    if (auto *C = dyn_cast<MemCpyInst>(MI)) {
      expandMemCpyAsLoop(C, TTI);
    } else if (auto *S = dyn_cast<MemSetInst>(MI)) {
      expandMemSetAsLoop(S);
    } else if (auto *Mv = dyn_cast<MemMoveInst>(MI)) {
      if (Mv->getRawDest()->getType()->getPointerAddressSpace() !=
          Mv->getRawSource()->getType()->getPointerAddressSpace()) {
        why = "memmove between address spaces";
        return false;
      }
      expandMemMoveAsLoop(Mv);
    } else {
      why = "memory intrinsic on global memory";
      return false;
    }
    MI->eraseFromParent();
  }
  return true;
}

}  // namespace tutti::compiler::detail

namespace tutti::compiler::detail {

void cloneVastVariants(Module &M, ModuleAnalysisManager &MAM, const std::string &variant,
                       const std::function<std::vector<ExtraParam>(const std::vector<unsigned> &)> &params,
                       const std::function<bool(Function &, const std::vector<unsigned> &, VastOutcome &)> &transform,
                       std::vector<VastOutcome> *outcomes) {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  std::vector<Function *> prs;
  for (Function &F : M)
    if (!F.isDeclaration() && variantOf(F) == "pr") prs.push_back(&F);
  for (Function *P : prs) {
    std::string n = P->getName().str();
    VastOutcome out;
    out.kernel = n.substr(0, n.size() - std::string("__tutti_pr").size());
    std::vector<unsigned> bufs = pagedBufferArgs(*P);
    Function *NF = cloneKernelWithParams(*P, out.kernel + "__tutti_" + variant, params(bufs));
    NF->addFnAttr("tutti-variant", variant);
    // the variant reads LPTs / writes PASs the original never touched
    for (Attribute::AttrKind a : {Attribute::ReadNone, Attribute::ReadOnly, Attribute::WriteOnly,
                                  Attribute::InaccessibleMemOnly, Attribute::InaccessibleMemOrArgMemOnly})
      NF->removeFnAttr(a);
    out.ok = transform(*NF, bufs, out);
    FAM.invalidate(*NF, PreservedAnalyses::none());
    if (out.ok) out.bufferArgs.assign(bufs.begin(), bufs.end());
    else NF->eraseFromParent();
    if (outcomes) outcomes->push_back(out);
  }
}

}  // namespace tutti::compiler::detail

namespace tutti::compiler::detail {

const ArgAccessResult *vastAccesses(Function &NF, FunctionAnalysisManager &FAM,
                                    const std::vector<unsigned> &bufArgs, std::vector<AccessRec> &recs,
                                    std::string &why) {
  if (!expandGlobalMemIntrinsics(NF, why)) return nullptr;
  lowerVectorBuiltinsForPaging(NF);
  FAM.invalidate(NF, PreservedAnalyses::none());
  auto &AA = FAM.getResult<ArgAccessAnalysis>(NF);
  for (unsigned a : bufArgs)
    if (AA.args[a].escapes) {
      why = "buffer argument " + std::to_string(a) + " escapes: " + AA.args[a].escapeReason;
      return nullptr;
    }
  unsigned nOrig = origArgCount(NF);
  std::set<std::pair<Instruction *, Value *>> seen;
  for (const AccessRec &r : AA.accesses) {
    if (r.unknownObject) {
      why = "global memory accessed through a pointer of unknown origin";
      return nullptr;
    }
    if (r.args.empty()) continue;  // program-scope globals stay where they are
    for (unsigned a : r.args)
      if (a >= nOrig) {
        why = "access through a non-buffer argument";
        return nullptr;
      }
    Instruction *I = r.inst;
    if (auto *CB = dyn_cast<CallBase>(I)) {
      if (r.aop == AtomicOp::None || CB->getArgOperand(0) != r.ptr) {
        why = "builtin '" + demangle(calleeName(*CB)).name + "' accesses a buffer by itself";
        return nullptr;
      }
    } else if (!isa<LoadInst>(I) && !isa<StoreInst>(I) && !isa<AtomicRMWInst>(I) && !isa<AtomicCmpXchgInst>(I)) {
      why = std::string("unsupported global access '") + I->getOpcodeName() + "'";
      return nullptr;
    }
    if (r.size == 0) {
      why = "global access of unknown size";
      return nullptr;
    }
    if (seen.insert({r.inst, r.ptr}).second) recs.push_back(r);
  }
  return &AA;
}

}  // namespace tutti::compiler::detail

namespace tutti::compiler::detail {

// sincos(x, __global float *c) -> sincos(x, &tmp); *c = tmp: the result
// pointer becomes a private temporary (the private overload: "PU3AS1" ->
// "P" in the mangled name) and the store to the buffer a plain one.
static void privatizeResultPointers(Function &F) {
  AddrSpaces AS = AddrSpaces::of(*F.getParent());
  const DataLayout &DL = F.getParent()->getDataLayout();
  std::vector<CallInst *> todo;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I)) {
      std::string n = demangle(calleeName(*CI)).name;
      if (n != "sincos" && n != "modf" && n != "frexp" && n != "fract" && n != "remquo" && n != "lgamma_r")
        continue;
      Value *p = CI->getArgOperand(CI->arg_size() - 1);
      if (!p->getType()->isPointerTy()) continue;
      unsigned as = p->getType()->getPointerAddressSpace();
      if (as == AS.global || (as == AS.generic && as != AS.priv)) todo.push_back(CI);
    }
  for (CallInst *CI : todo) {
    std::string mangled = calleeName(*CI);
    Value *p = CI->getArgOperand(CI->arg_size() - 1);
    std::string q = "PU3AS" + std::to_string(p->getType()->getPointerAddressSpace());
    size_t at = mangled.rfind(q);
    if (at == std::string::npos) continue;
    std::string priv = mangled.substr(0, at) + "P" + mangled.substr(at + q.size());
    // the result has the first argument's type (sincos, modf, fract) or int
    // of its shape (frexp, remquo, lgamma_r); pointers may be opaque (NVPTX)
    Type *PT = CI->getArgOperand(0)->getType();
    std::string n = demangle(mangled).name;
    if (n == "frexp" || n == "remquo" || n == "lgamma_r") {
      Type *I32 = Type::getInt32Ty(F.getContext());
      PT = PT->isVectorTy() ? (Type *)FixedVectorType::get(I32, cast<FixedVectorType>(PT)->getNumElements()) : I32;
    }
    auto *tmp = new AllocaInst(PT, DL.getAllocaAddrSpace(), "vast.res",
                               &*F.getEntryBlock().getFirstInsertionPt());
    std::vector<Type *> params;
    std::vector<Value *> args;
    for (unsigned i = 0; i + 1 < CI->arg_size(); ++i) {
      params.push_back(CI->getArgOperand(i)->getType());
      args.push_back(CI->getArgOperand(i));
    }
    params.push_back(tmp->getType());
    args.push_back(tmp);
    FunctionCallee FC = F.getParent()->getOrInsertFunction(priv, FunctionType::get(CI->getType(), params, false));
    if (auto *NF = dyn_cast<Function>(FC.getCallee()))
      if (NF->use_empty()) NF->setCallingConv(CI->getCallingConv());
    IRBuilder<> B(CI);
    CallInst *N = B.CreateCall(FC, args);
    N->setCallingConv(CI->getCallingConv());
    B.CreateStore(B.CreateLoad(PT, tmp), p);
    CI->replaceAllUsesWith(N);
    CI->eraseFromParent();
  }
}

bool lowerVectorBuiltinsForPaging(Function &F) {
  privatizeResultPointers(F);
  AddrSpaces AS = AddrSpaces::of(*F.getParent());
  std::vector<CallInst *> todo;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I)) {
      Other o = otherBuiltin(demangle(calleeName(*CI)).name);
      if ((o == Other::VLoad || o == Other::VStore || o == Other::VLoadHalf || o == Other::VStoreHalf) &&
          CI->arg_size() >= 2) {
        Value *p = CI->getArgOperand(CI->arg_size() - 1);
        unsigned as = p->getType()->isPointerTy() ? p->getType()->getPointerAddressSpace() : AS.priv;
        if (as == AS.global || as == AS.constant || as == AS.generic) todo.push_back(CI);
      }
    }
  bool changed = false;
  LLVMContext &C = F.getContext();
  for (CallInst *CI : todo) {
    std::string name = demangle(calleeName(*CI)).name;
    bool load = name.rfind("vload", 0) == 0;
    bool half = name.find("half") != std::string::npos;
    bool aligned = name.rfind("vloada", 0) == 0 || name.rfind("vstorea", 0) == 0;
    // what follows vload / vstore / ..._half: the width, then a rounding mode
    std::string rest = half ? name.substr(name.find("half") + 4) : name.substr(load ? 5 : 6);
    std::string num = rest.substr(0, rest.find('_'));
    std::string round = rest.find('_') == std::string::npos ? "" : rest.substr(rest.find('_'));
    // only round-to-nearest-even conversions are an fptrunc
    if (!round.empty() && round != "_rte") continue;
    unsigned n = num.empty() ? 1 : (unsigned)std::stoul(num);
    if (n != 1 && n != 2 && n != 3 && n != 4 && n != 8 && n != 16) continue;
    unsigned stride = aligned && n == 3 ? 4 : n;
    Value *val = load ? nullptr : CI->getArgOperand(0);
    Type *VT = load ? CI->getType() : val->getType();
    Type *ET = VT->isVectorTy() ? cast<FixedVectorType>(VT)->getElementType() : VT;
    Type *MT = half ? Type::getHalfTy(C) : ET;  // type in memory
    if (!MT->isIntegerTy() && !MT->isFloatingPointTy()) continue;
    IRBuilder<> B(CI);
    Value *off = B.CreateZExtOrTrunc(CI->getArgOperand(load ? 0 : 1), B.getInt64Ty());
    Value *ptr = CI->getArgOperand(CI->arg_size() - 1);
    unsigned as = ptr->getType()->getPointerAddressSpace();
    Value *base = B.CreateBitCast(ptr, PointerType::get(MT, as));
    Align al(F.getParent()->getDataLayout().getTypeStoreSize(MT).getFixedSize());
    Value *res = load && VT->isVectorTy() ? (Value *)UndefValue::get(VT) : nullptr;
    for (unsigned k = 0; k < n; ++k) {
      Value *g = B.CreateGEP(MT, base, B.CreateAdd(B.CreateMul(off, B.getInt64(stride)), B.getInt64(k)));
      if (load) {
        Value *v = B.CreateAlignedLoad(MT, g, al);
        if (half) v = B.CreateFPExt(v, ET);
        res = VT->isVectorTy() ? B.CreateInsertElement(res, v, k) : v;
      } else {
        Value *v = VT->isVectorTy() ? B.CreateExtractElement(val, k) : val;
        if (half) v = B.CreateFPTrunc(v, MT);
        B.CreateAlignedStore(v, g, al);
      }
    }
    if (load) CI->replaceAllUsesWith(res);
    CI->eraseFromParent();
    changed = true;
  }
  return changed;
}

Value *perLane(IRBuilder<> &B, ArrayRef<Value *> ops,
               const std::function<Value *(IRBuilder<> &, ArrayRef<Value *>)> &f) {
  auto *VT = dyn_cast<FixedVectorType>(ops[0]->getType());
  if (!VT) return f(B, ops);
  Value *r = PoisonValue::get(VT);
  SmallVector<Value *, 2> lane(ops.size());
  for (unsigned i = 0; i < VT->getNumElements(); ++i) {
    for (size_t j = 0; j < ops.size(); ++j) lane[j] = B.CreateExtractElement(ops[j], i);
    r = B.CreateInsertElement(r, f(B, lane), i);
  }
  return r;
}

}  // namespace tutti::compiler::detail
