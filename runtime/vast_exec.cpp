// vast_exec.cpp - running a VAST launch's slices on its device (issue 18).
//
// Each slice: the LPT entries of its window's pages (frame i holds the window's i-th
// page), the window's bytes from the homes into the frame buffers, the paged-access
// kernel over the slice's groups, and the bytes the slice may write back into the
// homes. The copies go through the device's in-order queue and each slice ends with a
// clFinish, so a slice starts from the homes as the slices before it left them: a page
// that two slices touch carries the first one's writes into the second (atomics too),
// and bytes a slice may write but does not are copied back unchanged.
#include "vast_exec.h"

#include <atomic>
#include <numeric>

#include "backend.h"
#include "clock.h"
#include "coherence.h"
#include "icd.h"
#include "log.h"
#include "memory.h"
#include "trace.h"
#include "vast_launch.h"

namespace tutti {

namespace {

std::atomic<uint64_t> g_launches{0}, g_slices{0}, g_in{0}, g_out{0}, g_ns{0};

// What a run needs, copied under the lock: it runs without it.
struct VastRun {
  std::shared_ptr<VastLaunch> L;
  DeviceSlot *ds = nullptr;
  int device = -1;  // backing-device index, for the trace
  std::vector<ArgValue> args;
  std::vector<char *> homes;  // per VastArg
};

// Two frame sets and a copy queue beside the device queue: while slice i runs, slice
// i+1's window crosses to the other set (Fig. 4.3/4.8). The copy queue is in order, so
// slice i+2's copy-in, which reuses slice i's frames, comes after slice i's copy-out;
// bytes of slice i+1's window that slice i may write are copied in only after slice i's
// copy-out has put them in the home (shared pages, Fig. 4.7).
cl_int runSlices(VastRun &run) {
  VastLaunch &L = *run.L;
  const cl_icd_dispatch &d = icd(run.ds->queue);
  cl_context c = run.ds->ctx;
  cl_command_queue q = run.ds->queue;
  const size_t page = size_t(1) << L.pageShift;
  const size_t nj = L.args.size();
  cl_int err = CL_SUCCESS;
  cl_command_queue copyQ = d.clCreateCommandQueue(c, run.ds->dev->id, 0, &err);
  if (err != CL_SUCCESS) copyQ = nullptr;
  const int sets = copyQ ? 2 : 1;
  if (!copyQ) copyQ = q, err = CL_SUCCESS;  // no second queue: one set, in order
  std::vector<cl_mem> frames[2], lpts[2];
  std::vector<cl_event> events;  // released at the end
  auto release = [&] {
    for (cl_event e : events) d.clReleaseEvent(e);
    for (int k = 0; k < 2; ++k) {
      for (cl_mem m : frames[k]) if (m) d.clReleaseMemObject(m);
      for (cl_mem m : lpts[k]) if (m) d.clReleaseMemObject(m);
    }
    if (copyQ != q) d.clReleaseCommandQueue(copyQ);
  };
  const cl_uint zero = 0;
  for (int k = 0; k < sets; ++k) {
    frames[k].assign(nj, nullptr);
    lpts[k].assign(nj, nullptr);
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
      frames[k][j] = d.clCreateBuffer(c, CL_MEM_READ_WRITE, std::max(L.args[j].frameBytes, page), nullptr, &err);
      if (err != CL_SUCCESS) break;
      size_t lptBytes = size_t(std::max<uint64_t>(L.args[j].pages, 1)) * 4;
      lpts[k][j] = d.clCreateBuffer(c, CL_MEM_READ_ONLY, lptBytes, nullptr, &err);
      // Entries outside a slice's window are never read; zero keeps them inside the frame.
      if (err == CL_SUCCESS)
        err = d.clEnqueueFillBuffer(copyQ, lpts[k][j], &zero, sizeof zero, 0, lptBytes, 0, nullptr, nullptr);
    }
  }
  // The app's by-value and local arguments, then the page shift; frames and LPTs per slice.
  cl_kernel rk = L.paged;
  const cl_uint base = cl_uint(run.args.size());
  for (cl_uint i = 0; i < base && err == CL_SUCCESS; ++i) {
    const ArgValue &a = run.args[i];
    if (a.kind == ArgValue::Bytes) err = d.clSetKernelArg(rk, i, a.bytes.size(), a.bytes.data());
    else if (a.kind == ArgValue::Local) err = d.clSetKernelArg(rk, i, a.localSize, nullptr);
  }
  const cl_uint shift = L.pageShift;
  if (err == CL_SUCCESS) err = d.clSetKernelArg(rk, base + cc::kAbiArgs, sizeof shift, &shift);
  if (err != CL_SUCCESS) {
    release();
    return err;
  }
  auto track = [&](cl_event e) { events.push_back(e); return e; };
  // LPT entries of every slice, alive until the end (the copies read them later).
  std::vector<std::vector<cl_uint>> lptValues(L.slices.size() * nj);
  const VastSlice *prev = nullptr;
  cl_event prevKernel = nullptr;
  for (size_t si = 0; si < L.slices.size() && err == CL_SUCCESS; ++si) {
    const VastSlice &s = L.slices[si];
    const int k = int(si % size_t(sets));
    // Copy-in: LPT entries, then the window, less what the previous slice may write
    // (those bytes follow its copy-out below).
    std::vector<std::pair<size_t, Range>> late;  // (arg, bytes) to copy after prev's copy-out
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
      const std::vector<PageRun> &runs = s.runs[j];
      if (runs.empty()) continue;
      std::vector<cl_uint> &vals = lptValues[si * nj + j];
      uint64_t pages = 0;
      for (const PageRun &r : runs) pages += r.count;
      vals.resize(size_t(pages));
      IntervalSet prevOut;
      if (prev && sets > 1)
        for (const FrameCopy &o : prev->out[j]) prevOut.add(o.r);
      size_t at = 0;
      for (const PageRun &r : runs) {
        if (err != CL_SUCCESS) break;
        cl_uint *v = vals.data() + at;
        std::iota(v, v + r.count, cl_uint(r.frame));
        at += size_t(r.count);
        err = d.clEnqueueWriteBuffer(copyQ, lpts[k][j], CL_FALSE, size_t(r.page) * 4, size_t(r.count) * 4, v, 0,
                                     nullptr, nullptr);
        const Range bytes{size_t(r.page) << L.pageShift,
                          std::min(L.args[j].root->size, size_t(r.page + r.count) << L.pageShift)};
        // Bytes the previous slice may write come after its copy-out; the rest now.
        IntervalSet now;
        now.add(bytes);
        for (Range sh : prevOut.present(bytes)) {
          now.remove(sh);
          late.push_back({j, sh});
        }
        for (Range b : now.ranges()) {
          if (err != CL_SUCCESS) break;
          err = d.clEnqueueWriteBuffer(copyQ, frames[k][j], CL_FALSE, frameOffsetOf(runs, b.begin, L.pageShift),
                                       b.size(), run.homes[j] + b.begin, 0, nullptr, nullptr);
          L.bytesIn += b.size();
        }
      }
    }
    // The previous slice's copy-out, after its kernel (the copy queue is in order, so it
    // also comes after this slice's early copy-in, which it overlaps with that kernel).
    if (prev && err == CL_SUCCESS) {
      for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j)
        for (const FrameCopy &o : prev->out[j]) {
          if (err != CL_SUCCESS) break;
          err = d.clEnqueueReadBuffer(copyQ, frames[(si - 1) % size_t(sets)][j], CL_FALSE, o.frameOffset,
                                      o.r.size(), run.homes[j] + o.r.begin, 1, &prevKernel, nullptr);
          L.bytesOut += o.r.size();
        }
      for (auto &[j, r] : late) {
        if (err != CL_SUCCESS) break;
        err = d.clEnqueueWriteBuffer(copyQ, frames[k][j], CL_FALSE, frameOffsetOf(s.runs[j], r.begin, L.pageShift),
                                     r.size(), run.homes[j] + r.begin, 0, nullptr, nullptr);
        L.bytesIn += r.size();
      }
    }
    cl_event copied = nullptr;
    if (err == CL_SUCCESS) err = d.clEnqueueMarkerWithWaitList(copyQ, 0, nullptr, &copied);
    if (err != CL_SUCCESS) break;
    track(copied);
    if (copyQ != q) d.clFlush(copyQ);
    // The slice's kernel, once its copy-in is done.
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
      err = d.clSetKernelArg(rk, L.args[j].arg, sizeof(cl_mem), &frames[k][j]);
      if (err == CL_SUCCESS)
        err = d.clSetKernelArg(rk, base + cc::kAbiArgs + 1 + cl_uint(j), sizeof(cl_mem), &lpts[k][j]);
    }
    cl_event last = nullptr;
    bool firstSub = true;
    for (const cc::SubLaunch &sub : cc::planPartialLaunch(L.nd, s.first, s.count)) {
      if (err != CL_SUCCESS) break;
      for (unsigned i = 0; i < cc::kAbiArgs && err == CL_SUCCESS; ++i)
        err = d.clSetKernelArg(rk, base + i, sizeof(cl_ulong), &sub.abi[i]);
      size_t g[3], l[3];
      for (unsigned m = 0; m < 3; ++m) g[m] = size_t(sub.global_size[m]), l[m] = size_t(sub.local_size[m]);
      cl_event e = nullptr;
      if (err == CL_SUCCESS)
        err = d.clEnqueueNDRangeKernel(q, rk, sub.work_dim, nullptr, g, l, firstSub ? 1 : 0,
                                       firstSub ? &copied : nullptr, &e);
      if (err == CL_SUCCESS) {
        if (last) d.clReleaseEvent(last);
        last = e;
      }
      firstSub = false;
    }
    if (err != CL_SUCCESS) {
      if (last) d.clReleaseEvent(last);
      break;
    }
    track(last);
    d.clFlush(q);
    prev = &s;
    prevKernel = last;
    ++g_slices;
  }
  // The last slice's copy-out.
  for (size_t j = 0; prev && j < nj && err == CL_SUCCESS; ++j)
    for (const FrameCopy &o : prev->out[j]) {
      if (err != CL_SUCCESS) break;
      err = d.clEnqueueReadBuffer(copyQ, frames[(L.slices.size() - 1) % size_t(sets)][j], CL_FALSE,
                                  o.frameOffset, o.r.size(), run.homes[j] + o.r.begin, 1, &prevKernel, nullptr);
      L.bytesOut += o.r.size();
    }
  cl_int fin = d.clFinish(copyQ);
  if (copyQ != q) {
    cl_int f2 = d.clFinish(q);
    if (fin == CL_SUCCESS) fin = f2;
  }
  if (err == CL_SUCCESS) err = fin;
  if (tracing() && err == CL_SUCCESS) traceSpan(run.device, "vast", "paged slices", L.t0, nowNs(), L.slices.size());
  release();
  if (err != CL_SUCCESS)
    TUTTI_LOG(Error, "%s: VAST slices failed: %s", run.ds->dev->label().c_str(), clErrorName(err));
  return err;
}

}  // namespace

