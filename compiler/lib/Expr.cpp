// Symbolic index expressions: building, printing, sound interval evaluation.
//
// Evaluation is tight for affine expressions: every node is normalized into a
// polynomial (sum of monomials over atoms). Casts are dropped from the
// polynomial and replaced by "fit checks" (the operand's mathematical value
// must lie in the range its type can represent); add and mul are ring
// operations, so when all checks pass the wrapped machine value equals the
// polynomial's value. A monomial that is linear in one variable atom (group
// id, local id, loop iteration) with a point coefficient is evaluated
// exactly; variables are independent within a box, so the sum is exact.
// Anything else falls back to plain interval arithmetic, which is sound.
#include "Expr.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <tuple>

namespace tutti::compiler::detail {

namespace {

constexpr size_t kMaxMonos = 256;

I128 umaxOf(unsigned w) { return w >= 127 ? (I128)-1 : (((I128)1) << w) - 1; }
I128 smaxOf(unsigned w) { return (((I128)1) << (w - 1)) - 1; }
I128 sminOf(unsigned w) { return -(((I128)1) << (w - 1)); }

Interval point(I128 v) { return {v, v}; }
Interval iadd(Interval a, Interval b) { return {a.lo + b.lo, a.hi + b.hi}; }

// Saturating multiply so that absurd intervals cannot overflow __int128: a product whose
// magnitude passes 2^100 becomes +-2^100. Operands that fit 64 bits (nearly all) multiply
// without an overflow check; a 128-bit division per product was a sixth of a range's
// evaluation.
I128 smul(I128 a, I128 b) {
  const I128 lim = ((I128)1) << 100;
  if (a == 0 || b == 0) return 0;
  I128 p;
  if ((int64_t)a == a && (int64_t)b == b) p = a * b;
  else if (__builtin_mul_overflow(a, b, &p)) p = lim + 1;
  if (p > lim || p < -lim) return ((a < 0) != (b < 0)) ? -lim : lim;
  return p;
}

// Most products are a coefficient times a range, or of two non-negative ranges (ids and
// sizes): the four corner products were a fifth of FDTD3d's access hulls. The shortcuts
// give the corners' min and max exactly, saturation included (smul is monotone).
Interval imul(Interval a, Interval b) {
  if (b.lo == b.hi) std::swap(a, b);
  if (a.lo == a.hi) {
    I128 x = smul(a.lo, b.lo), y = b.lo == b.hi ? x : smul(a.lo, b.hi);
    return {std::min(x, y), std::max(x, y)};
  }
  if (a.lo >= 0 && b.lo >= 0) return {smul(a.lo, b.lo), smul(a.hi, b.hi)};
  I128 p[4] = {smul(a.lo, b.lo), smul(a.lo, b.hi), smul(a.hi, b.lo), smul(a.hi, b.hi)};
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

std::string i128str(I128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-v) : (unsigned __int128)v;
  std::string s;
  while (u) { s.push_back(char('0' + (int)(u % 10))); u /= 10; }
  if (neg) s.push_back('-');
  std::reverse(s.begin(), s.end());
  return s;
}

Poly polyConst(I128 c) {
  Poly p;
  if (c != 0) p.monos.push_back({{}, c});
  return p;
}

Poly polyAtom(uint32_t a) {
  Poly p;
  p.monos.push_back({{a}, 1});
  return p;
}

void canon(Poly &p) {
  std::sort(p.monos.begin(), p.monos.end(),
            [](const Mono &a, const Mono &b) { return a.atoms < b.atoms; });
  std::vector<Mono> out;
  for (auto &m : p.monos) {
    if (!out.empty() && out.back().atoms == m.atoms)
      out.back().coef += m.coef;
    else
      out.push_back(m);
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const Mono &m) { return m.coef == 0; }),
            out.end());
  p.monos = std::move(out);
}

void addChecks(Poly &dst, const Poly &src) {
  dst.checks.insert(dst.checks.end(), src.checks.begin(), src.checks.end());
}

}  // namespace

// ---------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------

uint32_t ExprData::intern(const Node &n, const std::vector<uint32_t> &ops) {
  std::string key;
  key.reserve(32 + ops.size() * 4);
  auto put = [&](const void *p, size_t s) { key.append((const char *)p, s); };
  put(&n.op, 1); put(&n.sym, 1); put(&n.width, 2); put(&n.idx, 4); put(&n.c, 8);
  for (uint32_t o : ops) put(&o, 4);
  auto it = cons_.find(key);
  if (it != cons_.end()) return it->second;
  Node m = n;
  m.first = (uint32_t)kids.size();
  m.count = (uint32_t)ops.size();
  kids.insert(kids.end(), ops.begin(), ops.end());
  nodes.push_back(m);
  uint32_t id = (uint32_t)nodes.size() - 1;
  cons_.emplace(std::move(key), id);
  return id;
}

