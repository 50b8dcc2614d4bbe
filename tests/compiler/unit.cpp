// LLVM-free unit tests: launch planning, interval evaluation of index
// expressions (soundness and tightness), contiguity, atomic combine, and the
// cache serialization round trip.
#include <cstdio>
#include <cstring>
#include <random>
#include <set>

#include "Cache.h"
#include "Expr.h"
#include "tutti/compiler.h"

using namespace tutti::compiler;
using namespace tutti::compiler::detail;

static int fails = 0;
#define CHECK(c, ...)                                        \
  do {                                                       \
    if (!(c)) {                                              \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #c); \
      std::printf(__VA_ARGS__);                              \
      std::printf("\n");                                     \
      ++fails;                                               \
    }                                                        \
  } while (0)

// Every flattened group of [first, first+count) is covered exactly once, with
// the right local sizes, and nothing else.
static void testPlanner() {
  std::mt19937 rng(7);
  for (int it = 0; it < 3000; ++it) {
    NDRange r;
    r.work_dim = 1 + rng() % 3;
    for (unsigned d = 0; d < r.work_dim; ++d) {
      r.local_size[d] = 1 + rng() % 6;
      r.global_size[d] = 1 + rng() % 20;
      r.global_offset[d] = rng() % 3;
    }
    uint64_t N[3] = {r.numGroups(0), r.numGroups(1), r.numGroups(2)};
    uint64_t total = r.totalGroups();
    CHECK(total == N[0] * N[1] * N[2], "total");
    uint64_t first = rng() % (total + 1);
    uint64_t count = rng() % (total - first + 1);
    bool nu = rng() % 4 == 0;
    auto subs = planPartialLaunch(r, first, count, nu);
    std::multiset<uint64_t> seen;
    for (auto &s : subs) {
      CHECK(s.work_dim == r.work_dim, "work_dim");
      for (unsigned d = 0; d < 3; ++d) {
        CHECK(s.abi[0 + d] == s.group_begin[d], "wg offset");
        CHECK(s.abi[3 + d] == N[d], "num groups");
        if (d < r.work_dim) {
          CHECK(s.abi[6 + d] == r.global_size[d] && s.abi[9 + d] == r.local_size[d] &&
                    s.abi[12 + d] == s.group_begin[d] * r.local_size[d] + r.global_offset[d], "sizes");
          uint64_t rem = r.global_size[d] % r.local_size[d];
          bool last = s.group_begin[d] + s.group_count[d] == N[d];
          if (!nu) {
            CHECK(s.global_size[d] % s.local_size[d] == 0, "uniform sub-launch");
            CHECK(s.global_size[d] / s.local_size[d] == s.group_count[d], "group count");
            if (last && rem) CHECK(s.local_size[d] == rem || s.group_count[d] >= 1, "remainder");
            if (s.local_size[d] != r.local_size[d])
              CHECK(last && rem && s.group_count[d] == 1 && s.local_size[d] == rem, "only the last group is smaller");
          } else {
            uint64_t expect = (s.group_count[d] - (last && rem ? 1 : 0)) * r.local_size[d] + (last && rem ? rem : 0);
            CHECK(s.global_size[d] == expect, "non-uniform global");
          }
        } else {
          CHECK(s.global_size[d] == 1 && s.local_size[d] == 1 && s.abi[9 + d] == 1, "unused dim");
        }
      }
      CHECK(s.abi[15] == r.work_dim, "abi work dim");
      for (uint64_t z = 0; z < s.group_count[2]; ++z)
        for (uint64_t y = 0; y < s.group_count[1]; ++y)
          for (uint64_t x = 0; x < s.group_count[0]; ++x)
            seen.insert((s.group_begin[0] + x) + N[0] * ((s.group_begin[1] + y) + N[1] * (s.group_begin[2] + z)));
    }
    CHECK(seen.size() == count, "count %zu vs %llu", seen.size(), (unsigned long long)count);
    uint64_t expect = first;
    for (uint64_t g : seen) CHECK(g == expect++, "exact range");
    size_t boxes = 0;
    std::set<std::vector<uint64_t>> distinct;
    for (auto &s : subs) distinct.insert({s.group_begin[0], s.group_begin[1], s.group_begin[2]});
    boxes = distinct.size();
    CHECK(nu ? subs.size() <= 5 : boxes <= 5 * 8, "few sub-launches");
  }
}

