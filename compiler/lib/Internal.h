// Internal LLVM-facing declarations shared by the passes and the driver code.
// Never included by the public header.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"

#include "Builtins.h"
#include "Expr.h"
#include "tutti/compiler.h"

namespace llvm {
class ScalarEvolution;
class SCEV;
class Loop;
class LoopInfo;
}  // namespace llvm

namespace tutti::compiler::detail {

// ---------------------------------------------------------------------------
// Target address spaces (SPIR and NVPTX number them differently)
// ---------------------------------------------------------------------------
struct AddrSpaces {
  unsigned priv = 0, global = 1, constant = 2, local = 3, generic = 4;
  static AddrSpaces of(const llvm::Module &M);
};

bool isKernel(const llvm::Function &F);
// "tutti-variant" attribute: "" for an original kernel, "pr", "merge", "trace".
std::string variantOf(const llvm::Function &F);
unsigned origArgCount(const llvm::Function &F);  // "tutti-orig-args" or arg_size()

// Name of the OpenCL builtin a call targets ("" if not a direct call).
std::string calleeName(const llvm::CallBase &CB);

// ---------------------------------------------------------------------------
// Argument access analysis  (passes/ArgAccess.cpp)
// ---------------------------------------------------------------------------
struct AccessRec {
  llvm::Instruction *inst = nullptr;
  llvm::Value *ptr = nullptr;       // address accessed
  int arg = -1;                     // single underlying argument, or -1
  std::vector<unsigned> args;       // all underlying arguments (if several)
  uint8_t kind = 0;                 // 0 read, 1 write, 2 atomic
  uint64_t size = 0;                // bytes, 0 unknown
  llvm::Value *sizeVal = nullptr;   // non-constant size (memcpy length), else null
  bool unknownObject = false;       // some underlying object is not an argument
  AtomicOp aop = AtomicOp::None;
  char atomicType = 0;              // mangled element type of the atomic ('i','j',...)
  bool atomicResultUsed = false;
};

struct ArgSummary {
  ArgKind kind = ArgKind::Other;
  unsigned addrSpace = 0;
  bool read = false, written = false, atomic = false, escapes = false;
  std::set<AtomicOp> aops;
  std::set<char> atomicTypes;
  bool atomicResultUsed = false;
  std::string escapeReason;
};

struct ArgAccessResult {
  std::vector<ArgSummary> args;
  std::vector<AccessRec> accesses;
  bool unknownGlobalAccess = false;   // global memory accessed through an unknown pointer
  bool programGlobalWrites = false;   // program-scope globals written
  std::vector<std::string> notes;
  bool invalidate(llvm::Function &, const llvm::PreservedAnalyses &,
                  llvm::FunctionAnalysisManager::Invalidator &) {
    return true;
  }
};

class ArgAccessAnalysis : public llvm::AnalysisInfoMixin<ArgAccessAnalysis> {
 public:
  using Result = ArgAccessResult;
  Result run(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);
  static llvm::AnalysisKey Key;
};

// ---------------------------------------------------------------------------
// Index-range analysis  (passes/IndexRange.cpp)
// ---------------------------------------------------------------------------
class ScevToExpr;
struct IndexRangeResult {
  std::shared_ptr<ExprData> exprs;          // accesses filled, parallel to ArgAccessResult
  std::vector<std::string> siteText;        // per access: offset text or reason
  std::vector<std::string> argNames;
  std::shared_ptr<ScevToExpr> conv;         // for adding further expressions (cost)
  bool invalidate(llvm::Function &, const llvm::PreservedAnalyses &,
                  llvm::FunctionAnalysisManager::Invalidator &) {
    return true;
  }
};

class IndexRangeAnalysis : public llvm::AnalysisInfoMixin<IndexRangeAnalysis> {
 public:
  using Result = IndexRangeResult;
  Result run(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);
  static llvm::AnalysisKey Key;
};

// SCEV -> Expr conversion (owned by the index-range result).
class ScevToExpr {
 public:
  ScevToExpr(llvm::Function &F, llvm::ScalarEvolution &SE, llvm::LoopInfo &LI, ExprData &D);
  // Node id, or -1 with `why` set.
  int32_t convert(const llvm::SCEV *S, std::string &why);
  int32_t loopId(const llvm::Loop *L, std::string &why);  // registers BTC
  ExprData &data() { return D; }
  const std::vector<const llvm::Loop *> &loops() const { return loopList; }