uint32_t ExprData::cst(int64_t v, unsigned w) {
  Node n; n.op = Op::Const; n.c = v; n.width = (uint16_t)w;
  return intern(n, {});
}

uint32_t ExprData::sym(Sym s, unsigned idx, unsigned w) {
  Node n; n.op = Op::Sym; n.sym = (uint8_t)s; n.idx = idx; n.width = (uint16_t)w;
  return intern(n, {});
}

uint32_t ExprData::iv(unsigned loop, unsigned w) {
  Node n; n.op = Op::IV; n.idx = loop; n.width = (uint16_t)w;
  return intern(n, {});
}

uint32_t ExprData::nary(Op op, std::vector<uint32_t> ops, unsigned w) {
  if (ops.size() == 1) return ops[0];
  if (op == Op::Add || op == Op::Mul || op == Op::SMax || op == Op::UMax ||
      op == Op::SMin || op == Op::UMin)
    std::sort(ops.begin(), ops.end());
  Node n; n.op = op; n.width = (uint16_t)w;
  return intern(n, ops);
}

uint32_t ExprData::cast(Op op, uint32_t a, unsigned w) {
  Node n; n.op = op; n.width = (uint16_t)w;
  return intern(n, {a});
}

// ---------------------------------------------------------------------------
// Polynomials and flags
// ---------------------------------------------------------------------------

void ExprData::prepareSlow() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = nodes.size();
  size_t from = polys_.size();
  if (from == n) return;
  polys_.resize(n);
  flags_.resize(n, 0);
  for (uint32_t i = (uint32_t)from; i < n; ++i) {
    const Node &nd = nodes[i];
    // flags: every referenced node has a lower index (children, and the
    // trip count of a loop is built before its IV node)
    uint8_t f = 0;
    if (nd.op == Op::Sym && nd.idx < 3)
      sym_ids_.emplace(std::make_tuple(nd.sym, nd.idx, nd.width), i);
    if (nd.op == Op::Sym) {
      if (nd.sym == (uint8_t)Sym::GroupId) f = 3;
      else if (nd.sym == (uint8_t)Sym::LocalId) f = 1;
    } else if (nd.op == Op::IV) {
      f = 1;
      if (nd.idx < loop_btc.size() && loop_btc[nd.idx] >= 0 && (uint32_t)loop_btc[nd.idx] < i)
        f |= flags_[loop_btc[nd.idx]];
      else
        f |= 2;  // unknown bound: assume the worst
    }
    for (uint32_t k = 0; k < nd.count; ++k) f |= flags_[kids[nd.first + k]];
    flags_[i] = f;
  }
  for (uint32_t i = (uint32_t)from; i < n; ++i) {
    {
      const Node &nd = nodes[i];
      Poly p;
      auto kid = [&](uint32_t k) -> const Poly & { return polys_[kids[nd.first + k]]; };
      switch (nd.op) {
        case Op::Const: p = polyConst(nd.c); break;
        case Op::Sym:
        case Op::IV: p = polyAtom(i); break;
        case Op::Add: {
          size_t total = 0;
          for (uint32_t k = 0; k < nd.count; ++k) total += kid(k).monos.size();
          if (total > kMaxMonos) { p = polyAtom(i); break; }
          for (uint32_t k = 0; k < nd.count; ++k) {
            p.monos.insert(p.monos.end(), kid(k).monos.begin(), kid(k).monos.end());
            addChecks(p, kid(k));
          }
          canon(p);
          break;
        }
        case Op::Mul: {
          Poly acc = polyConst(1);
          bool big = false;
          for (uint32_t k = 0; k < nd.count && !big; ++k) {
            const Poly &q = kid(k);
            if (acc.monos.size() * q.monos.size() > kMaxMonos) { big = true; break; }
            Poly r;
            for (auto &a : acc.monos)
              for (auto &b : q.monos) {
                Mono m;
                m.atoms = a.atoms;
                m.atoms.insert(m.atoms.end(), b.atoms.begin(), b.atoms.end());
                std::sort(m.atoms.begin(), m.atoms.end());
                m.coef = smul(a.coef, b.coef);
                r.monos.push_back(std::move(m));
              }
            addChecks(r, acc);
            addChecks(r, q);
            canon(r);
            acc = std::move(r);
          }
          if (big) p = polyAtom(i); else p = std::move(acc);
          break;
        }
        case Op::ZExt:
        case Op::SExt: {
          uint32_t c = kids[nd.first];
          p = polys_[c];
          p.checks.push_back({c, nd.op == Op::SExt, nodes[c].width});
          break;
        }
        case Op::Trunc:
          p = polys_[kids[nd.first]];
          break;
        case Op::UDiv:
        case Op::UMax:
        case Op::UMin:
        case Op::SMax:
        case Op::SMin: {
          p = polyAtom(i);
          bool sgn = nd.op == Op::SMax || nd.op == Op::SMin;
          for (uint32_t k = 0; k < nd.count; ++k)
            p.checks.push_back({kids[nd.first + k], sgn, nd.width});
          break;
        }
      }
      // de-duplicate checks
      std::sort(p.checks.begin(), p.checks.end(), [](const Check &a, const Check &b) {
        return std::tie(a.node, a.is_signed, a.width) < std::tie(b.node, b.is_signed, b.width);
      });
      p.checks.erase(std::unique(p.checks.begin(), p.checks.end(),
                                 [](const Check &a, const Check &b) {
                                   return a.node == b.node && a.is_signed == b.is_signed &&
                                          a.width == b.width;
                                 }),
                     p.checks.end());
      polys_[i] = std::move(p);
    }
  }
  prepared_.store(n, std::memory_order_release);
}

