// partitioner.cpp: thesis Algorithm 1 (performance-variation-aware partitioning), k devices.
// The decision runs at every split kernel launch: each device's predictions are computed a
// few steps ahead, and 2-4 devices get an unrolled, branch-light estimator.
#include "tutti/partitioner.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tutti::profiles {
namespace {

// Per-device loops of the fixed-size estimators unroll completely (GCC does not at -O2).
#if defined(__GNUC__) && !defined(__clang__)
#define TUTTI_UNROLL _Pragma("GCC unroll 4")
#else
#define TUTTI_UNROLL
#endif

// EstAllDevsTime given each device's compute time. Everything that does not depend on the
// partition (per-byte times, bus slots) is prepared once into flat arrays, and the loops
// select instead of branching where they can: the induction loop calls this twice per
// step with shares so close to balance that data-dependent branches mispredict. K > 0 fixes
// the device count at compile time, so the per-device loops unroll.
template <size_t K>
class Estimator {
 public:
  explicit Estimator(const PartitionRequest& r) : req_(r), k_(r.devs.size()) {
    std::vector<int> ids;
    for (size_t d = 0; d < k_; ++d) {
      const DeviceCost& c = r.devs[d];
      auto link = [&](double fixed, double perGroup, double bw, double lat, Link* l) {
        double inv = 1.0 / (bw > 0 ? bw : 1e9);
        bool any = (fixed > 0 || perGroup > 0) && !c.zeroTransfer;
        // No copy at all is 0 + 0 * n: exactly 0, like a link that is never used.
        *l = any ? Link{lat + fixed * inv, perGroup * inv} : Link{0.0, 0.0};
      };
      Prep p;
      link(c.inFixedBytes, c.inBytesPerGroup, c.h2dBandwidth, c.h2dLatency, &p.in);
      link(c.outFixedBytes, c.outBytesPerGroup, c.d2hBandwidth, c.d2hLatency, &p.out);
      p.blocking = !c.overlapInput;
      p.hostCopies = c.copiesOnHostCores && !c.zeroTransfer;
      p.hostCompute = c.computesOnHostCores;
      anyHostCompute_ |= p.hostCompute;
      p.bus = -1;
      if (c.bus >= 0) {
        auto it = std::find(ids.begin(), ids.end(), c.bus);
        p.bus = static_cast<int>(it - ids.begin());
        if (it == ids.end()) ids.push_back(c.bus);
      }
      dev_.push_back(p);
    }
    before_.assign(k_ * k_, 0.0);
    for (size_t d = 0; d < k_; ++d)
      for (size_t e = 0; e < d; ++e)
        if (dev_[d].bus >= 0 && dev_[e].bus == dev_[d].bus) before_[d * k_ + e] = 1.0;
    busOut_.resize(ids.size());
    std::vector<int> members(ids.size(), 0);
    for (const auto& p : dev_)
      if (p.bus >= 0 && ++members[static_cast<size_t>(p.bus)] > 1) sharedBus_ = true;
    for (auto& p : dev_) p.queuesOut = sharedBus_ && p.bus >= 0;
    t_.resize(k_);
    cEnd_.resize(k_);
    order_.resize(k_);
  }

  size_t count() const { return K ? K : k_; }

