// Tutti kernel compiler: public API.
//
// This header exposes no LLVM or Clang type; the runtime includes it without
// LLVM headers. Everything lives in namespace tutti::compiler. See
// compiler/README.md for the partition-ready launch ABI in prose.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tutti::compiler {

// ---------------------------------------------------------------------------
// Compilation
// ---------------------------------------------------------------------------

enum class Target : uint8_t {
  Spir64,   // LLVM 15 bitcode for PoCL: clCreateProgramWithBinary, build with
            // CompileResult::build_options ("-x spir -spir-std=1.2 ...").
  Nvptx64,  // PTX text for NVIDIA's OpenCL (libclc linked in).
  Source,   // any other driver: the original source, no transformation.
};

const char *targetName(Target t);

struct CompileRequest {
  std::string source;           // the app's OpenCL C, all strings concatenated
  std::string options;          // the app's build options, verbatim
  Target target = Target::Spir64;
  std::string gpu_arch;         // Nvptx64 only: "sm_80" (default) etc.
  std::string cache_dir;        // on-disk cache directory; empty = no cache
  bool emit_trace_variants = false;  // tests: also emit <k>__tutti_trace
  bool emit_vast_variants = false;   // also emit <k>__tutti_paged and <k>__tutti_insp (VAST)
  bool keep_ir = false;         // tools: return the final module as LLVM IR text
};

enum class ArgKind : uint8_t {
  Scalar,          // by-value argument (int, float, struct, vector ...)
  GlobalBuffer,    // __global T*
  ConstantBuffer,  // __constant T*
  LocalBuffer,     // __local T* (size given with clSetKernelArg(.., NULL))
  Image,
  Sampler,
  Pipe,
  Other,
};

// How per-device partial values of an atomically updated buffer combine.
// Every device starts from the same pre-launch content `initial`; then
//   Add:            final = A + (B - initial)   (covers add/sub/inc/dec)
//   Xor:            final = A ^ B ^ initial
//   Min*/Max*/And/Or: final = op(A, B)          (idempotent)
// element-wise on integers of ArgInfo::atomic_width bytes (wrap-around).
enum class AtomicCombine : uint8_t { None, Add, MinS, MinU, MaxS, MaxU, And, Or, Xor };
const char *combineName(AtomicCombine c);

enum class Contiguity : uint8_t {
  NotApplicable,    // no buffer written with plain stores
  Contiguous,       // every uniform launch tested: per-group write hulls are
                    // disjoint and ordered like the flattened group id
  LaunchDependent,  // holds for some launches only (ask writesContiguous())
  Discontiguous,    // affine, but group footprints interleave
  Unknown,          // some write index is not affine / not computable
};
const char *contiguityName(Contiguity c);

namespace detail { struct ExprData; }

// One memory access site of a kernel argument, for printing and tests.
struct AccessSite {
  enum Kind : uint8_t { Read, Write, Atomic } kind = Read;
  bool range_known = false;   // the offset is an affine/computable expression
  uint32_t size = 0;          // bytes per access (0 = unknown)
  std::string offset;         // printed byte-offset expression, or the reason
};

struct ArgInfo {
  std::string name;           // kernel_arg_name (may be empty)
  std::string type_name;      // kernel_arg_type, e.g. "float*", "uint"
  ArgKind kind = ArgKind::Other;
  uint32_t scalar_size = 0;   // Scalar: bytes
  bool is_unsigned = false;   // Scalar: unsigned integer type
  // Buffers (global/constant):
  bool read = false;
  bool written = false;       // plain (non-atomic) stores
  bool atomic = false;        // global atomics on it
  bool escapes = false;       // pointer leaves analysis: treated as R/W, range unknown
  AtomicCombine combine = AtomicCombine::None;
  uint32_t atomic_width = 0;  // bytes of the atomically updated integers
  std::string atomic_ops;     // e.g. "add,inc"
  bool read_range_known = false;   // every read site has a computable range
  bool write_range_known = false;  // every write/atomic site has a computable range
  std::vector<AccessSite> sites;
};

