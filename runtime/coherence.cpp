// coherence.cpp - validity tracking and the transfers it makes.
#include "coherence.h"

#include "backend.h"
#include "icd.h"
#include "inbox.h"
#include "log.h"
#include "memory.h"
#include "transfer.h"
#include "watcher.h"

namespace tutti {

namespace {

void CL_CALLBACK onStaged(cl_event, cl_int, void *) { inbox().postRetry(); }

bool overlaps(Range a, Range b) { return a.begin < b.end && b.begin < a.end; }

// Whether a move or an upload into slot's replica (any device's: slot -1) that overlaps r
// is still in flight. Those copies run on the staging's own queues, beside the slot's, so
// a copy out of the replica that is ordered after the slot's work alone may read the
// bytes from before them.
bool landingOn(BufferStore &st, int slot, Range r) REQUIRES(apiMutex) {
  for (const BufferStore::Fill &f : st.pendingFills)
    if (f.to >= 0 && (slot < 0 || f.to == slot) && overlaps(f.r, r) && eventStatus(f.ev.get()) > CL_COMPLETE)
      return true;
  return false;
}

}  // namespace

cl_int eventStatus(cl_event e) {
  cl_int st = CL_QUEUED;
  if (icd(e).clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr) !=
      CL_SUCCESS)
    return CL_INVALID_EVENT;
  return st;
}

cl_int waitEach(const std::vector<RealEvent> &events) {
  cl_int err = CL_SUCCESS;
  for (const RealEvent &e : events) {
    cl_int st = e.wait();
    if (err == CL_SUCCESS && st != CL_SUCCESS) err = st;
  }
  return err;
}

namespace {

// waitFills over the copies that `which` picks.
template <typename Which>
bool waitCopies(BufferStore &st, Range r, Command *cmd, Which which) REQUIRES(apiMutex) {
  bool wait = false;
  for (auto it = st.pendingFills.begin(); it != st.pendingFills.end();) {
    if (eventStatus(it->ev.get()) <= CL_COMPLETE) {
      it = st.pendingFills.erase(it);
      continue;
    }
    if (which(*it) && overlaps(it->r, r)) {
      cmd->staging.push_back(it->ev.share());
      wait = true;
    }
    ++it;
  }
  return wait;
}

// A copy in flight, which cmd waits for (done: its result).
void inFlight(_cl_context *ctx, BufferStore &st, Range p, int to, RealEvent done, Command *cmd)
    REQUIRES(apiMutex) {
  whenComplete(ctx, done.get(), onStaged, nullptr);
  st.pendingFills.push_back({p, done.share(), to});
  cmd->staging.push_back(std::move(done));
}

// What a copy of r out of slot's replica must wait for: the launch that last wrote the
// replica (on the slot's in-order queue, so every earlier write there is done too) and
// copies into r there still in flight. False when a write by another path (a split
// piece, VAST, the app's write) came last: the copy then waits for all the work queued on
// the slot before it, as before. Later writers of r are kept back by the commands'
// hazards (they follow the command this copy is for), not by the copy.
bool copyOutWaits(BufferStore &st, int slot, Range r, std::vector<RealEvent> &waits) REQUIRES(apiMutex) {
  const BufferStore::LastWrite &w = st.lastWrite[size_t(slot)];
  if (!w.known) return false;
  if (w.ev && eventStatus(w.ev.get()) > CL_COMPLETE) waits.push_back(w.ev.share());
  for (const BufferStore::Fill &f : st.pendingFills)
    if (f.to == slot && overlaps(f.r, r) && eventStatus(f.ev.get()) > CL_COMPLETE) waits.push_back(f.ev.share());
  return true;
}

// Sends the parts of `missing` that only other devices hold (the home is stale there)
// straight from one of them to slot's replica through pinned staging: the home stays
// stale, since the host may never need them. The zero-copy replica's bytes are the
// home's, and go the home's way. True: cmd must wait for a move.
bool moveFromDevices(_cl_context *ctx, BufferStore &st, const std::vector<Range> &missing, int slot,
                     cl_mem dst, Command *cmd, cl_int *err) REQUIRES(apiMutex) {
  IntervalSet todo;
  for (Range g : missing)
    for (Range h : st.hostValid.missing(g)) todo.add(h);
  bool wait = false;
  DeviceSlot &to = ctx->slots[slot];
  for (size_t s = 0; s < st.devValid.size() && !todo.empty(); ++s) {
    if (int(s) == slot || int(s) == st.alias) continue;
    DeviceSlot &from = ctx->slots[s];
    for (Range t : todo.ranges())
      for (Range p : st.devValid[s].present(t)) {
        if (landingOn(st, int(s), p)) continue;  // not there yet (see ensureHost): from the home, later
        RealEvent e;
        std::vector<RealEvent> waits;
        bool targeted = copyOutWaits(st, int(s), p, waits);
        if (!moveQueued(from, st.devBuf[s], to, dst, p.begin, p.size(), &e, err, targeted ? &waits : nullptr))
          continue;
        if (*err != CL_SUCCESS) {
          TUTTI_LOG(Error, "%s -> %s: staged copy (%zu bytes) failed: %s",
                    from.dev->label().c_str(), to.dev->label().c_str(), p.size(), clErrorName(*err));
          return wait;
        }
        todo.remove(p);
        st.devValid[slot].add(p);
        if (!e) continue;  // made at once: the bytes are there
        inFlight(ctx, st, p, slot, std::move(e), cmd);
        wait = true;
      }
  }
  return wait;
}

}  // namespace

