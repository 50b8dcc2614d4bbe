// handoff_rate - whether a launch's driver call can leave the app's thread (issue 17).
//
// Under Tutti a whole launch on NVIDIA costs the driver's enqueue (about 5 us on the H200
// machine) plus Tutti's own code (about 1.5 us), one after the other on the app's thread.
// If a per-device thread made the driver calls instead, the two would overlap. This measures
// that premise natively, with no Tutti: N launches of an empty kernel, each preceded by W
// microseconds of busy work on the calling thread (standing in for Tutti's), made either on
// that thread ("direct") or handed through a single-producer ring to an issuer thread that
// calls the driver ("handoff"). Prints one RESULT line per mode.
//   handoff_rate [N [PLATFORM-SUBSTRING [W_US]]]   (default: 20000, first platform, 1.5)
#include "empty_kernel.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

void busy(double us) {
  const auto until = Clock::now() + std::chrono::nanoseconds(long(us * 1000));
  while (Clock::now() < until) {
  }
}

// One producer (the app's thread), one consumer (the issuer): a launch is a slot number.
struct Ring {
  static constexpr unsigned kSize = 4096;
  std::atomic<unsigned> head{0}, tail{0};  // head: next to issue; tail: next to fill
  std::atomic<bool> done{false};
  std::atomic<int> errors{0};
};

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const double work = argc > 3 ? std::atof(argv[3]) : 1.5;
  EmptyKernel ek;
  if (!ek.open(argc > 2 ? argv[2] : "", 0, false)) return 2;
  cl_command_queue q = ek.queue;
  cl_kernel k = ek.kernel;
  size_t g = 256, l = 64;
  for (int i = 0; i < 100; ++i) clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  clFinish(q);
  auto report = [&](const char *mode, Clock::time_point t0, Clock::time_point t1) {
    double s = std::chrono::duration<double>(t1 - t0).count();
    std::printf("RESULT platform=\"%s\" mode=%s work_us=%.2f launches=%d per_launch_us=%.2f\n", ek.platform, mode,
                work, n, s / n * 1e6);
  };
  // Direct: the work, then the driver call, on this thread.
  auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    busy(work);
    if (clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr) != CL_SUCCESS) return 1;
  }
  clFinish(q);
  report("direct", t0, Clock::now());
  // Handoff: the work here, the driver call on the issuer.
  Ring ring;
  std::thread issuer([&] {
    for (;;) {
      unsigned h = ring.head.load(std::memory_order_relaxed);
      if (h == ring.tail.load(std::memory_order_acquire)) {
        if (ring.done.load(std::memory_order_acquire) && h == ring.tail.load(std::memory_order_acquire)) return;
        std::this_thread::yield();
        continue;
      }
      if (clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr) != CL_SUCCESS) ++ring.errors;
      ring.head.store(h + 1, std::memory_order_release);
    }
  });
  t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    busy(work);
    unsigned t = ring.tail.load(std::memory_order_relaxed);
    while (t - ring.head.load(std::memory_order_acquire) >= Ring::kSize) std::this_thread::yield();
    ring.tail.store(t + 1, std::memory_order_release);
  }
  ring.done.store(true, std::memory_order_release);
  issuer.join();
  clFinish(q);
  report("handoff", t0, Clock::now());
  return ring.errors.load() ? 1 : 0;
}