enum WorkItemFn : uint32_t {
  WI_GlobalId = 1u << 0, WI_LocalId = 1u << 1, WI_GroupId = 1u << 2,
  WI_GlobalSize = 1u << 3, WI_LocalSize = 1u << 4, WI_NumGroups = 1u << 5,
  WI_GlobalOffset = 1u << 6, WI_WorkDim = 1u << 7, WI_EnqueuedLocalSize = 1u << 8,
  WI_GlobalLinearId = 1u << 9, WI_LocalLinearId = 1u << 10,
};

struct Hazards {
  bool barrier = false;        // barrier / work_group_barrier
  bool mem_fence = false;      // mem_fence / read_/write_mem_fence
  bool local_memory = false;   // __local variables or arguments
  bool global_atomics = false;
  bool local_atomics = false;
  bool images = false;
  bool image_writes = false;
  bool printf = false;
  bool subgroups = false;
  bool device_enqueue = false;
  bool program_globals = false;   // program-scope __global variables written
  bool unknown_calls = false;     // calls that are neither builtins nor inlined
  uint32_t workitem_fns = 0;      // WorkItemFn bits used by the kernel
  uint32_t virtualized_fns = 0;   // of those, the ones the partition-ready kernel rewrites
  std::vector<std::string> notes; // human-readable details
};

struct KernelInfo {
  std::string name;
  uint32_t num_args = 0;
  std::vector<ArgInfo> args;
  uint32_t max_dim = 1;           // 1 + highest constant dimension queried

  // Partitioning verdict. If !partitionable the kernel must run whole on one
  // device (the runtime logs `whole_reason` once).
  bool partitionable = false;
  std::string whole_reason;
  Contiguity contiguity = Contiguity::NotApplicable;

  // Variants present in CompileResult::binary (empty name = not emitted).
  std::string partition_kernel;   // <name>__tutti_pr : args + 16 ABI args
  std::string merge_kernel;       // <name>__tutti_merge : args + 16 ABI + partials
  std::string merge_reason;       // why there is no merge kernel
  std::vector<uint32_t> merge_partial_args;  // original arg index per partial param
  std::string trace_kernel;       // <name>__tutti_trace (tests only)
  bool original_in_binary = false;  // the untransformed kernel is in the binary

  // VAST variants (emit_vast_variants; ABI below, see "VAST paged-access and
  // inspector ABI"). Empty name = not emitted, *_reason says why.
  std::string paged_kernel;        // <name>__tutti_paged
  std::string paged_reason;
  std::string rebased_kernel;      // <name>__tutti_rb (only beside a paged kernel)
  std::string inspector_kernel;    // <name>__tutti_insp
  std::string inspector_reason;
  std::vector<uint32_t> vast_buffer_args;     // arg index per LPT / PAS parameter
  std::vector<uint32_t> inspector_data_args;  // buffers the inspector reads (bind real data)

  Hazards hazards;

  // Static cost (§5.3): f(x) = estimated dynamic instructions per work-item,
  // a sum over blocks of (instructions x product of enclosing trip counts).
  bool cost_known = false;
  std::string cost_expr;          // printed f(x), e.g. "12 + 9*arg(N)"
  std::string trip_counts;        // printed trip count of every loop

  std::shared_ptr<const detail::ExprData> exprs;  // opaque, for evaluation
};

struct CompileResult {
  bool ok = false;
  std::string error;              // frontend / backend error text when !ok
  std::string log;                // warnings, dropped options, notes
  std::vector<KernelInfo> kernels;
  Target target = Target::Spir64;
  std::vector<uint8_t> binary;    // Spir64: bitcode; Nvptx64: PTX; Source: source
  std::string build_options;      // pass to clBuildProgram together with binary
  bool from_cache = false;
  double compile_ms = 0;          // wall time of this call
  std::string ir_text;            // keep_ir only
};

// Thread-safe. Never throws. Results are cached on disk when cache_dir is set,
// keyed by source, options, target, arch, flags, the content of every header
// the source included, and the compiler version.
CompileResult compile(const CompileRequest &req);

// The compiler's version string (part of every cache key).
const char *compilerVersion();

// Serialize / restore a CompileResult (the cache's format; no LLVM needed to
// read it back, e.g. on a machine without the compiler).
std::vector<uint8_t> saveResult(const CompileResult &r);
bool loadResult(const void *data, size_t size, CompileResult &out);