bool waitFills(BufferStore &st, Range r, Command *cmd) {
  return waitCopies(st, r, cmd, [](const BufferStore::Fill &) { return true; });
}

// Makes r valid in the host home, copying stale parts from devices that hold them.
// Returns false when cmd must wait for copies in flight.
bool ensureHost(_cl_context *ctx, BufferStore &st, Range r, Command *cmd) {
  if (!homeOf(ctx, st)) {
    cmd->stagingError = CL_OUT_OF_HOST_MEMORY;
    return false;  // nothing to wait for: issueCommand fails the command
  }
  bool wait = waitFills(st, r, cmd);
  std::vector<Range> gaps = st.hostValid.missing(r);
  // A replica still being filled is read once the fill has landed: cmd waits for it
  // (waitFills) and is issued again. Read before, the home got the replica's old bytes
  // and kept them as valid (Soak.ThreadsMixedCommandsMatchTheModel, staging forced on two
  // devices: a map read the fill of 30 commands before).
  if (wait && !gaps.empty() && landingOn(st, -1, r)) return false;
  // The zero-copy replica first: its bytes need no copy at all.
  std::vector<size_t> order;
  if (!gaps.empty()) {
    if (st.alias >= 0) order.push_back(size_t(st.alias));
    for (size_t s = 0; s < st.devValid.size(); ++s)
      if (int(s) != st.alias) order.push_back(s);
  }
  for (Range gap : gaps) {
    std::vector<Range> todo{gap};
    for (size_t s : order) {
      if (todo.empty()) break;
      std::vector<Range> rest;
      for (Range t : todo) {
        for (Range p : st.devValid[s].present(t)) {
          DeviceSlot &ds = ctx->slots[s];
          RealEvent e;
          std::vector<RealEvent> waits;
          bool alias = int(s) == st.alias;
          bool targeted = !alias && copyOutWaits(st, int(s), p, waits);
          // The zero-copy replica's bytes are already in the home once the work queued
          // before now on its device is done: a marker says when. Other devices' come
          // through pinned staging where it is wanted: a home's pages are often fresh,
          // and the driver's own copy into them ran at 0.35-1.5 GB/s on the H100 machine
          // (first touch), against 55 GB/s staged.
          cl_int err = alias ? icd(ds.queue()).clEnqueueMarkerWithWaitList(ds.queue(), 0, nullptr, e.out())
                             : readQueued(ds, st.devBuf[s], p.begin, p.size(), st.home + p.begin,
                                          Route::StagedIfWanted, &e, targeted ? &waits : nullptr);
          if (err != CL_SUCCESS) {
            TUTTI_LOG(Error, "%s: %s(%zu bytes) failed: %s; the bytes only it holds cannot be "
                      "fetched, so the command that needs them fails",
                      ds.dev->label().c_str(),
                      alias ? "clEnqueueMarkerWithWaitList" : "clEnqueueReadBuffer", p.size(),
                      clErrorName(err));
            cmd->stagingError = err;
            continue;
          }
          st.hostValid.add(p);
          if (!e) continue;  // staged now: the bytes are in the home already
          inFlight(ctx, st, p, -1, std::move(e), cmd);
          wait = true;
        }
        IntervalSet left;
        left.add(t);
        for (Range p : st.devValid[s].present(t)) left.remove(p);
        for (Range l : left.ranges()) rest.push_back(l);
      }
      todo.swap(rest);
    }
    // Bytes valid nowhere were never written: the home holds their initial content.
    for (Range t : todo) st.hostValid.add(t);
  }
  if (wait)
    for (auto &ds : ctx->slots) icd(ds.queue()).clFlush(ds.queue());
  // A refused read leaves those bytes where they were: the command must fail with the
  // driver's error (issueCommand sees cmd->stagingError), never go on with the home's
  // stale bytes. A device that died holding the only copy loses them; its readers fail.
  return !wait && cmd->stagingError == CL_SUCCESS;
}