 private:
  int32_t conv(const llvm::SCEV *S, std::string &why);
  const llvm::SCEV *boundFromExitTest(const llvm::Loop *L);
  // smin/smax/umin/umax SCEV of an integer min/max/clamp builtin call, or null.
  const llvm::SCEV *minMaxBuiltin(llvm::CallInst &CI);
  // Node of the min/max (+ a common addend) that a select of an integer
  // compare computes, or -1.
  int32_t selectMinMax(llvm::SelectInst &S);
  llvm::Function &F;
  llvm::ScalarEvolution &SE;
  llvm::LoopInfo &LI;
  ExprData &D;
  llvm::DenseMap<const llvm::SCEV *, int32_t> memo;
  llvm::DenseMap<const llvm::Loop *, int32_t> loopIds;
  std::vector<const llvm::Loop *> loopList;
  int depth = 0;
};

// ---------------------------------------------------------------------------
// Hazards  (passes/Hazards.cpp)
// ---------------------------------------------------------------------------
struct HazardResult {
  Hazards h;
  unsigned maxDim = 1;
  bool nonConstDim = false;
  bool invalidate(llvm::Function &, const llvm::PreservedAnalyses &,
                  llvm::FunctionAnalysisManager::Invalidator &) {
    return true;
  }
};

class HazardAnalysis : public llvm::AnalysisInfoMixin<HazardAnalysis> {
 public:
  using Result = HazardResult;
  Result run(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);
  static llvm::AnalysisKey Key;
};

// ---------------------------------------------------------------------------
// Static cost  (passes/StaticCost.cpp)
// ---------------------------------------------------------------------------
struct CostResult {
  bool known = false;
  std::string text;        // printed f(x)
  std::string tripCounts;  // printed per-loop trip counts
  std::string why;
  bool invalidate(llvm::Function &, const llvm::PreservedAnalyses &,
                  llvm::FunctionAnalysisManager::Invalidator &) {
    return true;
  }
};

class StaticCostAnalysis : public llvm::AnalysisInfoMixin<StaticCostAnalysis> {
 public:
  using Result = CostResult;
  Result run(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);
  static llvm::AnalysisKey Key;
};

// ---------------------------------------------------------------------------
// Kernel info (lib/KernelInfo.cpp): combines the analyses into the public record
// ---------------------------------------------------------------------------
KernelInfo buildKernelInfo(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);

// ---------------------------------------------------------------------------
// Transforms
// ---------------------------------------------------------------------------
struct PartitionReadyPass : llvm::PassInfoMixin<PartitionReadyPass> {
  std::set<std::string> only;  // kernel names to transform; empty = all
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

struct MergeOutcome {
  std::string kernel;          // original kernel name
  bool ok = false;
  std::string reason;
  std::vector<uint32_t> partialArgs;
};

struct MergeKernelPass : llvm::PassInfoMixin<MergeKernelPass> {
  std::vector<MergeOutcome> *outcomes = nullptr;
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

struct InstrumentRangesPass : llvm::PassInfoMixin<InstrumentRangesPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

// Clone kernel F as a new kernel `name` with extra trailing parameters
// (kernel_arg_* metadata and nvvm.annotations extended). Returns the clone.
struct ExtraParam {
  llvm::Type *type;
  std::string name;
  std::string clType;     // kernel_arg_type, e.g. "ulong", "float*"
  unsigned clAddrSpace;   // kernel_arg_addr_space value (SPIR numbering: 0 private, 1 global ...)
};
llvm::Function *cloneKernelWithParams(llvm::Function &F, const std::string &name,
                                      const std::vector<ExtraParam> &extra);
// The 16 partition-ready ABI parameters.
std::vector<ExtraParam> abiParams(llvm::LLVMContext &C);

// VAST variants (passes/PagedAccess.cpp, passes/Inspector.cpp), cloned from
// K__tutti_pr; the ABI is in compiler.h. A kernel that cannot be transformed
// gets no variant and `reason` says why.
struct VastOutcome {
  std::string kernel;          // original kernel name
  bool ok = false;
  std::string reason;
  std::vector<uint32_t> bufferArgs;  // argument index per LPT / PAS parameter
  std::vector<uint32_t> dataArgs;    // inspector: buffers whose contents it reads
};

struct PagedAccessPass : llvm::PassInfoMixin<PagedAccessPass> {
  std::vector<VastOutcome> *outcomes = nullptr;
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

// K__tutti_rb (passes/Rebased.cpp): K__tutti_pr with each buffer argument moved by a
// trailing ulong, for slices whose windows are one run of pages each.
struct RebasedPass : llvm::PassInfoMixin<RebasedPass> {
  std::vector<VastOutcome> *outcomes = nullptr;
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

struct InspectorPass : llvm::PassInfoMixin<InspectorPass> {
  std::vector<VastOutcome> *outcomes = nullptr;
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

// Per-pointer value that follows P back to its buffer argument through GEPs,
// casts, phis and selects: leaf(A) for argument A, null for null/undef, and
// matching selects/phis inserted beside P's. nullptr (with `why`) when some
// origin is not an argument leaf() accepts. onGep sees every GEP on the way.
llvm::Value *bufferShadow(llvm::Value *P, const std::function<llvm::Value *(llvm::Argument &)> &leaf,
                          llvm::Type *Ty, llvm::DenseMap<llvm::Value *, llvm::Value *> &memo,
                          std::string &why,
                          const std::function<void(llvm::GetElementPtrInst &)> &onGep = nullptr);
// For every K__tutti_pr: clone it as K__tutti_<variant> with params(buffer
// args) appended and run transform on the clone (it fills the outcome's
// reason when it refuses; a refused clone is erased). One outcome per kernel.
void cloneVastVariants(
    llvm::Module &M, llvm::ModuleAnalysisManager &MAM, const std::string &variant,
    const std::function<std::vector<ExtraParam>(const std::vector<unsigned> &)> &params,
    const std::function<bool(llvm::Function &, const std::vector<unsigned> &, VastOutcome &)> &transform,
    std::vector<VastOutcome> *outcomes);
// vloadN/vstoreN (3 included) and the round-to-nearest half variants on
// buffers become element loads/stores, which never straddle a page, and math
// builtins with a result pointer into a buffer (sincos, modf, frexp, fract,
// remquo, lgamma_r) write a private temporary that is then stored (the
// builtins themselves would be opaque to page-wise rewriting).
bool lowerVectorBuiltinsForPaging(llvm::Function &F);
// The buffer accesses a VAST variant rewrites (memcpy/memset expanded first),
// once per (instruction, pointer); nullptr with `why` if some access cannot be
// paged (unknown pointer origin, escaping buffer, builtin touching a buffer
// by itself, unknown size).
const ArgAccessResult *vastAccesses(llvm::Function &NF, llvm::FunctionAnalysisManager &FAM,
                                    const std::vector<unsigned> &bufArgs, std::vector<AccessRec> &recs,
                                    std::string &why);
// Indices of the original __global / __constant pointer arguments of a variant.
std::vector<unsigned> pagedBufferArgs(const llvm::Function &F);
// Global memcpy/memset become loops of loads and stores (page-wise rewriting
// needs every access to be a plain one); false if one could not be expanded.
bool expandGlobalMemIntrinsics(llvm::Function &F, std::string &why);

struct ForceInlinePass : llvm::PassInfoMixin<ForceInlinePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

struct NvptxFastBuiltinsPass : llvm::PassInfoMixin<NvptxFastBuiltinsPass> {
  bool correctlyRounded = false;  // -cl-fp32-correctly-rounded-divide-sqrt: sqrt stays exact
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

// After the optimisation pipeline: float divisions that may be 2 ulp or more become div.full.
struct NvptxFastDividePass : llvm::PassInfoMixin<NvptxFastDividePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

// nvptx64, after libclc: float exp2/log2/exp/log/log10/sin/cos/pow intrinsics (libclc's
// native_*) become PTX's approx instructions, which the backend would expand into libm
// calls that do not exist on the GPU.
struct NvptxNativeMathPass : llvm::PassInfoMixin<NvptxNativeMathPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};
// An intrinsic of that family (any type): the NVPTX backend aborts on a call left to it.
bool nvptxCannotLower(const llvm::Function &F);

// f applied lane by lane: on scalars, f(ops); on fixed vectors, f on each lane's
// elements of ops, reassembled. The NVPTX lowerings above take float scalars only.
llvm::Value *perLane(llvm::IRBuilder<> &B, llvm::ArrayRef<llvm::Value *> ops,
                     const std::function<llvm::Value *(llvm::IRBuilder<> &, llvm::ArrayRef<llvm::Value *>)> &f);

// spir64 only: element-wise builtins on vectors over 32 bytes get bodies calling halves.
struct SplitWideBuiltinsPass : llvm::PassInfoMixin<SplitWideBuiltinsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
};

struct LowerVectorMemPass : llvm::PassInfoMixin<LowerVectorMemPass> {
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);
};


// Registration (each pass file provides one).
void registerArgAccess(llvm::PassBuilder &PB);
void registerIndexRange(llvm::PassBuilder &PB);
void registerHazards(llvm::PassBuilder &PB);
void registerStaticCost(llvm::PassBuilder &PB);
void registerPartitionReady(llvm::PassBuilder &PB);
void registerMergeKernel(llvm::PassBuilder &PB);
void registerInstrumentRanges(llvm::PassBuilder &PB);
void registerPagedAccess(llvm::PassBuilder &PB);
void registerRebased(llvm::PassBuilder &PB);
void registerInspector(llvm::PassBuilder &PB);
void registerForceInline(llvm::PassBuilder &PB);
void registerLowerVectorMem(llvm::PassBuilder &PB);
void registerNvptxFastBuiltins(llvm::PassBuilder &PB);
void registerNvptxFastDivide(llvm::PassBuilder &PB);
void registerNvptxNativeMath(llvm::PassBuilder &PB);
void registerSplitWideBuiltins(llvm::PassBuilder &PB);
void registerKernelInfoPrinter(llvm::PassBuilder &PB);
void registerCanonicalizeBuiltins(llvm::PassBuilder &PB);
void registerAssumeNDRange(llvm::PassBuilder &PB);
// Adds (on) or removes (off) 31-bit range metadata on global ids/sizes.
void setNDRangeAssumption(llvm::Module &M, bool on);
void addCanonicalizeBuiltins(llvm::ModulePassManager &MPM);
void registerTuttiPasses(llvm::PassBuilder &PB);  // all of the above

// Pass managers with every Tutti pass and analysis registered (Compiler.cpp).
struct TuttiPipeline {
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB;
  TuttiPipeline();
};
// force-inline, always-inline, globaldce, canonicalize-builtins,
// infer-address-spaces (SPIR),
// tutti-lower-vload, then the default O2 pipeline.
void runPreparation(llvm::Module &M, TuttiPipeline &P);

// Embedded data (generated Embedded.cpp)
std::string_view embeddedOpenCLBaseHeader();
std::string_view embeddedLibclcNvptx();  // empty if not embedded

}  // namespace tutti::compiler::detail
