// measured.h - the one store of measured kernel times, fed by every completion.
//
// Whole launches and split pieces alike are recorded here once, when their real events
// complete. Placement reads each kernel's throughput per device from it; the SKMD
// partitioner reads its recent runs for online-calibrated times; and a learning
// observer (the SKMD model correction and the profile database) sees every run.
#pragma once
#include <cstdint>
#include <vector>

#include "command.h"

namespace tutti {

struct KernelRun {
  double items, seconds;  // work-items run, kernel time
};

// workItems of cmd's kernel ran on slot in ns (a whole launch or a split piece).
void recordKernelRun(Command *cmd, int slot, double workItems, uint64_t ns);
// Work-items per ns of kernel k on slot over its recent runs; negative when none ran.
double measuredThroughput(const _cl_kernel *k, int slot);
// The recent runs of kernel k on slot, oldest first (at most kKeptRuns).
std::vector<KernelRun> measuredRuns(const _cl_kernel *k, int slot);
constexpr size_t kKeptRuns = 64;
// How many runs of k on slot were ever recorded: equal counts, equal measuredRuns.
uint64_t measuredRunCount(const _cl_kernel *k, int slot);

// Called after each recorded run, outside the store's lock (one observer).
using RunObserver = void (*)(Command *cmd, int slot, double workItems, double seconds);
void setRunObserver(RunObserver fn);

}  // namespace tutti