bool ensureDevice(_cl_context *ctx, _cl_mem *m, int slot, Command *cmd, cl_int *err) {
  return ensureDeviceRange(ctx, rootOf(m), m->range(), slot, cmd, err);
}

bool ensureDeviceRange(_cl_context *ctx, _cl_mem *root, Range r, int slot, Command *cmd,
                       cl_int *err, bool hostOnly, std::vector<RealEvent> *uploads) {
  BufferStore &st = *root->store;
  cl_mem dst = realBuffer(root, slot, err);
  if (!dst) return true;
  // Bytes valid here once a move from another device lands.
  bool moving = waitCopies(st, r, cmd, [slot](const BufferStore::Fill &f) { return f.to == slot; });
  std::vector<Range> missing = st.devValid[slot].missing(r);  // returns at once when all are valid
  if (missing.empty()) return !moving;
  // Bytes valid nowhere were never written: their content is undefined, so the
  // replica's is as good as any and nothing needs to move.
  IntervalSet undefined;
  for (Range g : missing) {
    undefined.add(g);
    for (Range h : st.hostValid.present(g)) undefined.remove(h);
    for (auto &dv : st.devValid)
      for (Range d : dv.present(g)) undefined.remove(d);
  }
  if (!undefined.empty()) {
    for (Range u : undefined.ranges()) st.devValid[slot].add(u);
    missing = st.devValid[slot].missing(r);
    if (missing.empty()) return !moving;
  }
  if (slot != st.alias) {
    moving |= moveFromDevices(ctx, st, missing, slot, dst, cmd, err);
    if (*err != CL_SUCCESS) return true;
    missing = st.devValid[slot].missing(r);
    if (missing.empty()) return !moving;
  }
  bool ready = !moving;
  for (Range g : missing) ready &= ensureHost(ctx, st, g, cmd);
  if (!ready || hostOnly) return ready;
  if (slot == st.alias) {  // the replica is the home: valid there is valid here
    for (Range g : missing) st.devValid[slot].add(g);
    return true;
  }
  DeviceSlot &ds = ctx->slots[slot];
  bool wait = false;
  for (Range g : missing) {
    RealEvent e;
    // Large ones through pinned staging on its thread, and cmd waits for them: the
    // driver's pageable path ran at 6.5-8 GB/s on the H100, and homes are pageable (often
    // the app's own CL_MEM_USE_HOST_PTR memory), so a launch over host-resident data
    // crossed PCIe at a quarter of the link's rate.
    if (uploadQueued(ds, dst, g.begin, g.size(), st.home + g.begin, &e, err)) {
      if (*err != CL_SUCCESS) {
        TUTTI_LOG(Error, "%s: staged upload (%zu bytes) failed: %s", ds.dev->label().c_str(), g.size(),
                  clErrorName(*err));
        return true;
      }
      st.devValid[slot].add(g);
      if (!e) continue;  // made at once: the bytes are there
      inFlight(ctx, st, g, slot, std::move(e), cmd);
      wait = true;
      continue;
    }
    *err = writeQueued(ds, dst, g.begin, g.size(), st.home + g.begin, Route::Driver,
                       uploads ? &e : nullptr);
    if (*err != CL_SUCCESS) {
      TUTTI_LOG(Error, "%s: clEnqueueWriteBuffer(%zu bytes) failed: %s", ds.dev->label().c_str(),
                g.size(), clErrorName(*err));
      return true;
    }
    if (uploads) uploads->push_back(std::move(e));
    st.devValid[slot].add(g);
  }
  return !wait;
}

