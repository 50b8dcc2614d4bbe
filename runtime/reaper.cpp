// reaper.cpp - the thread that frees backing objects for clReleaseContext (reaper.h).
#include "reaper.h"

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <new>
#include <thread>

#include "thread_annotations.h"

namespace tutti {

namespace {

constexpr size_t kBacklog = 8;  // jobs (a context's slots each) before posting waits
// How long a job waits before it runs: a process that exits sooner (a tiny app releases its
// context and ends) drops it. Its driver calls then never run, where run at once they were
// waited for at exit.
constexpr auto kGrace = std::chrono::milliseconds(100);

using Clock = std::chrono::steady_clock;

struct Job {
  std::function<void()> fn, atExit;
  Clock::time_point due;
};

struct Reaper {
  Mutex mu;
  std::condition_variable_any cv;
  std::deque<Job> jobs GUARDED_BY(mu);
  uint64_t posted GUARDED_BY(mu) = 0, finished GUARDED_BY(mu) = 0;
  int hurry GUARDED_BY(mu) = 0;  // callers of reapAll waiting: no grace
  bool started GUARDED_BY(mu) = false, stopped GUARDED_BY(mu) = false, atExit GUARDED_BY(mu) = false;
};

void beforeFork();
void afterForkInParent();
void afterForkInChild();

// Never destroyed: the thread may still wait on it while static destructors run.
Reaper &reaper() {
  static Reaper *r = [] {
    pthread_atfork(beforeFork, afterForkInParent, afterForkInChild);
    return new Reaper;
  }();
  return *r;
}

// A forked child has no reaper thread: its first job starts one. The parent's jobs are
// not its to run (they would release the parent's driver objects a second time).
void beforeFork() NO_THREAD_SAFETY_ANALYSIS { reaper().mu.lock(); }
void afterForkInParent() NO_THREAD_SAFETY_ANALYSIS { reaper().mu.unlock(); }
void afterForkInChild() NO_THREAD_SAFETY_ANALYSIS {
  Reaper &r = reaper();
  // The old list and waiters' state leak: nothing of them belongs to this process.
  new (&r.jobs) std::deque<Job>;
  new (&r.cv) std::condition_variable_any;
  r.posted = r.finished = 0;
  r.hurry = 0;
  r.started = r.stopped = false;
  r.mu.unlock();
}

void run(Reaper *r) {
  MutexLock l(r->mu);
  for (;;) {
    while (r->jobs.empty() || r->stopped) r->cv.wait(l);
    const Clock::time_point due = r->jobs.front().due;
    if (!r->hurry && r->jobs.size() < kBacklog && Clock::now() < due) {
      r->cv.wait_until(l, due);
      continue;
    }
    std::function<void()> fn = std::move(r->jobs.front().fn);
    r->jobs.pop_front();
    l.unlock();
    fn();
    fn = nullptr;  // what it captured goes before the job counts as finished
    l.lock();
    ++r->finished;
    r->cv.notify_all();
  }
}

// Registered when the thread starts, so after the drivers' own exit handlers (they were
// loaded before any context was made): it runs before them.
void stopAtExit() {
  Reaper &r = reaper();
  static std::deque<Job> *dropped = nullptr;  // kept, so that leak checkers still reach it
  {
    MutexLock l(r.mu);
    if (r.stopped) return;
    r.stopped = true;
    r.finished += r.jobs.size();  // reapAll's waiters return
    dropped = new std::deque<Job>(std::move(r.jobs));
    r.cv.notify_all();
  }
  for (Job &j : *dropped)
    if (j.atExit) j.atExit();
  MutexLock l(r.mu);
  while (r.finished != r.posted) r.cv.wait(l);
}

}  // namespace

void reapLater(std::function<void()> fn, std::function<void()> atExit) {
  Reaper &r = reaper();
  MutexLock l(r.mu);
  if (!r.stopped && !r.started) {
    try {
      std::thread(run, &r).detach();
      r.started = true;
      if (!r.atExit) std::atexit(stopAtExit);  // a forked child has it already
      r.atExit = true;
    } catch (...) {
    }
  }
  if (!r.started || r.stopped) {
    // No thread, or exiting (a static destructor releasing a context): now.
    l.unlock();
    fn();
    return;
  }
  while (r.jobs.size() >= kBacklog && !r.stopped) r.cv.wait(l);
  r.jobs.push_back({std::move(fn), std::move(atExit), Clock::now() + kGrace});
  ++r.posted;
  r.cv.notify_all();
}

void reapAll() {
  Reaper &r = reaper();
  MutexLock l(r.mu);
  const uint64_t upTo = r.posted;
  ++r.hurry;
  r.cv.notify_all();
  while (r.finished < upTo) r.cv.wait(l);
  --r.hurry;
}

}  // namespace tutti