// out[4*(g*L + l) + 8*i], i in [0, n): affine, evaluation must be exact.
static void testEvalTight() {
  ExprData d;
  uint32_t g = d.sym(Sym::GroupId, 0), L = d.sym(Sym::EnqLocalSize, 0), l = d.sym(Sym::LocalId, 0);
  uint32_t n = d.sym(Sym::Arg, 0, 32);
  // loop: for (i = 0; i < n; ++i): btc = n - 1 (i32) zero-extended
  d.loop_btc.push_back(-1);
  d.loop_trip.push_back(-1);
  uint32_t btc = d.cast(Op::ZExt, d.nary(Op::Add, {n, d.cst(-1, 32)}, 32), 64);
  d.loop_btc[0] = (int32_t)btc;
  uint32_t iv = d.iv(0, 64);
  uint32_t gid = d.nary(Op::Add, {d.nary(Op::Mul, {g, L}, 64), l}, 64);
  // sext(trunc(gid)) like `int i = get_global_id(0)`
  uint32_t gid32 = d.cast(Op::SExt, d.cast(Op::Trunc, gid, 32), 64);
  uint32_t off = d.nary(Op::Add, {d.nary(Op::Mul, {d.cst(4), gid32}, 64), d.nary(Op::Mul, {d.cst(8), iv}, 64)}, 64);
  Env e{};
  for (int k = 0; k < 3; ++k) {
    e.num_groups[k] = 1; e.global_size[k] = 1; e.enq_local[k] = 1; e.global_offset[k] = 0;
    e.group[k] = {0, 0}; e.local_size[k] = 1;
  }
  e.work_dim = 1;
  e.enq_local[0] = e.local_size[0] = 16;
  e.group[0] = {3, 5};
  std::vector<int64_t> args{10};
  e.args = &args;
  auto v = d.eval(off, e);
  CHECK(v.has_value(), "evaluates");
  if (v) {
    // min: 4*(3*16) ; max: 4*(5*16+15) + 8*9
    CHECK(v->lo == 4 * 48 && v->hi == 4 * 95 + 72, "tight [%lld, %lld]", (long long)v->lo, (long long)v->hi);
  }
  // n = 0: loop not entered; range still sound (iteration 0)
  args[0] = 0;
  v = d.eval(off, e);
  CHECK(v && v->lo == 4 * 48 && v->hi == 4 * 95, "empty loop");
  // overflow of the 32-bit index: must refuse (unknown)
  args[0] = 10;
  e.enq_local[0] = e.local_size[0] = 1 << 20;
  e.group[0] = {0, 4096};
  v = d.eval(off, e);
  CHECK(!v.has_value(), "32-bit overflow detected");
  std::string s = d.str(off);
  CHECK(s.find("grp.x") != std::string::npos && s.find("i0") != std::string::npos, "print %s", s.c_str());
}

