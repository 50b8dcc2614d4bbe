// Symbolic index expressions (no LLVM): built from ScalarEvolution by the
// index-range analysis, stored in KernelInfo, serialized in the cache, and
// evaluated by the runtime with interval arithmetic.
#pragma once

#include <cstdint>
#include <map>
#include <atomic>
#include <mutex>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace tutti::compiler::detail {

enum class Op : uint8_t {
  Const, Sym, IV, Add, Mul, UDiv, SMax, UMax, SMin, UMin, ZExt, SExt, Trunc,
};

enum class Sym : uint8_t {
  GroupId,       // get_group_id(d) of the full launch
  LocalId,       // get_local_id(d)
  LocalSize,     // get_local_size(d): actual size of the group
  EnqLocalSize,  // enqueued local size
  NumGroups,
  GlobalSize,
  GlobalOffset,
  WorkDim,
  Arg,           // value of a by-value kernel argument
};

struct Node {
  Op op = Op::Const;
  uint8_t sym = 0;      // Sym for Op::Sym
  uint16_t width = 64;  // bit width of the value
  uint32_t idx = 0;     // dimension, argument index or loop id
  int64_t c = 0;        // Const value
  uint32_t first = 0, count = 0;  // children: kids[first .. first+count)
};

struct Access {
  uint32_t arg = 0;
  uint8_t kind = 0;     // 0 read, 1 write (plain store), 2 atomic
  uint32_t size = 0;    // bytes
  int32_t offset = -1;  // byte offset node, -1 = unknown
  // Bounds implied by dominating branch conditions (e.g. `if (i < n)`):
  // the access only executes with clamp_lo <= offset <= clamp_hi; -1 = none.
  int32_t clamp_lo = -1;
  int32_t clamp_hi = -1;
};

// A branch condition dominating one access bounds a global id: wherever
// accesses[access] runs, get_global_id(dim) <= bound (upper) or >= bound
// (lower). With dim == kGuardExpr it bounds the value of node `expr` instead
// (a loop recurrence such as j in `for (j = lo(y); j <= hi(y); ++j)`, whose
// value the separate ranges of its start and iteration count overestimate).
// The bound node carries the fit checks of both compared values, so it
// evaluates only where the comparison means what the polynomial says.
constexpr uint8_t kGuardExpr = 3;
struct GidGuard {
  uint32_t access = 0;
  uint8_t dim = 0;
  uint8_t upper = 0;
  uint16_t pad = 0;
  int32_t bound = -1;
  int32_t expr = -1;
};

using I128 = __int128;
struct Interval { I128 lo = 0, hi = 0; };

struct Mono { std::vector<uint32_t> atoms; I128 coef = 0; };
struct Check { uint32_t node; bool is_signed; uint16_t width; };
struct Poly {
  std::vector<Mono> monos;   // canonical: sorted by atoms, no zero coefficients
  std::vector<Check> checks; // operands whose math value must fit their type
};

// Values of everything but the group ids for one evaluation.
struct Env {
  int64_t num_groups[3], global_size[3], enq_local[3], global_offset[3];
  int64_t work_dim;
  Interval group[3];      // group id ranges (a box)
  int64_t local_size[3];  // actual local size within the box
  const std::vector<int64_t> *args = nullptr;  // interpreted argument values
  // Global ids known to lie in gid[d] (from an access's GidGuards): where a
  // polynomial holds c*(grp*elsz + lid + goff) for dimension d, that sum is
  // bounded by gid[d] instead of by its terms' separate ranges.
  bool gid_clipped[3] = {false, false, false};
  Interval gid[3];
  // Nodes known to lie in an interval (kGuardExpr guards): where a polynomial
  // holds c*K*poly(node) (K free of variables), that part is bounded by it.
  std::vector<std::pair<uint32_t, Interval>> clips;
};

struct ExprData;
struct EvaluatorState;  // Expr.cpp

// Several nodes evaluated over one environment, sharing the values of their common
// subterms: an access range's offset and clamps, or the bounds of its guards, are each
// a fresh evaluation through ExprData::eval (FDTD3d's write hull per unit cost ~7 us).
// Holds env by reference: it must outlive this.
class Evaluation {
 public:
  Evaluation(const ExprData &d, const Env &env, bool lenient = false);
  ~Evaluation();
  Evaluation(const Evaluation &) = delete;
  Evaluation &operator=(const Evaluation &) = delete;
  std::optional<Interval> operator()(uint32_t node);

 private:
  std::unique_ptr<EvaluatorState> s_;
};

struct ExprData {
  std::vector<Node> nodes;
  std::vector<uint32_t> kids;
  std::vector<int32_t> loop_btc;   // per loop: max backedge-taken count node, -1 unknown
  std::vector<Access> accesses;
  int32_t cost = -1;               // f(x) node, -1 unknown
  std::vector<int32_t> loop_trip;  // per loop: trip count node (printing)
  std::vector<GidGuard> gid_guards;

  // ---- building (hash-consed) ----
  uint32_t cst(int64_t v, unsigned w = 64);
  uint32_t sym(Sym s, unsigned idx, unsigned w = 64);
  uint32_t iv(unsigned loop, unsigned w);
  uint32_t nary(Op op, std::vector<uint32_t> ops, unsigned w);
  uint32_t bin(Op op, uint32_t a, uint32_t b, unsigned w) { return nary(op, {a, b}, w); }
  uint32_t cast(Op op, uint32_t a, unsigned w);

  // ---- printing ----
  std::string str(int32_t node, const std::vector<std::string> *arg_names = nullptr) const;

  // ---- evaluation ----
  // Sound interval of a node; nullopt if a value may not fit its type.
  // lenient: allow negative unsigned values (trip counts, cost)
  std::optional<Interval> eval(uint32_t node, const Env &env, bool lenient = false) const;
  const Poly &poly(uint32_t node) const;
  bool dependsOnGroup(uint32_t node) const;
  // Group-id, local-id and loop-iteration atoms reachable from node.
  std::vector<uint32_t> varAtoms(uint32_t node) const;
  // Variable atoms of the node's polynomial (after cancellation).
  std::vector<uint32_t> polyVarAtoms(uint32_t node) const;
  bool dependsOnVar(uint32_t node) const;
  // Node id of the dimension-idx symbol s of the given width, -1 if absent.
  int64_t symNode(Sym s, unsigned idx, unsigned width) const;

  // Builds the per-node polynomials that evaluation reads (evaluation does it too, once):
  // called when the analysis is made or loaded, so that a launch's first evaluation of its
  // access hulls does not pay it (about 55,000 instructions for FDTD3d's kernel).
  // Inline: evaluation asks it at every node (poly, dependsOnVar), a call each.
  void prepare() const {
    if (prepared_.load(std::memory_order_acquire) != nodes.size()) prepareSlow();
  }

  // ---- serialization ----
  void serialize(std::string &out) const;
  bool deserialize(const uint8_t *&p, const uint8_t *end);

 private:
  friend class Evaluation;
  uint32_t intern(const Node &n, const std::vector<uint32_t> &ops);
  std::map<std::string, uint32_t> cons_;
  void prepareSlow() const;
  mutable std::mutex mu_;
  mutable std::atomic<size_t> prepared_{0};
  mutable std::vector<Poly> polys_;
  mutable std::vector<uint8_t> flags_;  // bit0 var, bit1 group
  mutable std::map<std::tuple<uint8_t, uint32_t, uint16_t>, uint32_t> sym_ids_;
};

}  // namespace tutti::compiler::detail
