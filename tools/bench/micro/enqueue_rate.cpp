// enqueue_rate - launches of an empty kernel per second (the interposition overhead
// benchmark): N non-blocking enqueues, then clFinish. Links only libOpenCL.
//   enqueue_rate [N [PLATFORM-SUBSTRING [chain]]]   (default: 20000 on the first platform)
// With "chain" each launch depends on the one before it (empty_kernel.h).
// ENQUEUE_RATE_FINISH_EVERY=K adds a clFinish after every K launches: the steady state where
// completions keep up with the launches (for an instruction profile under callgrind, whose
// one-thread-at-a-time scheduling otherwise leaves every launch in flight).
// ENQUEUE_RATE_EXIT=1 exits right after the launches, without clFinish or releases (as
// apps that do not clean up do): every launch must still reach the driver.
// ENQUEUE_RATE_PROFILING=1 makes the queue a profiling one (Tutti's real queues are): what
// that alone costs a driver per launch, with no event asked for.
#include "empty_kernel.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  EmptyKernel ek;
  bool chain = argc > 3 && std::strcmp(argv[3], "chain") == 0;
  const char *prof = std::getenv("ENQUEUE_RATE_PROFILING");
  const cl_command_queue_properties props = prof && std::atoi(prof) ? CL_QUEUE_PROFILING_ENABLE : 0;
  if (!ek.open(argc > 2 ? argv[2] : "", props, chain)) return 2;
  char dev[256] = "";
  clGetDeviceInfo(ek.device, CL_DEVICE_NAME, sizeof dev, dev, nullptr);
  cl_command_queue q = ek.queue;
  cl_kernel k = ek.kernel;
  size_t g = 256, l = 64;
  for (int i = 0; i < 100; ++i) clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  clFinish(q);
  const char *every = std::getenv("ENQUEUE_RATE_FINISH_EVERY");
  const int finishEvery = every ? std::atoi(every) : 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    if (clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr) != CL_SUCCESS) return 1;
    if (finishEvery > 0 && (i + 1) % finishEvery == 0) clFinish(q);
  }
  auto t1 = std::chrono::steady_clock::now();
  const char *exitNow = std::getenv("ENQUEUE_RATE_EXIT");
  if (exitNow && std::atoi(exitNow)) std::exit(0);
  clFinish(q);
  auto t2 = std::chrono::steady_clock::now();
  double enq = std::chrono::duration<double>(t1 - t0).count();
  double all = std::chrono::duration<double>(t2 - t0).count();
  std::printf("RESULT platform=\"%s\" device=\"%s\" enqueues=%d enqueue_us=%.2f per_launch_us=%.2f "
              "launches_per_s=%.0f\n", ek.platform, dev, n, enq / n * 1e6, all / n * 1e6, n / all);
  return 0;
}
