// bench_scenario.h: the partition decision timed by the micro benchmark and its test:
// three devices with fitted (not hand-written) time models, so each prediction costs what
// it costs at runtime.
#pragma once

#include <chrono>

#include "synthetic.h"
#include "tutti/time_model.h"

namespace tutti::profiles::testing {

struct BenchScenario {
  PartitionRequest req;
  std::vector<TimeModel> models;
  std::vector<Predictor> bound;  // what the runtime hands the partitioner (DeviceCost::model)
};

// Two GPUs on one PCIe bus and a CPU; balanced enough that the induction walks far.
inline BenchScenario makeBenchScenario(uint64_t total, uint32_t maxSteps) {
  BenchScenario b;
  const Features f = vecaddFeatures(double(total) * 256);
  const Curve gpuA = [](double x, const Features&) { return 15e-6 + 6e-9 * softMax(x, 528); };
  const Curve gpuB = [](double x, const Features&) { return 25e-6 + 9e-9 * softMax(x, 264); };
  const Curve cpu = [](double x, const Features&) { return 30e-6 + 8e-9 * x; };
  for (const Curve* c : {&gpuA, &gpuB, &cpu}) {
    auto s = ladderSamples(*c, vecaddFeatures(1 << 20), 4096);
    auto s2 = ladderSamples(*c, vecaddFeatures(1 << 22), 16384);
    s.insert(s.end(), s2.begin(), s2.end());
    b.models.push_back(TimeModel::fit(s));
  }
  b.req.totalGroups = total;
  b.req.maxSteps = maxSteps;
  b.bound.reserve(3);  // DeviceCost::model points into it
  for (int d = 0; d < 3; ++d) {
    DeviceCost c;
    b.bound.push_back(b.models[static_cast<size_t>(d)].bind(f));
    if (d < 2) {
      c.inBytesPerGroup = 64;  // compute-heavy: little data per group
      c.outBytesPerGroup = 32;
      c.h2dBandwidth = c.d2hBandwidth = 25e9;
      c.bus = 0;
      c.overlapInput = true;
    } else {
      c.zeroTransfer = true;
    }
    c.model = &b.bound.back();
    b.req.devs.push_back(c);
  }
  return b;
}

// Mean wall time of one decision in microseconds over `reps` runs.
inline double timeDecision(const PartitionRequest& req, int reps, PartitionResult* last) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) *last = partition(req);
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / reps;
}

}  // namespace tutti::profiles::testing
