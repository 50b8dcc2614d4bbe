// mkmd_state.cpp - placing kernel pieces and the copies they need on devices and links.
#include "mkmd_state.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tutti::profiles::mkmd::detail {

double Timeline::fit(double t, double dur) const {
  // Ends are sorted too (disjoint intervals): skip those over before t.
  auto it = std::upper_bound(iv_.begin(), iv_.end(), t,
                             [](double v, const std::pair<double, double> &p) { return v < p.second; });
  double c = t;
  for (; it != iv_.end(); ++it) {
    if (it->first >= c + dur) return c;
    c = std::max(c, it->second);
  }
  return c;
}

void Timeline::add(double s, double e) {
  if (!(e > s)) return;
  auto it = std::upper_bound(iv_.begin(), iv_.end(), std::make_pair(s, e));
  iv_.insert(it, {s, e});
}

void Timeline::remove(double s, double e) {
  // Sorted as add keeps them: the interval's place by binary search (a trial's rollback
  // removes each interval it added, and a 40-kernel graph tries thousands).
  auto it = std::lower_bound(iv_.begin(), iv_.end(), std::make_pair(s, e));
  if (it != iv_.end() && *it == std::make_pair(s, e)) iv_.erase(it);
}

State::State(const Graph &g, const std::vector<Device> &devs)
    : g_(g), devs_(devs), hostLoc_(int(devs.size())), compute_(devs.size()), reserved_(devs.size()),
      kernelEnd_(g.kernels.size(), 0) {
  std::map<int, int> dense;
  for (const Device &d : devs) {
    auto it = dense.emplace(d.link, int(dense.size())).first;
    linkIndex_.push_back(it->second);
  }
  links_.resize(dense.size());
  for (size_t d = 0; d < devs.size(); ++d)
    if (devs[d].busyUntil > 0) compute_[d].add(0, devs[d].busyUntil);
  for (const Device &d : devs)
    if (d.host && d.fillBandwidth > 0) fill_ = fill_ > 0 ? std::min(fill_, d.fillBandwidth) : d.fillBandwidth;
  for (const Buffer &b : g.buffers) cold_.push_back(b.cold);
  valid_.resize(g.buffers.size());
  for (size_t b = 0; b < g.buffers.size(); ++b) {
    // Never written by the app: undefined, so valid anywhere for nothing.
    const Buffer &buf = g.buffers[b];
    valid_[b].assign(devs.size() + 1, buf.fromHost ? kNever : 0.0);
    for (int d : buf.on)
      if (d >= 0 && size_t(d) < devs.size()) valid_[b][size_t(d)] = std::max(0.0, buf.readyAt);
    // On the host too, unless a device holds the only copy.
    if (!buf.notOnHost || std::none_of(buf.on.begin(), buf.on.end(),
                                       [&](int d) { return d >= 0 && size_t(d) < devs.size(); }))
      valid_[b][size_t(hostLoc_)] = 0;
  }
}

double State::copySeconds(int dev, bool toDevice, uint64_t bytes) const {
  const Device &d = devs_[size_t(dev)];
  double bw = toDevice ? d.h2dBandwidth : d.d2hBandwidth;
  return d.latency + double(bytes) / std::max(bw, 1.0);
}

void State::busy(Timeline &t, double s, double e) {
  if (!(e > s)) return;
  t.add(s, e);
  journal_.push_back({Entry::Busy, &t, s, e, 0, 0});
}

void State::setValid(int b, int where, double t) {
  double &v = valid_[size_t(b)][size_t(where)];
  journal_.push_back({Entry::Valid, nullptr, v, 0, b, where});
  v = t;
}

void State::setKernelEnd(int k, double t) {
  journal_.push_back({Entry::KernelEnd, nullptr, kernelEnd_[size_t(k)], 0, k, 0});
  kernelEnd_[size_t(k)] = t;
}

void State::warmed(int b) {
  if (!cold_[size_t(b)]) return;
  cold_[size_t(b)] = false;
  journal_.push_back({Entry::Warmed, nullptr, 0, 0, b, 0});
}

void State::task(const Task &t) {
  if (trial_) return;  // rolled back anyway; nothing reads the tasks before result()
  tasks_.push_back(t);
  journal_.push_back({Entry::TaskAdded, nullptr, 0, 0, 0, 0});
}

