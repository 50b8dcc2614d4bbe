// worker_pool.cpp - persistent threads behind parallelFor.
//
// The pool is created on first use and never destroyed: its threads are detached and
// sleep on a condition variable, so process exit neither joins nor races them.
#include "worker_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "settings.h"

namespace tutti {
namespace {

class Pool {
 public:
  explicit Pool(unsigned workers) {
    for (unsigned i = 0; i < workers; ++i) {
      try {
        std::thread([this] { loop(); }).detach();
      } catch (...) {  // fewer threads: the caller does more of the work
        break;
      }
    }
  }

  void run(size_t parts, const std::function<void(size_t)> &fn) {
    std::lock_guard<std::mutex> turn(turn_);
    Job job{&fn, parts};
    {
      std::lock_guard<std::mutex> l(mu_);
      job_ = &job;
      ++gen_;
    }
    cv_.notify_all();
    work(job);
    std::unique_lock<std::mutex> l(mu_);
    // A worker that picked the job up may still be between parts: it holds a reference.
    doneCv_.wait(l, [&] { return job.done == parts && job.users == 0; });
    job_ = nullptr;
  }

 private:
  struct Job {
    const std::function<void(size_t)> *fn;
    size_t parts;
    std::atomic<size_t> next{0};
    size_t done = 0;  // under mu_
    int users = 0;    // workers inside work(), under mu_
  };

  void work(Job &j) {
    for (;;) {
      size_t i = j.next.fetch_add(1);
      if (i >= j.parts) return;
      (*j.fn)(i);
      std::lock_guard<std::mutex> l(mu_);
      if (++j.done == j.parts) doneCv_.notify_all();
    }
  }

  void loop() {
    uint64_t seen = 0;
    for (;;) {
      Job *j;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return gen_ != seen && job_; });
        seen = gen_;
        j = job_;
        ++j->users;
      }
      work(*j);
      std::lock_guard<std::mutex> l(mu_);
      if (--j->users == 0 && j->done == j->parts) doneCv_.notify_all();
    }
  }

  std::mutex turn_, mu_;
  std::condition_variable cv_, doneCv_;
  Job *job_ = nullptr;
  uint64_t gen_ = 0;
};

Pool &pool() {
  static Pool *p = new Pool(poolThreads() - 1);  // never freed, see above
  return *p;
}

}  // namespace

unsigned poolThreads() {
  static const unsigned n = [] {
    unsigned want = unsigned(std::min<uint64_t>(settings().copy_threads, UINT32_MAX));
    if (!want) want = std::min(16u, std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1u, want);
  }();
  return n;
}

void warmPool() {
  if (poolThreads() > 1) pool();
}

void parallelFor(size_t parts, const std::function<void(size_t)> &fn) {
  if (parts == 0) return;
  if (parts == 1 || poolThreads() < 2) {
    for (size_t i = 0; i < parts; ++i) fn(i);
    return;
  }
  pool().run(parts, fn);
}

}  // namespace tutti