  // Overall seconds; per-device finish times into fin (size k) if given.
  double run(const uint64_t* p, const double* comp, double* fin) {
    const size_t k = count();
    // Scratch in registers/stack for fixed sizes (no stores reloaded through memory).
    constexpr size_t kLocal = K ? K : 1;
    double tl[kLocal], cl[kLocal];
    size_t ol[kLocal];
    double* t = K ? tl : t_.data();
    double* cEnd = K ? cl : cEnd_.data();
    size_t* order = K ? ol : order_.data();
    // Inputs: a shared bus carries one copy at a time (device index order); a device whose
    // input does not overlap holds every device's compute back until it has landed. A
    // device's input lands after the copies of the bus members before it: the sum runs in
    // index order over 0/1 masks, so it adds exactly what a running bus total would.
    double barrier = 0;
    int active = 0;
    TUTTI_UNROLL
    for (size_t d = 0; d < k; ++d) {
      const Prep& c = dev_[d];
      bool on = p[d] != 0;
      t[d] = on ? c.in.seconds(p[d]) : 0.0;
      double acc = 0;
      const double* m = &before_[d * k];
      TUTTI_UNROLL
      for (size_t e = 0; e < d; ++e) acc += m[e] * t[e];
      acc += t[d];
      double end = t[d] > 0 ? acc : 0.0;
      cEnd[d] = end;
      barrier = std::max(barrier, c.blocking && t[d] > 0 ? end : 0.0);
      active += on;
    }
    // Copy time on the host's cores (staged copies of active devices), which a device
    // computing on those cores waits through as well.
    double hostLoad = 0;
    if (anyHostCompute_) {
      TUTTI_UNROLL
      for (size_t d = 0; d < k; ++d)
        hostLoad += dev_[d].hostCopies && p[d] != 0 ? t[d] + dev_[d].out.seconds(p[d]) : 0.0;
    }
    size_t n = 0;
    TUTTI_UNROLL
    for (size_t d = 0; d < k; ++d) {
      cEnd[d] = std::max(cEnd[d], barrier) + comp[d] + (dev_[d].hostCompute && p[d] != 0 ? hostLoad : 0.0);
      order[n] = d;
      n += p[d] != 0;
    }
    if (fin) {
      TUTTI_UNROLL
      for (size_t d = 0; d < k; ++d) fin[d] = 0;
    }
    double overall = 0;
    if (!sharedBus_) {  // no queue: every output leaves when its kernel ends
      for (size_t j = 0; j < n; ++j) {
        size_t d = order[j];
        double end = cEnd[d] + dev_[d].out.seconds(p[d]);
        if (fin) fin[d] = end;
        overall = std::max(overall, end);
      }
    } else {
      // Outputs leave in the order kernels finish and queue on their bus.
      for (double& b : busOut_) b = 0;
      sortByEnd(order, n, cEnd, p);
      for (size_t j = 0; j < n; ++j) {
        size_t d = order[j];
        const Prep& c = dev_[d];
        double to = c.out.seconds(p[d]);
        double end = cEnd[d] + to;
        if (c.queuesOut && to > 0) {
          double& free = busOut_[static_cast<size_t>(c.bus)];
          end = std::max(cEnd[d], free) + to;
          free = end;
        }
        if (fin) fin[d] = end;
        overall = std::max(overall, end);
      }
    }
    if (active > 1 && !req_.contiguous) overall += req_.mergeSeconds;
    return overall;
  }

 private:
  // Active devices (the first n of order, in index order) by kernel end, ties by index:
  // the order a stable sort gives. Fixed sizes use a branch-free sorting network (keys
  // with the index as tie-break are distinct, so any correct sort agrees); whether one
  // device's kernel ends before another's is a coin flip near balance, and mispredicted
  // branches of an insertion sort cost more than the whole network.
  void sortByEnd(size_t* order, size_t n, const double* cEnd, const uint64_t* p) const {
    if (K == 0 || K > 4) {
      for (size_t i = 1; i < n; ++i)
        for (size_t j = i; j > 0 && cEnd[order[j]] < cEnd[order[j - 1]]; --j)
          std::swap(order[j], order[j - 1]);
      return;
    }
    constexpr size_t kLocal = K ? K : 1;
    double key[kLocal];
    for (size_t d = 0; d < K; ++d) {
      order[d] = d;
      key[d] = p[d] ? cEnd[d] : std::numeric_limits<double>::infinity();  // idle ones last
    }
    auto cx = [&](size_t i, size_t j) {
      size_t a = order[i], b = order[j];
      bool swap = key[b] < key[a] || (key[b] == key[a] && b < a);
      order[i] = swap ? b : a;
      order[j] = swap ? a : b;
    };
    if (K == 2) {
      cx(0, 1);
    } else if (K == 3) {
      cx(0, 1), cx(1, 2), cx(0, 1);
    } else {
      cx(0, 1), cx(2, 3), cx(0, 2), cx(1, 3), cx(1, 2);
    }
  }

  struct Link {
    double base, perGroup;  // latency + fixed bytes / bw, bytes per group / bw
    // Group counts stay far below 2^63: the signed conversion is one instruction, the
    // unsigned one a branchy sequence, and both give the same double.
    double seconds(uint64_t n) const { return base + perGroup * double(int64_t(n)); }
  };
  struct Prep {
    Link in, out;
    bool blocking;
    bool hostCopies, hostCompute;  // DeviceCost::copiesOnHostCores, computesOnHostCores
    int bus;         // dense index, -1 for an own link
    bool queuesOut;  // on a bus some other device shares: outputs wait for it
  };