void State::rollback(size_t m) {
  while (journal_.size() > m) {
    const Entry &e = journal_.back();
    switch (e.what) {
      case Entry::Busy: e.tl->remove(e.a, e.b); break;
      case Entry::Valid: valid_[size_t(e.i)][size_t(e.j)] = e.a; break;
      case Entry::TaskAdded: tasks_.pop_back(); break;
      case Entry::KernelEnd: kernelEnd_[size_t(e.i)] = e.a; break;
      case Entry::Warmed: cold_[size_t(e.i)] = true; break;
    }
    journal_.pop_back();
  }
}

State::Legs State::legs(int from, int to, uint64_t bytes, double ready, int into) const {
  Legs l;
  double t = ready;
  if (from != hostLoc_) {
    double dur = copySeconds(from, false, bytes);
    // Landing in a cold home: the page faults set the pace, not the link.
    if (to == hostLoc_ && into >= 0 && cold_[size_t(into)] && fill_ > 0)
      dur = std::max(dur, devs_[size_t(from)].latency + double(bytes) / fill_);
    l.d2hStart = d2h(from).fit(t, dur);
    t = l.d2hEnd = l.d2hStart + dur;
  }
  if (to != hostLoc_) {
    double dur = copySeconds(to, true, bytes);
    l.h2dStart = h2d(to).fit(t, dur);
    // Queued behind the device's kernels: a gap free on the link and on the device at once.
    l.h2dQueued = devs_[size_t(to)].queuedUploads;
    while (l.h2dQueued) {
      double c = computeFit(to, l.h2dStart, dur);
      if (c == l.h2dStart) break;
      l.h2dStart = h2d(to).fit(c, dur);
    }
    t = l.h2dEnd = l.h2dStart + dur;
  }
  l.arrival = t;
  return l;
}

void State::commit(const Legs &l, int from, int to, int b, uint64_t bytes, int forKernel) {
  if (l.d2hStart >= 0) {
    busy(d2h(from), l.d2hStart, l.d2hEnd);
    task({Task::D2H, forKernel, from, b, 0, bytes, l.d2hStart, l.d2hEnd});
  }
  if (l.h2dStart >= 0) {
    busy(h2d(to), l.h2dStart, l.h2dEnd);
    if (l.h2dQueued) busy(compute_[size_t(to)], l.h2dStart, l.h2dEnd);
    task({Task::H2D, forKernel, to, b, 0, bytes, l.h2dStart, l.h2dEnd});
  }
}

double State::fetch(int b, uint64_t bytes, int to, int forKernel) {
  const std::vector<double> &v = valid_[size_t(b)];
  if (v[size_t(to)] < kNever) return v[size_t(to)];
  int best = -1;
  Legs bl;
  bl.arrival = kNever;
  // For a kernel on the host device, the bytes land in the buffer's home; the sink's go
  // straight into the app's memory.
  const int into = forKernel >= 0 && to == hostLoc_ ? b : -1;
  for (size_t from = 0; from < v.size(); ++from) {
    if (!(v[from] < kNever) || int(from) == to) continue;
    Legs l = legs(int(from), to, bytes, v[from], into);
    if (l.arrival < bl.arrival) best = int(from), bl = l;
  }
  if (best < 0) return 0;  // valid nowhere: nothing to copy
  commit(bl, best, to, b, bytes, forKernel);
  if (into >= 0 && bytes >= g_.buffers[size_t(b)].bytes) warmed(b);
  // A whole copy leaves a valid replica, on the way through the host too.
  if (bytes >= g_.buffers[size_t(b)].bytes) {
    if (bl.d2hStart >= 0 && bl.d2hEnd < v[size_t(hostLoc_)]) setValid(b, hostLoc_, bl.d2hEnd);
    setValid(b, to, bl.arrival);
  }
  return bl.arrival;
}

double State::computeFit(int dev, double t, double dur) const {
  for (;;) {
    double c = compute_[size_t(dev)].fit(t, dur);
    double r = reserved_[size_t(dev)].fit(c, dur);
    if (r == c) return c;
    t = r;
  }
}