void pushOutputs(Command *cmd) {
  _cl_context *ctx = cmd->q->ctx;
  for (auto [root, slot] : cmd->pushTo) {
    if (ctx->slots[size_t(slot)].dev->retired) continue;  // its reader goes elsewhere now
    Command scratch;  // holds the copies' events, which the buffer's copies in flight share
    cl_int err = CL_SUCCESS;
    ensureDeviceRange(ctx, root, Range{0, root->store->size}, slot, &scratch, &err, /*hostOnly=*/true);
    if (err != CL_SUCCESS)
      TUTTI_LOG(Warn, "mkmd: moving a kernel's output to %s failed (%s); its reader will fetch it",
                ctx->slots[size_t(slot)].dev->label().c_str(), clErrorName(err));
  }
  cmd->pushTo.clear();
}

void wrote(BufferStore &st, Range r, int slot) {
  ++st.writes;
  for (size_t s = 0; s < st.devValid.size(); ++s)
    if (int(s) != slot) st.devValid[s].remove(r);
  if (slot >= 0) {
    st.lastWrite[size_t(slot)] = {RealEvent(), false};  // a launch says which it was (wroteBy)
    st.devValid[slot].add(r);
    st.hostValid.remove(r);
  } else {
    st.hostValid.add(r);
  }
}

void wroteBy(BufferStore &st, int slot, const RealEvent &launch) {
  if (launch) st.lastWrite[size_t(slot)] = {launch.share(), true};
  else st.lastWrite[size_t(slot)].queued = true;
}

// A marker enqueued now on a slot completes once everything enqueued there before it has:
// the writers left unknown by launches without an event become known. Else a copy out of
// their output waits for all the work issued on that device since, kernels of the graph
// about to be issued included (mk_Lyapunov on two H100s: a 0.1 ms transpose that went at
// once, TUTTI_MKMD_EAGER, held its reader on the other GPU behind a 21 ms product).
void pinQueuedWriters(_cl_context *ctx, const std::vector<_cl_mem *> &roots) {
  std::vector<RealEvent> marker(ctx->slots.size());
  for (_cl_mem *m : roots) {
    if (!m || !m->store) continue;
    BufferStore &st = *m->store;
    for (size_t s = 0; s < st.lastWrite.size() && s < marker.size(); ++s) {
      BufferStore::LastWrite &w = st.lastWrite[s];
      if (w.known || !w.queued || int(s) == st.alias) continue;
      if (!marker[s]) {
        cl_command_queue q = ctx->slots[s].queue();
        if (icd(q).clEnqueueMarkerWithWaitList(q, 0, nullptr, marker[s].out()) != CL_SUCCESS) {
          marker[s].reset();
          continue;  // left unknown: its copies wait for the whole queue, as before
        }
        icd(q).clFlush(q);
      }
      w = {marker[s].share(), true, false};
    }
  }
}

bool stagingComplete(Command *cmd) {
  for (const RealEvent &e : cmd->staging) {
    cl_int st = eventStatus(e.get());
    if (st > CL_COMPLETE) return false;
    if (st < 0 && cmd->stagingError == CL_SUCCESS) {
      // Said once per command: a launch that failed over to another device and then lost
      // its data this way reached the app only as an error in a later wait list (10 GiB
      // WordCount on an H100, session 43).
      TUTTI_LOG(Error, "a copy that a command waited for failed (%s): the command fails", clErrorName(st));
      cmd->stagingError = st;
    }
  }
  return true;
}

}  // namespace tutti