// ---------------------------------------------------------------------------
// Partition-ready launch ABI
// ---------------------------------------------------------------------------
//
// <k>__tutti_pr takes the original arguments followed by kAbiArgs ulong
// arguments (clSetKernelArg(k, num_args + i, 8, &abi[i])):
//   0..2   wg_offset[d]     first group (per dimension) of this sub-launch
//   3..5   num_groups[d]    of the full (original) launch
//   6..8   global_size[d]   of the full launch
//   9..11  local_size[d]    enqueued local size of the full launch
//   12..14 gid_base[d]      wg_offset[d] * local_size[d] + global_offset[d]
//   15     work_dim         of the full launch
// A flattened group range [first, first+count) is launched as a few box-shaped
// sub-launches (planPartialLaunch) with work_dim as in the full launch, global
// offset NULL and the sub-launch's global/local sizes. The kernel adds
// wg_offset to the hardware group id and gid_base to the hardware global id
// (one add each) and answers every work-item function as the full launch would.

constexpr unsigned kAbiArgs = 16;

// ---------------------------------------------------------------------------
// VAST paged-access and inspector ABI (thesis §4.4; compiler/README.md)
// ---------------------------------------------------------------------------
//
// Both variants take K's arguments, then the kAbiArgs partition-ready
// arguments (they run any flattened group range, planPartialLaunch), then:
//
// <k>__tutti_paged:
//   uint page_shift                  log2(page size), kVastMinPageShift..kVastMaxPageShift
//   __global const uint *lpt[j]      for j over vast_buffer_args (every __global /
//                                    __constant buffer argument, in order)
//   Bind buffer argument i to its frame buffer: whole pages (page size bytes
//   each) at frame indices 0, 1, ... in any order. lpt[j][page] = frame index
//   of logical page `page` of argument vast_buffer_args[j] (uint32); entries of
//   pages the slice does not touch are never read. Logical byte offset o is
//   accessed at frame_buffer + lpt[o >> shift] * page + (o & (page - 1)).
//   Accesses that could straddle a page (not aligned to their size) are split
//   by the compiler, so frames need no particular order. A buffer that is not
//   paged for a launch: bind the buffer itself and an identity LPT.
//
// <k>__tutti_rb (only where <k>__tutti_paged exists, same vast_buffer_args):
//   ulong rebase[j]                  for j over vast_buffer_args
//   For a slice whose window of each buffer is one run of pages: bind argument i to a
//   frame buffer holding the run, and rebase[j] = the run's first logical byte. Logical
//   offset o is accessed at frame_buffer + (o - rebase[j]); no page table, no
//   per-access cost. A buffer the slice does not touch: any buffer, rebase 0.
//
// <k>__tutti_insp:
//   uint page_shift
//   ulong wg_per_pas                 consecutive flattened groups sharing one PAS
//   ulong pas_first_set              set number stored first in every PAS buffer
//   then for j over vast_buffer_args:
//     __global uchar *pas[j]         zeroed by the host before the launch
//     ulong pas_pages[j]             ceil(buffer size / page size)
//   Group g (flattened, full launch) is in set s = g / wg_per_pas and sets
//   pas[j][((s - pas_first_set) * 2 + rw) * pas_pages[j] + page] = 1 for every
//   page it reads (rw = 0) or writes (rw = 1; atomics mark both).
//   So a PAS buffer holds pas_pages[j] * 2 bytes per set. The inspector never
//   writes a buffer; it reads only the buffers in inspector_data_args (bind
//   those with their real contents, any buffer for the others).

constexpr unsigned kVastMinPageShift = 12;  // 4 KiB
constexpr unsigned kVastMaxPageShift = 21;  // 2 MiB

// Eq. 4.1: groups per PAS, ceil((mem_budget / 32) / (buffer_bytes / total_groups)),
// i.e. one set's groups touch about 1/32 of the device budget if every group
// touches an equal share of the buffers (buffer_bytes: all paged arguments).
// Clamped to [1, total_groups]; the runtime may adapt it.
uint64_t vastGroupsPerPas(uint64_t mem_budget, uint64_t buffer_bytes, uint64_t total_groups);

