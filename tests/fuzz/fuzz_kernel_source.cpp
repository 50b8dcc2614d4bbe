// fuzz_kernel_source.cpp - libFuzzer target: OpenCL C kernels through Tutti's compiler.
//
// Issue 21. An app hands Tutti any source it likes; libtutti compiles it in-process
// (tutti::compiler::compile) and the runtime then asks the analyses about every launch.
// Bad source must come back as CompileResult::ok == false or as a kernel that runs whole
// (partitionable == false), never as a crash, hang or sanitizer report inside the app.
//
// The input is the source itself, so the seed corpus (tests/fuzz/corpus/kernel_source:
// Tutti's compiler corpus, the bundled apps' and MapReduce kernels, piglit programs) is
// plain OpenCL C that libFuzzer mutates, helped by kernel_source.dict, and that the custom
// mutator below (half of all mutations) changes token by token to stay near validity. An
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
#include <algorithm>
#include <cctype>
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

// --- Structure-aware mutation -----------------------------------------------------------
// libFuzzer's byte mutations turn most kernels into parse errors, which never reach Tutti's
// passes. Half the mutations here work on OpenCL C tokens instead and keep the program
// well-formed more often: another number, a sibling operator, an identifier of the same
// source or a work-item query in place of one, a line repeated, dropped or moved, a
// statement with a hazard (barrier, atomic, early return, loop) put in, the VAST and trace
// flags toggled. The other half, and whatever does not fit, go to libFuzzer's own.

struct Tok {
  size_t b, e;
  char kind;  // 'i' identifier, 'n' number, 'p' punctuation, ' ' space / comment / string
};

std::vector<Tok> tokenize(const std::string &s) {
  std::vector<Tok> t;
  size_t i = 0, n = s.size();
  auto ident = [](char c) { return std::isalnum((unsigned char)c) || c == '_'; };
  while (i < n) {
    size_t b = i;
    char c = s[i];
    if (std::isdigit((unsigned char)c) || (c == '.' && i + 1 < n && std::isdigit((unsigned char)s[i + 1]))) {
      while (i < n && (ident(s[i]) || s[i] == '.')) ++i;
      t.push_back({b, i, 'n'});
    } else if (ident(c)) {
      while (i < n && ident(s[i])) ++i;
      t.push_back({b, i, 'i'});
    } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      t.push_back({b, i, ' '});
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      i = e == std::string::npos ? n : e + 2;
      t.push_back({b, i, ' '});
    } else if (c == '"' || c == '\'') {
      for (++i; i < n && s[i] != c; ++i)
        if (s[i] == '\\') ++i;
      i = std::min(i + 1, n);
      t.push_back({b, i, ' '});
    } else if (std::isspace((unsigned char)c)) {
      while (i < n && std::isspace((unsigned char)s[i])) ++i;
      t.push_back({b, i, ' '});
    } else {
      static const char *kTwo[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=", "-=", "*=", "->"};
      size_t len = 1;
      for (const char *op : kTwo)
        if (s.compare(i, 2, op) == 0) len = 2;
      i += len;
      t.push_back({b, i, 'p'});
    }
  }
  return t;
}

std::vector<size_t> lineStarts(const std::string &s) {
  std::vector<size_t> v{0};
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n' && i + 1 < s.size()) v.push_back(i + 1);
  return v;
}