IssueResult issueVast(Command *cmd) {
  VastLaunch &L = *cmd->vast;
  _cl_context *ctx = cmd->q->ctx;
  if (L.ran) {
    // The homes now hold what the slices wrote; every replica of those bytes is stale.
    if (L.status == CL_SUCCESS)
      for (size_t j = 0; j < L.args.size(); ++j)
        for (const VastSlice &s : L.slices)
          for (const FrameCopy &o : s.out[j]) wrote(*L.args[j].root->store, o.r, -1);
    ++g_launches;
    g_in += L.bytesIn;
    g_out += L.bytesOut;
    g_ns += L.ns;
    BackingDevice *dev = ctx->slots[size_t(cmd->slot)].dev;
    dev->counters.kernels += 1;
    dev->counters.record(Transfer::HostToDevice, L.bytesIn);
    dev->counters.record(Transfer::DeviceToHost, L.bytesOut);
    cmd->ev->device = cmd->slot;
    // The app's profiling times span the slices (the command had no real event).
    cmd->ev->tStart = L.t0;
    cmd->ev->tEnd = L.t0 + L.ns;
    return {IssueResult::Done, L.status};
  }
  // Every byte of its buffers in their homes (the slices copy windows from there).
  bool ready = true;
  VastRun run;
  for (const VastArg &a : L.args) {
    BufferStore &st = *a.root->store;
    char *home = homeOf(ctx, st);
    if (!home) return {IssueResult::Done, CL_OUT_OF_HOST_MEMORY};
    ready &= ensureHost(ctx, st, a.root->range(), cmd);
    run.homes.push_back(home);
  }
  if (!ready) return {IssueResult::Staging, CL_SUCCESS};
  run.L = cmd->vast;
  run.ds = &ctx->slots[size_t(cmd->slot)];
  run.device = run.ds->dev->index;
  run.args = cmd->args;
  auto go = [run = std::move(run)]() mutable {
    run.L->t0 = nowNs();
    cl_int st = runSlices(run);
    run.L->ns = nowNs() - run.L->t0;
    return st;
  };
  if (!ctx->slots[size_t(cmd->slot)].dev->callsOutsideLock) {
    // A driver that must not be called beside the lock: the slices run here.
    L.status = go();
    L.ran = true;
    return issueVast(cmd);
  }
  // Host work with the lock released; then the command is issued again (L.ran).
  cmd->hostWork = std::move(go);
  cmd->hostLanded = [L = cmd->vast](cl_int st) {
    L->status = st;
    L->ran = true;
    return CL_SUCCESS;
  };
  return {IssueResult::Staging, CL_SUCCESS};
}

VastCounters vastCounters() {
  return {g_launches.load(), g_slices.load(), g_in.load(), g_out.load(), g_ns.load()};
}

}  // namespace tutti
