// fuzz_kernel_source.cpp - libFuzzer target: OpenCL C kernels through Tutti's compiler.
//
// Issue 21. An app hands Tutti any source it likes; libtutti compiles it in-process
// (tutti::compiler::compile) and the runtime then asks the analyses about every launch.
// Bad source must come back as CompileResult::ok == false or as a kernel that runs whole
// (partitionable == false), never as a crash, hang or sanitizer report inside the app.
//
// The input is the source itself, so the seed corpus (tests/fuzz/corpus/kernel_source:
// Tutti's compiler corpus, the bundled apps' and MapReduce kernels, piglit programs) is
// plain OpenCL C that libFuzzer mutates near validity, helped by kernel_source.dict. An
// optional first line "//fuzz:FLAGS|OPTIONS" (a comment to Clang) picks the request:
// FLAGS v = VAST variants, t = trace variants, i = keep IR, n = NVPTX (PTX), s = Source
// target; OPTIONS are the app's build options. Without it a hash of the input picks the
// VAST and trace variants for some inputs, so mutants of every seed exercise them.
//
// After a successful compile every kernel goes through what a launch uses: describe,
// warmAnalyses, planPartialLaunch, accessedRange, (arg)writesContiguous, concatUnit,
// costPerWorkItem and combineAtomicPartial, over launch shapes and scalar argument values
// derived from the input; the result must survive saveResult/loadResult unchanged, and
// damaged copies of the saved bytes must be rejected or read, never crash. The few
// properties the API documents (partial launches cover exactly their groups, concatUnit's
// units, an error text on failure, no invalid module after Tutti's passes) abort here.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <tutti/compiler.h>

using namespace tutti::compiler;

