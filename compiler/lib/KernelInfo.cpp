// Combines the per-kernel analyses into the public KernelInfo record and
// decides whether a kernel can be partitioned. Also the printer pass
// print<tutti-kernel-info> (what tutti-cc shows).
#include "llvm/IR/Metadata.h"
#include "llvm/Support/raw_ostream.h"

#include "../passes/BarrierExits.h"
#include "../passes/DefineMemFences.h"
#include "Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

Contiguity staticContiguity(const KernelInfo &k);  // Launch.cpp

AtomicCombine combineRule(const ArgSummary &S, std::string *why) {
  auto fail = [&](const std::string &s) {
    if (why) *why = s;
    return AtomicCombine::None;
  };
  if (!S.atomic) return AtomicCombine::None;
  if (S.atomicResultUsed) return fail("the result of a global atomic is used");
  if (S.written || S.read) return fail("buffer is both atomically updated and plainly accessed");
  bool isSigned = false, isUnsigned = false;
  for (char t : S.atomicTypes) {
    if (t == 'f' || t == 'd' || t == 0 || !typeBytes(t)) return fail("non-integer atomic");
    if (typeIsSigned(t)) isSigned = true; else isUnsigned = true;
  }
  std::set<AtomicOp> ops = S.aops;
  bool additive = true;
  for (AtomicOp op : ops)
    if (op != AtomicOp::Add && op != AtomicOp::Sub && op != AtomicOp::Inc && op != AtomicOp::Dec)
      additive = false;
  if (additive && !ops.empty()) return AtomicCombine::Add;
  if (ops.size() != 1)
    return fail("different atomic operations on one buffer");
  switch (*ops.begin()) {
    case AtomicOp::Min:
      if (isSigned && isUnsigned) return fail("signed and unsigned atomic_min");
      return isSigned ? AtomicCombine::MinS : AtomicCombine::MinU;
    case AtomicOp::Max:
      if (isSigned && isUnsigned) return fail("signed and unsigned atomic_max");
      return isSigned ? AtomicCombine::MaxS : AtomicCombine::MaxU;
    case AtomicOp::And: return AtomicCombine::And;
    case AtomicOp::Or: return AtomicCombine::Or;
    case AtomicOp::Xor: return AtomicCombine::Xor;
    default:
      return fail(std::string("atomic_") + atomicOpName(*ops.begin()) + " is not combinable");
  }
}

namespace {
std::string mdStr(const Function &F, const char *kind, unsigned i) {
  MDNode *md = F.getMetadata(kind);
  if (!md || i >= md->getNumOperands()) return "";
  if (auto *s = dyn_cast_or_null<MDString>(md->getOperand(i).get())) return s->getString().str();
  return "";
}
}  // namespace

