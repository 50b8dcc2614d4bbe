// issue.cpp - turning a planned command into real driver commands and host copies.
#include "issue.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "backend.h"
#include "backend_image.h"
#include "coherence.h"
#include "completion.h"
#include "host_copy.h"
#include "access.h"
#include "vast_exec.h"
#include "icd.h"
#include "issuer.h"
#include "inbox.h"
#include "log.h"
#include "memory.h"
#include "skmd_exec.h"
#include "staging.h"
#include "clock.h"
#include "trace.h"
#include "transfer.h"
#include "worker_pool.h"
#include "watcher.h"

namespace tutti {

namespace {

void CL_CALLBACK onStaged(cl_event, cl_int, void *) { inbox().postRetry(); }

namespace {

// Byte span of a rectangle inside a buffer region.
Range rectSpan(const size_t origin[3], const size_t region[3], size_t row, size_t slice) {
  size_t first = origin[2] * slice + origin[1] * row + origin[0];
  size_t last = (origin[2] + region[2] - 1) * slice + (origin[1] + region[1] - 1) * row +
                origin[0] + region[0];
  return {first, last};
}

template <typename F>
void forEachRow(const size_t region[3], F f) REQUIRES(apiMutex) {
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y) f(y, z);
}


IssueResult done(cl_int st = CL_SUCCESS) { return {IssueResult::Done, st}; }
IssueResult staging() { return {IssueResult::Staging, CL_SUCCESS}; }
// What is left runs once the API lock is released, where every device involved allows
// that (BackingDevice::callsOutsideLock); else here and now.
IssueResult outside(bool allowed, std::vector<int> through, std::function<cl_int()> job) {
  if (!allowed) return done(job());
  IssueResult r{IssueResult::Outside, CL_SUCCESS, std::move(job)};
  r.through = std::move(through);
  return r;
}

// A transfer run outside the API lock failed: says where, returns the error.
cl_int failed(DeviceSlot &ds, const char *what, cl_int err) {
  TUTTI_LOG(Error, "%s: %s failed: %s", ds.dev->label().c_str(), what, clErrorName(err));
  return err;
}

IssueResult issued(Command *cmd, cl_int err, const char *what) REQUIRES(apiMutex) {
  if (err != CL_SUCCESS) {
    TUTTI_LOG(Error, "%s: %s failed: %s", slotOf(cmd, cmd->slot).dev->label().c_str(), what,
              clErrorName(err));
    cmd->real.reset();
    return done(err);
  }
  trackIssued(cmd);
  if (cmd->slot >= 0) {
    // The device answered: a run of failures (failover.cpp) is over.
    std::atomic<unsigned> &inARow = slotOf(cmd, cmd->slot).dev->failuresInARow;
    if (inARow.load(std::memory_order_relaxed)) inARow = 0;
  }
  return {IssueResult::Issued, CL_SUCCESS};
}

// A driver call per argument per launch cost as much as the launch itself for small
// kernels (issue 17), so the values last set on the app kernel's own real kernel are
// remembered and only changed ones are set again (by set(index, size, value)). Other real
// kernels (SKMD partition kernels) are set in full every time.
template <typename Set>
cl_int setChangedArgs(Command *cmd, cl_kernel rk, int slot, Set set) {
  _cl_kernel *k = cmd->kernel;
  _cl_kernel::RealArgs *cache = nullptr;
  if (size_t(slot) < k->real.size() && rk == k->real[slot]) {
    if (k->realArgs.size() < k->real.size()) k->realArgs.resize(k->real.size());
    cache = &k->realArgs[slot];
    if (cache->memEpoch != realMemEpoch()) {
      cache->args.clear();
      cache->memEpoch = realMemEpoch();
    }
    if (cache->args.size() < cmd->args.size()) cache->args.resize(cmd->args.size());
  }
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < cmd->args.size() && err == CL_SUCCESS; ++i) {
    const ArgValue &a = cmd->args[i];
    _cl_kernel::RealArg *c = cache ? &cache->args[i] : nullptr;
    switch (a.kind) {
      case ArgValue::Bytes:
        if (c && c->kind == ArgValue::Bytes && c->bytes == a.bytes) continue;
        err = set(i, a.bytes.size(), a.bytes.data());
        if (c) c->bytes = a.bytes;
        break;
      case ArgValue::Local:
        if (c && c->kind == ArgValue::Local && c->localSize == a.localSize) continue;
        err = set(i, a.localSize, nullptr);
        if (c) c->localSize = a.localSize;
        break;
      case ArgValue::Mem: {
        cl_mem r = nullptr;
        if (a.mem) r = a.mem->isImage() ? realImage(a.mem, &err) : realBuffer(a.mem, slot, &err);
        if (err != CL_SUCCESS) break;
        if (c && c->kind == ArgValue::Mem && c->mem == r) continue;
        err = set(i, sizeof(cl_mem), a.mem ? &r : nullptr);
        if (c) c->mem = r;
        break;
      }
      case ArgValue::Sampler: {  // rare: not remembered
        cl_sampler s = realSampler(a.sampler, slot, &err);
        if (err == CL_SUCCESS) err = set(i, sizeof s, &s);
        break;
      }
      case ArgValue::Unset: err = CL_INVALID_KERNEL_ARGS; break;
    }
    if (c) c->kind = err == CL_SUCCESS && a.kind != ArgValue::Sampler ? a.kind : ArgValue::Unset;
  }
  return err;
}

// A launch that needs no driver event (launchNeedsEvent) goes to the device's issuer, once
// its shape ran there as often as a new shape is timed: the driver accepted it before, so
// a failure now is the device's and is reported as the launch's (failover could move it
// only before the app's call returned). After any failure the device's launches are made
// on the app's thread again.
bool handToIssuer(Command *cmd, DeviceSlot &ds, cl_kernel rk, int slot) REQUIRES(apiMutex) {
  Issuer *is = ds.issuer.get();
  if (!is || ds.dev->failuresInARow.load(std::memory_order_relaxed)) return false;
  if (is->failed()) {
    if (is->noticeFailure()) forgetRealArgs();  // what the failed job was to set may not be set
    return false;
  }
  IssueJob &j = is->next();
  j.queue = ds.rawQueue();
  j.kernel = rk;
  j.dim = cmd->dim;
  j.hasOffset = cmd->offset[0] || cmd->offset[1] || cmd->offset[2];
  j.hasLocal = cmd->hasLocal;
  std::copy(cmd->offset, cmd->offset + 3, j.offset);
  std::copy(cmd->global, cmd->global + 3, j.global);
  std::copy(cmd->local, cmd->local + 3, j.local);
  j.failed = &cmd->issuerError;
  j.what = cmd->kernel->name.c_str();
  cl_int err = setChangedArgs(cmd, rk, slot, [&j](cl_uint i, size_t n, const void *v) {
    j.setArg(i, n, v);
    return CL_SUCCESS;
  });
  if (err != CL_SUCCESS) {
    // Not handed over (realBuffer could not make a replica): the direct path says why.
    forgetRealArgs();
    return false;
  }
  is->publish();
  return true;
}

IssueResult issueKernel(Command *cmd) REQUIRES(apiMutex) {
  _cl_context *ctx = cmd->q->ctx;
  int slot = cmd->slot;
  cl_int err = CL_SUCCESS;
  bool ready = true;
  for (auto &a : cmd->args)
    if (a.kind == ArgValue::Mem && a.mem && (!a.mem->isImage() || a.mem->parent)) {
      rootOf(a.mem)->store->affinity = slot;
      ready &= ensureDevice(ctx, a.mem, slot, cmd, &err);
      if (err != CL_SUCCESS) return done(err);
    }
  if (!ready) return staging();
  cl_kernel rk = cmd->kernel->real[slot];
  DeviceSlot &ds = slotOf(cmd, slot);
  bool event = launchNeedsEvent(cmd);
  if (event || !handToIssuer(cmd, ds, rk, slot)) {
    err = setKernelArgs(cmd, rk, slot);
    if (err != CL_SUCCESS) {
      TUTTI_LOG(Error, "%s: clSetKernelArg for '%s' failed: %s", ds.dev->label().c_str(),
                cmd->kernel->name.c_str(), clErrorName(err));
      return done(err);
    }
    // No offset is passed as none, as the app most likely passed it: drivers may take a
    // slower path for a global offset.
    const bool offset = cmd->offset[0] || cmd->offset[1] || cmd->offset[2];
    cl_command_queue q = ds.queue();
    err = icd(q).clEnqueueNDRangeKernel(q, rk, cmd->dim, offset ? cmd->offset : nullptr, cmd->global,
                                        cmd->hasLocal ? cmd->local : nullptr, 0, nullptr,
                                        event ? cmd->real.out() : nullptr);
  }
  if (err == CL_SUCCESS) {
    for (size_t i = 0; i < cmd->args.size(); ++i) {
      const ArgValue &a = cmd->args[i];
      if (a.kind == ArgValue::Mem && a.mem && (!a.mem->isImage() || a.mem->parent) &&
          kernelMayWrite(cmd->kernel, i, a.mem)) {
        BufferStore &st = *rootOf(a.mem)->store;
        wrote(st, a.mem->range(), slot);
        wroteBy(st, slot, cmd->real);
      }
    }
    cmd->ev->device = slot;
  }
  return issued(cmd, err, "clEnqueueNDRangeKernel");
}

// A read whose bytes live on devices goes from each device straight into the app's
// memory (one copy, as natively) instead of through the home; the host-valid parts
// are copied now and undefined bytes are left alone.
IssueResult readDirect(Command *cmd, BufferStore &st, Range r, bool keepInHome = false) REQUIRES(apiMutex) {
  _cl_context *ctx = cmd->q->ctx;
  char *out = static_cast<char *>(cmd->ptr) - r.begin;
  IntervalSet todo;
  todo.add(r);
  for (Range h : st.hostValid.present(r)) {
    hostCopy(out + h.begin, st.home + h.begin, h.size());
    todo.remove(h);
  }
  std::vector<std::pair<int, Range>> parts;
  for (size_t s = 0; s < st.devValid.size() && !todo.empty(); ++s)
    for (Range t : todo.ranges())
      for (Range p : st.devValid[s].present(t)) {
        parts.push_back({int(s), p});
        todo.remove(p);
      }
  cmd->directIssued = true;
  if (parts.empty()) return done();
  // Staged copies complete before they return, so only a blocking read may use them (a
  // non-blocking one would wait here for the kernels queued before it). They run after
  // the other devices' copies are under way. The zero-copy CPU's bytes are in the home
  // once the work queued on it is done: a blocking read waits for a marker there and
  // copies them with the copy pool, where PoCL's own read is one memcpy (6.7 GB/s on the
  // H100 machine against about 30 split over its cores).
  std::vector<std::pair<int, Range>> staged, homed;
  if (cmd->blocking) {
    for (auto it = parts.begin(); it != parts.end();) {
      if (it->first == st.alias) homed.push_back(*it), it = parts.erase(it);
      else if (stagingWants(ctx->slots[it->first], it->second.size())) staged.push_back(*it), it = parts.erase(it);
      else ++it;
    }
  }
  bool oneSlot = staged.empty() && homed.empty() && std::all_of(parts.begin(), parts.end(), [&](auto &p) {
                   return p.first == parts.front().first;
                 });
  cl_int err = CL_SUCCESS;
  for (size_t i = 0; i < parts.size() && err == CL_SUCCESS; ++i) {
    auto [slot, p] = parts[i];
    DeviceSlot &ds = ctx->slots[slot];
    // The app waits anyway: a blocking copy from pageable memory is the driver's
    // fastest path (NVIDIA pipelines it through its own pinned staging), and the
    // command completes without an event round trip.
    // It runs once the API lock is released: earlier commands on this queue are enqueued
    // already, and later ones that write these bytes wait for this command to finish.
    // Staging was not wanted for it (it would be in `staged`): the job keeps to that.
    if (oneSlot && cmd->blocking && i + 1 == parts.size()) {
      cl_mem buf = st.devBuf[slot];
      char *dst = out + p.begin;
      DeviceSlot *slotp = &ds;
      size_t off = p.begin, n = p.size();  // a structured binding cannot be captured (C++17)
      auto ok = std::make_shared<bool>(false);
      if (keepInHome && homeOf(ctx, st)) {
        // Back under the lock, with the app still blocked: its copy goes to the home as well,
        // so a second read of these bytes moves nothing, as through the home. Not the parts
        // the home holds already: a fill another thread's command queued while this read
        // ran (ensureHost marks them valid at once) may still be writing them (ThreadSanitizer
        // saw the two copies collide in Soak.ThreadsMixedCommandsMatchTheModel).
        cmd->landedOutside = [store = rootOf(cmd->src)->store, gen = st.writes, off, n, dst, ok] {
          apiMutex.assertHeld();  // Runtime::issue runs it under the lock
          if (!*ok || store->writes != gen) return;
          for (Range m : store->hostValid.missing({off, off + n})) {
            hostCopy(store->home + m.begin, dst + (m.begin - off), m.size());
            store->hostValid.add(m);
          }
        };
      }
      return outside(ds.dev->callsOutsideLock, {slot}, [slotp, buf, off, n, dst, ok] {
        cl_int e = readNow(*slotp, buf, off, n, dst, Route::Driver, "read");
        *ok = e == CL_SUCCESS;
        return e == CL_SUCCESS ? e : failed(*slotp, "clEnqueueReadBuffer", e);
      });
    }
    RealEvent e;
    // The app's non-blocking reads keep the driver's path: only Tutti's own copies (into
    // homes, between devices) are staged in the background; staging these too is untried.
    err = readQueued(ds, st.devBuf[slot], p.begin, p.size(), out + p.begin, Route::Driver, &e);
    if (err != CL_SUCCESS) break;
    if (oneSlot) {
      if (i + 1 == parts.size()) cmd->real = std::move(e);
    } else {
      whenComplete(ds, e.get(), onStaged, nullptr);
      cmd->staging.push_back(std::move(e));
    }
  }
  if (oneSlot) {
    cmd->slot = parts.front().first;
    if (err != CL_SUCCESS) cmd->real.reset();
    return issued(cmd, err, "clEnqueueReadBuffer");
  }
  for (auto &ds : ctx->slots) icd(ds.queue()).clFlush(ds.queue());
  if (err != CL_SUCCESS) {
    TUTTI_LOG(Error, "clEnqueueReadBuffer straight to the app's memory failed: %s", clErrorName(err));
    cmd->stagingError = err;
    return staging();
  }
  if (!cmd->blocking) return staging();  // the copies' callbacks retry it
  // The app waits: the staged parts are copied, and the others waited for, once the API
  // lock is released (see the blocking single-device read above for why that is safe).
  struct Part { DeviceSlot *ds; cl_mem buf; Range p; char *dst; };
  std::vector<Part> todoStaged, todoHomed;
  for (auto [slot, p] : staged) todoStaged.push_back({&ctx->slots[slot], st.devBuf[slot], p, out + p.begin});
  for (auto [slot, p] : homed) {
    DeviceSlot &ds = ctx->slots[slot];
    RealEvent e;
    err = icd(ds.queue()).clEnqueueMarkerWithWaitList(ds.queue(), 0, nullptr, e.out());
    if (err == CL_SUCCESS) err = icd(ds.queue()).clFlush(ds.queue());
    if (err != CL_SUCCESS) {
      TUTTI_LOG(Error, "%s: clEnqueueMarkerWithWaitList failed: %s", ds.dev->label().c_str(), clErrorName(err));
      cmd->stagingError = err;
      return staging();
    }
    cmd->staging.push_back(std::move(e));
    todoHomed.push_back({&ds, nullptr, p, out + p.begin});
  }
  auto waits = std::make_shared<std::vector<RealEvent>>(std::move(cmd->staging));
  cmd->staging.clear();
  bool allowed = std::all_of(ctx->slots.begin(), ctx->slots.end(),
                             [](const DeviceSlot &d) { return d.dev->callsOutsideLock; });
  std::vector<int> through;
  for (auto &sp : staged) through.push_back(sp.first);
  for (auto &hp : homed) through.push_back(hp.first);
  for (auto &pp : parts) through.push_back(pp.first);
  const char *home = st.home;
  return outside(allowed, through, [todoStaged, todoHomed, waits, home] {
    cl_int err = CL_SUCCESS;
    for (const Part &s : todoStaged) {
      err = readNow(*s.ds, s.buf, s.p.begin, s.p.size(), s.dst, Route::StagedIfWanted, "read");
      if (err != CL_SUCCESS) return failed(*s.ds, "clEnqueueReadBuffer", err);
    }
    err = waitEach(*waits);
    waits->clear();  // now, not when the job is dropped
    if (err != CL_SUCCESS) return err;
    for (const Part &h : todoHomed) {
      uint64_t t0 = nowNs();
      hostCopy(h.dst, home + h.p.begin, h.p.size());
      // Host memory to host memory, as a read of host-valid bytes: no device transfer.
      traceSpan(-1, "tutti", "read from the zero-copy home", t0, nowNs(), h.p.size());
    }
    return err;
  });
}

// A blocking read of any size goes straight into the app's memory with the driver's own
// blocking read: through the home, its completion was learnt from the device's waiter
// thread, 0.5-0.9 ms after the copy on an H100 (K-means's and Jacobi's final reads). Only
// from devices that may be called beside the API lock (on the others the read would hold
// it: LockRelease.BlockingReadDoesNotStallOtherThreadsEnqueues), and not from the zero-copy
// CPU, whose bytes are in the home already.
bool blockingReadStraight(Command *cmd, const BufferStore &st, Range r) REQUIRES(apiMutex) {
  if (!cmd->blocking || !settings().read_straight || !directCopy(st, SIZE_MAX)) return false;
  const auto &slots = cmd->q->ctx->slots;
  for (size_t s = 0; s < st.devValid.size(); ++s)
    if ((int(s) == st.alias || !slots[s].dev->callsOutsideLock) && !st.devValid[s].present(r).empty())
      return false;
  return true;
}

IssueResult issueRead(Command *cmd) REQUIRES(apiMutex) {
  BufferStore &st = *rootOf(cmd->src)->store;
  Range r{cmd->src->origin + cmd->srcOff, cmd->src->origin + cmd->srcOff + cmd->size};
  if (cmd->directIssued) return done();
  if (!st.hostValid.contains(r)) {
    const bool large = directCopy(st, r.size());
    if (large || blockingReadStraight(cmd, st, r)) {
      if (waitFills(st, r, cmd)) return staging();
      return readDirect(cmd, st, r, !large);
    }
  }
  if (!ensureHost(cmd->q->ctx, st, r, cmd)) return staging();
  hostCopy(cmd->ptr, st.home + r.begin, cmd->size);
  return done();
}

// A device refused a write, copy or fill of cmd's (err): counted against it (failover.cpp
// retires a device that keeps refusing), and cmd runs on the host instead.
void refusedOnDevice(Command *cmd, DeviceSlot &ds, const char *call, cl_int err) {
  TUTTI_LOG(Warn, "%s: %s failed (%s); it runs in host memory instead", ds.dev->label().c_str(), call,
            clErrorName(err));
  ds.dev->noteFailure(err);
  cmd->real.reset();
  cmd->slot = -1;
}

// A blocking write's parts, each to one device's replica.
struct WritePart {
  DeviceSlot *ds;
  cl_mem buf;
  Range r;
  int slot;
  cl_int err = CL_SUCCESS;  // the write's, once done
};

// Writes r (the parts, in order) outside the API lock (see readDirect); the bytes belong to
// those devices from now on, and whatever reads them next is ordered after this command.
// A part a device refuses goes to the home instead (allocated now, under the lock), which
// becomes its valid copy once the job is back under the lock. `beside` (writeAside): on
// no queue of the slots, so the job says nothing of the work queued there.
IssueResult writeOutside(Command *cmd, _cl_mem *root, Range r, std::vector<WritePart> parts,
                         bool beside = false) REQUIRES(apiMutex) {
  _cl_context *ctx = cmd->q->ctx;
  BufferStore &st = *root->store;
  std::vector<int> through;
  bool allowed = true;
  for (const WritePart &j : parts) {
    wrote(st, j.r, j.slot);
    // Done before anything that reads it is issued, and on no queue: copies out of the
    // replica need not wait for it (copyOutWaits).
    st.lastWrite[size_t(j.slot)] = {RealEvent(), true};
    if (!beside) through.push_back(j.slot);
    allowed &= j.ds->dev->callsOutsideLock;
  }
  cmd->slot = parts.front().slot;
  const char *src = static_cast<const char *>(cmd->ptr) - r.begin;
  char *home = homeOf(ctx, st);
  auto jobs = std::make_shared<std::vector<WritePart>>(std::move(parts));
  auto refused = std::make_shared<std::vector<WritePart>>();
  cmd->landedOutside = [refused, root] {
    apiMutex.assertHeld();  // Runtime::issue runs it under the lock
    for (const WritePart &j : *refused) {
      j.ds->dev->noteFailure(CL_OUT_OF_RESOURCES);
      wrote(*root->store, j.r, -1);
    }
  };
  const Route route = beside ? Route::StagedBeside : Route::StagedIfWanted;
  return outside(allowed, std::move(through), [jobs, refused, src, home, route] {
    // Stripes go to different devices, each through its own staging and DMA engine: at
    // once, not in turn (in turn, two H200s took BlackScholes's 134 MB inputs at 17 GB/s,
    // one H200 alone at 26).
    auto write = [&](size_t k) {
      WritePart &j = (*jobs)[k];
      j.err = writeNow(*j.ds, j.buf, j.r.begin, j.r.size(), src + j.r.begin, "write", route);
    };
    if (jobs->size() == 1) {
      write(0);  // a write to one device: no thread, no allocation
    } else {
      std::vector<size_t> all(jobs->size());
      std::iota(all.begin(), all.end(), size_t(0));
      eachOnOwnThread(all, write);
    }
    for (const WritePart &j : *jobs) {
      const cl_int e = j.err;
      if (e == CL_SUCCESS) continue;
      failed(*j.ds, "clEnqueueWriteBuffer", e);
      if (!home) return e;
      TUTTI_LOG(Warn, "the write goes to host memory instead");
      hostCopy(home + j.r.begin, src + j.r.begin, j.r.size());
      refused->push_back(j);
    }
    return CL_SUCCESS;
  });
}

// A blocking write of data larger than a device, under SKMD, in stripes over the devices
// a split will page its pieces on (stripeSlots): each piece then finds its part on its
// device. Written whole to the first GPU, the second GPU's half of BlackScholes's inputs
// came back to the host at the launch (13 ms of fills on two H200s) and crossed again
// through the ring (26 ms against the first GPU's 12). False: not striped (r goes as
// directSlot says).
bool writeStriped(Command *cmd, _cl_mem *root, Range r, IssueResult &res) REQUIRES(apiMutex) {
  _cl_context *ctx = cmd->q->ctx;
  BufferStore &st = *root->store;
  std::vector<std::pair<int, Range>> stripes;
  if (!directCopy(st, r.size()) || !stripeSlots(ctx, st, r, stripes)) return false;
  std::vector<WritePart> parts;
  for (auto [slot, p] : stripes) {
    cl_int err = CL_SUCCESS;
    cl_mem b = realBuffer(root, slot, &err);
    if (!b) return false;  // the device refuses the replica: the usual path decides
    parts.push_back({&ctx->slots[size_t(slot)], b, p, slot});
  }
  res = writeOutside(cmd, root, r, std::move(parts));
  return true;
}

// A non-blocking write that waits for nothing (no earlier command of its queue that uses r
// is unfinished: the graph gave it no unmet dependency, and no copy of r is in flight)
// crosses through pinned staging on the staging's own queue, beside the kernels queued on
// the slot: a streamed MapReduce run uploads its next piece while the current one groups
// (issue 20). On the slot's queue its DMA waited behind those kernels, and with only the
// free staging regions the rest crossed on the driver's pageable path. The app's thread
// makes the copy once the API lock is released, and the call returns when the bytes have
// landed (as a blocking write's does); what uses them waits for the write in the graph.
// Not on the runtime's threads (a write issued once its wait list completed): their
// copies would hold up the completions the dispatcher delivers.
// On a background thread instead, a later context's kernels read out of bounds on PoCL
// (mr.api.tutti-aside under --gtest_repeat), which no single context reproduced. That may
// have been the stale replica that landingOn (coherence.cpp) since fixed; not rechecked.
// False: not staged (too small, or no staging memory on the slot).
bool writeAside(Command *cmd, _cl_mem *root, const WritePart &part, IssueResult &res) REQUIRES(apiMutex) {
  if (cmd->unmetDeps || onRuntimeThread() || !stagingWants(*part.ds, part.r.size())) return false;
  ++part.ds->dev->counters.writesAside;
  res = writeOutside(cmd, root, part.r, {part}, true);
  return true;
}

// A large write goes straight to the device that will most likely use the buffer.
IssueResult issueWrite(Command *cmd) REQUIRES(apiMutex) {
  _cl_context *ctx = cmd->q->ctx;
  _cl_mem *root = rootOf(cmd->dst);
  BufferStore &st = *root->store;
  Range r{cmd->dst->origin + cmd->dstOff, cmd->dst->origin + cmd->dstOff + cmd->size};
  if (waitFills(st, r, cmd)) return staging();
  if (cmd->blocking) {
    IssueResult striped = done();
    if (writeStriped(cmd, root, r, striped)) return striped;
  }
  int slot = directSlot(ctx, st, r.size());
  cl_int err = CL_SUCCESS;
  cl_mem b = slot >= 0 ? realBuffer(root, slot, &err) : nullptr;
  if (b) {
    DeviceSlot &ds = ctx->slots[slot];
    cmd->slot = slot;
    if (cmd->blocking) return writeOutside(cmd, root, r, {{&ds, b, r, slot}});
    IssueResult aside = done();
    if (writeAside(cmd, root, {&ds, b, r, slot}, aside)) return aside;
    err = writeQueued(ds, b, r.begin, r.size(), cmd->ptr, Route::StagedIfWanted, &cmd->real);
    if (err == CL_SUCCESS) {
      wrote(st, r, slot);
      wroteBy(st, slot, cmd->real);  // on the slot's in-order queue, its last part
      return issued(cmd, err, "clEnqueueWriteBuffer");
    }
    // The device refused the bytes: they go to the home, as when no device is chosen.
    refusedOnDevice(cmd, ds, "clEnqueueWriteBuffer", err);
  }
  if (!homeOf(ctx, st)) return done(CL_OUT_OF_HOST_MEMORY);
  hostCopy(st.home + r.begin, cmd->ptr, cmd->size);
  wrote(st, r, -1);
  return done();
}

IssueResult issueCopy(Command *cmd) REQUIRES(apiMutex) {
  _cl_context *ctx = cmd->q->ctx;
  BufferStore &ss = *rootOf(cmd->src)->store, &ds = *rootOf(cmd->dst)->store;
  Range rs{cmd->src->origin + cmd->srcOff, cmd->src->origin + cmd->srcOff + cmd->size};
  Range rd{cmd->dst->origin + cmd->dstOff, cmd->dst->origin + cmd->dstOff + cmd->size};
  // Data that live only on a device are copied there, not through the host.
  if (!ss.hostValid.contains(rs)) {
    for (size_t s = 0; s < ss.devValid.size(); ++s) {
      if (!ss.devValid[s].contains(rs)) continue;
      // A staged move may still be writing either range on this device (coherence.h).
      bool moving = waitFills(ss, rs, cmd);
      moving |= waitFills(ds, rd, cmd);
      if (moving) return staging();
      cl_int err;
      cl_mem a = realBuffer(rootOf(cmd->src), int(s), &err);
      cl_mem b = a ? realBuffer(rootOf(cmd->dst), int(s), &err) : nullptr;
      if (!b) return done(err);
      cmd->slot = int(s);
      DeviceSlot &q = ctx->slots[s];
      if (!ds.devValid[s].contains(rd) && rootOf(cmd->dst) != rootOf(cmd->src)) {
        // The parts of dst outside rd stay as they are; only rd is replaced.
      }
      err = copyQueued(q, a, b, rs.begin, rd.begin, cmd->size, &cmd->real);
      if (err == CL_SUCCESS) {
        wrote(ds, rd, int(s));
        return issued(cmd, err, "clEnqueueCopyBuffer");
      }
      // The device refused the copy: its bytes come to the host and the copy runs there
      // (a device that refuses the read too fails the command with the driver's error).
      refusedOnDevice(cmd, q, "clEnqueueCopyBuffer", err);
      break;
    }
  }
  bool ready = ensureHost(ctx, ss, rs, cmd);
  ready &= !waitFills(ds, rd, cmd);
  if (!ready) return staging();
  if (!homeOf(ctx, ds)) return done(CL_OUT_OF_HOST_MEMORY);
  std::memmove(ds.home + rd.begin, ss.home + rs.begin, cmd->size);
  wrote(ds, rd, -1);
  return done();
}

IssueResult issueFill(Command *cmd) REQUIRES(apiMutex) {
  _cl_context *ctx = cmd->q->ctx;
  BufferStore &st = *rootOf(cmd->dst)->store;
  Range r{cmd->dst->origin + cmd->dstOff, cmd->dst->origin + cmd->dstOff + cmd->size};
  // Fill where the buffer already lives, so the data need not cross later.
  int best = -1;
  size_t bestBytes = 0;
  for (size_t s = 0; s < st.devBuf.size(); ++s) {
    if (!st.devBuf[s]) continue;
    size_t b = 0;
    for (Range p : st.devValid[s].present({0, st.size})) b += p.size();
    if (best < 0 || b > bestBytes) best = int(s), bestBytes = b;
  }
  if (best < 0 && !st.hostValid.intersects({0, st.size})) {
    // Nowhere yet: fill where it will most likely be used.
    cl_int err = CL_SUCCESS;
    int slot = directSlot(ctx, st, r.size());
    if (slot >= 0 && realBuffer(rootOf(cmd->dst), slot, &err)) best = slot;
  }
  if (waitFills(st, r, cmd)) return staging();  // a copy in flight may write r, there or here
  if (best >= 0 && !st.hostValid.contains({0, st.size})) {
    cmd->slot = best;
    DeviceSlot &q = ctx->slots[best];
    cl_int err = fillQueued(q, st.devBuf[best], cmd->pattern.data(), cmd->pattern.size(), r.begin,
                            r.size(), &cmd->real);
    if (err == CL_SUCCESS) {
      wrote(st, r, best);
      return issued(cmd, err, "clEnqueueFillBuffer");
    }
    // The device refused the fill: the bytes are filled in the home instead (all of r is
    // replaced, so nothing needs to come back from the device first).
    refusedOnDevice(cmd, q, "clEnqueueFillBuffer", err);
  }
  if (!homeOf(ctx, st)) return done(CL_OUT_OF_HOST_MEMORY);
  size_t p = cmd->pattern.size();
  for (size_t off = 0; off < r.size(); off += p) std::memcpy(st.home + r.begin + off, cmd->pattern.data(), p);
  wrote(st, r, -1);
  return done();
}

IssueResult issueRect(Command *cmd) REQUIRES(apiMutex) {
  _cl_context *ctx = cmd->q->ctx;
  bool ready = true;
  BufferStore *ss = cmd->src ? rootOf(cmd->src)->store.get() : nullptr;
  BufferStore *ds = cmd->dst ? rootOf(cmd->dst)->store.get() : nullptr;
  size_t sBase = cmd->src ? cmd->src->origin : 0, dBase = cmd->dst ? cmd->dst->origin : 0;
  Range rs{}, rd{};
  if (ss) {
    rs = rectSpan(cmd->srcOrigin, cmd->region, cmd->srcRow, cmd->srcSlice);
    rs = {rs.begin + sBase, rs.end + sBase};
    ready &= ensureHost(ctx, *ss, rs, cmd);
  }
  if (ds) {
    rd = rectSpan(cmd->dstOrigin, cmd->region, cmd->dstRow, cmd->dstSlice);
    rd = {rd.begin + dBase, rd.end + dBase};
    ready &= !waitFills(*ds, rd, cmd);
  }
  if (!ready) return staging();
  if (ds && !homeOf(ctx, *ds)) return done(CL_OUT_OF_HOST_MEMORY);
  const char *from = ss ? ss->home + sBase : static_cast<const char *>(cmd->ptr);
  char *to = ds ? ds->home + dBase : static_cast<char *>(cmd->ptr);
  forEachRow(cmd->region, [&](size_t y, size_t z) REQUIRES(apiMutex) {
    size_t so = (cmd->srcOrigin[2] + z) * cmd->srcSlice + (cmd->srcOrigin[1] + y) * cmd->srcRow + cmd->srcOrigin[0];
    size_t dO = (cmd->dstOrigin[2] + z) * cmd->dstSlice + (cmd->dstOrigin[1] + y) * cmd->dstRow + cmd->dstOrigin[0];
    std::memmove(to + dO, from + so, cmd->region[0]);
    if (ds) wrote(*ds, {dBase + dO, dBase + dO + cmd->region[0]}, -1);
  });
  return done();
}

IssueResult issueImage(Command *cmd) REQUIRES(apiMutex) {
  _cl_context *ctx = cmd->q->ctx;
  int slot = cmd->slot;
  DeviceSlot &q = ctx->slots[slot];
  const cl_icd_dispatch &d = icd(q.queue());
  cl_int err = CL_SUCCESS;
  cl_mem si = cmd->src && cmd->src->isImage() ? cmd->src->realImage : nullptr;
  cl_mem di = cmd->dst && cmd->dst->isImage() ? cmd->dst->realImage : nullptr;
  // An image made from a buffer is a view of the buffer's bytes (parent): they must be
  // current here first, and belong to this device after a write.
  for (_cl_mem *v : {cmd->src, cmd->dst})
    if (v && v->isImage() && v->parent) {
      if (!ensureDevice(ctx, v, slot, cmd, &err)) return staging();
      if (err != CL_SUCCESS) return done(err);
    }
  if (di && cmd->dst->parent) wrote(*rootOf(cmd->dst)->store, cmd->dst->range(), slot);
  switch (cmd->kind) {
    case CmdKind::ImageRead:
      err = d.clEnqueueReadImage(q.queue(), si, CL_FALSE, cmd->srcOrigin, cmd->region, cmd->srcRow,
                                 cmd->srcSlice, cmd->ptr, 0, nullptr, cmd->real.out());
      return issued(cmd, err, "clEnqueueReadImage");
    case CmdKind::ImageWrite:
      err = d.clEnqueueWriteImage(q.queue(), di, CL_FALSE, cmd->dstOrigin, cmd->region, cmd->dstRow,
                                  cmd->dstSlice, cmd->ptr, 0, nullptr, cmd->real.out());
      return issued(cmd, err, "clEnqueueWriteImage");
    case CmdKind::ImageCopy:
      err = d.clEnqueueCopyImage(q.queue(), si, di, cmd->srcOrigin, cmd->dstOrigin, cmd->region, 0,
                                 nullptr, cmd->real.out());
      return issued(cmd, err, "clEnqueueCopyImage");
    case CmdKind::ImageFill:
      err = d.clEnqueueFillImage(q.queue(), di, cmd->pattern.data(), cmd->dstOrigin, cmd->region, 0,
                                 nullptr, cmd->real.out());
      return issued(cmd, err, "clEnqueueFillImage");
    case CmdKind::ImageToBuffer: {
      cl_mem b = realBuffer(rootOf(cmd->dst), slot, &err);
      if (!b) return done(err);
      size_t off = cmd->dst->origin + cmd->dstOff;
      if (waitFills(*rootOf(cmd->dst)->store, {off, off + cmd->size}, cmd)) return staging();
      err = d.clEnqueueCopyImageToBuffer(q.queue(), si, b, cmd->srcOrigin, cmd->region, off, 0,
                                         nullptr, cmd->real.out());
      if (err == CL_SUCCESS) wrote(*rootOf(cmd->dst)->store, {off, off + cmd->size}, slot);
      return issued(cmd, err, "clEnqueueCopyImageToBuffer");
    }
    case CmdKind::BufferToImage: {
      if (!ensureDevice(ctx, cmd->src, slot, cmd, &err)) return staging();
      if (err != CL_SUCCESS) return done(err);
      cl_mem b = realBuffer(rootOf(cmd->src), slot, &err);
      err = d.clEnqueueCopyBufferToImage(q.queue(), b, di, cmd->src->origin + cmd->srcOff,
                                         cmd->dstOrigin, cmd->region, 0, nullptr, cmd->real.out());
      return issued(cmd, err, "clEnqueueCopyBufferToImage");
    }
    case CmdKind::ImageMap:
      // The mapped bytes (Tutti's block, or the app's host_ptr) are read in now and
      // written back at unmap; CL_MAP_WRITE_INVALIDATE_REGION needs no content.
      if (!(cmd->mapFlags & (CL_MAP_READ | CL_MAP_WRITE))) return done();
      err = d.clEnqueueReadImage(q.queue(), si, CL_FALSE, cmd->srcOrigin, cmd->region, cmd->srcRow,
                                 cmd->srcSlice, cmd->mapped, 0, nullptr, cmd->real.out());
      return issued(cmd, err, "clEnqueueReadImage (map)");
    default: return done(CL_INVALID_OPERATION);
  }
}

IssueResult issueUnmap(Command *cmd) REQUIRES(apiMutex) {
  _cl_mem *m = cmd->src;
  if (m->isImage()) {
    if (!(cmd->mapFlags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))) {
      if (!mapsIntoHostPtr(m)) std::free(cmd->mapped);
      return done();
    }
    cl_int err = CL_SUCCESS;
    if (m->parent) {  // a view of a buffer (see issueImage)
      if (!ensureDevice(cmd->q->ctx, m, cmd->slot, cmd, &err)) return staging();
      if (err != CL_SUCCESS) return done(err);
      wrote(*rootOf(m)->store, m->range(), cmd->slot);
    }
    DeviceSlot &q = cmd->q->ctx->slots[cmd->slot];
    err = icd(q.queue()).clEnqueueWriteImage(q.queue(), m->realImage, CL_FALSE, cmd->srcOrigin,
                                           cmd->region, cmd->srcRow, cmd->srcSlice, cmd->mapped,
                                           0, nullptr, cmd->real.out());
    if (!mapsIntoHostPtr(m)) cmd->freeAfter = cmd->mapped;
    return issued(cmd, err, "clEnqueueWriteImage (unmap)");
  }
  if (cmd->mapFlags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) {
    Range r{m->origin + cmd->srcOff, m->origin + cmd->srcOff + cmd->size};
    wrote(*rootOf(m)->store, r, -1);
  }
  return done();
}

