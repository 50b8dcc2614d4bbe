// runtime.cpp - object lifetime, event status, dependency graph and the dispatcher.
#include "runtime.h"

#include <algorithm>
#include <unordered_set>
#include <new>
#include <utility>

#include "backend.h"
#include "coherence.h"
#include "completion.h"
#include "failover.h"
#include "graph.h"
#include "icd.h"
#include "inbox.h"
#include "issue.h"
#include "lifetime.h"
#include "mkmd_plan.h"
#include "mkmd_record.h"
#include "plan.h"
#include "log.h"
#include "settings.h"

namespace tutti {

namespace {
std::mutex g_objMu;  // objects are made and freed under the API lock, but not only
// Memory out of the quarantine, by object size (a handful of object types).
struct FreeBlocks { size_t size = 0; std::vector<void *> blocks; };
// Never destroyed, like the runtime: driver threads may free objects during exit.
FreeBlocks *const g_free = new FreeBlocks[16];
constexpr size_t kFreeCap = 16384;  // blocks kept per size; more go back to malloc
// TUTTI_MODE=mkmd: windows' worth of commands a queue streams after a graph that stayed on
// one device, before it holds one window again to see whether the app's graph changed.
constexpr uint64_t kMkmdStreamWindows = 4;
}  // namespace

void *objectAlloc(size_t n) {
#if !defined(__SANITIZE_ADDRESS__)
  std::lock_guard<std::mutex> g(g_objMu);
  for (FreeBlocks *f = g_free; f != g_free + 16; ++f)
    if (f->size == n && !f->blocks.empty()) {
      void *p = f->blocks.back();
      f->blocks.pop_back();
      return p;
    }
#endif
  return ::operator new(n);
}

void freeObject(void *p, size_t n) {
#if !defined(__SANITIZE_ADDRESS__)
  std::lock_guard<std::mutex> g(g_objMu);
  for (FreeBlocks *f = g_free; f != g_free + 16; ++f)
    if (f->size == n || f->size == 0) {
      f->size = n;
      if (f->blocks.size() < kFreeCap) {
        f->blocks.push_back(p);
        return;
      }
      break;
    }
#endif
  ::operator delete(p);
}

void quarantineFree(void *p, size_t n) {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer keeps its own quarantine and reports any later use precisely.
  (void)n;
  ::operator delete(p);
  return;
#endif
  // A fixed ring: the newest 4096 freed objects wait, and no free allocates.
  struct Held { void *p; size_t n; };
  static Held ring[4096];
  static size_t next = 0;
  Held oldest;
  {
    std::lock_guard<std::mutex> g(g_objMu);
    oldest = ring[next];
    ring[next] = {p, n};
    next = (next + 1) % 4096;
  }
  if (oldest.p) freeObject(oldest.p, oldest.n);
}

// No app handle ever named an unregistered event, so nothing stale can find its memory:
// it skips the quarantine, and the next launch's event reuses it while it is in cache.
void deleteEvent(_cl_event *e) {
  if (e->registered) {
    delete e;
    return;
  }
  e->~_cl_event();
  freeObject(e, sizeof(_cl_event));
}

__thread HandleRegistry::CacheEntry HandleRegistry::t_validCache[HandleRegistry::kCacheEntries];

namespace detail {
std::atomic<Runtime *> g_runtime{nullptr};

Runtime &makeRuntime() {
  static Runtime *r = new Runtime();  // never destroyed: drivers may call back at exit
  g_runtime.store(r, std::memory_order_release);
  return *r;
}
}  // namespace detail

namespace {
// Initial-exec: read by every API call's unlock, and the general dynamic model's
// __tls_get_addr showed in a launch's profile. A few bytes of the static TLS that glibc
// keeps for libraries loaded later (Tutti as an ICD vendor library is dlopened).
__attribute__((tls_model("initial-exec"))) thread_local std::vector<std::function<void()>> t_afterUnlock;
}  // namespace

void Runtime::afterUnlock(std::function<void()> fn) { t_afterUnlock.push_back(std::move(fn)); }

void Runtime::runAfterUnlock() {
  while (!t_afterUnlock.empty()) {
    auto batch = std::move(t_afterUnlock);
    t_afterUnlock.clear();
    for (auto &f : batch) f();
  }
}

void Runtime::startThreads() {
  if (started_) return;
  started_ = true;
  dispatcher_ = std::thread([this] { dispatcherLoop(); });
  dispatcher_.detach();
}

void Runtime::notify(std::function<void()> fn) { notifier_.post(std::move(fn)); }

void Runtime::dispatcherLoop() {
  markRuntimeThread();
  for (;;) {
    std::vector<Command *> done;
    bool retry;
    inbox().take(done, retry);
    ApiLock lock{ApiLock::Background{}};
    Scope scope(*this);
    for (Command *cmd : done) {
      for (Command *earlier : completedBefore(cmd)) collected(earlier, collectRealCompletion(earlier));
      collected(cmd, collectRealCompletion(cmd));
    }
    if (retry) retryStaging();
  }
}

// ---------------------------------------------------------------- lifetime

_cl_event *Runtime::newEvent(_cl_context *ctx, _cl_command_queue *q, cl_command_type type, bool handle) {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  auto *ev = new _cl_event();
  ev->ctx = ctx;
  ev->queue = q;
  ev->cmdType = type;
  ev->timed = q && q->profiling();
  if (ev->timed) ev->tQueued = nowNs();
  ev->registered = handle;
  if (handle) add(ev, ObjType::Event);
  retain(ctx);
  if (q) retain(q);
  return ev;
}

void Runtime::releaseApp(ObjectHeader *o) {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  if (o->refs == 0) return;
  if (--o->refs == 0) {
    if (o->registered) remove(o);  // the handle is no longer valid for the app
    if (o->internal == 0) destroy(o);
  }
}

void Runtime::release(ObjectHeader *o) {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  if (o->internal == 0) return;
  if (--o->internal == 0 && o->refs == 0) destroy(o);
}

void Runtime::destroy(ObjectHeader *o) {
  switch (o->objType) {
    case ObjType::Event: {
      auto *ev = static_cast<_cl_event *>(o);
      if (ev->queue) release(ev->queue);
      release(ev->ctx);
      if (onRuntimeThread()) graveEvents_.push_back(ev);  // see drain
      else deleteEvent(ev);
      break;
    }
    case ObjType::Mem: destroyMem(*this, static_cast<_cl_mem *>(o)); break;
    case ObjType::Kernel: destroyKernel(*this, static_cast<_cl_kernel *>(o)); break;
    case ObjType::Program: destroyProgram(*this, static_cast<_cl_program *>(o)); break;
    case ObjType::Queue: destroyQueue(*this, static_cast<_cl_command_queue *>(o)); break;
    case ObjType::Sampler: destroySampler(*this, static_cast<_cl_sampler *>(o)); break;
    case ObjType::Context: destroyContext(*this, static_cast<_cl_context *>(o)); break;
    case ObjType::Platform:
    case ObjType::Device: break;  // static
  }
}

// ---------------------------------------------------------------- events

void Runtime::setStatus(_cl_event *ev, cl_int status) {
  if (ev->status == status || ev->status <= CL_COMPLETE) return;
  cl_int old = ev->status;
  ev->status = status;
  if (status <= CL_COMPLETE) ev->finalStatus.store(status, std::memory_order_release);
  if (ev->timed) {
    uint64_t t = nowNs();
    if (status <= CL_SUBMITTED && !ev->tSubmit) ev->tSubmit = t;
    if (status <= CL_RUNNING && !ev->tStart) ev->tStart = t;
    if (status <= CL_COMPLETE) {
      if (!ev->tEnd) ev->tEnd = t;
      ev->tComplete = t;
    }
  }
  // Callbacks registered for a state fire once that state (or a later one) is reached.
  for (auto &cb : ev->callbacks) {
    if (cb.fn && cb.type >= status && cb.type < old) {
      auto fn = reinterpret_cast<void(CL_CALLBACK *)(cl_event, cl_int, void *)>(cb.fn);
      void *user = cb.user;
      cl_int reported = status < 0 ? status : cb.type;
      retain(ev);
      notify([this, fn, ev, reported, user] {
        fn(ev, reported, user);
        ApiLock l;
        release(ev);
      });
      cb.fn = nullptr;
    }
  }
  if (status <= CL_COMPLETE) done.notify_all();
}

void Runtime::complete(_cl_event *ev, cl_int status) {
  setStatus(ev, status < 0 ? status : CL_COMPLETE);
}

void Runtime::setUserEventStatus(_cl_event *ev, cl_int status) {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  Scope scope(*this);
  ev->done = true;
  complete(ev, status);
  wakeWaiters(ev);
}

void Runtime::needCompletion(_cl_event *ev) {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  // The app sees a queue's commands complete in order, so all before ev must report.
  // Arming the whole queue covers every event in it, so a clFinish over n events or a
  // status poll in a loop walks the queue once, not once per event or per poll.
  if (ev->reportAsked) return;
  if (ev->cmd) armCompletion(ev->cmd);
  if (!ev->queue) {
    ev->reportAsked = true;
    return;
  }
  // Events of a queue are asked in a prefix of its in-flight list (every walk asks all of
  // it, later enqueues append), so the walk from the back stops at the first asked one:
  // an app that polls each new event pays for the events enqueued since, not for all in
  // flight.
  auto &f = ev->queue->inFlight;
  for (auto it = f.rbegin(); it != f.rend() && !(*it)->reportAsked; ++it) {
    (*it)->reportAsked = true;
    if ((*it)->cmd) armCompletion((*it)->cmd);
  }
  ev->reportAsked = true;  // complete already, so no longer listed
}

cl_int Runtime::wait(std::unique_lock<std::mutex> &lk, const std::vector<_cl_event *> &evs) {
  for (auto *e : evs) retain(e);
  flushFor(evs);
  // Blocking transfers and driver waits of the commands just issued run now, with the
  // lock released (IssueResult::Outside): other threads go on meanwhile. Before anything
  // is armed: what they finish on their queues needs no driver callback then (NVIDIA's
  // come 12-20 ms late; finishIssuedBefore).
  lk.unlock();
  runAfterUnlock();
  lk.lock();
  {
    Scope scope(*this);
    for (auto *e : evs) needCompletion(e);
  }
  done.wait(lk, [&] {
    // Woken with the lock held again (apiMutex is the mutex lk holds).
    return std::all_of(evs.begin(), evs.end(),
                       [](_cl_event *e) REQUIRES(apiMutex) { return e->status <= CL_COMPLETE; });
  });
  bool failed = std::any_of(evs.begin(), evs.end(), [](_cl_event *e) REQUIRES(apiMutex) { return e->status < 0; });
  for (auto *e : evs) release(e);
  return failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
}

// Batch and MKMD modes hold a queue's commands until it is flushed. A waited command may
// depend on commands held in other queues (another thread's events in its wait list): the
// spec asks the app to flush those, but drivers that submit at once forgive it, and so
// must Tutti, or the wait never ends (Soak hung in both modes). The walk visits only
// commands not yet issued, so it costs what is still pending, not the app's history.
void Runtime::flushFor(const std::vector<_cl_event *> &evs) {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  const Settings &st = settings();
  if (!st.batch && st.mode != KernelMode::Mkmd) {
    for (auto *e : evs)
      if (e->queue) flush(e->queue);
    return;
  }
  std::vector<_cl_event *> todo(evs.begin(), evs.end());
  std::unordered_set<_cl_event *> seen(todo.begin(), todo.end());
  std::vector<_cl_command_queue *> queues;
  while (!todo.empty()) {
    _cl_event *e = todo.back();
    todo.pop_back();
    if (e->done || !e->cmd) continue;
    Command *c = e->cmd;
    if (c->state != Command::State::Held && c->state != Command::State::Waiting) continue;
    if (c->state == Command::State::Held && e->queue &&
        std::find(queues.begin(), queues.end(), e->queue) == queues.end())
      queues.push_back(e->queue);
    for (_cl_event *d : c->deps)
      if (seen.insert(d).second) todo.push_back(d);
  }
  for (auto *e : evs)
    if (e->queue && std::find(queues.begin(), queues.end(), e->queue) == queues.end()) queues.push_back(e->queue);
  for (auto *q : queues) flush(q);
}

// ---------------------------------------------------------------- graph

void Runtime::enqueue(Command *cmd, const std::vector<_cl_event *> &waitList) {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  Scope scope(*this);
  _cl_command_queue *q = cmd->q;
  retain(q);
  retain(cmd->ev);  // held by the command until it completes
  cmd->ev->cmd = cmd;
  // Scratch kept across launches (swapped out, so a nested enqueue still gets its own).
  std::vector<_cl_event *> deps;
  deps.swap(depsScratch_);
  deps.assign(waitList.begin(), waitList.end());
  for (_cl_event *e : waitList)
    if (e->queue != q) inOrderPredecessors(e, deps);  // on q itself queue order holds already
  // MKMD: a write with nothing held before it on its queue goes now, as in whole mode.
  // Held, its copy waited for the app's first wait (BiCGSTAB's and Jacobi's inputs on two
  // H200s: 0.57x and 0.61x of whole mode); the schedule then finds the data where the write
  // put them (MkmdGraphBuilder::bufferOf).
  const Settings &st = settings();
  const bool mkmd = st.mode == KernelMode::Mkmd && !q->mkmdStream;
  const bool writeFirst = (cmd->kind == CmdKind::Write || cmd->kind == CmdKind::WriteRect) && q->held.empty();
  const bool goesNow = mkmd && (writeFirst || mkmdGoesNow(q, cmd));
  // A launch that goes now needs no byte ranges: it is issued behind what it may touch, as
  // in whole mode. The hulls of each new launch shape put K-means's first kernel under MKMD
  // 37 us behind whole mode's on an H200, its GPU idle meanwhile (issue 19).
  cmd->ordersWhole = goesNow && cmd->kind == CmdKind::Kernel;
  graphDependencies(cmd, deps);
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  for (auto *d : deps) {
    retain(d);
    cmd->deps.push_back(d);
    if (!d->done) {
      d->waiters.push_back(cmd);
      ++cmd->unmetDeps;
    }
  }
  deps.clear();
  depsScratch_.swap(deps);
  mkmdRecord(cmd);
  q->inFlight.push_back(cmd->ev);
  q->inFlightCount.store(q->inFlight.size(), std::memory_order_release);
  q->held.push_back(cmd);
  TUTTI_LOG(Debug, "enqueue %p kind %d, %zu deps (%zu unmet)", (void *)cmd, int(cmd->kind),
            cmd->deps.size(), cmd->unmetDeps);
  // MKMD holds commands for its graph until the app flushes, finishes or waits.
  if (mkmd) {
    if (goesNow) flush(q, true);
    else if (mkmdWindowFull(q->held)) flush(q);
  } else if (!st.batch) {
    flush(q);
  }
}

// MKMD: whether cmd, the only command held on q, goes at once, unscheduled, where whole mode
// puts it (TUTTI_MKMD_EAGER): a command that is not a kernel, or a kernel predicted to take
// less than TUTTI_MKMD_TINY_US. Held, they left the devices idle while a window filled
// (BiCGSTAB's first window kept an H100 idle 0.6 ms, K-means's started it 0.27 ms late on
// two H200s), and kernels that short gain less from a schedule than it costs. Longer
// kernels are held and scheduled as a graph. Going at once only when nothing is held keeps
// the queue's order: a held command is never overtaken. Asked before cmd is held.
bool Runtime::mkmdGoesNow(_cl_command_queue *q, Command *cmd) {
  return settings().mkmd_eager && q->held.empty() && (cmd->kind != CmdKind::Kernel || mkmdTiny(cmd));
}

// An in-order queue's commands run in the order their data need, and the app sees them
// complete in queue order (reportInOrder). A command that waits for one of them waits for
// what the app sees: that event complete, so every earlier command of its queue done as
// well, not only its own work (Soak.ThreadsMixedCommandsMatchTheModel: a write that ran
// ahead of a fill still waiting for another queue's kernel let a copy that waited for
// the write read bytes that kernel had yet to write).
// Cost: the events before e still in flight on its queue; apps that wait on another
// in-order queue's latest event while thousands of commands are pending there pay that.
void Runtime::inOrderPredecessors(_cl_event *e, std::vector<_cl_event *> &deps) {
  _cl_command_queue *q = e->queue;
  if (!q || !q->inOrder() || e->status == CL_COMPLETE || e->status < 0) return;
  for (_cl_event *p : q->inFlight) {
    if (p == e) break;
    if (!p->done) deps.push_back(p);
  }
}

void Runtime::flush(_cl_command_queue *q, bool alone) {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  Scope scope(*this);
  if (settings().mode == KernelMode::Mkmd && !q->held.empty()) {
    if (q->mkmdStream) {
      uint64_t n = std::min<uint64_t>(q->mkmdStream, q->held.size());
      q->mkmdStream -= n;
      mkmdStreamed(n);
    } else if (alone) {
      mkmdWentAtOnce(q->held.size());
    } else if (mkmdScheduleHeld(q->held)) {
      q->mkmdStream = kMkmdStreamWindows * std::max<uint64_t>(settings().mkmd_window, 1);
    }
  }
  // In place: nothing below adds to q->held (setStatus only queues callbacks, kick only
  // lists the command), and moving a std::deque out allocates a new one each time.
  for (Command *c : q->held) {
    c->state = Command::State::Waiting;
    setStatus(c->ev, CL_SUBMITTED);
  }
  for (Command *c : q->held) kick(c);
  q->held.clear();
}

void Runtime::drain() {
  while (!runnable_.empty()) {
    Command *c = runnable_.front();
    runnable_.pop_front();
    tryStart(c);
  }
  // What the app's thread allocated is freed there too. glibc returns a chunk freed on
  // another thread to the arena it came from, under that arena's lock, which the app's
  // thread takes for its own allocations: the dispatcher freeing each launch's command and
  // event made the app's launches wait on malloc's lock (perf, call_cost on PoCL).
  if (onRuntimeThread()) {
    graveCmds_.insert(graveCmds_.end(), retired_.begin(), retired_.end());
  } else {
    for (Command *c : graveCmds_) recycle(c);
    for (_cl_event *e : graveEvents_) deleteEvent(e);
    for (Command *c : retired_) recycle(c);
    graveCmds_.clear();
    graveEvents_.clear();
  }
  retired_.clear();
}

// A launch's command is a few hundred bytes with a dozen members that allocate: making
// one with new and freeing it with delete was a fifth of Tutti's own time per launch
// (perf, enqueue_rate over tally_icd's no-op launches). A finished command is reset and
// kept, with the capacity of its argument and buffer lists, for the next one.
Command *Runtime::newCommand() {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  if (spareCmds_.empty()) return new Command();
  Command *c = spareCmds_.back();
  spareCmds_.pop_back();
  return c;
}

void Runtime::recycle(Command *c) {
  constexpr size_t kSpareCap = 1024;  // a burst's worth; more go back to malloc
  if (spareCmds_.size() >= kSpareCap) {
    delete c;
    return;
  }
  std::vector<ArgValue> args = std::move(c->args);
  std::vector<_cl_mem *> mems = std::move(c->mems);
  args.clear();
  mems.clear();
  c->~Command();
  new (c) Command();
  c->args = std::move(args);
  c->mems = std::move(mems);
  spareCmds_.push_back(c);
}

bool Runtime::depsMetOn(Command *cmd, int slot) {
  for (auto *d : cmd->deps) {
    if (d->done) continue;
    // A command issued to the same in-order device queue is ordered before us already.
    if (slot >= 0 && d->cmd && d->cmd->state == Command::State::Issued && !d->cmd->outside &&
        d->cmd->slot == slot && d->ctx == cmd->ev->ctx)
      continue;
    return false;
  }
  return true;
}

// A read (or read-only map) that waits only for commands issued to one in-order device
// queue can start now: what it copies from a device goes through the queues that hold
// the bytes (behind those commands), and what it copies from the home are bytes those
// commands do not write (validity says so). Waiting for the driver's completion
// callback instead cost 12-20 ms per wait on the H100. Commands that write the home
// may not: an upload from the home may still be reading it (ThreadSanitizer caught a
// write chained behind a launch whose input upload was in flight).
//
// A marker or barrier whose unfinished work is all on one device queue chains there too
// and stands for that queue's position (its slot is set): commands after it on the same
// device follow it at once, instead of each barrier waiting for a driver callback before
// anything after it may start (dep_chain barrier: every kernel+barrier pair cost a
// callback round trip). It still reports complete only once what it waits for is done.
int Runtime::chainSlot(Command *cmd) {
  switch (cmd->kind) {
    case CmdKind::Read: case CmdKind::ReadRect: case CmdKind::Marker: break;
    case CmdKind::Map:
      if (cmd->mapFlags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) return -1;
      break;
    default: return -1;
  }
  int slot = -1;
  for (auto *d : cmd->deps) {
    if (d->done) continue;
    Command *c = d->cmd;
    if (!c || c->state != Command::State::Issued || c->outside || c->skmd || c->slot < 0 ||
        d->ctx != cmd->ev->ctx || (slot >= 0 && c->slot != slot))
      return -1;
    slot = c->slot;
  }
  return slot;
}

void Runtime::tryStart(Command *cmd) {
  if (cmd->state != Command::State::Waiting) return;
  for (auto *d : cmd->deps)
    if (d->done && (d->failure < 0 || d->status < 0)) {
      cmd->state = Command::State::Issued;
      finish(cmd, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      return;
    }
  int slot = -1;
  if (cmd->unmetDeps) {
    // Only device commands may chain behind unfinished work on their own device; so may
    // host-side buffer commands whose unfinished work is all on one device queue.
    planCommand(cmd, false);
    slot = cmd->slot;
    if (slot < 0) slot = chainSlot(cmd);
    if (slot < 0 || !depsMetOn(cmd, slot)) {
      for (auto *d : cmd->deps)
        if (!d->done && d->cmd) armCompletion(d->cmd);
      return;
    }
    // Chained behind same-device work: it may be issued now, and stays among those
    // events' waiters so that it reports running and complete only after them.
    if (cmd->kind == CmdKind::Marker) cmd->slot = slot;
  }
  cmd->state = Command::State::Ready;
  issue(cmd);
}

void Runtime::issue(Command *cmd) {
  IssueResult r = planCommand(cmd, true) ? issueCommand(cmd) : IssueResult{IssueResult::Staging};
  if (r.kind == IssueResult::Staging && cmd->hostWork) {
    cmd->state = Command::State::Staging;
    runHostWork(cmd);
    return;
  }
  // Staging with nothing in flight means a host-side failure (no home memory).
  if (r.kind == IssueResult::Staging && cmd->staging.empty())
    r = {IssueResult::Done, cmd->stagingError ? cmd->stagingError : CL_OUT_OF_HOST_MEMORY};
  TUTTI_LOG(Debug, "command %p (kind %d) -> %s on slot %d", (void *)cmd, int(cmd->kind),
            r.kind == IssueResult::Issued    ? "issued"
            : r.kind == IssueResult::Staging ? "staging"
            : r.kind == IssueResult::Outside ? "left to run outside the lock"
                                             : "done",
            cmd->slot);
  switch (r.kind) {
    case IssueResult::Staging:
      cmd->state = Command::State::Staging;
      staging_.push_back(cmd);
      if (cmd->blocking) waitOutside(cmd);
      return;
    case IssueResult::Outside:
      cmd->state = Command::State::Issued;
      cmd->outside = true;
      if (!cmd->unmetDeps) setStatus(cmd->ev, CL_RUNNING);
      retain(cmd->ev);
      {
        // Work issued on those queues before the job's transfers is done once they are.
        std::vector<std::pair<int, uint64_t>> before;
        for (int s : r.through) before.push_back({s, slotOf(cmd, s).issueOrder});
        afterUnlock([this, ev = cmd->ev, job = std::move(r.job), before] {
          cl_int st = job();
          ApiLock lock;
          Scope scope(*this);
          for (auto [s, order] : before) finishIssuedBefore(ev->ctx->slots[s], order);
          if (ev->cmd->landedOutside) std::exchange(ev->cmd->landedOutside, nullptr)();
          finish(ev->cmd, st);
          release(ev);
        });
      }
      return;
    case IssueResult::Issued:
      cmd->state = Command::State::Issued;
      if (!cmd->unmetDeps) setStatus(cmd->ev, CL_RUNNING);
      if (!cmd->pushTo.empty() && cmd->slot >= 0 && !cmd->skmd) pushOutputs(cmd);
      // Commands chained on the same device may go now.
      for (Command *w : cmd->ev->waiters) kick(w);
      return;
    case IssueResult::Done:
      // A job that could not be left to run outside the lock ran here already.
      if (cmd->landedOutside) std::exchange(cmd->landedOutside, nullptr)();
      if (r.status < 0 && failOver(cmd, r.status)) {
        // Nothing of it ran: it is planned again, without the device that failed it.
        cmd->state = Command::State::Waiting;
        tryStart(cmd);
        return;
      }
      endIssued(cmd, r.status);
      return;
  }
}

// A command the app blocks on waits for its device->host copies once the API lock is
// released, not in the driver's completion callbacks (NVIDIA delivers them 12-20 ms late),
// and is then retried at once. The callbacks may have retried it first.
void Runtime::waitOutside(Command *cmd) {
  // Only where every copy's device allows it (BackingDevice::callsOutsideLock).
  _cl_context *ctx = cmd->q->ctx;
  bool allowed = true;
  for (const RealEvent &e : cmd->staging) {
    cl_command_queue q = nullptr;
    icd(e.get()).clGetEventInfo(e.get(), CL_EVENT_COMMAND_QUEUE, sizeof q, &q, nullptr);
    for (const DeviceSlot &d : ctx->slots)
      if (d.rawQueue() == q && !d.dev->callsOutsideLock) allowed = false;
  }
  if (!allowed) {
    // A driver that must not be called beside the lock: wait here, then retry at once.
    if (waitEach(cmd->staging) != CL_SUCCESS || !stagingComplete(cmd)) return;
    staging_.erase(std::find(staging_.begin(), staging_.end(), cmd));
    cmd->state = Command::State::Ready;
    issue(cmd);
    return;
  }
  auto copies = std::make_shared<std::vector<RealEvent>>();
  for (const RealEvent &e : cmd->staging) copies->push_back(e.share());
  // The copies' queues: what was issued there before them is done once they are.
  std::vector<std::pair<int, uint64_t>> before;
  for (const RealEvent &e : *copies) {
    cl_command_queue q = nullptr;
    icd(e.get()).clGetEventInfo(e.get(), CL_EVENT_COMMAND_QUEUE, sizeof q, &q, nullptr);
    for (size_t s = 0; s < ctx->slots.size(); ++s)
      if (ctx->slots[s].rawQueue() == q) before.push_back({int(s), ctx->slots[s].issueOrder});
  }
  retain(cmd->ev);
  afterUnlock([this, ev = cmd->ev, copies, before] {
    waitEach(*copies);
    copies->clear();  // before taking the lock, not when the job is dropped
    ApiLock lock;
    Scope scope(*this);
    for (auto [s, order] : before) finishIssuedBefore(ev->ctx->slots[s], order);
    Command *c = ev->cmd;
    auto it = std::find(staging_.begin(), staging_.end(), c);
    if (c && it != staging_.end() && stagingComplete(c)) {
      staging_.erase(it);
      c->state = Command::State::Ready;
      issue(c);
    }
    release(ev);
  });
}

// A transfer on ds's in-order queue finished: the lazily completing launches issued there
// before it (order <= `order`) have finished too. Finishing them now, rather than arming
// them, spares a driver callback (12-20 ms late on NVIDIA) before their dependents report.
void Runtime::finishIssuedBefore(DeviceSlot &ds, uint64_t order) {
  while (!ds.lazy.empty() && ds.lazy.front()->order <= order) {
    Command *c = ds.lazy.front();
    ds.lazy.pop_front();
    collected(c, collectRealCompletion(c));
  }
}

// collectRealCompletion leaves host work (Command::hostWork) only where the device work
// succeeded: the command finishes once that work is done.
void Runtime::collected(Command *cmd, cl_int status) {
  if (cmd->hostWork) runHostWork(cmd);
  else finish(cmd, status);
}

// On a thread of its own: the dispatcher's completions are what other threads wait for,
// and the thread that issued the command may be an app's non-blocking enqueue.
void Runtime::runHostWork(Command *cmd) {
  retain(cmd->ev);
  hostWorker_.post([this, ev = cmd->ev, work = std::move(cmd->hostWork),
                    landed = std::move(cmd->hostLanded)] {
    cl_int st = work();
    ApiLock lock;
    Scope scope(*this);
    Command *c = ev->cmd;
    if (landed) st = landed(st);
    if (c->state != Command::State::Staging) {
      finish(c, st);
    } else if (st == CL_SUCCESS) {
      c->state = Command::State::Ready;
      issue(c);
    } else {
      endIssued(c, st);
    }
    release(ev);
  });
  cmd->hostWork = nullptr;
  cmd->hostLanded = nullptr;
}

// Issued and over at once: host-side commands, and those that failed before their device work.
void Runtime::endIssued(Command *cmd, cl_int status) {
  cmd->state = Command::State::Issued;
  if (!cmd->unmetDeps) setStatus(cmd->ev, CL_RUNNING);
  finish(cmd, status);
}

void Runtime::retryStaging() {
  auto list = std::move(staging_);
  staging_.clear();
  for (Command *c : list) {
    if (!stagingComplete(c)) {
      staging_.push_back(c);
      continue;
    }
    c->state = Command::State::Ready;
    issue(c);
  }
}

void Runtime::finish(Command *cmd, cl_int status) {
  if (cmd->unmetDeps) {
    // Chained (tryStart) and done before its wait list: it completes once that does. Its
    // real work is over, so nothing may arm it again (a marker's callback would name it
    // after it is gone).
    cmd->finishDeferred = true;
    cmd->armed = true;
    cmd->deferredStatus = status;
    for (auto *d : cmd->deps)
      if (!d->done && d->cmd) armCompletion(d->cmd);
    return;
  }
  if (cmd->depFailed && status >= 0) status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  TUTTI_LOG(Debug, "command %p finished: %s", (void *)cmd, clErrorName(status));
  _cl_event *ev = cmd->ev;
  _cl_command_queue *q = cmd->q;  // cmd may be gone once dependents have run
  cmd->state = Command::State::Finished;
  ev->done = true;
  if (cmd->mkmdRun) mkmdCommandDone(cmd);
  if (status < 0) ev->failure = status;
  wakeWaiters(ev);
  reportInOrder(q, ev);
}

void Runtime::wakeWaiters(_cl_event *ev) {
  auto waiters = std::move(ev->waiters);
  ev->waiters.clear();
  for (Command *w : waiters) {
    if (w->unmetDeps) --w->unmetDeps;
    if (ev->failure < 0 || ev->status < 0) w->depFailed = true;
    if (w->state == Command::State::Waiting) {
      kick(w);
      continue;
    }
    // A command chained behind same-device work runs no sooner than that work, and
    // the app sees it start and end no sooner than its wait list completes.
    if (w->unmetDeps) continue;
    if (w->state == Command::State::Issued) setStatus(w->ev, CL_RUNNING);
    if (w->finishDeferred) finish(w, w->deferredStatus);
  }
}

// In an in-order queue the app sees commands complete in order, even when Tutti ran
// independent ones out of order or on different devices: `finished` and whatever done
// commands it held back are reported. An out-of-order queue reports `finished` alone
// (every finish reports its own command), found from the front, where completions
// mostly are: scanning the whole in-flight list per completion made a long out-of-order
// stream quadratic (dep_chain ooo-barrier: 46 to 112 us per command from 2,000 to 8,000).
void Runtime::reportInOrder(_cl_command_queue *q, _cl_event *finished) {
  auto report = [&](std::deque<_cl_event *>::iterator it) REQUIRES(apiMutex) {
    _cl_event *ev = *it;
    Command *cmd = ev->cmd;
    ev->cmd = nullptr;
    q->inFlight.erase(it);
    q->inFlightCount.store(q->inFlight.size(), std::memory_order_release);
    cl_int st = ev->failure < 0 ? ev->failure : CL_COMPLETE;
    if (q->inOrder()) {
      if (st == CL_COMPLETE && q->issuerFailed) st = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
      if (cmd && cmd->issuerError.load(std::memory_order_acquire) != CL_SUCCESS) q->issuerFailed = true;
    }
    complete(ev, st);
    if (cmd) {
      for (auto *d : cmd->deps) release(d);
      for (auto *m : cmd->mems) release(m);
      if (cmd->kernel) release(cmd->kernel);
      retired_.push_back(cmd);
    }
    graphForget(q, ev);  // the queue's records must not outlive the event they name
    release(ev);
  };
  if (q->inOrder()) {
    while (!q->inFlight.empty() && q->inFlight.front()->done) report(q->inFlight.begin());
  } else if (auto it = std::find(q->inFlight.begin(), q->inFlight.end(), finished); it != q->inFlight.end()) {
    report(it);
  }
  if (q->inFlight.empty()) done.notify_all();
  release(q);  // taken per command in enqueue; balanced here once per finish call
}

}  // namespace tutti