namespace {

[[noreturn]] void fail(const char *what, const std::string &detail = "") {
  std::fprintf(stderr, "fuzz_kernel_source: %s %s\n", what, detail.c_str());
  std::abort();
}

uint64_t fnv(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// splitmix64: launch shapes and scalar values from the input's hash (deterministic).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
};

NDRange randomRange(Rng &r) {
  NDRange nd;
  nd.work_dim = 1 + unsigned(r.below(3));
  // At most about 2^20 groups: launches of real apps, and cheap to walk.
  static const uint64_t kLocal[] = {1, 2, 3, 4, 7, 8, 16, 32, 64, 256};
  for (unsigned d = 0; d < nd.work_dim; ++d) {
    nd.local_size[d] = kLocal[r.below(10)];
    uint64_t groups = 1 + r.below(d == 0 ? 1024 : 32);
    nd.global_size[d] = groups * nd.local_size[d] - (r.below(4) == 0 ? r.below(nd.local_size[d]) : 0);
    nd.global_offset[d] = r.below(4) == 0 ? r.below(1000) : 0;
  }
  return nd;
}

// Values apps pass: small counts, sizes, and the extremes of every width.
uint64_t randomScalar(Rng &r) {
  switch (r.below(8)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return r.below(64);
    case 3: return r.below(1u << 20);
    case 4: return ~0ull;               // -1 at any width
    case 5: return 0x7fffffffull;
    case 6: return 0x8000000000000000ull;
    default: return r.next();
  }
}

void checkPlan(const NDRange &nd, uint64_t first, uint64_t count, bool nonuniform) {
  std::vector<SubLaunch> subs = planPartialLaunch(nd, first, count, nonuniform);
  uint64_t covered = 0;
  for (const SubLaunch &s : subs) {
    uint64_t n = 1;
    for (unsigned d = 0; d < 3; ++d) {
      if (s.group_begin[d] + s.group_count[d] > nd.numGroups(d)) fail("planPartialLaunch: box outside the launch");
      n *= s.group_count[d];
    }
    covered += n;
  }
  if (covered != count) fail("planPartialLaunch: groups covered != count");
  if (subs.size() > 5u << nd.work_dim) fail("planPartialLaunch: more than 5 boxes x 2^dims");
}

void analyse(const KernelInfo &k, Rng &r) {
  (void)describe(k);
  warmAnalyses(k);
  for (int launch = 0; launch < 2; ++launch) {
    NDRange nd = randomRange(r);
    ScalarArgs args;
    for (unsigned i = 0; i < k.args.size(); ++i)
      if (k.args[i].kind == ArgKind::Scalar) {
        uint64_t v = randomScalar(r);
        unsigned size = k.args[i].scalar_size;
        args.set(i, &v, size < 8 ? size : 8);
      }
    uint64_t total = nd.totalGroups();
    uint64_t ranges[3][2] = {{0, total}, {0, 0}, {0, 0}};
    for (int j = 1; j < 3; ++j) {
      ranges[j][0] = r.below(total);
      ranges[j][1] = 1 + r.below(total - ranges[j][0]);
    }
    for (auto &fc : ranges) {
      checkPlan(nd, fc[0], fc[1], r.below(2));
      for (unsigned a = 0; a < k.args.size() && a < 16; ++a)
        for (AccessMode m : {AccessMode::Read, AccessMode::Write, AccessMode::Any})
          (void)accessedRange(k, a, m, nd, args, fc[0], fc[1]);
    }
    std::string why;
    (void)writesContiguous(k, nd, args, &why);
    for (unsigned a = 0; a < k.args.size() && a < 16; ++a) (void)argWritesContiguous(k, a, nd, args, &why);
    uint64_t unit = concatUnit(k, nd, args);
    uint64_t n0 = nd.numGroups(0), n1 = nd.numGroups(1);
    if (unit != 0 && unit != 1 && unit != n0 && unit != n0 * n1) fail("concatUnit: not 0, 1, a row or a plane");
    (void)costPerWorkItem(k, nd, args);
  }
  for (const ArgInfo &a : k.args)
    if (a.atomic && a.combine != AtomicCombine::None && a.atomic_width && a.atomic_width <= 8) {
      uint8_t dst[64], part[64], init[64];
      for (int i = 0; i < 64; ++i) dst[i] = uint8_t(r.next()), part[i] = uint8_t(r.next()), init[i] = uint8_t(i);
      combineAtomicPartial(a.combine, a.atomic_width, dst, part, init, sizeof dst / a.atomic_width * a.atomic_width);
    }
}

void roundTrip(const CompileResult &res, Rng &r) {
  std::vector<uint8_t> blob = saveResult(res);
  CompileResult back;
  if (!loadResult(blob.data(), blob.size(), back)) fail("loadResult rejected saveResult's bytes");
  if (saveResult(back) != blob) fail("saveResult/loadResult round trip changed the result");
  if (back.kernels.size() != res.kernels.size()) fail("round trip lost kernels");
  // A damaged cache entry (truncated, a flipped byte) is rejected or read, nothing worse;
  // whatever is read must still be safe to analyse.
  for (int i = 0; i < 4 && !blob.empty(); ++i) {
    std::vector<uint8_t> bad(blob.begin(), blob.begin() + (i == 0 ? r.below(blob.size()) : blob.size()));
    if (i > 0) bad[r.below(bad.size())] ^= uint8_t(1 + r.below(255));
    CompileResult out;
    if (loadResult(bad.data(), bad.size(), out) && i == 3)
      for (const KernelInfo &k : out.kernels) (void)describe(k);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string src(reinterpret_cast<const char *>(data), size);
  // #include and -include read real files: a device or /proc file would block or never
  // end (the machine's files, not the compiler, would be under test).
  for (const char *p : {"/dev/", "/proc/", "/sys/"})
    if (src.find(p) != std::string::npos) return -1;

  CompileRequest req;
  req.source = src;
  uint64_t h = fnv(data, size);
  static const char kCtl[] = "//fuzz:";
  if (src.compare(0, sizeof kCtl - 1, kCtl) == 0) {
    std::string line = src.substr(sizeof kCtl - 1, src.find('\n') - (sizeof kCtl - 1));
    size_t bar = line.find('|');
    std::string flags = line.substr(0, bar);
    if (bar != std::string::npos) req.options = line.substr(bar + 1);
    req.emit_vast_variants = flags.find('v') != std::string::npos;
    req.emit_trace_variants = flags.find('t') != std::string::npos;
    req.keep_ir = flags.find('i') != std::string::npos;
    if (flags.find('n') != std::string::npos) req.target = Target::Nvptx64;
    if (flags.find('s') != std::string::npos) req.target = Target::Source;
  } else {
    req.emit_vast_variants = (h & 3) == 0;
    req.emit_trace_variants = (h & 7) == 1;
  }

  CompileResult res = compile(req);
  if (!res.ok) {
    if (res.error.empty()) fail("ok == false without an error text");
    // Tutti's own passes must leave a valid module whatever the source was (the prefix
    // only: Clang's diagnostics quote the source, which may say anything).
    if (res.error.rfind("internal error", 0) == 0) fail("compile:", res.error);
    return 0;
  }
  Rng r{h};
  for (const KernelInfo &k : res.kernels) {
    if (k.partitionable && req.target == Target::Spir64 && k.partition_kernel.empty())
      fail("partitionable kernel without a partition-ready variant:", k.name);
    analyse(k, r);
  }
  roundTrip(res, r);
  return 0;
}
