// synthetic.h: synthetic kernel-time curves and sample generators shared by the profiles tests.
#pragma once

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tutti/partitioner.h"
#include "tutti/profile_types.h"

namespace tutti::profiles::testing {

// Seconds for `groups` work-groups of a launch with features `f`.
using Curve = std::function<double(double groups, const Features& f)>;

// Smooth max(x, s): how a GPU's time stays flat until its compute units fill up.
inline double softMax(double x, double s) { return std::cbrt(x * x * x + s * s * s); }

// Matrix multiply C = A*B of n x n floats with 16x16 work-groups.
inline Features matmulFeatures(double n) {
  // The compiler's cost per work-item counts the k loop's trip count.
  return {{"arg0_bytes", 4 * n * n}, {"arg3_value", n}, {"work_items", n * n}, {"cost", 12 + 9 * n}};
}
inline uint64_t matmulGroups(double n) { return static_cast<uint64_t>((n / 16) * (n / 16)); }

// Vector add of n floats with 256-item work-groups.
inline Features vecaddFeatures(double n) {
  return {{"arg0_bytes", 4 * n}, {"arg3_value", n}, {"work_items", n}, {"cost", 3}};
}
inline uint64_t vecaddGroups(double n) { return static_cast<uint64_t>(n / 256); }

// Profiling-mode samples: the ladder of group counts for one launch size, with optional
// multiplicative Gaussian noise.
inline std::vector<KernelSample> ladderSamples(const Curve& curve, const Features& f,
                                               uint64_t total, double noise = 0,
                                               unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> nd(0.0, noise);
  std::vector<KernelSample> out;
  for (uint64_t g : profileLadder(total)) {
    KernelSample s;
    s.kernelId = "k";
    s.deviceId = "d";
    s.totalGroups = total;
    s.groups = g;
    s.features = f;
    s.seconds = curve(double(g), f) * (noise > 0 ? std::max(0.5, 1 + nd(rng)) : 1.0);
    out.push_back(s);
  }
  return out;
}

// Group counts drawn log-uniformly in [1, total] (the thesis drew 128 random counts).
inline std::vector<uint64_t> randomCounts(uint64_t total, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, std::log(double(total)));
  std::vector<uint64_t> out;
  for (int i = 0; i < count; ++i)
    out.push_back(std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(std::exp(u(rng))))));
  return out;
}

}  // namespace tutti::profiles::testing
