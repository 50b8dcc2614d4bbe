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

cl_int runSlices(VastRun &run) {
  VastLaunch &L = *run.L;
  const cl_icd_dispatch &d = icd(run.ds->queue);
  cl_context c = run.ds->ctx;
  cl_command_queue q = run.ds->queue;
  const size_t page = size_t(1) << L.pageShift;
  const size_t nj = L.args.size();
  std::vector<cl_mem> frames(nj, nullptr), lpts(nj, nullptr);
  auto release = [&] {
    for (cl_mem m : frames)
      if (m) d.clReleaseMemObject(m);
    for (cl_mem m : lpts)
      if (m) d.clReleaseMemObject(m);
  };
  cl_int err = CL_SUCCESS;
  const cl_uint zero = 0;
  for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
    frames[j] = d.clCreateBuffer(c, CL_MEM_READ_WRITE, std::max(L.args[j].frameBytes, page), nullptr, &err);
    if (err != CL_SUCCESS) break;
    size_t lptBytes = size_t(std::max<uint64_t>(L.args[j].pages, 1)) * 4;
    lpts[j] = d.clCreateBuffer(c, CL_MEM_READ_ONLY, lptBytes, nullptr, &err);
    // Entries outside a slice's window are never read; zero keeps them inside the frame.
    if (err == CL_SUCCESS) err = d.clEnqueueFillBuffer(q, lpts[j], &zero, sizeof zero, 0, lptBytes, 0, nullptr, nullptr);
  }
  // The app's by-value and local arguments, then the frames, page shift and LPTs.
  cl_kernel rk = L.paged;
  const cl_uint base = cl_uint(run.args.size());
  for (cl_uint i = 0; i < base && err == CL_SUCCESS; ++i) {
    const ArgValue &a = run.args[i];
    if (a.kind == ArgValue::Bytes) err = d.clSetKernelArg(rk, i, a.bytes.size(), a.bytes.data());
    else if (a.kind == ArgValue::Local) err = d.clSetKernelArg(rk, i, a.localSize, nullptr);
  }
  for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j)
    err = d.clSetKernelArg(rk, L.args[j].arg, sizeof(cl_mem), &frames[j]);
  const cl_uint shift = L.pageShift;
  if (err == CL_SUCCESS) err = d.clSetKernelArg(rk, base + cc::kAbiArgs, sizeof shift, &shift);
  for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j)
    err = d.clSetKernelArg(rk, base + cc::kAbiArgs + 1 + cl_uint(j), sizeof(cl_mem), &lpts[j]);
  if (err != CL_SUCCESS) {
    release();
    return err;
  }
  std::vector<std::vector<cl_uint>> lptValues(nj);  // alive until the slice's clFinish
  for (const VastSlice &s : L.slices) {
    uint64_t t0 = nowNs();
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
      const Range w = s.window[j];
      if (w.empty()) continue;
      const size_t firstPage = w.begin >> L.pageShift, pages = (w.size() + page - 1) >> L.pageShift;
      lptValues[j].resize(pages);
      std::iota(lptValues[j].begin(), lptValues[j].end(), cl_uint(0));
      err = d.clEnqueueWriteBuffer(q, lpts[j], CL_FALSE, firstPage * 4, pages * 4, lptValues[j].data(), 0,
                                   nullptr, nullptr);
      if (err == CL_SUCCESS)
        err = d.clEnqueueWriteBuffer(q, frames[j], CL_FALSE, 0, w.size(), run.homes[j] + w.begin, 0,
                                     nullptr, nullptr);
      L.bytesIn += w.size();
    }
    for (const cc::SubLaunch &sub : cc::planPartialLaunch(L.nd, s.first, s.count)) {
      if (err != CL_SUCCESS) break;
      for (unsigned i = 0; i < cc::kAbiArgs && err == CL_SUCCESS; ++i)
        err = d.clSetKernelArg(rk, base + i, sizeof(cl_ulong), &sub.abi[i]);
      size_t g[3], l[3];
      for (unsigned k = 0; k < 3; ++k) g[k] = size_t(sub.global_size[k]), l[k] = size_t(sub.local_size[k]);
      if (err == CL_SUCCESS)
        err = d.clEnqueueNDRangeKernel(q, rk, sub.work_dim, nullptr, g, l, 0, nullptr, nullptr);
    }
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
      const Range w = s.window[j], wr = s.written[j];
      if (wr.empty()) continue;
      err = d.clEnqueueReadBuffer(q, frames[j], CL_FALSE, wr.begin - w.begin, wr.size(),
                                  run.homes[j] + wr.begin, 0, nullptr, nullptr);
      L.bytesOut += wr.size();
    }
    if (err == CL_SUCCESS) err = d.clFinish(q);
    if (err != CL_SUCCESS) break;
    ++g_slices;
    if (tracing()) traceSpan(run.device, "vast", "paged slice", t0, nowNs(), s.count);
  }
  release();
  if (err != CL_SUCCESS)
    TUTTI_LOG(Error, "%s: VAST slice failed: %s", run.ds->dev->label().c_str(), clErrorName(err));
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
          if (!s.written[j].empty()) wrote(*L.args[j].root->store, s.written[j], -1);
    ++g_launches;
    g_in += L.bytesIn;
    g_out += L.bytesOut;
    g_ns += L.ns;
    BackingDevice *dev = ctx->slots[size_t(cmd->slot)].dev;
    dev->counters.kernels += 1;
    dev->counters.record(Transfer::HostToDevice, L.bytesIn);
    dev->counters.record(Transfer::DeviceToHost, L.bytesOut);
    cmd->ev->device = cmd->slot;
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
    uint64_t t0 = nowNs();
    cl_int st = runSlices(run);
    run.L->ns = nowNs() - t0;
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