// Random affine expressions: the interval contains every sampled value.
static void testEvalSound() {
  std::mt19937_64 rng(3);
  for (int it = 0; it < 500; ++it) {
    ExprData d;
    uint32_t g0 = d.sym(Sym::GroupId, 0), g1 = d.sym(Sym::GroupId, 1);
    uint32_t l0 = d.sym(Sym::LocalId, 0), a = d.sym(Sym::Arg, 0);
    auto c = [&](int lo, int hi) { return d.cst(lo + (int64_t)(rng() % (hi - lo + 1))); };
    uint32_t t1 = d.nary(Op::Mul, {c(-5, 5), g0}, 64);
    uint32_t t2 = d.nary(Op::Mul, {c(-3, 7), a, g1}, 64);
    uint32_t t3 = d.nary(Op::Mul, {c(-9, 9), l0}, 64);
    uint32_t t4 = d.bin(Op::SMax, d.nary(Op::Add, {l0, c(-20, 20)}, 64), c(-4, 4), 64);
    uint32_t root = d.nary(Op::Add, {t1, t2, t3, t4, c(-100, 100)}, 64);
    Env e{};
    for (int k = 0; k < 3; ++k) {
      e.num_groups[k] = 8; e.global_size[k] = 64; e.enq_local[k] = 8; e.global_offset[k] = 0;
      e.group[k] = {0, 0}; e.local_size[k] = 8;
    }
    e.work_dim = 2;
    int64_t g0lo = rng() % 8, g1lo = rng() % 8;
    e.group[0] = {g0lo, g0lo + (int64_t)(rng() % 3)};
    e.group[1] = {g1lo, g1lo + (int64_t)(rng() % 3)};
    std::vector<int64_t> args{(int64_t)(rng() % 50) - 25};
    e.args = &args;
    auto v = d.eval(root, e);
    CHECK(v.has_value(), "eval");
    if (!v) continue;
    // Evaluate with point environments and check containment.
    for (int64_t G0 = e.group[0].lo; G0 <= (int64_t)e.group[0].hi; ++G0)
      for (int64_t G1 = e.group[1].lo; G1 <= (int64_t)e.group[1].hi; ++G1)
        for (int64_t L0 = 0; L0 < 8; ++L0) {
          Env p = e;
          p.group[0] = {G0, G0};
          p.group[1] = {G1, G1};
          p.local_size[0] = L0 + 1;  // local id range [0, L0]
          auto pv = d.eval(root, p);
          CHECK(pv.has_value(), "point eval");
          if (pv) CHECK(pv->lo >= v->lo && pv->hi <= v->hi, "sound");
        }
  }
}

static void testCombine() {
  uint32_t init[4] = {10, 20, 30, 40}, a[4] = {15, 20, 31, 100}, b[4] = {12, 25, 30, 41};
  uint32_t x[4];
  std::memcpy(x, a, 16);
  combineAtomicPartial(AtomicCombine::Add, 4, x, b, init, 16);
  CHECK(x[0] == 17 && x[1] == 25 && x[2] == 31 && x[3] == 101, "add");
  int32_t s1[2] = {-5, 7}, s2[2] = {3, -9};
  combineAtomicPartial(AtomicCombine::MinS, 4, s1, s2, nullptr, 8);
  CHECK(s1[0] == -5 && s1[1] == -9, "min.s");
  uint64_t u1[1] = {5}, u2[1] = {~0ull}, z[1] = {0};
  combineAtomicPartial(AtomicCombine::MaxU, 8, u1, u2, z, 8);
  CHECK(u1[0] == ~0ull, "max.u 64");
  uint32_t x1[1] = {0x0F}, x2[1] = {0xF0}, xi[1] = {0x01};
  combineAtomicPartial(AtomicCombine::Xor, 4, x1, x2, xi, 4);
  CHECK(x1[0] == (0x0Fu ^ 0xF0u ^ 0x01u), "xor");
}

static void testSerialize() {
  CompileResult r;
  r.ok = true;
  r.log = "log";
  r.binary = {1, 2, 3};
  r.build_options = "-x spir";
  KernelInfo k;
  k.name = "k";
  k.num_args = 2;
  ArgInfo a;
  a.name = "out";
  a.kind = ArgKind::GlobalBuffer;
  a.written = true;
  a.sites.push_back({AccessSite::Write, true, 4, "4*grp.x"});
  k.args = {a, ArgInfo()};
  auto d = std::make_shared<ExprData>();
  uint32_t off = d->nary(Op::Mul, {d->cst(4), d->sym(Sym::GroupId, 0)}, 64);
  d->accesses.push_back({0, 1, 4, (int32_t)off});
  k.exprs = d;
  k.partitionable = true;
  k.contiguity = Contiguity::Contiguous;
  k.merge_partial_args = {0};
  k.paged_kernel = "k__tutti_paged";
  k.inspector_reason = "why not";
  k.vast_buffer_args = {0, 3};
  k.inspector_data_args = {3};
  r.kernels.push_back(k);
  std::string s = serializeResult(r);
  CompileResult q;
  CHECK(deserializeResult(s, q), "roundtrip");
  CHECK(q.kernels.size() == 1 && q.kernels[0].args[0].sites.size() == 1 && q.binary == r.binary, "content");
  CHECK(q.kernels[0].paged_kernel == "k__tutti_paged" && q.kernels[0].inspector_kernel.empty() &&
            q.kernels[0].inspector_reason == "why not" && q.kernels[0].vast_buffer_args == k.vast_buffer_args &&
            q.kernels[0].inspector_data_args == k.inspector_data_args,
        "VAST fields");
  NDRange nd;
  nd.global_size[0] = 64;
  nd.local_size[0] = 8;
  ScalarArgs sa;
  auto br = accessedRange(q.kernels[0], 0, AccessMode::Write, nd, sa, 2, 3);
  CHECK(br.known && br.begin == 8 && br.end == 20, "range after roundtrip [%llu,%llu)",
        (unsigned long long)br.begin, (unsigned long long)br.end);
  CHECK(writesContiguous(q.kernels[0], nd, sa), "contiguous");
  // truncated data must be rejected, not crash
  for (size_t cut = 0; cut < s.size(); cut += 7) {
    CompileResult t;
    CHECK(!deserializeResult(s.substr(0, cut), t), "truncated accepted at %zu", cut);
  }
}

