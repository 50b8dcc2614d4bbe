// bench_partition.cpp: micro benchmark of one Algorithm 1 decision (3 devices, fitted models).
// Usage: tutti_partition_bench [total_groups] [max_steps]
#include <cstdio>
#include <cstdlib>

#include "bench_scenario.h"

int main(int argc, char** argv) {
  using namespace tutti::profiles;
  uint64_t total = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 196608;
  uint32_t steps = argc > 2 ? static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 2048;
  auto b = testing::makeBenchScenario(total, steps);
  PartitionResult r;
  testing::timeDecision(b.req, 20, &r);  // warm caches
  double best = 1e30;
  for (int i = 0; i < 20; ++i) best = std::min(best, testing::timeDecision(b.req, 50, &r));
  std::printf("partition: %llu groups, 3 devices, granularity %llu, %u induction steps: "
              "%.1f us per decision (best of 20 x 50)\n",
              static_cast<unsigned long long>(total),
              static_cast<unsigned long long>((total + steps - 1) / steps), r.steps, best);
  std::printf("  groups %llu / %llu / %llu, predicted %.3f ms vs best single %.3f ms\n",
              static_cast<unsigned long long>(r.groups[0]),
              static_cast<unsigned long long>(r.groups[1]),
              static_cast<unsigned long long>(r.groups[2]), 1e3 * r.predictedSeconds,
              1e3 * r.bestSingleSeconds);
  return 0;
}