void State::place(int k, const std::vector<uint64_t> &groups, int main, const std::vector<int> &preds, Placement &P) {
  const Kernel &K = g_.kernels[size_t(k)];
  const size_t n = devs_.size();
  P.groups = groups;
  P.pieceEnd.assign(n, 0);
  double depEnd = 0;
  for (int p : preds) depEnd = std::max(depEnd, kernelEnd_[size_t(p)]);
  double end = depEnd;
  int used = 0;
  for (size_t d = 0; d < n; ++d) {
    if (!groups[d]) continue;
    ++used;
    double ready = depEnd;
    for (size_t i = 0; i < K.reads.size(); ++i) {
      int b = K.reads[i];
      uint64_t size = g_.buffers[size_t(b)].bytes;
      bool partial = i < K.partialRead.size() && K.partialRead[i] && groups[d] < K.groups;
      uint64_t bytes = partial ? uint64_t(std::ceil(double(size) * double(groups[d]) / double(K.groups))) : size;
      if (bytes) ready = std::max(ready, fetch(b, bytes, loc(int(d)), k));
    }
    double dur = K.time ? std::max(0.0, K.time(int(d), groups[d])) : 0;
    double s = computeFit(int(d), ready, dur);
    busy(compute_[d], s, s + dur);
    task({Task::Compute, k, int(d), -1, groups[d], 0, s, s + dur});
    P.pieceEnd[d] = s + dur;
    end = std::max(end, s + dur);
  }
  // Where the outputs are valid afterwards, and what it takes to get them there.
  int home = used > 1 && K.mergeOutputs ? hostLoc_ : loc(main);
  if (used > 1) {
    double gathered = end;
    for (int b : K.writes) {
      uint64_t size = g_.buffers[size_t(b)].bytes;
      for (size_t d = 0; d < n; ++d) {
        if (!groups[d] || loc(int(d)) == home) continue;
        // Merged outputs come back whole; concatenated ones, the piece's share.
        uint64_t bytes = K.mergeOutputs ? size
                                        : uint64_t(std::ceil(double(size) * double(groups[d]) / double(K.groups)));
        Legs l = legs(loc(int(d)), home, bytes, P.pieceEnd[d], home == hostLoc_ ? b : -1);
        commit(l, loc(int(d)), home, b, bytes, k);
        gathered = std::max(gathered, l.arrival);
      }
      if (home == hostLoc_) warmed(b);
    }
    if (K.mergeOutputs) {
      double dur = K.mergeSecondsPerDevice * double(used - 1);
      task({Task::Merge, k, -1, -1, 0, 0, gathered, gathered + dur});
      gathered += dur;
    }
    end = gathered;
  }
  for (int b : K.writes)
    for (size_t l = 0; l <= n; ++l) setValid(b, int(l), int(l) == home ? end : kNever);
  setKernelEnd(k, end);
  P.end = end;
}

void State::sink() {
  for (size_t b = 0; b < g_.buffers.size(); ++b)
    if (g_.buffers[b].toHost) fetch(int(b), g_.buffers[b].bytes, hostLoc_, -1);
}

Schedule State::result() const {
  Schedule s;
  s.tasks = tasks_;
  const size_t n = devs_.size();
  s.busy.assign(n, 0);
  s.kernelEnd = kernelEnd_;
  std::vector<std::vector<uint64_t>> groups(g_.kernels.size(), std::vector<uint64_t>(n, 0));
  for (const Task &t : tasks_) {
    s.makespan = std::max(s.makespan, t.end);
    if (t.kind != Task::Compute) continue;
    s.busy[size_t(t.device)] += t.end - t.start;
    groups[size_t(t.kernel)][size_t(t.device)] += t.groups;
  }
  for (const auto &gk : groups) {
    s.deviceOf.push_back(int(std::max_element(gk.begin(), gk.end()) - gk.begin()));
    s.splitKernels += std::count_if(gk.begin(), gk.end(), [](uint64_t x) { return x > 0; }) > 1;
  }
  if (s.makespan > 0 && n) {
    double idle = 0;
    for (double b : s.busy) idle += (s.makespan - b) / s.makespan;
    s.idleFraction = idle / double(n);
  }
  return s;
}

}  // namespace tutti::profiles::mkmd::detail
