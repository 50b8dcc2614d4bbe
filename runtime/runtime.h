// runtime.h - the process-wide runtime: lock, object registry, scheduler, dispatcher.
#pragma once
#include <CL/cl.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "clock.h"
#include "command.h"
#include "objects.h"
#include "thread_annotations.h"
#include "trace.h"
#include "worker_pool.h"

namespace tutti {


// The live handles. Every launch adds and removes its event, so this is an open-addressing
// table (linear probing, deletion by backward shift): no allocation per handle, unlike a
// node-based map, and exact membership.
//
// Writers hold the API lock. validUnlocked reads without it, as a seqlock reader: the
// slots are atomics, every change is bracketed by an odd and an even sequence number, and a
// read that saw the number change (or odd) is retried or given up. Tables outgrown stay allocated
// until the registry goes, so a reader that loaded the old table reads memory that is
// still there (they are at most as large as the table in use, all together).
class HandleRegistry {
 public:
  HandleRegistry() = default;
  HandleRegistry(const HandleRegistry &) = delete;
  HandleRegistry &operator=(const HandleRegistry &) = delete;

  void add(void *h, ObjType t) {
    Table *tb = table_.load(std::memory_order_relaxed);
    if (!tb || (n_ + 1) * 2 > tb->cap) tb = grow();
    Write w(seq_);
    size_t i = find(*tb, h);
    if (!tb->at(i).h.load(std::memory_order_relaxed)) ++n_;
    tb->at(i).set(h, t);
  }
  void remove(void *h) {
    Table *tb = table_.load(std::memory_order_relaxed);
    if (!tb) return;
    size_t i = find(*tb, h);
    if (!tb->at(i).h.load(std::memory_order_relaxed)) return;
    if (tb->at(i).t.load(std::memory_order_relaxed) != ObjType::Event)
      retired_.store(retired_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    Write w(seq_);
    --n_;
    // Backward shift: move later entries of the probe run into the hole.
    size_t mask = tb->cap - 1;
    for (size_t j = (i + 1) & mask; const void *hj = tb->at(j).h.load(std::memory_order_relaxed);
         j = (j + 1) & mask) {
      size_t home = hash(hj) & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        tb->at(i).set(hj, tb->at(j).t.load(std::memory_order_relaxed));
        i = j;
      }
    }
    tb->at(i).set(nullptr, ObjType{});
  }
  // With the API lock held.
  bool valid(const void *h, ObjType t) const {
    const Table *tb = table_.load(std::memory_order_relaxed);
    return h && tb && lookup(*tb, h, t);
  }
  // Without the API lock: 1 valid, 0 not, -1 not known (a writer kept changing the table;
  // ask again under the lock).
  int validUnlocked(const void *h, ObjType t) const {
    if (!h) return 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
      uint64_t s0 = seq_.load(std::memory_order_acquire);
      if (s0 & 1) continue;
      const Table *tb = table_.load(std::memory_order_acquire);
      bool found = tb && lookup(*tb, h, t);
      if (seq_.load(std::memory_order_acquire) == s0) return found;
    }
    return -1;
  }
  // validUnlocked through a small per-thread cache of the handles it found. The unlocked
  // paths look up the same kernels and buffers call after call (several clSetKernelArg per
  // launch), and two table probes were a third of that call's cost. An entry holds until
  // a handle of any cached kind leaves the registry (retired_ moves); events, which come
  // and go with launches, are neither cached nor counted. So a hit is what a lookup would
  // have answered when the entry was made, and no handle it vouched for has gone since.
  int validCached(const void *h, ObjType t) const {
    uint64_t epoch = retired_.load(std::memory_order_acquire);
    if (hit(h, t, epoch)) return 1;
    return validAndCache(h, t, epoch);
  }
  // The cache alone: true is certain, false means "look it up".
  bool validInCache(const void *h, ObjType t) const {
    return hit(h, t, retired_.load(std::memory_order_acquire));
  }
  size_t size() const { return n_; }
  static size_t hash(const void *h) {
    return size_t((uintptr_t(h) >> 4) * 0x9E3779B97F4A7C15ull >> 16);
  }

