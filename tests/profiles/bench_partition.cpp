// bench_partition.cpp: micro benchmark of one Algorithm 1 decision (3 devices, fitted models),
// the fast path against the unpruned reference.
// Usage: tutti_partition_bench [total_groups] [max_steps]
#include <cstdio>
#include <cstdlib>

#include "bench_scenario.h"

namespace {

// Best of 20 rounds of 50 decisions: the minimum is the figure least disturbed by the rest
// of the machine.
double bestOf(tutti::profiles::PartitionResult (*fn)(const tutti::profiles::PartitionRequest&),
              const tutti::profiles::PartitionRequest& req, tutti::profiles::PartitionResult* r) {
  double best = 1e30;
  for (int i = 0; i < 20; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    for (int j = 0; j < 50; ++j) *r = fn(req);
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count() / 50);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tutti::profiles;
  uint64_t total = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 196608;
  uint32_t steps = argc > 2 ? static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 2048;
  auto b = testing::makeBenchScenario(total, steps);
  PartitionResult r, ref;
  testing::timeDecision(b.req, 20, &r);  // warm caches
  double fast = bestOf(partition, b.req, &r);
  double slow = bestOf(partitionReference, b.req, &ref);
  std::printf("partition: %llu groups, 3 devices, granularity %llu, %u induction steps: "
              "%.1f us per decision (reference %.1f us; best of 20 x 50)\n",
              static_cast<unsigned long long>(total),
              static_cast<unsigned long long>((total + steps - 1) / steps), r.steps, fast, slow);
  std::printf("  per induction step %.1f ns: %.1f us for 2048 steps\n", 1e3 * fast / r.steps,
              2048 * fast / r.steps);
  std::printf("  groups %llu / %llu / %llu, predicted %.3f ms vs best single %.3f ms%s\n",
              static_cast<unsigned long long>(r.groups[0]),
              static_cast<unsigned long long>(r.groups[1]),
              static_cast<unsigned long long>(r.groups[2]), 1e3 * r.predictedSeconds,
              1e3 * r.bestSingleSeconds, r.groups == ref.groups ? "" : "  (DIFFERS from reference)");
  return r.groups == ref.groups ? 0 : 1;
}