// Global-id guards (issue 18): a median-like read 4*(w*smax(y-1, 0) + x)
// under x <= w-1, y <= h-1 and, for a second access, y >= 1. Over random group
// ranges, global offsets and partial last groups, accessedRange must equal the
// exact hull of the work-items that pass the guards (empty where none does),
// also after a serialization roundtrip of the guards.
static void testGidGuards() {
  auto make = [](unsigned acc) {
    auto d = std::make_shared<ExprData>();
    auto gidOf = [&](unsigned k) {
      return d->nary(Op::Add, {d->nary(Op::Mul, {d->sym(Sym::GroupId, k), d->sym(Sym::EnqLocalSize, k)}, 64),
                               d->sym(Sym::LocalId, k), d->sym(Sym::GlobalOffset, k)}, 64);
    };
    uint32_t x = gidOf(0), y = gidOf(1);
    uint32_t w = d->cast(Op::ZExt, d->sym(Sym::Arg, 1, 32), 64), h = d->cast(Op::ZExt, d->sym(Sym::Arg, 2, 32), 64);
    uint32_t ym = d->bin(Op::SMax, d->nary(Op::Add, {y, d->cst(-1)}, 64), d->cst(0), 64);
    uint32_t off = d->nary(Op::Mul, {d->cst(4), d->nary(Op::Add, {d->nary(Op::Mul, {w, ym}, 64), x}, 64)}, 64);
    d->accesses.push_back({0, 0, 4, (int32_t)off});
    uint32_t wm1 = d->nary(Op::Add, {w, d->cst(-1)}, 64), hm1 = d->nary(Op::Add, {h, d->cst(-1)}, 64);
    d->gid_guards.push_back({0, 0, 1, 0, (int32_t)wm1});
    d->gid_guards.push_back({0, 1, 1, 0, (int32_t)hm1});
    if (acc == 1) d->gid_guards.push_back({0, 1, 0, 0, (int32_t)d->cst(1)});
    KernelInfo k;
    k.name = "g";
    k.num_args = 3;
    ArgInfo buf;
    buf.kind = ArgKind::GlobalBuffer;
    ArgInfo sc;
    sc.kind = ArgKind::Scalar;
    sc.scalar_size = 4;
    sc.is_unsigned = true;
    k.args = {buf, sc, sc};
    k.exprs = d;
    return k;
  };
  KernelInfo ks[2] = {make(0), make(1)}, back[2];
  for (unsigned acc = 0; acc < 2; ++acc) {
    CompileResult cr, q;
    cr.ok = true;
    cr.kernels.push_back(ks[acc]);
    bool ok = deserializeResult(serializeResult(cr), q) && q.kernels.size() == 1 && q.kernels[0].exprs &&
              q.kernels[0].exprs->gid_guards.size() == 2 + acc;
    CHECK(ok, "guards roundtrip");
    back[acc] = ok ? q.kernels[0] : ks[acc];
  }
  std::mt19937_64 rng(7);
  for (int it = 0; it < 300; ++it) {
    NDRange nd;
    nd.work_dim = 2;
    nd.local_size[0] = 1 + rng() % 8;
    nd.local_size[1] = 1 + rng() % 8;
    nd.global_size[0] = 1 + rng() % 40;
    nd.global_size[1] = 1 + rng() % 40;
    nd.global_offset[0] = rng() % 3 ? 0 : rng() % 10;
    nd.global_offset[1] = rng() % 3 ? 0 : rng() % 10;
    uint32_t W = 1 + rng() % 45, H = 1 + rng() % 45;
    ScalarArgs sa;
    sa.set(1, &W, 4);
    sa.set(2, &H, 4);
    uint64_t total = nd.totalGroups(), first = rng() % total, count = 1 + rng() % (total - first);
    uint64_t N0 = nd.numGroups(0), N1 = nd.numGroups(1);
    for (unsigned acc = 0; acc < 2; ++acc) {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (uint64_t g = first; g < first + count; ++g) {
        uint64_t g0 = g % N0, g1 = (g / N0) % N1;
        for (uint64_t l1 = 0; l1 < nd.local_size[1]; ++l1)
          for (uint64_t l0 = 0; l0 < nd.local_size[0]; ++l0) {
            uint64_t gx = g0 * nd.local_size[0] + l0, gy = g1 * nd.local_size[1] + l1;
            if (gx >= nd.global_size[0] || gy >= nd.global_size[1]) continue;  // partial last group
            int64_t X = (int64_t)(gx + nd.global_offset[0]), Y = (int64_t)(gy + nd.global_offset[1]);
            if (X > (int64_t)W - 1 || Y > (int64_t)H - 1 || (acc == 1 && Y < 1)) continue;
            int64_t o = 4 * ((int64_t)W * std::max<int64_t>(Y - 1, 0) + X);
            lo = std::min(lo, o);
            hi = std::max(hi, o + 4);
          }
      }
      ByteRange r = accessedRange((it & 1) ? back[acc] : ks[acc], 0, AccessMode::Read, nd, sa, first, count);
      bool ok = r.known && (lo > hi ? r.empty() : (r.begin == (uint64_t)lo && r.end == (uint64_t)hi));
      CHECK(ok, "it %d access %u: [%llu,%llu) known=%d, exact [%lld,%lld)", it, acc,
            (unsigned long long)r.begin, (unsigned long long)r.end, r.known, (long long)lo, (long long)hi);
    }
  }
}

