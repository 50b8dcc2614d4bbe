// worker_pool.cpp - persistent threads behind parallelFor, and job threads.
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
#include "thread_annotations.h"

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
    MutexLock turn(turn_);
    Job job{&fn, parts};
    {
      MutexLock l(mu_);
      job_ = &job;
      ++gen_;
    }
    cv_.notify_all();
    work(job);
    MutexLock l(mu_);
    // A worker that picked the job up may still be between parts: it holds a reference.
    while (job.done != parts || job.users != 0) doneCv_.wait(l);
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
      MutexLock l(mu_);
      if (++j.done == j.parts) doneCv_.notify_all();
    }
  }

  void loop() {
    uint64_t seen = 0;
    for (;;) {
      Job *j;
      {
        MutexLock l(mu_);
        while (gen_ == seen || !job_) cv_.wait(l);
        seen = gen_;
        j = job_;
        ++j->users;
      }
      work(*j);
      MutexLock l(mu_);
      if (--j->users == 0 && j->done == j->parts) doneCv_.notify_all();
    }
  }

  Mutex turn_;  // one job at a time
  // Guards the current job and, through it, each Job's done and users (a Job is a
  // local of run(), so its fields cannot name this lock).
  Mutex mu_;
  std::condition_variable_any cv_, doneCv_;
  Job *job_ GUARDED_BY(mu_) = nullptr;
  uint64_t gen_ GUARDED_BY(mu_) = 0;
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

void JobThread::post(std::function<void()> fn) {
  MutexLock l(mu_);
  jobs_.push_back(std::move(fn));
  if (!started_) {
    std::thread([this] { loop(); }).detach();
    started_ = true;
  }
  cv_.notify_one();
}

namespace {
__attribute__((tls_model("initial-exec"))) thread_local bool t_runtimeThread = false;  // see t_afterUnlock
}  // namespace

bool onRuntimeThread() { return t_runtimeThread; }
void markRuntimeThread() { t_runtimeThread = true; }

void JobThread::loop() {
  markRuntimeThread();
  for (;;) {
    std::function<void()> fn;
    {
      MutexLock l(mu_);
      while (jobs_.empty()) cv_.wait(l);
      fn = std::move(jobs_.front());
      jobs_.pop_front();
    }
    fn();
  }
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
