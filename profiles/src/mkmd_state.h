// mkmd_state.h - the schedule being built: busy intervals of devices and link directions,
// where each buffer is valid and since when, and an undo journal for trial placements.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "tutti/mkmd.h"

namespace tutti::profiles::mkmd::detail {

constexpr double kNever = std::numeric_limits<double>::infinity();

// Busy intervals, sorted and disjoint.
class Timeline {
 public:
  // The earliest start >= t of a gap of length dur.
  double fit(double t, double dur) const;
  void add(double s, double e);
  void remove(double s, double e);  // an interval added before
  const std::vector<std::pair<double, double>> &intervals() const { return iv_; }

 private:
  std::vector<std::pair<double, double>> iv_;
};

// One kernel's placement: groups per device, and when each piece and the kernel end.
struct Placement {
  std::vector<uint64_t> groups;
  std::vector<double> pieceEnd;  // kNever-free: 0 where a device has no piece
  double end = 0;
};

class State {
 public:
  State(const Graph &g, const std::vector<Device> &devs);

  // Places kernel k with the given groups per device (main: where split outputs gather),
  // after its predecessors' ends, and commits it. Returns its placement.
  Placement place(int k, const std::vector<uint64_t> &groups, int main, const std::vector<int> &preds) {
    Placement p;
    place(k, groups, main, preds, p);
    return p;
  }
  void place(int k, const std::vector<uint64_t> &groups, int main, const std::vector<int> &preds, Placement &p);
  // Copies every toHost buffer back after the last kernel.
  void sink();

  // Trial placements: everything after mark() is undone by rollback().
  size_t mark() const { return journal_.size(); }
  void rollback(size_t mark);
  // A placement tried and rolled back: only its times matter, not its task list. The
  // result lives until the next tryPlace (its storage is reused: Algorithm 4 tries
  // thousands per graph).
  const Placement &tryPlace(int k, const std::vector<uint64_t> &groups, int main, const std::vector<int> &preds) {
    const size_t m = mark();
    trial_ = true;
    place(k, groups, main, preds, tried_);
    trial_ = false;
    rollback(m);
    return tried_;
  }

  // Compute time of each device reserved for kernels placed later (fine-grain pass).
  void reserve(int dev, double s, double e) { reserved_[size_t(dev)].add(s, e); }
  void unreserve(int dev, double s, double e) { reserved_[size_t(dev)].remove(s, e); }

  Schedule result() const;
  double kernelEnd(int k) const { return kernelEnd_[size_t(k)]; }

 private:
  struct Entry {
    enum What { Busy, Valid, TaskAdded, KernelEnd, Warmed } what;
    Timeline *tl;
    double a, b;  // Busy: interval; Valid, KernelEnd: old value
    int i, j;     // Valid: buffer, location; KernelEnd: kernel
  };
  int loc(int dev) const { return devs_[size_t(dev)].host ? hostLoc_ : dev; }
  Timeline &h2d(int dev) { return links_[size_t(linkIndex_[size_t(dev)])].first; }
  Timeline &d2h(int dev) { return links_[size_t(linkIndex_[size_t(dev)])].second; }
  const Timeline &h2d(int dev) const { return links_[size_t(linkIndex_[size_t(dev)])].first; }
  const Timeline &d2h(int dev) const { return links_[size_t(linkIndex_[size_t(dev)])].second; }
  double copySeconds(int dev, bool toDevice, uint64_t bytes) const;
  void busy(Timeline &t, double s, double e);
  void setValid(int b, int where, double t);
  void setKernelEnd(int k, double t);
  void warmed(int b);
  void task(const Task &t);
  // The copy legs from one location to another (host: devices' count): device->host on
  // the source's link, then host->device on the destination's.
  struct Legs {
    double arrival = 0;
    double d2hStart = -1, d2hEnd = 0, h2dStart = -1, h2dEnd = 0;
    bool h2dQueued = false;  // the upload holds the destination's queue too (queuedUploads)
  };
  // into: the buffer whose host memory a copy to the host fills (cold: fillBandwidth).
  Legs legs(int from, int to, uint64_t bytes, double ready, int into = -1) const;
  void commit(const Legs &l, int from, int to, int b, uint64_t bytes, int forKernel);
  // Moves `bytes` of buffer b to location `to`; returns the arrival time. Whole-buffer
  // copies make `to` valid.
  double fetch(int b, uint64_t bytes, int to, int forKernel);
  double computeFit(int dev, double t, double dur) const;

  const Graph &g_;
  const std::vector<Device> &devs_;
  int hostLoc_;
  std::vector<Timeline> compute_, reserved_;
  std::vector<std::pair<Timeline, Timeline>> links_;  // (h2d, d2h) per link
  std::vector<int> linkIndex_;                        // per device
  std::vector<std::vector<double>> valid_;            // [buffer][location]: since when
  std::vector<double> kernelEnd_;
  std::vector<bool> cold_;  // per buffer: its host memory not yet filled
  double fill_ = 0;         // the host device's fillBandwidth (0: none)
  std::vector<Task> tasks_;
  std::vector<Entry> journal_;
  bool trial_ = false;  // tryPlace: tasks are not recorded
  Placement tried_;
};

}  // namespace tutti::profiles::mkmd::detail
