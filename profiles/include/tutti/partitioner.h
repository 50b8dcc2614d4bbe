// partitioner.h: SKMD work-group partitioning across k devices (thesis Algorithm 1, §3.2.4),
// plus the linear and fixed policies it is compared with, and the profiling ladder.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tutti/time_model.h"

namespace tutti::profiles {

struct DeviceCost {
  std::function<double(uint64_t groups)> compute;  // predicted kernel seconds for n groups
  const Predictor* model = nullptr;  // if set, used instead of compute (inlined: no call)
  double inFixedBytes = 0, inBytesPerGroup = 0;    // host->device bytes for n groups
  double outFixedBytes = 0, outBytesPerGroup = 0;  // device->host bytes back
  double h2dBandwidth = 25e9, h2dLatency = 10e-6;
  double d2hBandwidth = 25e9, d2hLatency = 10e-6;
  int bus = -1;               // same bus id >= 0: transfers serialize (shared PCIe link)
  bool zeroTransfer = false;  // CPU working on host memory: no copies at all
  bool overlapInput = false;  // input copy may overlap other devices' compute
  // Host cores make this device's copies (staged through pinned memory): for as long as
  // they run, the cores are not free for a device that computes on them.
  bool copiesOnHostCores = false;
  // A CPU device whose kernels run on those cores: its finish time also carries every
  // active device's copiesOnHostCores copy time (Reduction over USE_HOST_PTR memory on the
  // H100 machine: each 20 % given to the CPU made the launch slower, never faster, while the
  // staging threads copied the H100's share).
  bool computesOnHostCores = false;
};

struct PartitionRequest {
  enum Policy { Auto, Linear, Fixed };
  uint64_t totalGroups = 0;
  std::vector<DeviceCost> devs;
  bool contiguous = true;
  double mergeSeconds = 0;  // cost of merging partial outputs when split (discontiguous only)
  Policy policy = Auto;
  std::vector<double> weights;  // Fixed
  uint32_t maxSteps = 2048;     // induction depth: granularity = ceil(total / maxSteps)
  int maxTolerance = 10;        // granularity doublings tried before giving up
  uint64_t unit = 1;            // every share a multiple of this (whole rows of groups whose
                                // writes concatenate); ignored unless it divides totalGroups
};

struct PartitionResult {
  std::vector<uint64_t> groups;  // per device, sums to totalGroups
  int baseDevice = -1;           // best single device (transfers included)
  bool split = false;            // more than one device has work
  double predictedSeconds = 0;   // of this partition (transfers, bus, merge included)
  double bestSingleSeconds = 0;
  std::vector<double> deviceSeconds;  // per device finish time (0 if idle)
  uint32_t steps = 0;                 // induction iterations (Auto)
};

PartitionResult partition(const PartitionRequest& req);
// The same walk over the general k-device estimator (a running bus total, an insertion sort
// of kernel ends): the reference the fixed-size fast path is tested and benchmarked against.
PartitionResult partitionReference(const PartitionRequest& req);

// Predicted finish time of each device for a given partition (EstAllDevsTime), and the
// overall time (max + merge cost when split and discontiguous). Exposed for tests and logs.
double estimatePartition(const PartitionRequest& req, const std::vector<uint64_t>& groups,
                         std::vector<double>* deviceSeconds = nullptr);

// Work-group counts to profile: 1..16 one by one (where the GPU curve bends), then growing
// by ~1.4x, always ending at totalGroups.
std::vector<uint64_t> profileLadder(uint64_t totalGroups);

}  // namespace tutti::profiles