  const PartitionRequest& req_;
  size_t k_;
  std::vector<Prep> dev_;
  bool sharedBus_ = false;
  bool anyHostCompute_ = false;
  std::vector<double> before_;  // [d * k + e] = 1 if e < d shares d's bus, else 0
  std::vector<double> busOut_, t_, cEnd_;
  std::vector<size_t> order_;
};

double computeSeconds(const DeviceCost& c, uint64_t n) {
  if (n == 0 || (!c.model && !c.compute)) return 0;
  double t = c.model ? (*c.model)(n) : c.compute(n);
  return std::isfinite(t) && t > 0 ? t : 0.0;
}

// Predictions of one device at n, n + step, n + 2 step, ...: the values the induction asks
// for next, computed together. Same function, same arguments: the same values as one by one.
class Lookahead {
 public:
  double at(const DeviceCost& c, uint64_t n, int64_t step, uint64_t total) {
    for (int j = 0; j < kAhead; ++j)
      if (n_[j] == n) return v_[j];
    for (int j = 0; j < kAhead; ++j) {
      int64_t m = static_cast<int64_t>(n) + j * step;
      n_[j] = m >= 0 && static_cast<uint64_t>(m) <= total ? static_cast<uint64_t>(m) : UINT64_MAX;
      v_[j] = n_[j] == UINT64_MAX ? 0.0 : computeSeconds(c, n_[j]);
    }
    return v_[0];
  }

 private:
  static constexpr int kAhead = 4;
  uint64_t n_[kAhead] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
  double v_[kAhead] = {};
};

// floor(total * w / sum) each, the remainder to the largest fractional parts, so the counts
// always sum to total.
std::vector<uint64_t> distribute(uint64_t total, const std::vector<double>& w) {
  std::vector<uint64_t> out(w.size(), 0);
  double sum = 0;
  for (double x : w) sum += x > 0 && std::isfinite(x) ? x : 0;
  if (!(sum > 0) || w.empty()) return out;
  std::vector<std::pair<double, size_t>> frac;
  uint64_t given = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    double wi = w[i] > 0 && std::isfinite(w[i]) ? w[i] : 0;
    double exact = double(total) * wi / sum;
    out[i] = std::min<uint64_t>(total - given, static_cast<uint64_t>(std::floor(exact)));
    given += out[i];
    frac.emplace_back(exact - double(out[i]), i);
  }
  std::sort(frac.begin(), frac.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t j = 0; given < total; j = (j + 1) % frac.size()) {
    if (w[frac[j].second] > 0) {
      ++out[frac[j].second];
      ++given;
    }
  }
  return out;
}

template <size_t K>
void finish(const PartitionRequest& req, Estimator<K>& est, PartitionResult* r) {
  std::vector<double> comp(req.devs.size());
  for (size_t d = 0; d < req.devs.size(); ++d) comp[d] = computeSeconds(req.devs[d], r->groups[d]);
  r->deviceSeconds.assign(req.devs.size(), 0);
  r->predictedSeconds = est.run(r->groups.data(), comp.data(), r->deviceSeconds.data());
  r->split = std::count_if(r->groups.begin(), r->groups.end(), [](uint64_t g) { return g > 0; }) > 1;
}

// Cnt_OffsetsMergeCost: the fewest groups (a multiple of gran) whose removal from the base
// device saves at least the merge cost; 0 if no count does.
uint64_t offsetsMergeCost(const DeviceCost& base, uint64_t total, uint64_t gran, double merge) {
  double full = computeSeconds(base, total);
  auto saves = [&](uint64_t n) { return full - computeSeconds(base, total - n) >= merge; };
  uint64_t hiSteps = total / gran;
  if (hiSteps == 0 || !saves(hiSteps * gran)) return 0;
  uint64_t lo = 1, hi = hiSteps;  // assumes time is monotone in groups (the model ensures it)
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (saves(mid * gran)) hi = mid;
    else lo = mid + 1;
  }
  return lo * gran;
}

}  // namespace

double estimatePartition(const PartitionRequest& req, const std::vector<uint64_t>& groups,
                         std::vector<double>* deviceSeconds) {
  Estimator<0> est(req);
  std::vector<double> comp(req.devs.size()), fin(req.devs.size());
  for (size_t d = 0; d < req.devs.size(); ++d)
    comp[d] = d < groups.size() ? computeSeconds(req.devs[d], groups[d]) : 0;
  std::vector<uint64_t> g(groups);
  g.resize(req.devs.size(), 0);
  double t = est.run(g.data(), comp.data(), fin.data());
  if (deviceSeconds) *deviceSeconds = fin;
  return t;
}