// Recurrence guards (kGuardExpr): for (j = max(x - r, 0); j <= min(x + r, h - 1); ++j)
// reads 4*W*j + 4*P*x (P 0 or 1). With the exit test bounding j as a whole, the
// range must cover the brute-force hull, and equal it where only j moves (P 0).
static void testExprGuards() {
  std::mt19937_64 rng(11);
  int exact = 0, pure = 0;
  for (int it = 0; it < 400; ++it) {
    int64_t P = it & 1;
    auto d = std::make_shared<ExprData>();
    uint32_t x = d->nary(Op::Add, {d->nary(Op::Mul, {d->sym(Sym::GroupId, 0), d->sym(Sym::EnqLocalSize, 0)}, 64),
                                   d->sym(Sym::LocalId, 0), d->sym(Sym::GlobalOffset, 0)}, 64);
    auto arg = [&](unsigned i) { return d->cast(Op::ZExt, d->sym(Sym::Arg, i, 32), 64); };
    uint32_t r = arg(1), h = arg(2), W = arg(4);
    d->loop_btc.push_back((int32_t)arg(3));
    d->loop_trip.push_back(-1);
    uint32_t iv = d->iv(0, 64);
    uint32_t start = d->bin(Op::SMax, d->nary(Op::Add, {x, d->nary(Op::Mul, {d->cst(-1), r}, 64)}, 64), d->cst(0), 64);
    uint32_t j = d->nary(Op::Add, {start, iv}, 64);
    uint32_t off = d->nary(Op::Add, {d->nary(Op::Mul, {d->cst(4), W, j}, 64), d->nary(Op::Mul, {d->cst(4 * P), x}, 64)}, 64);
    d->accesses.push_back({0, 0, 4, (int32_t)off});
    uint32_t bound = d->bin(Op::SMin, d->nary(Op::Add, {x, r}, 64), d->nary(Op::Add, {h, d->cst(-1)}, 64), 64);
    d->gid_guards.push_back({0, kGuardExpr, 1, 0, (int32_t)bound, (int32_t)j});
    KernelInfo k;
    k.num_args = 5;
    ArgInfo buf;
    buf.kind = ArgKind::GlobalBuffer;
    ArgInfo sc;
    sc.kind = ArgKind::Scalar;
    sc.scalar_size = 4;
    sc.is_unsigned = true;
    k.args = {buf, sc, sc, sc, sc};
    k.exprs = d;
    NDRange nd;
    nd.work_dim = 1;
    nd.local_size[0] = 1 + rng() % 8;
    nd.global_size[0] = 1 + rng() % 60;
    nd.global_offset[0] = rng() % 3 ? 0 : rng() % 10;
    uint32_t R = rng() % 5, H = 1 + rng() % 70, B = rng() % 12, Wd = 1 + rng() % 9;
    ScalarArgs sa;
    sa.set(1, &R, 4);
    sa.set(2, &H, 4);
    sa.set(3, &B, 4);
    sa.set(4, &Wd, 4);
    uint64_t total = nd.totalGroups(), first = rng() % total, count = 1 + rng() % (total - first);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint64_t g = first; g < first + count; ++g)
      for (uint64_t l = 0; l < nd.local_size[0]; ++l) {
        uint64_t gx = g * nd.local_size[0] + l;
        if (gx >= nd.global_size[0]) continue;
        int64_t X = (int64_t)(gx + nd.global_offset[0]);
        for (int64_t kk = 0; kk <= (int64_t)B; ++kk) {
          int64_t J = std::max<int64_t>(X - R, 0) + kk;
          if (J > std::min<int64_t>(X + R, (int64_t)H - 1)) continue;  // the exit test
          int64_t o = 4 * Wd * J + 4 * P * X;
          lo = std::min(lo, o);
          hi = std::max(hi, o + 4);
        }
      }
    ByteRange br = accessedRange(k, 0, AccessMode::Read, nd, sa, first, count);
    bool cover = br.known && (lo > hi || (br.begin <= (uint64_t)lo && br.end >= (uint64_t)hi));
    CHECK(cover, "it %d: [%llu,%llu) known=%d misses [%lld,%lld)", it, (unsigned long long)br.begin,
          (unsigned long long)br.end, br.known, (long long)lo, (long long)hi);
    if (P == 0 && lo <= hi) {
      ++pure;
      if (br.begin == (uint64_t)lo && br.end == (uint64_t)hi) ++exact;
    }
  }
  // the hull is exact unless the exit test also cuts the smallest x's first row
  CHECK(pure > 50 && exact * 10 >= pure * 8, "recurrence guards exact in %d of %d cases", exact, pure);
}

// Eq. 4.1: one set's groups touch about 1/32 of the budget.
void testGroupsPerPas() {
  // 1 GiB budget, 4 GiB of buffers over 65536 groups: 64 KiB per group,
  // 32 MiB per set -> 512 groups
  CHECK(vastGroupsPerPas(1ull << 30, 4ull << 30, 65536) == 512, "eq 4.1: %llu",
        (unsigned long long)vastGroupsPerPas(1ull << 30, 4ull << 30, 65536));
  CHECK(vastGroupsPerPas(1ull << 30, 4ull << 30, 65537) == 513, "rounds up");
  CHECK(vastGroupsPerPas(1ull << 40, 1 << 20, 100) == 100, "at most every group");
  CHECK(vastGroupsPerPas(1, 1ull << 40, 100) == 1, "at least one group");
  CHECK(vastGroupsPerPas(80ull << 30, 200ull << 30, 1ull << 40) > 0, "no overflow");
}

int main() {
  testGroupsPerPas();
  testGidGuards();
  testExprGuards();
  testPlanner();
  testEvalTight();
  testEvalSound();
  testCombine();
  testSerialize();
  std::printf("%s (%d failures)\n", fails ? "FAILED" : "PASSED", fails);
  return fails ? 1 : 0;
}
