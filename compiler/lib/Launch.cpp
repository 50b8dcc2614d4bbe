// Runtime-side helpers (no LLVM): launch planning, range and cost evaluation,
// contiguity test, atomic combine, printing.
#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>

#include "Expr.h"
#include "tutti/compiler.h"

namespace tutti::compiler {

using detail::Access;
using detail::Env;
using detail::ExprData;
using detail::I128;
using detail::Interval;

const char *targetName(Target t) {
  switch (t) {
    case Target::Spir64: return "spir64";
    case Target::Nvptx64: return "nvptx64";
    case Target::Source: return "source";
  }
  return "?";
}

const char *combineName(AtomicCombine c) {
  switch (c) {
    case AtomicCombine::None: return "none";
    case AtomicCombine::Add: return "add";
    case AtomicCombine::MinS: return "min.s";
    case AtomicCombine::MinU: return "min.u";
    case AtomicCombine::MaxS: return "max.s";
    case AtomicCombine::MaxU: return "max.u";
    case AtomicCombine::And: return "and";
    case AtomicCombine::Or: return "or";
    case AtomicCombine::Xor: return "xor";
  }
  return "?";
}

const char *contiguityName(Contiguity c) {
  switch (c) {
    case Contiguity::NotApplicable: return "n/a";
    case Contiguity::Contiguous: return "contiguous";
    case Contiguity::LaunchDependent: return "launch-dependent";
    case Contiguity::Discontiguous: return "discontiguous";
    case Contiguity::Unknown: return "unknown";
  }
  return "?";
}

uint64_t NDRange::numGroups(unsigned d) const {
  if (d >= work_dim || d >= 3) return 1;
  uint64_t l = local_size[d] ? local_size[d] : 1;
  return (global_size[d] + l - 1) / l;
}

uint64_t NDRange::totalGroups() const { return numGroups(0) * numGroups(1) * numGroups(2); }

void ScalarArgs::set(unsigned index, const void *bytes, size_t size) {
  if (bits.size() <= index) bits.resize(index + 1, 0);
  uint64_t v = 0;
  if (bytes) std::memcpy(&v, bytes, std::min<size_t>(size, 8));
  bits[index] = v;
}

// ---------------------------------------------------------------------------
// Partial launch planning
// ---------------------------------------------------------------------------

namespace {
struct Box { uint64_t begin[3]; uint64_t count[3]; };

std::vector<Box> boxesOf(const NDRange &full, uint64_t first, uint64_t count) {
  std::vector<Box> out;
  uint64_t N0 = full.numGroups(0), N1 = full.numGroups(1);
  uint64_t P1 = N0 * N1;
  uint64_t cur = first, e = std::min(first + count, full.totalGroups());
  while (cur < e) {
    uint64_t g0 = cur % N0, g1 = (cur / N0) % N1, g2 = cur / P1;
    if (g0 != 0 || e - cur < N0) {
      uint64_t n = std::min(N0 - g0, e - cur);
      out.push_back({{g0, g1, g2}, {n, 1, 1}});
      cur += n;
    } else if (g1 != 0 || e - cur < P1) {
      uint64_t rows = std::min(N1 - g1, (e - cur) / N0);
      out.push_back({{0, g1, g2}, {N0, rows, 1}});
      cur += rows * N0;
    } else {
      uint64_t planes = (e - cur) / P1;
      out.push_back({{0, 0, g2}, {N0, N1, planes}});
      cur += planes * P1;
    }
  }
  return out;
}
}  // namespace

std::vector<SubLaunch> planPartialLaunch(const NDRange &full, uint64_t first, uint64_t count,
                                         bool nonuniform_ok) {
  std::vector<SubLaunch> out;
  unsigned wd = std::clamp<unsigned>(full.work_dim, 1, 3);
  uint64_t N[3], L[3], G[3];
  for (unsigned d = 0; d < 3; ++d) {
    N[d] = full.numGroups(d);
    L[d] = d < wd ? (full.local_size[d] ? full.local_size[d] : 1) : 1;
    G[d] = d < wd ? full.global_size[d] : 1;
  }
  for (const Box &b : boxesOf(full, first, count)) {
    // per dimension: list of pieces (begin, count, local, global)
    struct Piece { uint64_t begin, count, local, global; };
    std::vector<Piece> pieces[3];
    for (unsigned d = 0; d < 3; ++d) {
      uint64_t rem = G[d] % L[d];
      bool hasLast = d < wd && rem != 0 && b.begin[d] + b.count[d] == N[d];
      if (!hasLast) {
        pieces[d].push_back({b.begin[d], b.count[d], L[d], b.count[d] * L[d]});
      } else if (nonuniform_ok) {
        pieces[d].push_back({b.begin[d], b.count[d], L[d], (b.count[d] - 1) * L[d] + rem});
      } else {
        if (b.count[d] > 1)
          pieces[d].push_back({b.begin[d], b.count[d] - 1, L[d], (b.count[d] - 1) * L[d]});
        pieces[d].push_back({N[d] - 1, 1, rem, rem});
      }
    }
    for (auto &p0 : pieces[0])
      for (auto &p1 : pieces[1])
        for (auto &p2 : pieces[2]) {
          SubLaunch s;
          s.work_dim = wd;
          const Piece *p[3] = {&p0, &p1, &p2};
          for (unsigned d = 0; d < 3; ++d) {
            s.global_size[d] = p[d]->global;
            s.local_size[d] = p[d]->local;
            s.group_begin[d] = p[d]->begin;
            s.group_count[d] = p[d]->count;
            s.abi[0 + d] = p[d]->begin;
            s.abi[3 + d] = N[d];
            s.abi[6 + d] = G[d];
            s.abi[9 + d] = L[d];
            s.abi[12 + d] = p[d]->begin * L[d] + (d < wd ? full.global_offset[d] : 0);
          }
          s.abi[15] = wd;
          out.push_back(s);
        }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------

namespace {

std::vector<int64_t> interpretArgs(const KernelInfo &k, const ScalarArgs &a) {
  std::vector<int64_t> v(k.args.size(), 0);
  for (size_t i = 0; i < k.args.size() && i < a.bits.size(); ++i) {
    const ArgInfo &ai = k.args[i];
    uint64_t b = a.bits[i];
    unsigned w = ai.scalar_size ? std::min<unsigned>(ai.scalar_size * 8, 64) : 64;
    if (w < 64) {
      uint64_t mask = (uint64_t(1) << w) - 1;
      b &= mask;
      if (!ai.is_unsigned && (b >> (w - 1)) & 1) b |= ~mask;
    }
    v[i] = (int64_t)b;
  }
  return v;
}

Env baseEnv(const NDRange &full, const std::vector<int64_t> *args) {
  Env e{};
  unsigned wd = std::clamp<unsigned>(full.work_dim, 1, 3);
  for (unsigned d = 0; d < 3; ++d) {
    bool in = d < wd;
    e.num_groups[d] = (int64_t)full.numGroups(d);
    e.global_size[d] = in ? (int64_t)full.global_size[d] : 1;
    e.enq_local[d] = in ? (int64_t)(full.local_size[d] ? full.local_size[d] : 1) : 1;
    e.global_offset[d] = in ? (int64_t)full.global_offset[d] : 0;
    e.group[d] = {0, (I128)e.num_groups[d] - 1};
    e.local_size[d] = e.enq_local[d];
  }
  e.work_dim = wd;
  e.args = args;
  return e;
}

// The analyses assume 31-bit global ids/sizes (passes/AssumeNDRange.cpp).
bool assumptionHolds(const NDRange &r) {
  unsigned wd = std::clamp<unsigned>(r.work_dim, 1, 3);
  for (unsigned d = 0; d < wd; ++d) {
    if (r.global_size[d] == 0 || r.local_size[d] == 0) return false;
    if (r.global_size[d] + r.global_offset[d] >= (uint64_t(1) << 31)) return false;
  }
  return true;
}

bool modeMatches(const Access &a, AccessMode m) {
  if (m == AccessMode::Any) return true;
  if (m == AccessMode::Read) return a.kind == 0;
  return a.kind != 0;
}

I128 floorDiv(I128 a, I128 b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
I128 ceilDiv(I128 a, I128 b) { return -floorDiv(-a, b); }

// Narrows `out` (a copy of the box environment `box`) to the work-items that
// may run an access with these global-id guards: each bound is evaluated over
// the box (a bound that does not evaluate is left out, which is sound); the
// global ids' ranges are intersected with the bounds and the group ranges
// with the groups that hold such ids. False: no work-item of the box runs it.
bool clipGids(const ExprData &d, const std::vector<const detail::GidGuard *> &guards,
              const Env &box, Env &out) {
  if (guards.empty()) return true;
  const I128 inf = ((I128)1) << 100;
  I128 glo[3] = {-inf, -inf, -inf}, ghi[3] = {inf, inf, inf};
  std::map<int32_t, Interval> ex;  // kGuardExpr: node -> bounds
  detail::Evaluation overBox(d, box);
  for (const detail::GidGuard *g : guards) {
    auto b = overBox((uint32_t)g->bound);
    if (!b) continue;
    if (g->dim == detail::kGuardExpr) {
      auto it = ex.emplace(g->expr, Interval{-inf, inf}).first;
      if (g->upper) it->second.hi = std::min(it->second.hi, b->hi);
      else it->second.lo = std::max(it->second.lo, b->lo);
      continue;
    }
    if (g->upper) ghi[g->dim] = std::min(ghi[g->dim], b->hi);
    else glo[g->dim] = std::max(glo[g->dim], b->lo);
  }
  for (unsigned dim = 0; dim < 3; ++dim) {
    if (glo[dim] == -inf && ghi[dim] == inf) continue;
    I128 E = box.enq_local[dim], off = box.global_offset[dim];
    Interval nat{box.group[dim].lo * E + off, box.group[dim].hi * E + box.local_size[dim] - 1 + off};
    Interval c{std::max(nat.lo, glo[dim]), std::min(nat.hi, ghi[dim])};
    if (c.lo > c.hi) return false;
    out.gid_clipped[dim] = true;
    out.gid[dim] = c;
    // groups g whose ids [g*E+off, g*E+E-1+off] meet c
    Interval gr{std::max(box.group[dim].lo, ceilDiv(c.lo - off - E + 1, E)),
                std::min(box.group[dim].hi, floorDiv(c.hi - off, E))};
    if (gr.lo > gr.hi) return false;
    out.group[dim] = gr;
  }
  // guarded expressions: their range over the clipped box, intersected with
  // the guards (a range that does not evaluate leaves only the guards)
  for (auto &[node, b] : ex) {
    auto nat = d.eval((uint32_t)node, out);
    Interval c{std::max(nat ? nat->lo : -inf, b.lo), std::min(nat ? nat->hi : inf, b.hi)};
    if (c.lo > c.hi) return false;
    if (c.lo == -inf || c.hi == inf) continue;
    out.clips.push_back({(uint32_t)node, c});
  }
  return true;
}

}  // namespace

ByteRange accessedRange(const KernelInfo &k, unsigned arg, AccessMode mode, const NDRange &full,
                        const ScalarArgs &sargs, uint64_t first, uint64_t count) {
  ByteRange r;
  if (arg >= k.args.size()) return r;
  const ArgInfo &ai = k.args[arg];
  if (ai.kind != ArgKind::GlobalBuffer && ai.kind != ArgKind::ConstantBuffer) {
    r.known = true;
    return r;
  }
  if (ai.escapes || !k.exprs) return r;
  const ExprData &d = *k.exprs;
  std::vector<const Access *> acc;
  for (const Access &a : d.accesses)
    if (a.arg == arg && modeMatches(a, mode)) {
      if (a.offset < 0 || a.size == 0) return r;  // unknown
      acc.push_back(&a);
    }
  if (!assumptionHolds(full)) return r;
  r.known = true;
  if (acc.empty() || count == 0) return r;
  auto args = interpretArgs(k, sargs);
  Env base = baseEnv(full, &args);
  // The guards of the accesses asked about only (a kernel may have thousands of others).
  std::vector<std::vector<const detail::GidGuard *>> guards(acc.size());
  std::vector<int32_t> pos(d.accesses.size(), -1);
  for (size_t i = 0; i < acc.size(); ++i) pos[size_t(acc[i] - d.accesses.data())] = int32_t(i);
  for (const detail::GidGuard &g : d.gid_guards)
    if (g.access < pos.size() && pos[g.access] >= 0) guards[size_t(pos[g.access])].push_back(&g);
  I128 lo = 0, hi = 0;
  bool any = false;
  for (const SubLaunch &s : planPartialLaunch(full, first, count, false)) {
    Env e = base;
    for (unsigned d = 0; d < 3; ++d) {
      e.group[d] = {(I128)s.group_begin[d], (I128)(s.group_begin[d] + s.group_count[d]) - 1};
      e.local_size[d] = (int64_t)s.local_size[d];
    }
    // Accesses under the same guards (a stencil's reads) share the clipped box and one
    // evaluation over it, so their common subterms are evaluated once.
    const std::vector<const detail::GidGuard *> *clippedFor = nullptr;
    bool runs = false;
    Env ea;
    std::optional<detail::Evaluation> over;
    for (size_t ai = 0; ai < acc.size(); ++ai) {
      const Access *a = acc[ai];
      // the access's global-id guards, evaluated over the whole box, clip
      // the global ids (and the groups) of the work-items that run it
      const std::vector<const detail::GidGuard *> &g = guards[ai];
      if (!clippedFor || g != *clippedFor) {
        clippedFor = &g;
        over.reset();
        ea = e;
        runs = clipGids(d, g, e, ea);
        if (runs) over.emplace(d, ea);
      }
      if (!runs) continue;
      auto v = (*over)((uint32_t)a->offset);
      if (!v) return ByteRange{};
      Interval o = *v;
      // dominating guards (sound on their own: a failed evaluation just
      // leaves the bound out)
      if (a->clamp_hi >= 0)
        if (auto c = (*over)((uint32_t)a->clamp_hi)) o.hi = std::min(o.hi, c->hi);
      if (a->clamp_lo >= 0)
        if (auto c = (*over)((uint32_t)a->clamp_lo)) o.lo = std::max(o.lo, c->lo);
      if (o.lo > o.hi) continue;  // the guard excludes every work-item of this box
      I128 b = o.lo, en = o.hi + a->size;
      if (!any) { lo = b; hi = en; any = true; }
      else { lo = std::min(lo, b); hi = std::max(hi, en); }
    }
  }
  if (lo < 0) lo = 0;
  if (hi < lo) hi = lo;
  const I128 lim = (I128)UINT64_MAX;
  r.begin = (uint64_t)std::min(lo, lim);
  r.end = (uint64_t)std::min(hi, lim);
  return r;
}

namespace detail {
// 1 contiguous, 0 affine but not contiguous, -1 not computable
int contiguityCheck(const KernelInfo &k, unsigned arg, const NDRange &full,
                    const ScalarArgs &sargs, std::string *why) {
  auto fail = [&](const std::string &s) {
    if (why) *why = s;
    return -1;
  };
  auto no = [&](const std::string &s) {
    if (why) *why = s;
    return 0;
  };
  if (arg >= k.args.size()) return fail("no such argument");
  const ArgInfo &ai = k.args[arg];
  if (!ai.written) return 1;
  if (ai.escapes || !k.exprs) return fail("argument escapes analysis");
  if (!assumptionHolds(full)) return fail("NDRange exceeds the analysed 31-bit range");
  const ExprData &d = *k.exprs;
  auto args = interpretArgs(k, sargs);
  Env env = baseEnv(full, &args);
  uint64_t N[3] = {full.numGroups(0), full.numGroups(1), full.numGroups(2)};
  if (N[0] * N[1] * N[2] <= 1) return 1;
  // Not decomposable: if the write hulls of neighbouring groups overlap the
  // kernel is certainly not contiguous (copying hulls would clobber);
  // otherwise we cannot tell.
  auto hullFallback = [&](const std::string &s) -> int {
    uint64_t total = full.totalGroups();
    bool haveprev = false;
    I128 prevHi = 0;
    for (uint64_t F = 0; F < total && F < 16; ++F) {
      ByteRange r = accessedRange(k, arg, AccessMode::Write, full, sargs, F, 1);
      if (!r.known) return fail(s);
      if (r.empty()) continue;
      if (haveprev && (I128)r.begin < prevHi) return no("write hulls of neighbouring groups overlap");
      prevHi = r.end;
      haveprev = true;
    }
    return fail(s);
  };
  bool haveA = false;
  I128 A[3] = {0, 0, 0};
  I128 lo = 0, hi = 0;
  bool anyR = false;
  for (const Access &a : d.accesses) {
    if (a.arg != arg || a.kind != 1) continue;
    if (a.offset < 0 || a.size == 0) return fail("write index not computable");
    // the whole launch must evaluate (all fit checks pass)
    if (!d.eval((uint32_t)a.offset, env)) return fail("write index may overflow");
    const detail::Poly &p = d.poly((uint32_t)a.offset);
    I128 coef[3] = {0, 0, 0};
    detail::Poly rest;
    for (const detail::Mono &m : p.monos) {
      int gd = -1, ng = 0;
      bool other = false;
      for (uint32_t at : m.atoms) {
        const detail::Node &n = d.nodes[at];
        if (n.op == detail::Op::Sym && n.sym == (uint8_t)detail::Sym::GroupId) {
          ++ng;
          gd = (int)n.idx;
        } else if (d.dependsOnGroup(at)) {
          return hullFallback("group id inside a non-affine term");
        } else if (d.dependsOnVar(at)) {
          other = true;
        }
      }
      if (ng == 0) { rest.monos.push_back(m); continue; }
      if (ng > 1 || other || gd > 2) return fail("group id not affine");
      // coefficient: product of parameter atoms
      Interval c{m.coef, m.coef};
      for (uint32_t at : m.atoms) {
        const detail::Node &n = d.nodes[at];
        if (n.op == detail::Op::Sym && n.sym == (uint8_t)detail::Sym::GroupId) continue;
        // evaluate parameter atom as a 1-node polynomial
        auto v = d.eval(at, env);
        if (!v || v->lo != v->hi) return fail("coefficient not a point");
        c.lo *= v->lo;
        c.hi = c.lo;
      }
      coef[gd] += c.lo;
    }
    if (!haveA) {
      for (int i = 0; i < 3; ++i) A[i] = coef[i];
      haveA = true;
    } else {
      for (int i = 0; i < 3; ++i)
        if (N[i] > 1 && A[i] != coef[i]) return no("write sites move differently with the group id");
    }
    // the part that does not depend on the group id, over one group
    Env e1 = env;
    for (int i = 0; i < 3; ++i) e1.group[i] = {0, 0};
    // evaluate rest polynomial: build by evaluating full minus group part at g=0
    auto v = d.eval((uint32_t)a.offset, e1);  // group ids = 0: exactly the rest
    if (!v) return fail("write index not computable");
    I128 b = v->lo, en = v->hi + a.size;
    if (!anyR) { lo = b; hi = en; anyR = true; }
    else { lo = std::min(lo, b); hi = std::max(hi, en); }
  }
  if (!haveA) return 1;  // only non-plain writes
  // flattened stride S: A_d == S * prod_{e<d} N_e for every dimension with N_d > 1
  I128 S = 0;
  bool haveS = false;
  I128 prod = 1;
  for (int i = 0; i < 3; ++i) {
    if (N[i] > 1) {
      if (!haveS) {
        if (A[i] % prod != 0) return no("group stride not linear in the flattened id");
        S = A[i] / prod;
        haveS = true;
      } else if (A[i] != S * prod) {
        return no("group footprints do not follow the flattened order");
      }
    }
    prod *= (I128)N[i];
  }
  I128 W = hi - lo;
  if (S <= 0) return no("group footprints do not increase with the group id");
  if (S < W) {
    if (why) {
      std::ostringstream os;
      os << "per-group write footprint (" << (long long)W << " B) exceeds group stride ("
         << (long long)S << " B)";
      *why = os.str();
    }
    return 0;
  }
  return 1;
}

Contiguity staticContiguity(const KernelInfo &k) {
  struct Cfg { unsigned dim; uint64_t L[3], N[3]; };
  static const Cfg cfgs[] = {
      {1, {16, 1, 1}, {7, 1, 1}},   {1, {64, 1, 1}, {3, 1, 1}},   {1, {8, 1, 1}, {33, 1, 1}},
      {2, {8, 4, 1}, {5, 3, 1}},    {2, {16, 2, 1}, {4, 6, 1}},   {2, {4, 1, 1}, {6, 5, 1}},
      {2, {32, 1, 1}, {3, 4, 1}},   {3, {4, 2, 2}, {3, 3, 2}},    {3, {8, 1, 1}, {4, 3, 2}},
      {3, {2, 2, 2}, {5, 2, 3}},
  };
  unsigned dim = std::clamp<unsigned>(k.max_dim, 1, 3);
  int yes = 0, no = 0, unknown = 0;
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  for (const Cfg &c : cfgs) {
    if (c.dim != dim) continue;
    NDRange r;
    r.work_dim = dim;
    for (unsigned d = 0; d < 3; ++d) {
      r.local_size[d] = c.L[d];
      r.global_size[d] = c.L[d] * c.N[d];
    }
    ScalarArgs a;
    for (unsigned i = 0; i < k.args.size(); ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t v = 1 + (seed >> 33) % 37;
      a.set(i, &v, 8);
    }
    bool allYes = true;
    bool anyUnknown = false;
    for (unsigned i = 0; i < k.args.size(); ++i) {
      if (!k.args[i].written) continue;
      int c2 = contiguityCheck(k, i, r, a, nullptr);
      if (c2 < 0) anyUnknown = true;
      if (c2 != 1) allYes = false;
    }
    if (anyUnknown) ++unknown;
    else if (allYes) ++yes;
    else ++no;
  }
  // A configuration that shows non-contiguous writes is evidence whatever
  // the others could not decide (with global-id guards, a configuration
  // whose small arguments leave one group working cannot decide at all).
  if (unknown && !no) return Contiguity::Unknown;
  if (yes && !no) return Contiguity::Contiguous;
  if (yes) return Contiguity::LaunchDependent;
  return Contiguity::Discontiguous;
}
}  // namespace detail

bool argWritesContiguous(const KernelInfo &k, unsigned arg, const NDRange &full,
                         const ScalarArgs &sargs, std::string *why) {
  return detail::contiguityCheck(k, arg, full, sargs, why) == 1;
}


namespace {
// Write hulls of units [j*u, (j+1)*u) never overlap and rise with j: on every neighbouring
// pair when there are at most 32, else on four runs of 8 neighbouring pairs, at the start,
// a third, two thirds and the end of the launch. Runs share each hull between two pairs:
// 36 hulls where 64 spread pairs took 128 (FDTD3d at 256^3: 0.98 ms of its first launch's
// decision). A unit is only the decision's granularity: a plan whose pieces' write hulls
// overlap all the same merges them (skmdPlan checks the pieces' own hulls).
bool unitsOrdered(const KernelInfo &k, unsigned arg, const NDRange &full, const ScalarArgs &s,
                  uint64_t u) {
  const uint64_t units = full.totalGroups() / u, pairs = units - 1;
  constexpr uint64_t kRuns = 4, kRun = 8;
  auto run = [&](uint64_t first, uint64_t n) {  // pairs (first, first+1) .. (first+n-1, first+n)
    ByteRange a = accessedRange(k, arg, AccessMode::Write, full, s, first * u, u);
    for (uint64_t j = first; j < first + n; ++j) {
      ByteRange b = accessedRange(k, arg, AccessMode::Write, full, s, (j + 1) * u, u);
      if (!a.known || !b.known) return false;
      if (!a.empty() && !b.empty() && b.begin < a.end) return false;
      if (!b.empty() || a.empty()) a = b;  // an empty hull orders nothing: keep the last one
    }
    return true;
  };
  if (pairs <= kRuns * kRun) return run(0, pairs);
  for (uint64_t r = 0; r < kRuns; ++r)
    if (!run(r * (pairs - kRun) / (kRuns - 1), kRun)) return false;
  return true;
}
}  // namespace

uint64_t concatUnit(const KernelInfo &k, const NDRange &full, const ScalarArgs &args) {
  std::vector<unsigned> plain;  // written with plain stores, not contiguous per group
  for (unsigned i = 0; i < k.args.size(); ++i) {
    const ArgInfo &ai = k.args[i];
    if (ai.written && !ai.atomic && !argWritesContiguous(k, i, full, args)) plain.push_back(i);
  }
  if (plain.empty()) return 1;
  const uint64_t total = full.totalGroups(), n0 = full.numGroups(0);
  for (uint64_t u : {n0, n0 * full.numGroups(1)}) {
    if (u <= 1 || u >= total || total % u) continue;
    bool ok = true;
    for (unsigned i : plain) ok = ok && unitsOrdered(k, i, full, args, u);
    if (ok) return u;
  }
  return 0;
}

bool writesContiguous(const KernelInfo &k, const NDRange &full, const ScalarArgs &args,
                      std::string *why) {
  for (unsigned i = 0; i < k.args.size(); ++i) {
    if (!k.args[i].written) continue;
    std::string w;
    if (!argWritesContiguous(k, i, full, args, &w)) {
      if (why) *why = "arg " + std::to_string(i) + ": " + w;
      return false;
    }
  }
  return true;
}

void warmAnalyses(const KernelInfo &k) {
  if (k.exprs && !k.exprs->nodes.empty()) k.exprs->poly(0);  // prepares every node
}

std::optional<double> costPerWorkItem(const KernelInfo &k, const NDRange &full,
                                      const ScalarArgs &sargs) {
  if (!k.exprs || k.exprs->cost < 0 || !assumptionHolds(full)) return std::nullopt;
  auto args = interpretArgs(k, sargs);
  Env env = baseEnv(full, &args);
  auto v = k.exprs->eval((uint32_t)k.exprs->cost, env, true);
  if (!v) return std::nullopt;
  return v->hi < 0 ? 0.0 : (double)v->hi;
}

void combineAtomicPartial(AtomicCombine rule, unsigned width, void *dstv, const void *partv,
                          const void *initv, size_t bytes) {
  auto run = [&](auto tag) {
    using U = decltype(tag);
    using S = std::make_signed_t<U>;
    size_t n = bytes / sizeof(U);
    U *dst = (U *)dstv;
    const U *p = (const U *)partv;
    const U *init = (const U *)initv;
    for (size_t i = 0; i < n; ++i) {
      U a = dst[i], b = p[i], z = init ? init[i] : 0;
      switch (rule) {
        case AtomicCombine::Add: dst[i] = (U)(a + (U)(b - z)); break;
        case AtomicCombine::Xor: dst[i] = a ^ b ^ z; break;
        case AtomicCombine::And: dst[i] = a & b; break;
        case AtomicCombine::Or: dst[i] = a | b; break;
        case AtomicCombine::MinU: dst[i] = std::min(a, b); break;
        case AtomicCombine::MaxU: dst[i] = std::max(a, b); break;
        case AtomicCombine::MinS: dst[i] = (U)std::min((S)a, (S)b); break;
        case AtomicCombine::MaxS: dst[i] = (U)std::max((S)a, (S)b); break;
        case AtomicCombine::None: break;
      }
    }
  };
  switch (width) {
    case 1: run(uint8_t{}); break;
    case 2: run(uint16_t{}); break;
    case 8: run(uint64_t{}); break;
    default: run(uint32_t{}); break;
  }
}

// ---------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------

static const char *kindName(ArgKind k) {
  switch (k) {
    case ArgKind::Scalar: return "scalar";
    case ArgKind::GlobalBuffer: return "global";
    case ArgKind::ConstantBuffer: return "constant";
    case ArgKind::LocalBuffer: return "local";
    case ArgKind::Image: return "image";
    case ArgKind::Sampler: return "sampler";
    case ArgKind::Pipe: return "pipe";
    case ArgKind::Other: return "other";
  }
  return "?";
}

std::string describe(const KernelInfo &k) {
  std::ostringstream os;
  os << "kernel " << k.name << " (" << k.num_args << " args, max_dim " << k.max_dim << ")\n";
  os << "  partitionable: " << (k.partitionable ? "yes" : "no");
  if (!k.partitionable) os << " (" << k.whole_reason << ")";
  os << "\n  contiguity: " << contiguityName(k.contiguity) << "\n";
  for (size_t i = 0; i < k.args.size(); ++i) {
    const ArgInfo &a = k.args[i];
    os << "  arg " << i << " " << (a.name.empty() ? "-" : a.name) << " : " << kindName(a.kind)
       << " " << a.type_name;
    if (a.kind == ArgKind::GlobalBuffer || a.kind == ArgKind::ConstantBuffer) {
      std::string acc;
      if (a.read) acc += "R";
      if (a.written) acc += "W";
      if (a.atomic) acc += "A";
      if (acc.empty()) acc = "-";
      os << " access=" << acc;
      if (a.escapes) os << " escapes";
      if (a.atomic) os << " atomics=" << a.atomic_ops << " combine=" << combineName(a.combine)
                       << "/" << a.atomic_width;
      os << " range=" << (a.read_range_known && a.write_range_known ? "affine" : "unknown");
    }
    os << "\n";
    for (const AccessSite &s : a.sites) {
      os << "    " << (s.kind == AccessSite::Read ? "load " : s.kind == AccessSite::Write ? "store "
                                                                                          : "atomic ")
         << s.size << "B @ " << (s.range_known ? s.offset : "unknown: " + s.offset) << "\n";
    }
  }
  const Hazards &h = k.hazards;
  os << "  hazards:";
  if (h.barrier) os << " barrier";
  if (h.mem_fence) os << " mem_fence";
  if (h.local_memory) os << " local_memory";
  if (h.global_atomics) os << " global_atomics";
  if (h.local_atomics) os << " local_atomics";
  if (h.images) os << (h.image_writes ? " image_writes" : " images");
  if (h.printf) os << " printf";
  if (h.subgroups) os << " subgroups";
  if (h.device_enqueue) os << " device_enqueue";
  if (h.program_globals) os << " program_globals";
  if (h.unknown_calls) os << " unknown_calls";
  os << "\n  work-item functions:";
  static const char *fn[] = {"get_global_id", "get_local_id", "get_group_id", "get_global_size",
                             "get_local_size", "get_num_groups", "get_global_offset",
                             "get_work_dim", "get_enqueued_local_size", "get_global_linear_id",
                             "get_local_linear_id"};
  for (int i = 0; i < 11; ++i)
    if (h.workitem_fns & (1u << i))
      os << " " << fn[i] << ((h.virtualized_fns & (1u << i)) ? "*" : "");
  os << "  (* = virtualized)\n";
  for (const std::string &n : h.notes) os << "  note: " << n << "\n";
  os << "  cost f(x): " << (k.cost_known ? k.cost_expr : "unknown") << "\n";
  if (!k.trip_counts.empty()) os << "  trip counts: " << k.trip_counts << "\n";
  os << "  variants:";
  if (k.original_in_binary) os << " " << k.name;
  if (!k.partition_kernel.empty()) os << " " << k.partition_kernel;
  if (!k.merge_kernel.empty()) {
    os << " " << k.merge_kernel << "(partials:";
    for (uint32_t a : k.merge_partial_args) os << " " << a;
    os << ")";
  }
  if (!k.trace_kernel.empty()) os << " " << k.trace_kernel;
  if (!k.paged_kernel.empty()) os << " " << k.paged_kernel;
  if (!k.rebased_kernel.empty()) os << " " << k.rebased_kernel;
  if (!k.inspector_kernel.empty()) os << " " << k.inspector_kernel;
  os << "\n";
  if (!k.paged_kernel.empty() || !k.inspector_kernel.empty()) {
    os << "  vast buffers:";
    for (uint32_t a : k.vast_buffer_args) os << " " << a;
    if (!k.inspector_kernel.empty()) {
      os << "  inspector reads:";
      if (k.inspector_data_args.empty()) os << " none";
      for (uint32_t a : k.inspector_data_args) os << " " << a;
    }
    os << "\n";
  }
  if (!k.paged_reason.empty()) os << "  no paged kernel: " << k.paged_reason << "\n";
  if (!k.inspector_reason.empty()) os << "  no inspector: " << k.inspector_reason << "\n";
  if (k.merge_kernel.empty() && !k.merge_reason.empty()) os << "  no merge kernel: " << k.merge_reason << "\n";
  return os.str();
}

}  // namespace tutti::compiler

namespace tutti::compiler {

uint64_t vastGroupsPerPas(uint64_t mem_budget, uint64_t buffer_bytes, uint64_t total_groups) {
  if (total_groups == 0) return 1;
  if (buffer_bytes == 0) return total_groups;
  // in long double: mem_budget * total_groups overflows 64 bits for large launches
  long double k = ((long double)mem_budget / 32.0L) * (long double)total_groups / (long double)buffer_bytes;
  uint64_t n = k >= (long double)total_groups ? total_groups : (uint64_t)k;
  if ((long double)n < k) ++n;
  return std::max<uint64_t>(1, std::min(n, total_groups));
}

}  // namespace tutti::compiler