KernelInfo buildKernelInfo(Function &F, FunctionAnalysisManager &FAM) {
  KernelInfo k;
  k.name = F.getName().str();
  k.num_args = F.arg_size();
  auto &AA = FAM.getResult<ArgAccessAnalysis>(F);
  auto &IR = FAM.getResult<IndexRangeAnalysis>(F);
  auto &HZ = FAM.getResult<HazardAnalysis>(F);
  auto &CO = FAM.getResult<StaticCostAnalysis>(F);  // adds the cost node: before any evaluation
  const DataLayout &DL = F.getParent()->getDataLayout();

  for (Argument &A : F.args()) {
    unsigned i = A.getArgNo();
    const ArgSummary &S = AA.args[i];
    ArgInfo a;
    a.name = mdStr(F, "kernel_arg_name", i);
    if (a.name.empty()) a.name = A.getName().str();
    a.type_name = mdStr(F, "kernel_arg_type", i);
    a.kind = S.kind;
    if (S.kind == ArgKind::Scalar) {
      Type *T = A.hasByValAttr() ? A.getParamByValType() : A.getType();
      a.scalar_size = (uint32_t)DL.getTypeAllocSize(T).getFixedSize();
      std::string t = a.type_name;
      a.is_unsigned = t == "uint" || t == "ulong" || t == "ushort" || t == "uchar" || t == "size_t" ||
                      t == "uintptr_t" || t.rfind("unsigned", 0) == 0;
    }
    a.read = S.read;
    a.written = S.written;
    a.atomic = S.atomic;
    a.escapes = S.escapes;
    if (S.atomic) {
      std::string ops;
      for (AtomicOp op : S.aops) ops += std::string(ops.empty() ? "" : ",") + atomicOpName(op);
      a.atomic_ops = ops;
      a.combine = combineRule(S, nullptr);
      for (char t : S.atomicTypes) a.atomic_width = std::max(a.atomic_width, typeBytes(t));
    }
    a.read_range_known = a.write_range_known = !S.escapes;
    k.args.push_back(std::move(a));
  }
  // access sites
  for (size_t i = 0; i < AA.accesses.size(); ++i) {
    const AccessRec &r = AA.accesses[i];
    for (unsigned x : r.args) {
      AccessSite s;
      s.kind = r.kind == 0 ? AccessSite::Read : r.kind == 1 ? AccessSite::Write : AccessSite::Atomic;
      s.size = (uint32_t)r.size;
      s.offset = IR.siteText[i];
      s.range_known = !r.unknownObject && r.args.size() == 1 && r.size != 0 &&
                      s.offset.find("unknown") == std::string::npos;
      k.args[x].sites.push_back(s);
    }
  }
  for (const Access &a : IR.exprs->accesses) {
    if (a.arg >= k.args.size()) continue;
    if (a.offset < 0 || a.size == 0) {
      if (a.kind == 0) k.args[a.arg].read_range_known = false;
      else k.args[a.arg].write_range_known = false;
    }
  }
  // site range_known from the expression table (authoritative)
  {
    std::vector<size_t> next(k.args.size(), 0);
    for (const Access &a : IR.exprs->accesses) {
      if (a.arg >= k.args.size()) continue;
      size_t &j = next[a.arg];
      if (j < k.args[a.arg].sites.size()) k.args[a.arg].sites[j].range_known = a.offset >= 0 && a.size;
      ++j;
    }
  }
  k.hazards = HZ.h;
  k.max_dim = HZ.maxDim;
  k.cost_known = CO.known;
  k.cost_expr = CO.known ? CO.text : "unknown: " + CO.why;
  k.trip_counts = CO.tripCounts;
  k.exprs = IR.exprs;
  if (k.exprs) k.exprs->prepare();

  // ---- partitionability ----
  auto whole = [&](const std::string &why) {
    if (k.partitionable || k.whole_reason.empty()) k.whole_reason = why;
    k.partitionable = false;
  };
  k.partitionable = true;
  for (size_t i = 0; i < k.args.size(); ++i) {
    const ArgSummary &S = AA.args[i];
    if (S.escapes && (S.kind == ArgKind::GlobalBuffer))
      whole("argument " + std::to_string(i) + " (" + k.args[i].name + ") escapes: " + S.escapeReason);
    if (S.atomic) {
      std::string why;
      if (combineRule(S, &why) == AtomicCombine::None)
        whole("argument " + std::to_string(i) + " (" + k.args[i].name + "): " + why);
    }
  }
  if (AA.unknownGlobalAccess) whole("global memory accessed through a pointer of unknown origin");
  if (HZ.h.image_writes) whole("writes images");
  if (HZ.h.device_enqueue) whole("uses device-side enqueue");
  if (HZ.h.program_globals) whole("writes program-scope global variables");
  for (const AccessRec &r : AA.accesses)
    if (r.kind == 2 && r.unknownObject) whole("atomic on a pointer of unknown origin");
  if (!k.partitionable) {
    k.contiguity = Contiguity::NotApplicable;
    return k;
  }
  bool anyWritten = false;
  for (auto &a : k.args) anyWritten |= a.written;
  k.contiguity = anyWritten ? staticContiguity(k) : Contiguity::NotApplicable;
  return k;
}

namespace {
struct KernelInfoPrinter : PassInfoMixin<KernelInfoPrinter> {
  raw_ostream &OS;
  explicit KernelInfoPrinter(raw_ostream &OS) : OS(OS) {}
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    if (!isKernel(F) || !variantOf(F).empty()) return PreservedAnalyses::all();
    OS << describe(buildKernelInfo(F, FAM));
    return PreservedAnalyses::all();
  }
};
}  // namespace

void registerKernelInfoPrinter(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<tutti-kernel-info>") {
          FPM.addPass(KernelInfoPrinter(outs()));
          return true;
        }
        return false;
      });
}

void registerTuttiPasses(PassBuilder &PB) {
  registerForceInline(PB);
  registerLowerVectorMem(PB);
  registerNvptxFastBuiltins(PB);
  registerRebased(PB);
  registerNvptxFastDivide(PB);
  registerNvptxNativeMath(PB);
  registerSplitWideBuiltins(PB);
  registerDefineMemFences(PB);
  registerBarrierExits(PB);
  registerCanonicalizeBuiltins(PB);
  registerAssumeNDRange(PB);
  registerArgAccess(PB);
  registerIndexRange(PB);
  registerHazards(PB);
  registerStaticCost(PB);
  registerPartitionReady(PB);
  registerMergeKernel(PB);
  registerInstrumentRanges(PB);
  registerPagedAccess(PB);
  registerInspector(PB);
  registerKernelInfoPrinter(PB);
}

}  // namespace tutti::compiler::detail