 private:
  struct Slot {
    std::atomic<const void *> h{nullptr};
    std::atomic<ObjType> t{};
    // Release stores and acquire loads instead of a seqlock's fences (which ThreadSanitizer
    // does not model): a reader that sees a store also sees the odd sequence number before it.
    void set(const void *nh, ObjType nt) {
      h.store(nh, std::memory_order_release);
      t.store(nt, std::memory_order_release);
    }
  };
  struct Table {
    explicit Table(size_t c) : cap(c), slots(new Slot[c]) {}
    Slot &at(size_t i) { return slots[i]; }
    const Slot &at(size_t i) const { return slots[i]; }
    size_t cap;
    std::unique_ptr<Slot[]> slots;
  };
  // Marks the table as changing for lock-free readers (seqlock writer side).
  struct Write {
    explicit Write(std::atomic<uint64_t> &s) : seq(s) {
      seq.store(seq.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    ~Write() { seq.store(seq.load(std::memory_order_relaxed) + 1, std::memory_order_release); }
    std::atomic<uint64_t> &seq;
  };
  bool hit(const void *h, ObjType t, uint64_t epoch) const {
    const CacheEntry &e = t_validCache[hash(h) & (kCacheEntries - 1)];
    return e.h == h && e.registry == this && e.epoch == epoch && e.t == t;
  }
  __attribute__((noinline)) int validAndCache(const void *h, ObjType t, uint64_t epoch) const {
    int r = validUnlocked(h, t);
    if (r == 1 && t != ObjType::Event)
      t_validCache[hash(h) & (kCacheEntries - 1)] = CacheEntry{this, h, epoch, t};
    return r;
  }
  static size_t find(const Table &tb, const void *h) {  // h's slot, or the empty one where it would go
    size_t mask = tb.cap - 1, i = hash(h) & mask;
    for (const void *x; (x = tb.at(i).h.load(std::memory_order_relaxed)) && x != h;) i = (i + 1) & mask;
    return i;
  }
  // Bounded by the table's size: a lock-free reader may see a table mid-change.
  static bool lookup(const Table &tb, const void *h, ObjType t) {
    size_t mask = tb.cap - 1, i = hash(h) & mask;
    for (size_t n = 0; n < tb.cap; ++n, i = (i + 1) & mask) {
      const void *x = tb.at(i).h.load(std::memory_order_acquire);
      if (!x) return false;
      if (x == h) return tb.at(i).t.load(std::memory_order_acquire) == t;
    }
    return false;
  }
  Table *grow() {
    Table *old = table_.load(std::memory_order_relaxed);
    auto fresh = std::make_unique<Table>(old ? old->cap * 2 : 64);
    n_ = 0;
    if (old)
      for (size_t i = 0; i < old->cap; ++i)
        if (const void *h = old->at(i).h.load(std::memory_order_relaxed)) {
          fresh->at(find(*fresh, h)).set(h, old->at(i).t.load(std::memory_order_relaxed));
          ++n_;
        }
    Write w(seq_);
    Table *tb = fresh.get();
    tables_.push_back(std::move(fresh));
    table_.store(tb, std::memory_order_release);
    return tb;
  }
  std::atomic<Table *> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;  // every table made, the last in use
  std::atomic<uint64_t> seq_{0};
  std::atomic<uint64_t> retired_{0};  // non-event handles removed so far (validCached)
  size_t n_ = 0;

 public:
  static constexpr size_t kCacheEntries = 8;
  struct CacheEntry {
    const HandleRegistry *registry;
    const void *h;
    uint64_t epoch;
    ObjType t;
  };
  // Initial-exec like the other per-thread state (runtime.cpp): no __tls_get_addr per call;
  // __thread, not thread_local, so no initialisation wrapper is called on every access.
  __attribute__((tls_model("initial-exec"))) static __thread CacheEntry t_validCache[kCacheEntries];
};

class Runtime {
 public:
  // The runtime lock is apiMutex (thread_annotations.h): it guards every object and the
  // scheduler. Public functions called from unannotated code below the API layer assert
  // the lock instead of requiring it.
  std::condition_variable done;  // notified whenever an event's status changes (waits on apiMutex)