IssueResult issueCommandImpl(Command *cmd) REQUIRES(apiMutex) {
  cmd->staging.clear();
  if (cmd->stagingError) return done(cmd->stagingError);
  _cl_context *ctx = cmd->q->ctx;
  if (cmd->skmd) return issueSplit(cmd);
  switch (cmd->kind) {
    case CmdKind::Kernel:
      if (cmd->vast) return issueVast(cmd);
      // Placement found no device that holds its buffers, and VAST did not take it.
      if (cmd->slot < 0) {
        TUTTI_LOG(Error, "kernel '%s': no device left to run it holds its buffers, and VAST did "
                  "not take it: it fails (CL_MEM_OBJECT_ALLOCATION_FAILURE)", cmd->kernel->name.c_str());
        return done(CL_MEM_OBJECT_ALLOCATION_FAILURE);
      }
      return issueKernel(cmd);
    case CmdKind::Read: return issueRead(cmd);
    case CmdKind::Write: return issueWrite(cmd);
    case CmdKind::Copy: return issueCopy(cmd);
    case CmdKind::Fill: return issueFill(cmd);
    case CmdKind::ReadRect:
    case CmdKind::WriteRect:
    case CmdKind::CopyRect: return issueRect(cmd);
    case CmdKind::Map: {
      BufferStore &st = *rootOf(cmd->src)->store;
      Range r{cmd->src->origin + cmd->srcOff, cmd->src->origin + cmd->srcOff + cmd->size};
      bool ready = (cmd->mapFlags & (CL_MAP_READ | CL_MAP_WRITE)) ? ensureHost(ctx, st, r, cmd)
                                                                 : !waitFills(st, r, cmd);
      return ready ? done() : staging();
    }
    case CmdKind::Unmap: return issueUnmap(cmd);
    case CmdKind::Migrate: {
      bool ready = true;
      for (_cl_mem *m : cmd->migrate) {
        if (m->isImage()) continue;
        BufferStore &st = *rootOf(m)->store;
        if (cmd->migrateFlags & CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED) {
          if (!waitFills(st, m->range(), cmd)) wrote(st, m->range(), -1);
          else ready = false;
        } else if (cmd->migrateFlags & CL_MIGRATE_MEM_OBJECT_HOST) {
          ready &= ensureHost(ctx, st, m->range(), cmd);
        }
      }
      return ready ? done() : staging();
    }
    case CmdKind::Marker: return done();
    case CmdKind::ImageRead: case CmdKind::ImageWrite: case CmdKind::ImageCopy:
    case CmdKind::ImageFill: case CmdKind::ImageToBuffer: case CmdKind::BufferToImage:
    case CmdKind::ImageMap:
      if (cmd->slot < 0) return done(CL_INVALID_OPERATION);
      return issueImage(cmd);
  }
  return done(CL_INVALID_OPERATION);
}

}  // namespace

}  // namespace

cl_int setKernelArgs(Command *cmd, cl_kernel rk, int slot) {
  // Launches handed to the issuer set this real kernel's arguments on its thread.
  if (size_t(slot) < cmd->q->ctx->slots.size()) {
    if (Issuer *is = slotOf(cmd, slot).issuer.get()) is->drain();
  }
  return setChangedArgs(cmd, rk, slot, [rk](cl_uint i, size_t n, const void *v) {
    return icd(rk).clSetKernelArg(rk, i, n, v);
  });
}

IssueResult issueCommand(Command *cmd) REQUIRES(apiMutex) { return issueCommandImpl(cmd); }

}  // namespace tutti
