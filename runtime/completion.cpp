// completion.cpp - learning that real work finished: lazy arming, times, counters.
#include "completion.h"

#include <algorithm>

#include "backend.h"
#include "clock.h"
#include "coherence.h"
#include "icd.h"
#include "inbox.h"
#include "log.h"
#include "measured.h"
#include "settings.h"
#include "skmd_exec.h"
#include "trace.h"
#include "watcher.h"

namespace tutti {

namespace {

void CL_CALLBACK onReal(cl_event, cl_int, void *cmd) {
  inbox().postCompletion(static_cast<Command *>(cmd));
}

// A driver callback and a clFlush per launch cost a wake-up of the dispatcher, a fight
// for the runtime lock and a submission each, which dominated small launches. Kernels
// therefore complete lazily: only every TUTTI_ARM_EVERY-th (256th) launch on a slot gets a callback
// and a flush, and when the callback fires the launches issued before it on that
// in-order queue are complete as well. Anything that needs a particular completion
// sooner (a wait, a dependent elsewhere, a status query, a callback) arms it with
// armCompletion, which flushes.
// Whether the launch about to be issued on ds completes lazily (no callback of its own).
bool launchIsLazy(const Command *cmd, const DeviceSlot &ds) REQUIRES(apiMutex) {
  return ds.sinceArmed + 1 < settings().arm_every && !cmd->ev->wanted && cmd->ev->callbacks.empty();
}

// An event on a profiling queue costs NVIDIA's driver 8-12 us per launch (tools/bench/micro/
// call_cost: 5.4 us without one, 13-17 us with one), more than the launch. A lazy launch
// therefore gets a real event only when its times are asked for: the app holds the event on
// a profiling queue, a trace, TUTTI_STATS or profiling mode runs, or the shape is new on
// this device (its first kTimedLaunches feed placement and the model correction; after
// that the armed launch of every TUTTI_ARM_EVERY keeps sampling it).
constexpr unsigned kTimedLaunches = 8;

bool launchWantsTimes(Command *cmd, int slot) {
  if ((cmd->appEvent && cmd->q->profiling()) || tracing() || settings().stats ||
      settings().profile != ProfileMode::Off)
    return true;
  auto &runs = cmd->kernel->shapeRuns;
  if (runs.size() <= size_t(slot)) runs.resize(slot + 1);
  _cl_kernel::ShapeRun &r = runs[slot];
  if (!std::equal(r.global, r.global + 3, cmd->global) || !std::equal(r.local, r.local + 3, cmd->local)) {
    std::copy(cmd->global, cmd->global + 3, r.global);
    std::copy(cmd->local, cmd->local + 3, r.local);
    r.launches = 0;
  }
  return r.launches++ < kTimedLaunches;
}


// Takes an armed launch off the lazy list; mostly its newest entry.
void unlist(DeviceSlot &ds, Command *cmd) REQUIRES(apiMutex) {
  auto it = std::find(ds.lazy.rbegin(), ds.lazy.rend(), cmd);
  if (it != ds.lazy.rend()) ds.lazy.erase(std::next(it).base());
}

}  // namespace

// After a successful real enqueue: a kernel may complete lazily (see TUTTI_ARM_EVERY);
// anything else gets a completion callback now.
void trackIssued(Command *cmd) REQUIRES(apiMutex) {
  DeviceSlot &ds = slotOf(cmd, cmd->slot);
  cmd->order = ++ds.issueOrder;
  bool lazy = false;
  if (cmd->kind == CmdKind::Kernel) {
    cmd->seq = ++ds.issueSeq;
    lazy = launchIsLazy(cmd, ds);
    ++ds.sinceArmed;
  }
  if (lazy) {
    ds.lazy.push_back(cmd);  // flushed with the next armed command (TUTTI_ARM_EVERY bounds it)
    return;
  }
  if (cmd->seq) ds.sinceArmed = 0;
  cmd->armed = true;
  ds.armedOrder = cmd->order;
  whenComplete(ds, cmd->real.get(), onReal, cmd);
  icd(ds.queue()).clFlush(ds.queue());
}

bool launchNeedsEvent(Command *cmd) REQUIRES(apiMutex) {
  return !launchIsLazy(cmd, slotOf(cmd, cmd->slot)) || launchWantsTimes(cmd, cmd->slot);
}

void deviceSpanToHost(DeviceSlot &ds, cl_ulong start, cl_ulong end, uint64_t &hs, uint64_t &he) {
  // Device clocks have their own origin: estimate the offset to ours from the
  // earliest possible completion (callback latency only ever adds).
  int64_t off = int64_t(nowNs()) - int64_t(end);
  if (ds.clockOffsetNs == INT64_MIN || off < ds.clockOffsetNs) ds.clockOffsetNs = off;
  hs = uint64_t(int64_t(start) + ds.clockOffsetNs);
  he = uint64_t(int64_t(end) + ds.clockOffsetNs);
}

void armCompletion(Command *cmd) {
  cmd->ev->wanted = true;  // not issued yet: it will be armed when it is
  if (cmd->armed || cmd->state != Command::State::Issued || cmd->slot < 0) return;
  if (!cmd->real && !cmd->seq) return;  // not a lazy launch: nothing of it is left on a device
  DeviceSlot &ds = slotOf(cmd, cmd->slot);
  // A lazy launch completes with any command armed after it on its in-order queue
  // (completedBefore). Arming the newest lazy launch instead of cmd reports cmd and every
  // lazy launch between them with one callback: a clFinish after 20,000 launches made a
  // marker for each launch still in flight (thousands on PoCL, 3.7 us each). A timed launch
  // is redirected too, though its own event might report sooner: on a profiling queue every
  // launch is timed, and arming each would flush and call back per launch.
  if (ds.armedOrder > cmd->order) return;
  if (!ds.lazy.empty() && ds.lazy.back()->order > cmd->order) cmd = ds.lazy.back();
  if (!cmd->real) {
    // An untimed lazy launch: a marker behind it on the in-order queue completes with it.
    cl_int err = icd(ds.queue()).clEnqueueMarkerWithWaitList(ds.queue(), 0, nullptr, cmd->real.out());
    if (err != CL_SUCCESS) {
      TUTTI_LOG(Warn, "%s: clEnqueueMarkerWithWaitList failed (%s); waiting for the queue",
                ds.dev->label().c_str(), clErrorName(err));
      cmd->real.release();  // the failed call returned no event
      icd(ds.queue()).clFinish(ds.queue());
      cmd->armed = true;
      ds.armedOrder = cmd->order;
      unlist(ds, cmd);
      inbox().postCompletion(cmd);
      return;
    }
    cmd->untimed = true;
  }
  cmd->armed = true;
  ds.armedOrder = cmd->order;
  unlist(ds, cmd);
  whenComplete(ds, cmd->real.get(), onReal, cmd);
  icd(ds.queue()).clFlush(ds.queue());  // lazy launches are not flushed when issued
}

std::vector<Command *> completedBefore(Command *cmd) {
  std::vector<Command *> out;
  // On an in-order queue, whatever was issued before cmd is done once cmd is.
  if (!cmd->order || cmd->slot < 0) return out;
  auto &lazy = slotOf(cmd, cmd->slot).lazy;
  while (!lazy.empty() && lazy.front()->order < cmd->order) {
    out.push_back(lazy.front());
    lazy.pop_front();
  }
  return out;
}

cl_int collectRealCompletion(Command *cmd) {
  if (cmd->skmd) return collectSkmd(cmd);
  cl_int status = CL_COMPLETE;
  if (cmd->freeAfter) std::free(cmd->freeAfter), cmd->freeAfter = nullptr;
  const bool kernel = cmd->kind == CmdKind::Kernel && cmd->slot >= 0;
  double wi = 1;  // work-items run
  if (kernel) {
    for (cl_uint i = 0; i < cmd->dim; ++i) wi *= double(cmd->global[i]);
    Counters &c = slotOf(cmd, cmd->slot).dev->counters;
    ++c.kernels;
    c.workItems += uint64_t(wi);
  }
  if (!cmd->real) return cmd->issuerError.load(std::memory_order_acquire);
  RealEvent owned = std::move(cmd->real);  // released when collected
  cl_event e = owned.get();
  status = eventStatus(e);
  if (status < 0) {
    TUTTI_LOG(Error, "%s: command failed on the device: %s",
              slotOf(cmd, cmd->slot).dev->label().c_str(), clErrorName(status));
  }
  cl_ulong start = 0, end = 0;
  const cl_icd_dispatch &d = icd(e);
  if (!cmd->untimed && d.clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) ==
          CL_SUCCESS &&
      d.clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
          CL_SUCCESS &&
      end >= start && cmd->slot >= 0) {
    DeviceSlot &ds = slotOf(cmd, cmd->slot);
    uint64_t hs, he;
    deviceSpanToHost(ds, start, end, hs, he);
    _cl_event *ev = cmd->ev;
    if (ev->tSubmit && hs < ev->tSubmit) {
      he += ev->tSubmit - hs;
      hs = ev->tSubmit;
    }
    ev->tStart = hs;
    ev->tEnd = he;
    if (kernel) {
      ds.dev->counters.kernelNs += end - start;
      recordKernelRun(cmd, cmd->slot, wi, end - start);
      traceSpan(ds.dev->index, "kernel", cmd->kernel->name.c_str(), hs, he, 0);
    }
  }
  return status < 0 ? status : CL_SUCCESS;
}

}  // namespace tutti
