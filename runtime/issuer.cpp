// issuer.cpp - a device queue's issuer thread (see issuer.h).
#include "issuer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <unistd.h>

#include "clock.h"
#include "icd.h"
#include "log.h"
#include "worker_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TUTTI_PAUSE() _mm_pause()
#else
#define TUTTI_PAUSE() std::this_thread::yield()
#endif

namespace tutti {

namespace {
// A stream of launches hands over a job every few microseconds, and stops for a few tens
// while the app's thread makes a launch that needs an event (one in TUTTI_ARM_EVERY): the
// thread spins this long before it sleeps, so that the stream pays no wake-up (a futex
// call, and the thread's return to a core). With 1,000 pauses (10-40 us) it slept at
// every armed launch on the H200 (108 times in 20,000 launches). An idle queue costs a
// core that long, once.
constexpr uint64_t kSpinNs = 200'000;
// A drain waits for driver calls already handed over: spin, then sleep.
constexpr int kSpins = 1000;
// Live issuers, so that a process that exits with launches still handed over makes them
// before the drivers' own exit handlers run: an app may exit without clFinish, and the
// driver would be torn down under a call in flight. The handler is registered after the
// drivers were loaded, so it runs before theirs.
struct Live {
  Mutex mu;
  std::vector<Issuer *> all GUARDED_BY(mu);
  bool atExit GUARDED_BY(mu) = false;
  pid_t pid = getpid();  // a forked child has the objects but not the threads
};
Live &live() {
  static Live *l = new Live();  // never destroyed: used from an exit handler
  return *l;
}

void drainAllAtExit() {
  Live &l = live();
  if (l.pid != getpid()) return;
  MutexLock g(l.mu);
  for (Issuer *is : l.all) is->drainFor(2'000'000'000);
}

}  // namespace

void IssueJob::setArg(cl_uint index, size_t size, const void *value) {
  Arg a;
  a.index = index;
  a.size = size;
  a.null = value == nullptr;
  a.at = data.size();
  if (value) data.insert(data.end(), static_cast<const unsigned char *>(value),
                         static_cast<const unsigned char *>(value) + size);
  args.push_back(a);
}

Issuer::Issuer(std::string device) : device_(std::move(device)), timed_(logEnabled(LogLevel::Info)) {
  Live &l = live();
  MutexLock g(l.mu);
  l.all.push_back(this);
  if (!l.atExit) std::atexit(drainAllAtExit);
  l.atExit = true;
}

Issuer::~Issuer() {
  {
    Live &l = live();
    MutexLock g(l.mu);
    l.all.erase(std::find(l.all.begin(), l.all.end(), this));
  }
  if (!thread_.joinable()) return;
  drain();
  {
    MutexLock g(mu_);
    stop_.store(true);
    work_.notify_one();
  }
  thread_.join();
  const uint64_t n = done_.load();
  if (timed_ && n)
    TUTTI_LOG(Info, "%s: issuer: %llu launches, %.2f us each in the driver, %.2f us each waiting for "
              "the next (%llu sleeps); the app's thread waited %.2f us each for a free slot", device_.c_str(),
              (unsigned long long)n, driverNs_ / 1e3 / double(n), idleNs_ / 1e3 / double(n),
              (unsigned long long)sleeps_, fullNs_ / 1e3 / double(n));
}

IssueJob &Issuer::next() {
  const uint64_t p = pushed_.load(std::memory_order_relaxed);
  if (p - doneSeen_ >= kRing) {
    doneSeen_ = done_.load(std::memory_order_acquire);
    // Full: wait for one slot, a driver call's time, within the spin. Waiting for more
    // (a quarter of the ring, 2dddf97) outlasts the spin and sleeps, and the thread then
    // pays a wake-up for every quarter.
    if (p - doneSeen_ >= kRing) {
      const uint64_t t0 = timed_ ? nowNs() : 0;
      waitForDone(p - kRing + 1);
      if (timed_) fullNs_ += nowNs() - t0;
      doneSeen_ = done_.load(std::memory_order_acquire);
    }
  }
  IssueJob &j = ring_[p % kRing];
  j.reset();
  return j;
}

void Issuer::publish() {
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  pushed_.fetch_add(1, std::memory_order_seq_cst);
  if (sleeping_.load(std::memory_order_seq_cst)) {
    MutexLock g(mu_);
    work_.notify_one();
  }
}

void Issuer::drain() { waitForDone(pushed_.load(std::memory_order_acquire)); }

bool Issuer::drainFor(uint64_t ns) {
  const uint64_t target = pushed_.load(std::memory_order_acquire), until = nowNs() + ns;
  while (done_.load(std::memory_order_acquire) < target) {
    if (nowNs() > until) {
      TUTTI_LOG(Warn, "%s: the issuer's launches did not reach the driver at exit", device_.c_str());
      return false;
    }
    std::this_thread::yield();
  }
  return true;
}

void Issuer::waitForDone(uint64_t target) {
  for (int i = 0; i < kSpins; ++i) {
    if (done_.load(std::memory_order_acquire) >= target) return;
    TUTTI_PAUSE();
  }
  MutexLock g(mu_);
  waiters_.fetch_add(1, std::memory_order_seq_cst);
  while (done_.load(std::memory_order_seq_cst) < target) drained_.wait(g);
  waiters_.fetch_sub(1, std::memory_order_relaxed);
}

void Issuer::run(IssueJob &j) {
  // After a failure every later job fails too: its arguments were sent as changes from what
  // the failed job was to set, which may not be set.
  if (cl_int first = firstError_.load(std::memory_order_relaxed)) {
    if (j.failed) j.failed->store(first, std::memory_order_release);
    return;
  }
  const cl_icd_dispatch &d = icd(j.kernel);
  cl_int err = CL_SUCCESS;
  for (const IssueJob::Arg &a : j.args) {
    err = d.clSetKernelArg(j.kernel, a.index, a.size, a.null ? nullptr : j.data.data() + a.at);
    if (err != CL_SUCCESS) {
      TUTTI_LOG(Error, "%s: clSetKernelArg %u for '%s' failed: %s", device_.c_str(), a.index, j.what,
                clErrorName(err));
      break;
    }
  }
  if (err == CL_SUCCESS) {
    err = icd(j.queue).clEnqueueNDRangeKernel(j.queue, j.kernel, j.dim, j.hasOffset ? j.offset : nullptr,
                                              j.global, j.hasLocal ? j.local : nullptr, 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      TUTTI_LOG(Error, "%s: clEnqueueNDRangeKernel of '%s' failed: %s", device_.c_str(), j.what,
                clErrorName(err));
  }
  if (err == CL_SUCCESS) return;
  if (j.failed) j.failed->store(err, std::memory_order_release);
  firstError_.store(err, std::memory_order_relaxed);
  failed_.store(true, std::memory_order_release);
}

void Issuer::loop() {
  markRuntimeThread();
  for (;;) {
    const uint64_t d = done_.load(std::memory_order_relaxed);
    int spins = 0;
    uint64_t idleFrom = 0;
    while (pushedSeen_ == d && (pushedSeen_ = pushed_.load(std::memory_order_acquire)) == d) {
      if (!idleFrom) idleFrom = nowNs();
      if (++spins % 64 || nowNs() - idleFrom < kSpinNs) {
        TUTTI_PAUSE();
        continue;
      }
      MutexLock g(mu_);
      sleeping_.store(true, std::memory_order_seq_cst);
      ++sleeps_;
      while (pushed_.load(std::memory_order_seq_cst) == d && !stop_.load()) work_.wait(g);
      sleeping_.store(false, std::memory_order_relaxed);
      if (pushed_.load() == d) return;  // stopping, and nothing is left
      spins = 0;
    }
    if (timed_) {
      const uint64_t t0 = nowNs();
      if (idleFrom) idleNs_ += t0 - idleFrom;  // includes sleeps
      run(ring_[d % kRing]);
      driverNs_ += nowNs() - t0;
    } else {
      run(ring_[d % kRing]);
    }
    done_.store(d + 1, std::memory_order_seq_cst);
    if (waiters_.load(std::memory_order_seq_cst)) {
      MutexLock g(mu_);
      drained_.notify_all();
    }
  }
}

}  // namespace tutti
