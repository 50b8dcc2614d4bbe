// reaper.cpp - the thread that frees backing objects for clReleaseContext (reaper.h).
#include "reaper.h"

#include <pthread.h>

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

struct Reaper {
  Mutex mu;
  std::condition_variable_any cv;
  std::deque<std::function<void()>> jobs GUARDED_BY(mu);
  uint64_t posted GUARDED_BY(mu) = 0, finished GUARDED_BY(mu) = 0;
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
  new (&r.jobs) std::deque<std::function<void()>>;
  new (&r.cv) std::condition_variable_any;
  r.posted = r.finished = 0;
  r.started = r.stopped = false;
  r.mu.unlock();
}

void run(Reaper *r) {
  MutexLock l(r->mu);
  for (;;) {
    while (r->jobs.empty() || r->stopped) r->cv.wait(l);
    std::function<void()> job = std::move(r->jobs.front());
    r->jobs.pop_front();
    l.unlock();
    job();
    job = nullptr;  // what it captured goes before the job counts as finished
    l.lock();
    ++r->finished;
    r->cv.notify_all();
  }
}

// Registered when the thread starts, so after the drivers' own exit handlers (they were
// loaded before any context was made): it runs before them.
void stopAtExit() {
  Reaper &r = reaper();
  MutexLock l(r.mu);
  if (r.stopped) return;
  r.stopped = true;
  r.finished += r.jobs.size();  // dropped: reapAll's waiters return
  // The jobs stay listed (reachable, so leak checkers do not report what they hold).
  r.cv.notify_all();
  while (r.finished != r.posted) r.cv.wait(l);
}

}  // namespace

void reapLater(std::function<void()> fn) {
  Reaper &r = reaper();
  MutexLock l(r.mu);
  if (r.stopped) return;  // exiting: the process's end frees it
  if (!r.started) {
    try {
      std::thread(run, &r).detach();
    } catch (...) {
      l.unlock();
      fn();
      return;
    }
    r.started = true;
    if (!r.atExit) std::atexit(stopAtExit);  // a forked child has it already
    r.atExit = true;
  }
  while (r.jobs.size() >= kBacklog && !r.stopped) r.cv.wait(l);
  if (r.stopped) return;
  r.jobs.push_back(std::move(fn));
  ++r.posted;
  r.cv.notify_all();
}

void reapAll() {
  Reaper &r = reaper();
  MutexLock l(r.mu);
  const uint64_t upTo = r.posted;
  while (r.finished < upTo) r.cv.wait(l);
}

}  // namespace tutti