struct NDRange {
  uint32_t work_dim = 1;
  uint64_t global_offset[3] = {0, 0, 0};
  uint64_t global_size[3] = {1, 1, 1};
  uint64_t local_size[3] = {1, 1, 1};   // must be set (runtime picks if app passed NULL)

  uint64_t numGroups(unsigned d) const;  // ceil(global/local), 1 for d >= work_dim
  uint64_t totalGroups() const;
};

struct SubLaunch {
  uint32_t work_dim = 1;
  uint64_t global_size[3] = {1, 1, 1};
  uint64_t local_size[3] = {1, 1, 1};
  uint64_t group_begin[3] = {0, 0, 0};   // box in group space, inclusive begin
  uint64_t group_count[3] = {1, 1, 1};
  std::array<uint64_t, kAbiArgs> abi{};  // values of the 16 trailing ulong args
};

// Sub-launches covering exactly the flattened groups [first, first+count)
// (flattened id = g0 + N0*(g1 + N1*g2)). At most 5 boxes; a box containing a
// non-uniform last group in dimension d is split so that group runs with local
// size = remainder, unless nonuniform_ok (driver accepts non-uniform NDRanges).
std::vector<SubLaunch> planPartialLaunch(const NDRange &full, uint64_t first,
                                         uint64_t count, bool nonuniform_ok = false);

// Launch values of the by-value arguments, indexed by argument index.
struct ScalarArgs {
  std::vector<uint64_t> bits;    // little-endian bytes, zero-extended
  void set(unsigned index, const void *bytes, size_t size);
};

enum class AccessMode : uint8_t { Read, Write, Any };

struct ByteRange {
  bool known = false;   // false: unknown, assume the whole buffer
  uint64_t begin = 0;   // byte offsets from the buffer start, [begin, end)
  uint64_t end = 0;
  bool empty() const { return known && begin >= end; }
};

// Bytes of argument `arg` the flattened groups [first, first+count) may touch
// (over-approximation: never misses an access). Write includes atomics.
ByteRange accessedRange(const KernelInfo &k, unsigned arg, AccessMode mode,
                        const NDRange &full, const ScalarArgs &args,
                        uint64_t first, uint64_t count);

// True if, for this launch, every buffer written with plain stores has
// per-group write hulls that are disjoint and increase with the flattened
// group id. Partial outputs can then be merged by copying
// accessedRange(Write) of each device's ranges (the device's copy must hold
// the pre-launch content there: a kernel need not write every byte).
bool writesContiguous(const KernelInfo &k, const NDRange &full,
                      const ScalarArgs &args, std::string *why = nullptr);
bool argWritesContiguous(const KernelInfo &k, unsigned arg, const NDRange &full,
                         const ScalarArgs &args, std::string *why = nullptr);

// Groups per unit such that pieces made of whole units concatenate: 1 when the writes are
// contiguous per group; the groups of one row (N0) or one plane (N0*N1) of a 2-D or 3-D
// launch when those units' write hulls are disjoint and increase with the unit (a 2-D
// tile kernel writing out[y*w + x]); 0 when no unit does. Buffers written only with
// atomics are left out (they combine by their rule). Checked on up to 64 neighbouring
// unit pairs: a hint for the cost model and for where to cut, while the runtime still
// compares its pieces' own hulls before it concatenates.
uint64_t concatUnit(const KernelInfo &k, const NDRange &full, const ScalarArgs &args);

// Does now the one-time preparation that the first accessedRange/costPerWorkItem call of
// this kernel would otherwise pay inside a launch (0.85 ms for FDTD3d's stencil).
void warmAnalyses(const KernelInfo &k);

// f(x) of the §5.3 model for this launch (upper bound), if known.
std::optional<double> costPerWorkItem(const KernelInfo &k, const NDRange &full,
                                      const ScalarArgs &args);

// Host combine step for atomic-aware partitioning: dst = combine(dst, partial)
// element-wise (see AtomicCombine). `initial` is the pre-launch content (may be
// null for idempotent rules).
void combineAtomicPartial(AtomicCombine rule, unsigned width_bytes, void *dst,
                          const void *partial, const void *initial, size_t bytes);

// Human-readable analysis report (what tutti-cc prints).
std::string describe(const KernelInfo &k);

}  // namespace tutti::compiler