  // ---- registry: handles the app may pass back ----
  void add(void *h, ObjType t) {
    apiMutex.assertHeld();
    registry_.add(h, t);
  }
  void remove(void *h) {
    apiMutex.assertHeld();
    registry_.remove(h);
  }
  bool valid(const void *h, ObjType t) const {
    apiMutex.assertHeld();
    return registry_.valid(h, t);
  }
  // Without the lock (see HandleRegistry): 1 valid, 0 not, -1 ask again under the lock.
  int validUnlocked(const void *h, ObjType t) const NO_THREAD_SAFETY_ANALYSIS {
    return registry_.validUnlocked(h, t);
  }
  int validCached(const void *h, ObjType t) const NO_THREAD_SAFETY_ANALYSIS {
    return registry_.validCached(h, t);
  }
  bool validInCache(const void *h, ObjType t) const NO_THREAD_SAFETY_ANALYSIS {
    return registry_.validInCache(h, t);
  }
  size_t liveObjects() const {
    apiMutex.assertHeld();
    return registry_.size();
  }

  // ---- commands: made and freed under apiMutex, recycled (see newCommand) ----
  Command *newCommand();

  // ---- scheduler (call with apiMutex held) ----
  // Takes ownership of cmd; computes its dependencies from wait list and queue order.
  void enqueue(Command *cmd, const std::vector<_cl_event *> &waitList);
  // alone: TUTTI_MODE=mkmd's one held command goes at once, unscheduled (mkmdGoesNow).
  void flush(_cl_command_queue *q, bool alone = false);
  // Flushes the queues of evs and, in batch and MKMD modes, every queue holding a command
  // they depend on.
  void flushFor(const std::vector<_cl_event *> &evs);
  // Blocks (releasing apiMutex) until every event is complete or failed.
  cl_int wait(std::unique_lock<std::mutex> &lk, const std::vector<_cl_event *> &evs) REQUIRES(apiMutex);
  void setUserEventStatus(_cl_event *ev, cl_int status);
  // Someone will look at ev's completion: make sure the driver reports it.
  void needCompletion(_cl_event *ev);

  // ---- object lifetime (call with apiMutex held) ----
  void retain(ObjectHeader *o) {
    apiMutex.assertHeld();
    ++o->internal;
  }
  void release(ObjectHeader *o);          // drops an internal reference
  void releaseApp(ObjectHeader *o);       // drops an app reference
  // handle: the app may be given it (a launch's event the app did not ask for is not).
  _cl_event *newEvent(_cl_context *ctx, _cl_command_queue *q, cl_command_type type, bool handle = true);

  // Queues a user callback to run on the notifier thread, in order, without locks.
  void notify(std::function<void()> fn);
  // Runs fn after the calling API function has released the lock (same thread).
  void afterUnlock(std::function<void()> fn);
  void runAfterUnlock();

  void startThreads();

 private:
  // Scheduling is iterative, not recursive: commands that may now start go on a work
  // list drained by the outermost Scope, and finished commands are freed only after
  // the drain, so no Command pointer held by a caller dangles and long chains of
  // host-side commands cannot overflow the stack.
  class Scope {
   public:
    explicit Scope(Runtime &r) REQUIRES(apiMutex) : r_(r) { ++r_.depth_; }
    ~Scope() NO_THREAD_SAFETY_ANALYSIS {  // made under the lock, ends in the same scope
      if (r_.depth_ == 1) r_.drain();
      --r_.depth_;
    }
   private:
    Runtime &r_;
  };
  void kick(Command *cmd) REQUIRES(apiMutex) { runnable_.push_back(cmd); }
  void drain() REQUIRES(apiMutex);
  void tryStart(Command *cmd) REQUIRES(apiMutex);
  bool depsMetOn(Command *cmd, int slot) REQUIRES(apiMutex);
  int chainSlot(Command *cmd) REQUIRES(apiMutex);
  void inOrderPredecessors(_cl_event *e, std::vector<_cl_event *> &deps) REQUIRES(apiMutex);
  bool mkmdGoesNow(_cl_command_queue *q, Command *cmd) REQUIRES(apiMutex);
  void issue(Command *cmd) REQUIRES(apiMutex);
  void finish(Command *cmd, cl_int status) REQUIRES(apiMutex);
  void wakeWaiters(_cl_event *ev) REQUIRES(apiMutex);
  void reportInOrder(_cl_command_queue *q, _cl_event *finished) REQUIRES(apiMutex);
  void complete(_cl_event *ev, cl_int status) REQUIRES(apiMutex);
  void setStatus(_cl_event *ev, cl_int status) REQUIRES(apiMutex);
  void destroy(ObjectHeader *o) REQUIRES(apiMutex);
  void dispatcherLoop() EXCLUDES(apiMutex);
  void retryStaging() REQUIRES(apiMutex);
  void waitOutside(Command *cmd) REQUIRES(apiMutex);
  void finishIssuedBefore(DeviceSlot &ds, uint64_t order) REQUIRES(apiMutex);
  void collected(Command *cmd, cl_int status) REQUIRES(apiMutex);
  void runHostWork(Command *cmd) REQUIRES(apiMutex);
  void endIssued(Command *cmd, cl_int status) REQUIRES(apiMutex);
  void recycle(Command *cmd) REQUIRES(apiMutex);