namespace {

// Algorithm 1 over an estimator for K devices (0: any number).
template <size_t K>
PartitionResult partitionImpl(const PartitionRequest& req) {
  PartitionResult r;
  const size_t k = K ? K : req.devs.size();
  const uint64_t total = req.totalGroups;
  r.groups.assign(k, 0);
  r.deviceSeconds.assign(k, 0);
  if (k == 0) return r;
  Estimator<K> est(req);

  // Best single device, transfers included (lines 2-4).
  std::vector<uint64_t> p(k, 0);
  std::vector<double> comp(k, 0), fin(k, 0);
  double best = std::numeric_limits<double>::infinity();
  for (size_t d = 0; d < k; ++d) {
    p[d] = total;
    comp[d] = computeSeconds(req.devs[d], total);
    double t = est.run(p.data(), comp.data(), nullptr);
    if (t < best || r.baseDevice < 0) {
      best = t;
      r.baseDevice = static_cast<int>(d);
    }
    p[d] = 0;
    comp[d] = 0;
  }
  const size_t base = static_cast<size_t>(r.baseDevice);
  r.bestSingleSeconds = best;
  const uint64_t unit = req.unit > 1 && total % req.unit == 0 ? req.unit : 1;
  r.groups[base] = total;

  if (total == 0 || k == 1) {
    finish(req, est, &r);
    return r;
  }
  if (req.policy == PartitionRequest::Linear || req.policy == PartitionRequest::Fixed) {
    std::vector<double> w(k, 0);
    for (size_t d = 0; d < k; ++d) {
      if (req.policy == PartitionRequest::Fixed) {
        w[d] = d < req.weights.size() ? req.weights[d] : 0;
      } else {
        double t = computeSeconds(req.devs[d], total);
        w[d] = t > 0 ? double(total) / t : 0;  // predicted throughput, transfers ignored
      }
    }
    std::vector<uint64_t> g = distribute(total / unit, w);
    for (auto& x : g) x *= unit;
    uint64_t sum = 0;
    for (auto x : g) sum += x;
    if (sum == total) r.groups = g;  // unusable weights: stay on the best single device
    finish(req, est, &r);
    return r;
  }

  // Algorithm 1 (lines 5-46).
  const uint64_t maxSteps = std::max<uint64_t>(1, req.maxSteps);
  const uint64_t gran = (total / unit + maxSteps - 1) / maxSteps * unit;
  uint64_t minOffload = gran;
  if (!req.contiguous && req.mergeSeconds > 0) {
    minOffload = offsetsMergeCost(req.devs[base], total, gran, req.mergeSeconds);
    if (minOffload == 0) {  // no offload can pay for the merge
      finish(req, est, &r);
      return r;
    }
  }
  p = r.groups;
  for (size_t d = 0; d < k; ++d) comp[d] = computeSeconds(req.devs[d], p[d]);
  double prev = best;
  // Each device's trials walk one way in steps of the granularity (the base down, the
  // others up), so predictions are made a few steps ahead at once: independent
  // evaluations overlap in the CPU, where one at a time each waits for the last.
  std::vector<Lookahead> ahead(k);
  auto compAt = [&](size_t d, uint64_t n) {
    return ahead[d].at(req.devs[d], n, d == base ? -static_cast<int64_t>(gran) : static_cast<int64_t>(gran), total);
  };
  auto baseAt = [&](uint64_t n) { return compAt(base, n); };

  int tolerate = 0;
  uint64_t offloaded = 1;
  while (offloaded > 0 || tolerate < req.maxTolerance) {
    ++r.steps;
    offloaded = 0;
    size_t pick = k;
    uint64_t pickCnt = 0;
    double pickDiff = -std::numeric_limits<double>::infinity(), pickTime = 0;
    for (size_t i = 0; i < k; ++i) {
      if (i == base) continue;
      uint64_t trial = (p[i] == 0 ? minOffload : gran) << tolerate;
      if (trial > p[base]) continue;
      double saveB = comp[base], saveI = comp[i];
      p[base] -= trial;
      p[i] += trial;
      comp[base] = baseAt(p[base]);
      comp[i] = compAt(i, p[i]);
      double t = est.run(p.data(), comp.data(), fin.data());
      // Line 29 says Min over devices; the text (and the goal) is the makespan: max.
      if (t < prev) {
        double diff = fin[base] - fin[i];  // balancing factor
        if (diff > pickDiff) {
          pickDiff = diff;
          pick = i;
          pickCnt = trial;
          pickTime = t;
        }
      }
      p[base] += trial;
      p[i] -= trial;
      comp[base] = saveB;
      comp[i] = saveI;
    }
    if (pick < k) {
      p[base] -= pickCnt;
      p[pick] += pickCnt;
      comp[base] = baseAt(p[base]);
      comp[pick] = compAt(pick, p[pick]);
      prev = pickTime;  // the pseudo-code never updates it; without this it never converges
      offloaded = pickCnt;
      tolerate = 0;
    } else {
      ++tolerate;
    }
  }
  r.groups = p;
  finish(req, est, &r);
  return r;
}

}  // namespace

// The common device counts get unrolled estimators; the arithmetic is the same in all.
PartitionResult partition(const PartitionRequest& req) {
  switch (req.devs.size()) {
    case 2: return partitionImpl<2>(req);
    case 3: return partitionImpl<3>(req);
    case 4: return partitionImpl<4>(req);
    default: return partitionImpl<0>(req);
  }
}

PartitionResult partitionReference(const PartitionRequest& req) { return partitionImpl<0>(req); }

}  // namespace tutti::profiles