int64_t ExprData::symNode(Sym s, unsigned idx, unsigned width) const {
  prepare();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sym_ids_.find(std::make_tuple((uint8_t)s, (uint32_t)idx, (uint16_t)width));
  return it == sym_ids_.end() ? -1 : (int64_t)it->second;
}

const Poly &ExprData::poly(uint32_t node) const {
  prepare();
  return polys_[node];
}

bool ExprData::dependsOnGroup(uint32_t node) const {
  prepare();
  return flags_[node] & 2;
}

std::vector<uint32_t> ExprData::varAtoms(uint32_t node) const {
  std::vector<uint32_t> out, work{node};
  std::vector<uint8_t> seen(nodes.size(), 0);
  while (!work.empty()) {
    uint32_t id = work.back();
    work.pop_back();
    if (id >= nodes.size() || seen[id]) continue;
    seen[id] = 1;
    const Node &n = nodes[id];
    if ((n.op == Op::Sym && (n.sym == (uint8_t)Sym::GroupId || n.sym == (uint8_t)Sym::LocalId)) ||
        n.op == Op::IV)
      out.push_back(id);
    for (uint32_t k = 0; k < n.count; ++k) work.push_back(kids[n.first + k]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint32_t> ExprData::polyVarAtoms(uint32_t node) const {
  prepare();
  std::vector<uint32_t> out;
  for (const Mono &m : polys_[node].monos)
    for (uint32_t a : m.atoms) {
      const Node &n = nodes[a];
      if (n.op == Op::Sym || n.op == Op::IV) {
        if (flags_[a] & 1) out.push_back(a);
      } else {
        auto v = varAtoms(a);
        out.insert(out.end(), v.begin(), v.end());
      }
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool ExprData::dependsOnVar(uint32_t node) const {
  prepare();
  return flags_[node] & 1;
}

// ---------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------

namespace {

struct Evaluator {
  const ExprData &d;
  const Env &env;
  struct Memo {
    uint8_t state = 0;  // 0 new, 1 busy, 2 ok, 3 failed
    Interval value;
  };
  // Lenient evaluation is used for loop trip counts: a count that is
  // negative in mathematical terms belongs to a loop whose guard fails, so
  // unsigned operands may go negative there (the IV is clamped at 0).
  bool lenient = false;

  bool anyClip = false;

  // One lenient evaluator shared by every loop-count lookup, so its memo
  // persists: a fresh one per IV node re-evaluated shared subterms once per
  // path, which is exponential in the loop nesting depth.
  std::unique_ptr<Evaluator> lenientSub;

  Evaluator(const ExprData &d, const Env &e, bool lenient = false)
      : d(d), env(e), lenient(lenient) {
    auto &pool = spare();
    if (pool.empty()) {
      st = std::make_unique<Storage>();
    } else {
      st = std::move(pool.back());
      pool.pop_back();
    }
    if (st->memo.size() < d.nodes.size()) {
      st->memo.resize(d.nodes.size());
      st->stamp.resize(d.nodes.size(), 0);
    }
    if (++st->epoch == 0) {  // wrapped: no stale stamp may match
      std::fill(st->stamp.begin(), st->stamp.end(), 0);
      st->epoch = 1;
    }
    anyClip = e.gid_clipped[0] || e.gid_clipped[1] || e.gid_clipped[2] || !e.clips.empty();
  }
  Evaluator(Evaluator &&) = default;
  ~Evaluator() {
    if (st) spare().push_back(std::move(st));
  }

  // A polynomial's linear terms by variable atom: few, so a flat list (a std::map allocated
  // per term). Sums of exact intervals do not depend on their order.
  struct Linear {
    std::vector<std::pair<uint32_t, Interval>> terms;
    void add(uint32_t key, Interval coef) {
      for (auto &t : terms)
        if (t.first == key) {
          t.second = iadd(t.second, coef);
          return;
        }
      terms.emplace_back(key, coef);
    }
  };

  // evalPoly's working lists, one set per nesting level (it recurses through atom and eval).
  struct PolyScratch {
    Linear linear;
    std::vector<const Mono *> monos;
    Poly folded;
  };
  // The memo by node id and evalPoly's working lists, kept per thread across evaluations:
  // a hash map of memo nodes, and lists allocated per evaluation, were a fifth of FDTD3d's
  // access hulls (callgrind: malloc and free). A memo entry counts only when its stamp is
  // the evaluation's, so an evaluation costs what it touches, not the size of the whole
  // kernel's expression table (a fully unrolled loop has tens of thousands of accesses).
  struct Storage {
    std::vector<Memo> memo;
    std::vector<uint32_t> stamp;
    uint32_t epoch = 0;
    std::vector<std::unique_ptr<PolyScratch>> scratch;
  };
  std::unique_ptr<Storage> st;
  static std::vector<std::unique_ptr<Storage>> &spare() {
    thread_local std::vector<std::unique_ptr<Storage>> s;
    return s;
  }
  // Node ids index d.nodes, and the table is sized to it when taken: it never grows during
  // an evaluation, so references into it stay valid across the recursion.
  Memo &memoOf(uint32_t id) {
    if (st->stamp[id] != st->epoch) {
      st->stamp[id] = st->epoch;
      st->memo[id] = Memo{};
    }
    return st->memo[id];
  }

  // Pseudo atom standing for get_global_id(d) (bit 31 set: no real node).
  static constexpr uint32_t kGidAtom = 0x80000000u;
  // Pseudo atom standing for env.clips[i].first (bit 30 set).
  static constexpr uint32_t kClipAtom = 0x40000000u;

  static bool subset(const std::vector<uint32_t> &small, const std::vector<uint32_t> &big,
                     std::vector<uint32_t> &rest) {
    rest.clear();
    size_t i = 0;
    for (uint32_t b : big) {
      if (i < small.size() && small[i] == b) ++i;
      else rest.push_back(b);
    }
    return i == small.size();
  }

  // Takes every c*K*poly(E) (K: atoms without variables) out of `work` for
  // each clipped node E, adding c*K*E to `linear` with E's clipped interval.
  // The subtraction is exact algebra; only the variable monomials of
  // c*K*poly(E) must all be present, so that the remainder loses them.
  bool foldClips(std::vector<Mono> &work, Linear &linear) {
    for (size_t ci = 0; ci < env.clips.size(); ++ci) {
      const Poly &pe = d.poly(env.clips[ci].first);
      std::vector<const Mono *> vm;
      for (const Mono &q : pe.monos) {
        bool var = false;
        for (uint32_t a : q.atoms) var = var || d.dependsOnVar(a);
        if (var) vm.push_back(&q);
      }
      if (vm.empty()) continue;
      const Mono &pivot = *vm[0];
      for (size_t guard = 0; guard < work.size() + 1; ++guard) {
        bool folded = false;
        std::vector<uint32_t> K;
        for (const Mono &m : work) {
          if (m.coef == 0 || m.coef % pivot.coef != 0 || !subset(pivot.atoms, m.atoms, K)) continue;
          bool kvar = false;
          for (uint32_t a : K) kvar = kvar || d.dependsOnVar(a);
          if (kvar) continue;
          I128 ratio = m.coef / pivot.coef;
          auto scaled = [&](const Mono &q) {
            std::vector<uint32_t> t = q.atoms;
            t.insert(t.end(), K.begin(), K.end());
            std::sort(t.begin(), t.end());
            return t;
          };
          bool all = true;
          for (const Mono *q : vm) {
            auto t = scaled(*q);
            bool found = false;
            for (const Mono &w : work)
              if (w.atoms == t && w.coef == q->coef * ratio) { found = true; break; }
            if (!found) { all = false; break; }
          }
          if (!all) continue;
          Interval coef = point(ratio);
          for (uint32_t a : K) {
            auto v = atom(a);
            if (!v) return false;
            coef = imul(coef, *v);
          }
          std::vector<Mono> sub;
          for (const Mono &q : pe.monos) sub.push_back({scaled(q), q.coef * ratio});
          for (Mono &q : sub) {
            bool hit = false;
            for (Mono &w : work)
              if (w.atoms == q.atoms) { w.coef -= q.coef; hit = true; break; }
            if (!hit) work.push_back({q.atoms, -q.coef});
          }
          uint32_t key = kClipAtom | (uint32_t)ci;
          linear.add(key, coef);
          folded = true;
          break;
        }
        work.erase(std::remove_if(work.begin(), work.end(), [](const Mono &m) { return m.coef == 0; }),
                   work.end());
        if (!folded) break;
      }
    }
    return true;
  }

  // Replaces each triple c*K*grp.d*elsz.d + c*K*lid.d + c*K*goff.d (K: atoms
  // without variables) by c*K*gid_d, where gid_d is clipped. Returns the
  // monomials left over and adds the replaced terms to `linear`.
  bool foldGids(const Poly &p, std::vector<const Mono *> &rest,
                Linear &linear) {
    // Evaluated for every polynomial of a clipped box (a stencil's reads: FDTD3d's whole
    // read hull took 118 us on the dev VM): no heap allocation per monomial below.
    constexpr size_t kSmall = 64;
    uint8_t usedBuf[kSmall] = {};
    std::vector<uint8_t> usedBig;
    uint8_t *used = usedBuf;
    if (p.monos.size() > kSmall) used = (usedBig.assign(p.monos.size(), 0), usedBig.data());
    for (size_t i = 0; i < p.monos.size(); ++i) {
      if (used[i]) continue;
      const Mono &m = p.monos[i];
      int lidPos = -1;
      bool other = false;
      for (size_t k = 0; k < m.atoms.size(); ++k) {
        const Node &n = d.nodes[m.atoms[k]];
        bool isLid = n.op == Op::Sym && n.sym == (uint8_t)Sym::LocalId && n.idx < 3 &&
                     env.gid_clipped[n.idx];
        if (isLid && lidPos < 0) lidPos = (int)k;
        else if (d.dependsOnVar(m.atoms[k])) other = true;
      }
      if (lidPos < 0 || other) continue;
      const Node &lid = d.nodes[m.atoms[lidPos]];
      const GidSyms g = gidSyms(m.atoms[lidPos], lid);  // a copy: atom() below may add to the list
      if (g.grp < 0 || g.elsz < 0 || g.goff < 0) continue;
      // K: m's atoms without the local id; the partners are K*grp*elsz and K*goff.
      if (m.atoms.size() + 1 > kSmall) continue;
      uint32_t t1[kSmall], t2[kSmall];
      size_t nk = 0;
      for (size_t k = 0; k < m.atoms.size(); ++k)
        if ((int)k != lidPos) t1[nk] = t2[nk] = m.atoms[k], ++nk;
      t1[nk] = (uint32_t)g.grp, t1[nk + 1] = (uint32_t)g.elsz, t2[nk] = (uint32_t)g.goff;
      std::sort(t1, t1 + nk + 2);
      std::sort(t2, t2 + nk + 1);
      auto same = [](const std::vector<uint32_t> &v, const uint32_t *t, size_t n) {
        return v.size() == n && std::equal(v.begin(), v.end(), t);
      };
      size_t j1 = p.monos.size(), j2 = p.monos.size();
      for (size_t j = 0; j < p.monos.size(); ++j) {
        if (used[j] || j == i || p.monos[j].coef != m.coef) continue;
        if (same(p.monos[j].atoms, t1, nk + 2)) j1 = j;
        else if (same(p.monos[j].atoms, t2, nk + 1)) j2 = j;
      }
      if (j1 == p.monos.size() || j2 == p.monos.size()) continue;
      Interval coef = point(m.coef);
      for (size_t k = 0; k < m.atoms.size(); ++k) {
        if ((int)k == lidPos) continue;
        auto v = atom(m.atoms[k]);
        if (!v) return false;
        coef = imul(coef, *v);
      }
      used[i] = used[j1] = used[j2] = 1;
      uint32_t key = kGidAtom | lid.idx;
      linear.add(key, coef);
    }
    for (size_t i = 0; i < p.monos.size(); ++i)
      if (!used[i]) rest.push_back(&p.monos[i]);
    return true;
  }

  // The group id, enqueued local size and global offset nodes of a local id's dimension
  // and width (ExprData::symNode looks each up in a map), per local-id node.
  struct GidSyms {
    uint32_t lidNode;
    int64_t grp, elsz, goff;
  };
  std::vector<GidSyms> gidSymsKnown;
  const GidSyms &gidSyms(uint32_t lidNode, const Node &lid) {
    for (const GidSyms &g : gidSymsKnown)
      if (g.lidNode == lidNode) return g;
    auto id = [&](Sym s) { return d.symNode(s, lid.idx, lid.width); };
    gidSymsKnown.push_back({lidNode, id(Sym::GroupId), id(Sym::EnqLocalSize), id(Sym::GlobalOffset)});
    return gidSymsKnown.back();
  }

  bool fits(const Interval &v, bool sgn, unsigned w) {
    if (w >= 127) return true;
    if (sgn) return v.lo >= sminOf(w) && v.hi <= smaxOf(w);
    return (lenient || v.lo >= 0) && v.hi <= umaxOf(w);
  }

  // Interval of an atom.
  std::optional<Interval> atom(uint32_t id) {
    const Node &n = d.nodes[id];
    switch (n.op) {
      case Op::Sym: {
        unsigned dim = n.idx < 3 ? n.idx : 0;
        bool in = n.idx < 3;
        switch ((Sym)n.sym) {
          case Sym::GroupId: return in ? env.group[dim] : point(0);
          case Sym::LocalId: return in ? Interval{0, (I128)env.local_size[dim] - 1} : point(0);
          case Sym::LocalSize: return point(in ? env.local_size[dim] : 1);
          case Sym::EnqLocalSize: return point(in ? env.enq_local[dim] : 1);
          case Sym::NumGroups: return point(in ? env.num_groups[dim] : 1);
          case Sym::GlobalSize: return point(in ? env.global_size[dim] : 1);
          case Sym::GlobalOffset: return point(in ? env.global_offset[dim] : 0);
          case Sym::WorkDim: return point(env.work_dim);
          case Sym::Arg:
            if (!env.args || n.idx >= env.args->size()) return std::nullopt;
            return point((*env.args)[n.idx]);
        }
        return std::nullopt;
      }
      case Op::IV: {
        if (n.idx >= d.loop_btc.size() || d.loop_btc[n.idx] < 0) return std::nullopt;
        Evaluator *sub = this;
        if (!lenient) {
          if (!lenientSub) lenientSub = std::make_unique<Evaluator>(d, env, true);
          sub = lenientSub.get();
        }
        auto b = sub->eval((uint32_t)d.loop_btc[n.idx]);
        if (!b) return std::nullopt;
        // A loop whose count is negative in math terms cannot be entered
        // (its guard fails); attribute its accesses to iteration 0.
        I128 hi = b->hi < 0 ? 0 : b->hi;
        if (hi > umaxOf(n.width)) return std::nullopt;
        return Interval{0, hi};
      }
      default: return opaque(id);
    }
  }

  // Plain interval arithmetic over the children.
  std::optional<Interval> opaque(uint32_t id) {
    const Node &n = d.nodes[id];
    std::vector<Interval> c;
    for (uint32_t k = 0; k < n.count; ++k) {
      auto v = eval(d.kids[n.first + k]);
      if (!v) return std::nullopt;
      c.push_back(*v);
    }
    switch (n.op) {
      case Op::Add: { Interval r = point(0); for (auto &x : c) r = iadd(r, x); return r; }
      case Op::Mul: { Interval r = point(1); for (auto &x : c) r = imul(r, x); return r; }
      case Op::UDiv: {
        Interval a = c[0], b = c[1];
        if (b.lo < 1) b.lo = 1;  // division by zero is undefined in the kernel
        if (b.hi < b.lo) b.hi = b.lo;
        I128 q[4] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
        return Interval{*std::min_element(q, q + 4), *std::max_element(q, q + 4)};
      }
      case Op::SMax: case Op::UMax: {
        Interval r = c[0];
        for (auto &x : c) { r.lo = std::max(r.lo, x.lo); r.hi = std::max(r.hi, x.hi); }
        return r;
      }
      case Op::SMin: case Op::UMin: {
        Interval r = c[0];
        for (auto &x : c) { r.lo = std::min(r.lo, x.lo); r.hi = std::min(r.hi, x.hi); }
        return r;
      }
      default: return std::nullopt;
    }
  }

  std::optional<Interval> eval(uint32_t id) {
    Memo &m = memoOf(id);
    if (m.state == 2) return m.value;
    if (m.state == 3 || m.state == 1) return std::nullopt;
    m.state = 1;
    auto r = evalPoly(d.poly(id));
    if (!r) { m.state = 3; return std::nullopt; }
    m.value = *r;
    m.state = 2;
    return r;
  }

  // evalPoly's working lists are reused across calls (Storage::scratch): allocated per call,
  // they were half of the instructions of FDTD3d's access hulls (callgrind: malloc and free).
  size_t scratchDepth = 0;
  struct ScratchLevel {
    Evaluator &e;
    PolyScratch &s;
    explicit ScratchLevel(Evaluator &ev) : e(ev), s(take(ev)) {}
    ~ScratchLevel() { --e.scratchDepth; }
    static PolyScratch &take(Evaluator &ev) {
      auto &kept = ev.st->scratch;
      if (ev.scratchDepth == kept.size()) kept.push_back(std::make_unique<PolyScratch>());
      PolyScratch &s = *kept[ev.scratchDepth++];
      s.linear.terms.clear();
      s.monos.clear();
      return s;
    }
  };

  std::optional<Interval> evalPoly(const Poly &p) {
    for (const Check &c : p.checks) {
      auto v = eval(c.node);
      if (!v || !fits(*v, c.is_signed, c.width)) return std::nullopt;
    }
    Interval sum = point(0);
    ScratchLevel level(*this);
    Linear &linear = level.s.linear;
    std::vector<const Mono *> &monos = level.s.monos;
    monos.reserve(p.monos.size());
    Poly &folded = level.s.folded;
    if (anyClip) {
      const Poly *src = &p;
      if (!env.clips.empty()) {
        folded.monos = p.monos;
        if (!foldClips(folded.monos, linear)) return std::nullopt;
        src = &folded;
      }
      if (!foldGids(*src, monos, linear)) return std::nullopt;
    } else {
      for (const Mono &m : p.monos) monos.push_back(&m);
    }
    for (const Mono *mp : monos) {
      const Mono &m = *mp;
      Interval coef = point(m.coef);
      int nvar = 0;
      uint32_t var = 0;
      for (uint32_t a : m.atoms) {
        if (d.dependsOnVar(a)) {
          if (!nvar++) var = a;
          continue;
        }
        auto v = atom(a);
        if (!v) return std::nullopt;
        coef = imul(coef, *v);
      }
      if (nvar == 0) {
        sum = iadd(sum, coef);
      } else if (nvar == 1) {
        linear.add(var, coef);
      } else {
        Interval prod = coef;
        for (uint32_t a : m.atoms) {
          if (!d.dependsOnVar(a)) continue;
          auto v = atom(a);
          if (!v) return std::nullopt;
          prod = imul(prod, *v);
        }
        sum = iadd(sum, prod);
      }
    }
    for (auto &[var, coef] : linear.terms) {
      auto v = (var & kGidAtom)    ? std::optional<Interval>(env.gid[var & 3])
               : (var & kClipAtom) ? std::optional<Interval>(env.clips[var & 0xFFFFu].second)
                                   : atom(var);
      if (!v) return std::nullopt;
      sum = iadd(sum, imul(coef, *v));
    }
    return sum;
  }
};

}  // namespace

std::optional<Interval> ExprData::eval(uint32_t node, const Env &env, bool lenient) const {
  prepare();
  Evaluator ev(*this, env, lenient);
  return ev.eval(node);
}

struct EvaluatorState {
  Evaluator ev;
};

Evaluation::Evaluation(const ExprData &d, const Env &env, bool lenient) {
  d.prepare();
  s_.reset(new EvaluatorState{Evaluator(d, env, lenient)});
}

Evaluation::~Evaluation() = default;

std::optional<Interval> Evaluation::operator()(uint32_t node) { return s_->ev.eval(node); }

// ---------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------

std::string ExprData::str(int32_t node, const std::vector<std::string> *names) const {
  if (node < 0) return "?";
  prepare();
  std::function<std::string(uint32_t, bool)> tree;
  std::function<std::string(uint32_t)> atomStr = [&](uint32_t id) -> std::string {
    const Node &n = nodes[id];
    static const char *dimc = "xyz";
    auto dim = [&](const char *b) {
      return std::string(b) + (n.idx < 3 ? std::string(1, dimc[n.idx]) : std::to_string(n.idx));
    };
    switch (n.op) {
      case Op::Sym:
        switch ((Sym)n.sym) {
          case Sym::GroupId: return dim("grp.");
          case Sym::LocalId: return dim("lid.");
          case Sym::LocalSize: return dim("lsz.");
          case Sym::EnqLocalSize: return dim("elsz.");
          case Sym::NumGroups: return dim("ngrp.");
          case Sym::GlobalSize: return dim("gsz.");
          case Sym::GlobalOffset: return dim("goff.");
          case Sym::WorkDim: return "work_dim";
          case Sym::Arg:
            if (names && n.idx < names->size() && !(*names)[n.idx].empty())
              return "arg(" + (*names)[n.idx] + ")";
            return "arg" + std::to_string(n.idx);
        }
        return "?";
      case Op::IV: return "i" + std::to_string(n.idx);
      default: return tree(id, true);
    }
  };
  std::function<std::string(const Poly &)> polyStr = [&](const Poly &p) -> std::string {
    if (p.monos.empty()) return "0";
    std::string s;
    // constant term last
    std::vector<const Mono *> order;
    for (auto &m : p.monos) if (!m.atoms.empty()) order.push_back(&m);
    for (auto &m : p.monos) if (m.atoms.empty()) order.push_back(&m);
    bool first = true;
    for (const Mono *m : order) {
      I128 c = m->coef;
      if (!first) { s += c < 0 ? " - " : " + "; if (c < 0) c = -c; }
      else if (c < 0 && !m->atoms.empty()) { s += "-"; c = -c; }
      first = false;
      std::string t;
      if (m->atoms.empty() || c != 1) t = i128str(c);
      for (uint32_t a : m->atoms) {
        if (!t.empty()) t += "*";
        t += atomStr(a);
      }
      s += t;
    }
    return s;
  };
  tree = [&](uint32_t id, bool paren) -> std::string {
    const Node &n = nodes[id];
    auto kid = [&](uint32_t k) { return kids[n.first + k]; };
    auto list = [&](const char *name) {
      std::string s = name;
      s += "(";
      for (uint32_t k = 0; k < n.count; ++k) {
        if (k) s += ", ";
        s += polyStr(poly(kid(k)));
      }
      return s + ")";
    };
    switch (n.op) {
      case Op::UDiv: {
        std::string s = polyStr(poly(kid(0))) + " /u " + polyStr(poly(kid(1)));
        return paren ? "(" + s + ")" : s;
      }
      case Op::SMax: return list("smax");
      case Op::UMax: return list("umax");
      case Op::SMin: return list("smin");
      case Op::UMin: return list("umin");
      case Op::Add:
      case Op::Mul: {
        std::string s;
        for (uint32_t k = 0; k < n.count; ++k) {
          if (k) s += n.op == Op::Add ? " + " : "*";
          s += "(" + polyStr(poly(kid(k))) + ")";
        }
        return paren ? "(" + s + ")" : s;
      }
      default: return polyStr(poly(id));
    }
  };
  return polyStr(poly((uint32_t)node));
}

// ---------------------------------------------------------------------------
// Serialization
// ---------------------------------------------------------------------------

namespace {
template <class T> void put(std::string &o, const T &v) { o.append((const char *)&v, sizeof(T)); }
template <class T> bool get(const uint8_t *&p, const uint8_t *end, T &v) {
  if ((size_t)(end - p) < sizeof(T)) return false;
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return true;
}
template <class T> void putVec(std::string &o, const std::vector<T> &v) {
  put<uint32_t>(o, (uint32_t)v.size());
  if (!v.empty()) o.append((const char *)v.data(), v.size() * sizeof(T));
}
template <class T> bool getVec(const uint8_t *&p, const uint8_t *end, std::vector<T> &v) {
  uint32_t n;
  if (!get(p, end, n)) return false;
  if ((size_t)(end - p) / sizeof(T) < n) return false;
  v.resize(n);
  if (n) std::memcpy(v.data(), p, n * sizeof(T));
  p += n * sizeof(T);
  return true;
}
}  // namespace

void ExprData::serialize(std::string &out) const {
  putVec(out, nodes);
  putVec(out, kids);
  putVec(out, loop_btc);
  putVec(out, loop_trip);
  putVec(out, accesses);
  put(out, cost);
  putVec(out, gid_guards);
}

bool ExprData::deserialize(const uint8_t *&p, const uint8_t *end) {
  if (!getVec(p, end, nodes) || !getVec(p, end, kids) || !getVec(p, end, loop_btc) ||
      !getVec(p, end, loop_trip) || !getVec(p, end, accesses) || !get(p, end, cost) ||
      !getVec(p, end, gid_guards))
    return false;
  // validate indices so that a corrupt cache entry cannot crash evaluation
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    const Node &n = nodes[i];
    if ((uint64_t)n.first + n.count > kids.size()) return false;
    for (uint32_t k = 0; k < n.count; ++k)
      if (kids[n.first + k] >= i) return false;
    if (n.width == 0 || n.width > 128) return false;
    if (n.op == Op::IV && (n.idx >= loop_btc.size() || loop_btc[n.idx] < 0 ||
                           (uint32_t)loop_btc[n.idx] >= i))
      return false;
  }
  auto okNode = [&](int32_t x) { return x >= -1 && x < (int32_t)nodes.size(); };
  for (int32_t b : loop_btc) if (!okNode(b)) return false;
  for (int32_t b : loop_trip) if (!okNode(b)) return false;
  for (auto &a : accesses)
    if (!okNode(a.offset) || !okNode(a.clamp_lo) || !okNode(a.clamp_hi)) return false;
  for (auto &g : gid_guards)
    if (g.access >= accesses.size() || g.dim > kGuardExpr || g.bound < 0 || !okNode(g.bound) ||
        !okNode(g.expr) || (g.dim == kGuardExpr && g.expr < 0))
      return false;
  return okNode(cost);
}

}  // namespace tutti::compiler::detail
