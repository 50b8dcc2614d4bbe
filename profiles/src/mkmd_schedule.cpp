// mkmd_schedule.cpp - coarse list scheduling and fine-grain multi-kernel partitioning.
#include <algorithm>
#include <numeric>

#include "mkmd_state.h"
#include "tutti/mkmd.h"

namespace tutti::profiles::mkmd {

using detail::Placement;
using detail::State;

namespace {

bool meets(const std::vector<int> &a, const std::vector<int> &b) {
  for (int x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

double kernelSeconds(const Kernel &k, int d) { return k.time ? std::max(0.0, k.time(d, k.groups)) : 0; }

std::vector<uint64_t> whole(const Graph &g, size_t ndev, int k, int d) {
  std::vector<uint64_t> v(ndev, 0);
  v[size_t(d)] = g.kernels[size_t(k)].groups;
  return v;
}

// Algorithm 4: from all groups on `main`, move groups from the piece that ends last to
// whichever other device ends the kernel earliest, while that helps. Moves start at an
// eighth of the groups and halve down to 1/steps: the thesis's 1/steps alone took 30-50
// moves (two trials each) for most of mk_Jacobi's kernels, 1.2 ms per schedule of 40.
std::vector<uint64_t> climb(State &S, const Graph &g, const std::vector<Device> &devs, int k, int main,
                            const std::vector<int> &preds, int steps, double minGain, double minSeconds,
                            double minShare) {
  const Kernel &K = g.kernels[size_t(k)];
  std::vector<uint64_t> cur = whole(g, devs.size(), k, main);
  if (!K.splittable || K.groups < 2 || devs.size() < 2) return cur;
  auto trial = [&](const std::vector<uint64_t> &groups) -> const Placement & { return S.tryPlace(k, groups, main, preds); };
  Placement at = trial(cur);
  const std::vector<uint64_t> wholeGroups = cur;
  const double wholeFinish = at.end, wholeTime = kernelSeconds(K, main);
  // No placement ends before the predecessors do: when even that would not save enough,
  // no split can.
  const double need = std::max(minGain * wholeTime, minSeconds);
  double depEnd = 0;
  for (int p : preds) depEnd = std::max(depEnd, S.kernelEnd(p));
  if (wholeFinish - depEnd < need) return wholeGroups;
  // Also from the split that balances every device's throughput: a merge or a copy is a
  // step cost that no single 1/steps move pays back, so climbing from whole alone stops.
  std::vector<double> rate(devs.size());
  for (size_t d = 0; d < devs.size(); ++d) {
    double t = K.time ? K.time(int(d), K.groups) : 0;
    rate[d] = t > 0 ? 1 / t : 0;
  }
  double sum = std::accumulate(rate.begin(), rate.end(), 0.0);
  if (sum > 0) {
    std::vector<uint64_t> bal(devs.size(), 0);
    uint64_t given = 0;
    for (size_t d = 0; d < devs.size(); ++d) given += bal[d] = uint64_t(double(K.groups) * rate[d] / sum);
    bal[size_t(main)] += K.groups - given;
    const Placement &p = trial(bal);
    if (p.end < at.end) cur = bal, at = p;
  }
  const uint64_t fine = std::max<uint64_t>(1, K.groups / uint64_t(std::max(steps, 1)));
  // Kept across iterations: their storage is reused.
  Placement best;
  std::vector<uint64_t> bestGroups, c;
  int moves = 0;
  for (uint64_t step = std::max(fine, K.groups / 8);; step = std::max(fine, step / 2)) {
    for (; moves < steps; ++moves) {
      size_t from = size_t(std::max_element(at.pieceEnd.begin(), at.pieceEnd.end()) - at.pieceEnd.begin());
      best = at;
      bestGroups.clear();
      for (size_t s = 0; s < devs.size(); ++s) {
        if (s == from) continue;
        c = cur;
        uint64_t mv = std::min(step, c[from]);
        c[from] -= mv;
        c[s] += mv;
        const Placement &p = trial(c);
        if (p.end < best.end) best = p, bestGroups = c;
      }
      if (bestGroups.empty()) break;
      cur.swap(bestGroups);
      std::swap(at, best);
    }
    if (step == fine || moves >= steps) break;
  }
  // Slivers go to the largest piece: their models' errors and their fixed costs (the
  // inputs they need whole, a launch, a gather) outweigh what they take off the others.
  // On two H100s, mk_ABE's CPU got 256 of a product's 65,536 groups: predicted 25 ms,
  // it took 38, while the GPUs' pieces took 8 and 13.
  const size_t largest = size_t(std::max_element(cur.begin(), cur.end()) - cur.begin());
  bool dropped = false;
  for (size_t d = 0; d < cur.size(); ++d)
    if (d != largest && cur[d] && double(cur[d]) < minShare * double(K.groups))
      cur[largest] += cur[d], cur[d] = 0, dropped = true;
  if (dropped) at = trial(cur);
  // Not worth a split unless it saves enough of the kernel's own time.
  if (cur != wholeGroups && wholeFinish - at.end < need) return wholeGroups;
  return cur;
}

}  // namespace

std::vector<std::vector<int>> predecessors(const Graph &g) {
  std::vector<std::vector<int>> p(g.kernels.size());
  for (size_t i = 0; i < g.kernels.size(); ++i) {
    const Kernel &ki = g.kernels[i];
    for (size_t j = 0; j < i; ++j) {
      const Kernel &kj = g.kernels[j];
      if (meets(kj.writes, ki.reads) || meets(kj.writes, ki.writes) || meets(kj.reads, ki.writes))
        p[i].push_back(int(j));
    }
    for (int a : ki.after)
      if (a >= 0 && size_t(a) < i) p[i].push_back(a);
    std::sort(p[i].begin(), p[i].end());
    p[i].erase(std::unique(p[i].begin(), p[i].end()), p[i].end());
  }
  return p;
}

namespace {

std::vector<double> rankFrom(const Graph &g, const std::vector<Device> &devs,
                             const std::vector<std::vector<int>> &preds) {
  const size_t n = g.kernels.size();
  double bw = 0;
  int links = 0;
  for (const Device &d : devs)
    if (!d.host) bw += 0.5 * (d.h2dBandwidth + d.d2hBandwidth), ++links;
  bw = links ? bw / links : 0;
  std::vector<std::vector<int>> succ(n);
  for (size_t i = 0; i < n; ++i)
    for (int p : preds[i]) succ[size_t(p)].push_back(int(i));
  std::vector<double> rank(n, 0);
  for (size_t i = n; i-- > 0;) {
    const Kernel &k = g.kernels[i];
    double w = 0;
    for (size_t d = 0; d < devs.size(); ++d) w += kernelSeconds(k, int(d));
    w = devs.empty() ? 0 : w / double(devs.size());
    double tail = 0;
    for (int j : succ[i]) {
      double edge = 0;  // bytes i writes that j reads (Eq. 5.4's W(E_ij))
      for (int b : k.writes)
        if (bw > 0 && meets({b}, g.kernels[size_t(j)].reads)) edge += double(g.buffers[size_t(b)].bytes) / bw;
      tail = std::max(tail, edge + rank[size_t(j)]);
    }
    rank[i] = w + tail;
  }
  return rank;
}

}  // namespace

std::vector<double> upwardRank(const Graph &g, const std::vector<Device> &devs) {
  return rankFrom(g, devs, predecessors(g));
}

Schedule inOrder(const Graph &g, const std::vector<Device> &devs, int device) {
  // One in-order queue: the app's writes, its kernels, then its reads, one after another.
  Schedule s;
  const Device &d = devs[size_t(device)];
  double t = 0;
  auto copy = [&](Task::Kind kind, int b, int k) {
    if (d.host) return;
    uint64_t bytes = g.buffers[size_t(b)].bytes;
    double dur = d.latency + double(bytes) / (kind == Task::H2D ? d.h2dBandwidth : d.d2hBandwidth);
    s.tasks.push_back({kind, k, device, b, 0, bytes, t, t + dur});
    t += dur;
  };
  std::vector<bool> onDevice(g.buffers.size(), false);
  for (size_t k = 0; k < g.kernels.size(); ++k) {
    const Kernel &K = g.kernels[k];
    for (int b : K.reads)
      if (!onDevice[size_t(b)] && g.buffers[size_t(b)].fromHost) copy(Task::H2D, b, int(k)), onDevice[size_t(b)] = true;
    for (int b : K.writes) onDevice[size_t(b)] = true;
    double dur = kernelSeconds(K, device);
    s.tasks.push_back({Task::Compute, int(k), device, -1, K.groups, 0, t, t + dur});
    t += dur;
    s.kernelEnd.push_back(t);
    s.deviceOf.push_back(device);
  }
  for (size_t b = 0; b < g.buffers.size(); ++b)
    if (g.buffers[b].toHost) copy(Task::D2H, int(b), -1);
  s.makespan = t;
  s.busy.assign(devs.size(), 0);
  for (const Task &x : s.tasks)
    if (x.kind == Task::Compute) s.busy[size_t(device)] += x.end - x.start;
  if (t > 0) {
    double idle = 0;
    for (double b : s.busy) idle += (t - b) / t;
    s.idleFraction = idle / double(devs.size());
  }
  return s;
}

namespace {

// Coarse list scheduling: the ready kernel of highest rank goes where it finishes first
// (Eq. 5.5-5.10), or to `forced` for every kernel. Fills dev (per kernel) and returns the
// schedule.
Schedule coarseSchedule(const Graph &g, const std::vector<Device> &devs, const std::vector<std::vector<int>> &preds,
                        const std::vector<double> &rank, int forced, std::vector<int> &dev) {
  const size_t n = g.kernels.size(), nd = devs.size();
  State S(g, devs);
  dev.assign(n, forced < 0 ? 0 : forced);
  // Kernels whose predecessors are all placed, and how many each other one still waits
  // for: a step costs the ready list, not a scan of every kernel's predecessors (which
  // took half of a 158-kernel BiCGSTAB graph's 5 ms).
  std::vector<size_t> waiting(n);
  std::vector<std::vector<int>> succ(n);
  std::vector<int> ready;
  for (size_t i = 0; i < n; ++i) {
    waiting[i] = preds[i].size();
    for (int p : preds[i]) succ[size_t(p)].push_back(int(i));
    if (!waiting[i]) ready.push_back(int(i));
  }
  for (size_t step = 0; step < n; ++step) {
    // The highest rank, the earliest kernel among equals (as the scan in kernel order did).
    auto pick = std::min_element(ready.begin(), ready.end(), [&](int a, int b) {
      return rank[size_t(a)] > rank[size_t(b)] || (rank[size_t(a)] == rank[size_t(b)] && a < b);
    });
    int k = *pick;
    ready.erase(pick);
    for (int j : succ[size_t(k)])
      if (!--waiting[size_t(j)]) ready.push_back(j);
    double bestEnd = 0;
    for (size_t d = 0; forced < 0 && d < nd; ++d) {
      double e = S.tryPlace(k, whole(g, nd, k, int(d)), int(d), preds[size_t(k)]).end;
      if (d == 0 || e < bestEnd) bestEnd = e, dev[size_t(k)] = int(d);
    }
    S.place(k, whole(g, nd, k, dev[size_t(k)]), dev[size_t(k)], preds[size_t(k)]);
  }
  S.sink();
  return S.result();
}

}  // namespace

Schedule schedule(const Graph &g, const std::vector<Device> &devs, const Options &opt) {
  const size_t n = g.kernels.size(), nd = devs.size();
  if (!nd) return {};
  const auto preds = predecessors(g);
  const auto rank = rankFrom(g, devs, preds);

  // Coarse: HEFT's greedy choice, and every kernel on one device. Earliest-finish choices
  // can strand data: a chain of small kernels that each start sooner on the CPU (no copy
  // in) then runs there at CPU speed (BiCGSTAB recorded on the H100 machine: 5x slower
  // than all on one GPU). The best of them is refined.
  std::vector<int> dev, cand;
  Schedule coarse = coarseSchedule(g, devs, preds, rank, -1, dev);
  for (size_t d = 0; d < nd && nd > 1; ++d) {
    Schedule one = coarseSchedule(g, devs, preds, rank, int(d), cand);
    if (one.makespan < coarse.makespan) coarse = one, dev = cand;
  }
  if (!opt.partition) return coarse;

  // Fine (Algorithm 3): in coarse start order, each kernel is split into the idle time of
  // other devices; kernels not yet revisited keep their coarse time reserved.
  std::vector<double> start(n, 0), end(n, 0);
  for (const Task &t : coarse.tasks)
    if (t.kind == Task::Compute) start[size_t(t.kernel)] = t.start, end[size_t(t.kernel)] = t.end;
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return start[size_t(a)] < start[size_t(b)]; });
  State F(g, devs);
  for (size_t k = 0; k < n; ++k) F.reserve(dev[k], start[k], end[k]);
  for (int k : order) {
    F.unreserve(dev[size_t(k)], start[size_t(k)], end[size_t(k)]);
    std::vector<uint64_t> groups = climb(F, g, devs, k, dev[size_t(k)], preds[size_t(k)], opt.steps, opt.minSplitGain,
                                          opt.minSplitSeconds, opt.minPieceShare);
    F.place(k, groups, dev[size_t(k)], preds[size_t(k)]);
  }
  F.sink();
  Schedule fine = F.result();
  return fine.makespan <= coarse.makespan ? fine : coarse;
}

}  // namespace tutti::profiles::mkmd
