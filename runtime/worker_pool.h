// worker_pool.h - a process-wide pool of threads for splitting host copies, and threads that
// run jobs in order.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "thread_annotations.h"

namespace tutti {

// Runs fn(0) .. fn(parts-1) on the pool's threads and the caller's, and returns when
// all have run. Concurrent callers take turns. Starting a thread per copy cost more than
// a staged round's copy (tens of microseconds each), hence a pool.
void parallelFor(size_t parts, const std::function<void(size_t)> &fn);

// Runs fn(i) for each i in items at once: the first on the caller's thread, each other on
// a thread of its own, and returns when all have run. For calls into different drivers
// that block for long (program builds: PoCL's LLVM beside NVIDIA's PTX JIT), whose cost
// is then the slowest one's, not the sum.
template <class F>
void eachOnOwnThread(const std::vector<size_t> &items, F fn) {
  std::vector<std::thread> others;
  for (size_t k = 1; k < items.size(); ++k) others.emplace_back(fn, items[k]);
  if (!items.empty()) fn(items[0]);
  for (std::thread &t : others) t.join();
}

// Starts the pool's threads now (a context's creation) rather than in the first large
// copy, which the app may be timing (about 1 ms for 15 threads on the H100 machine).
void warmPool();

// One thread that runs posted jobs one at a time, in the order posted, started by the
// first post and never stopped (detached, like the pool's threads: process exit neither
// joins nor races it). A job may block; later ones wait for it.
class JobThread {
 public:
  void post(std::function<void()> fn) EXCLUDES(mu_);

 private:
  void loop() EXCLUDES(mu_);
  Mutex mu_;
  std::condition_variable_any cv_;
  std::deque<std::function<void()>> jobs_ GUARDED_BY(mu_);
  bool started_ GUARDED_BY(mu_) = false;
};

// True on the runtime's own threads (dispatcher, job threads); false on the app's.
bool onRuntimeThread();
void markRuntimeThread();

// Threads a parallelFor uses, the caller's included (TUTTI_COPY_THREADS, or the cores, at most 16).
unsigned poolThreads();

}  // namespace tutti