bool mutateSource(std::string &s, Rng &r) {
  std::vector<Tok> toks = tokenize(s);
  auto pick = [&](char kind) -> const Tok * {
    std::vector<const Tok *> c;
    for (const Tok &t : toks)
      if (t.kind == kind) c.push_back(&t);
    return c.empty() ? nullptr : c[r.below(c.size())];
  };
  auto replace = [&](const Tok *t, const std::string &with) {
    if (!t) return false;
    s.replace(t->b, t->e - t->b, with);
    return true;
  };
  switch (r.below(8)) {
    case 0: {
      static const char *kNum[] = {"0", "1", "2", "3", "4", "7", "15", "16", "17", "31", "32", "64", "255",
                                   "256", "1024", "65536", "0x7fffffff", "0x80000000u", "0xffffffffu",
                                   "-1", "1.5f", "0.0f", "1e30f", "9223372036854775807L"};
      return replace(pick('n'), kNum[r.below(sizeof kNum / sizeof *kNum)]);
    }
    case 1: {
      static const std::vector<std::vector<std::string>> kOps = {
          {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"},
          {"<", "<=", ">", ">=", "==", "!="},
          {"&&", "||"},
          {"++", "--"},
          {"+=", "-=", "*="}};
      std::vector<const Tok *> c;
      for (const Tok &t : toks)
        if (t.kind == 'p') c.push_back(&t);
      for (int tries = 0; tries < 8 && !c.empty(); ++tries) {
        const Tok *t = c[r.below(c.size())];
        std::string op = s.substr(t->b, t->e - t->b);
        for (auto &cls : kOps)
          if (std::find(cls.begin(), cls.end(), op) != cls.end()) return replace(t, cls[r.below(cls.size())]);
      }
      return false;
    }
    case 2: {
      const Tok *from = pick('i'), *to = pick('i');
      if (!from || !to) return false;
      return replace(to, s.substr(from->b, from->e - from->b));
    }
    case 3: {
      static const char *kWi[] = {"get_global_id(0)", "get_global_id(1)", "get_local_id(0)", "get_group_id(0)",
                                  "get_group_id(2)", "get_local_size(0)", "get_global_size(0)",
                                  "get_num_groups(1)", "get_global_offset(0)", "get_work_dim()",
                                  "get_global_linear_id()", "get_enqueued_local_size(0)"};
      return replace(pick('i'), kWi[r.below(sizeof kWi / sizeof *kWi)]);
    }
    case 4: case 5: {
      std::vector<size_t> ls = lineStarts(s);
      size_t a = r.below(ls.size());
      size_t ae = a + 1 < ls.size() ? ls[a + 1] : s.size();
      std::string line = s.substr(ls[a], ae - ls[a]);
      if (line.empty() || line.back() != '\n') line += '\n';
      size_t at = ls[r.below(ls.size())];
      unsigned how = unsigned(r.below(3));
      if (how != 0) s.erase(ls[a], ae - ls[a]);   // drop or move
      if (how == 1) return true;
      if (at > s.size()) at = s.size();
      s.insert(at, line);                          // copy or move
      return true;
    }
    case 6: {
      static const char *kStmt[] = {
          "barrier(CLK_LOCAL_MEM_FENCE);\n", "barrier(CLK_GLOBAL_MEM_FENCE);\n",
          "if (get_global_id(0) >= 7) return;\n", "mem_fence(CLK_GLOBAL_MEM_FENCE);\n",
          "for (int i_ = 0; i_ < (int)get_local_size(0); ++i_) {\n", "}\n",
          "if (get_local_id(0) == 0) {\n", "printf(\"%d\\n\", (int)get_global_id(0));\n",
          "__local int l_[64];\n", "l_[get_local_id(0) & 63] = 1;\n",
          "int gid_ = get_global_id(0);\n", "size_t g2_ = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"};
      std::vector<size_t> ls = lineStarts(s);
      s.insert(ls[r.below(ls.size())], kStmt[r.below(sizeof kStmt / sizeof *kStmt)]);
      return true;
    }
    default: {
      static const char kCtl[] = "//fuzz:";
      static const char *kFlags[] = {"v", "t", "vt", "", "v|-cl-fast-relaxed-math", "t|-DN=16", "n", "s",
                                     "i", "v|-cl-opt-disable"};
      std::string line = std::string(kCtl) + kFlags[r.below(sizeof kFlags / sizeof *kFlags)] + "\n";
      if (s.compare(0, sizeof kCtl - 1, kCtl) == 0) s.erase(0, std::min(s.find('\n'), s.size() - 1) + 1);
      s.insert(0, line);
      return true;
    }
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned seed) {
  Rng r{seed};
  if (r.below(2)) {
    std::string s(reinterpret_cast<const char *>(data), size);
    if (mutateSource(s, r) && !s.empty() && s.size() <= max_size) {
      std::memcpy(data, s.data(), s.size());
      return s.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

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
  // To see what a reproducer does: TUTTI_FUZZ_VERBOSE=1 fuzz_kernel_source FILE.
  static const bool verbose = std::getenv("TUTTI_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "ok=%d kernels=%zu vast=%d error: %.300s\n", res.ok, res.kernels.size(),
                 req.emit_vast_variants, res.error.c_str());
  if (!res.ok) {
    if (res.error.empty()) fail("ok == false without an error text");
    // Tutti's own passes must leave a valid module whatever the source was (the prefix
    // only: Clang's diagnostics quote the source, which may say anything).
    if (res.error.rfind("internal error", 0) == 0) fail("compile:", res.error);
    // Clang crashed and the compiler stopped it (Frontend.cpp): nothing of Tutti's ran, and
    // each such parse leaks its few MB on purpose. Keeping these inputs out of the corpus
    // keeps libFuzzer from breeding more of them (a long run would grow to its RSS limit).
    if (res.error.find("frontend (Clang 15) crashed") != std::string::npos) return -1;
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