  HandleRegistry registry_ GUARDED_BY(apiMutex);
  std::vector<Command *> staging_ GUARDED_BY(apiMutex);  // waiting for device->host copies
  std::deque<Command *> runnable_ GUARDED_BY(apiMutex);  // may start now (see Scope)
  std::vector<Command *> retired_ GUARDED_BY(apiMutex);  // finished, freed when the outermost Scope ends
  // Commands and events that finished on the runtime's own threads: an app thread's next
  // drain recycles the commands and frees the events (see drain).
  std::vector<Command *> graveCmds_ GUARDED_BY(apiMutex);
  std::vector<_cl_event *> graveEvents_ GUARDED_BY(apiMutex);
  std::vector<_cl_event *> depsScratch_ GUARDED_BY(apiMutex);  // enqueue's dependency list, kept
  std::vector<Command *> spareCmds_ GUARDED_BY(apiMutex);  // finished commands, reset, for reuse
  int depth_ GUARDED_BY(apiMutex) = 0;

  JobThread notifier_;  // user callbacks, in order, without locks
  JobThread hostWorker_;  // Command::hostWork, in order
  std::thread dispatcher_;
  bool started_ = false;
};

namespace detail {
extern std::atomic<Runtime *> g_runtime;  // set once made
Runtime &makeRuntime();
}  // namespace detail
// Inline: every API call asks for it, and a call with a guard check cost more than the
// load (clSetKernelArg's unlocked path is a few dozen instructions).
inline Runtime &runtime() {
  Runtime *r = detail::g_runtime.load(std::memory_order_acquire);
  return r ? *r : detail::makeRuntime();
}

// The lock every API function takes; runs afterUnlock work when it goes. With
// TUTTI_TRACE each API call is a span on the host lane, named after the caller, so a
// timeline shows where the app's thread spent its time (lock waits included). A scoped
// capability: unlock()/lock() around long work (builds) are checked like the lock itself.
class SCOPED_CAPABILITY ApiLock {
 public:
  explicit ApiLock(const char *caller = __builtin_FUNCTION()) ACQUIRE(apiMutex)
      : caller_(caller), t0_(tracing() ? nowNs() : 0), lk(apiMutex.native()) {}
  // For the runtime's own threads, which must not queue on the lock: a thread asleep on a
  // contended std::mutex turns every unlock by the app's thread into a futex wake (a
  // syscall and a wake-up that mostly loses the race again). Under call_cost's launch loop
  // on PoCL that was a sixth of each launch. They poll with try_lock, yielding in between,
  // and block only if the lock stays busy.
  struct Background {};
  explicit ApiLock(Background, const char *caller = __builtin_FUNCTION()) ACQUIRE(apiMutex)
      : caller_(caller), t0_(tracing() ? nowNs() : 0), lk(apiMutex.native(), std::defer_lock) {
    for (int i = 0; i < kPolls; ++i) {
      if (lk.try_lock()) return;
      std::this_thread::yield();
    }
    lk.lock();
  }
  ~ApiLock() RELEASE() {
    if (lk.owns_lock()) lk.unlock();
    runtime().runAfterUnlock();
    if (t0_ && caller_[0] == 'c' && caller_[1] == 'l') traceSpan(-1, "api", caller_, t0_, nowNs(), 0);
  }
  // Lets other threads in during long work that touches no shared state. Named as the
  // runtime lock itself, so helpers given an ApiLock & can say REQUIRES(apiMutex).
  void unlock() RELEASE(apiMutex) NO_THREAD_SAFETY_ANALYSIS { lk.unlock(); }
  void lock() ACQUIRE(apiMutex) NO_THREAD_SAFETY_ANALYSIS { lk.lock(); }

 private:
  static constexpr int kPolls = 256;
  const char *caller_;
  uint64_t t0_;

 public:
  std::unique_lock<std::mutex> lk;  // on apiMutex.native(), for Runtime::wait's condition variable
};

}  // namespace tutti
