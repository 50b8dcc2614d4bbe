// slots.cpp - a virtual context's real contexts and queues, one per backing device.
//
// Every virtual context talks to each backing device through its own real context and
// one in-order queue with profiling on (kernel times feed placement and SKMD models).
#include "slots.h"

#include "backend.h"
#include "clock.h"
#include "host_fill.h"
#include "memory.h"
#include "icd.h"
#include "log.h"
#include "reaper.h"
#include "settings.h"
#include "staging.h"
#include "watcher.h"

namespace tutti {

namespace {

// A first estimate of the device clock's offset to ours (DeviceSlot::clockOffsetNs): a
// marker's end, read once it has completed. Without it the offset came from the first
// completions Tutti learned of, and a launch collected late (lazily, with a later one)
// set it late by that lag: MKMD's measured graph runs and the app's profiling times on
// PoCL then ended milliseconds after the kernels did.
void calibrateClock(DeviceSlot &s) {
  const cl_icd_dispatch &d = icd(s.queue());
  cl_event m = nullptr;
  if (d.clEnqueueMarkerWithWaitList(s.queue(), 0, nullptr, &m) != CL_SUCCESS || !m) return;
  cl_ulong end = 0;
  if (d.clWaitForEvents(1, &m) == CL_SUCCESS &&
      d.clGetEventProfilingInfo(m, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) == CL_SUCCESS && end)
    s.clockOffsetNs = int64_t(nowNs()) - int64_t(end);
  d.clReleaseEvent(m);
}

}  // namespace

cl_int createSlots(_cl_context *ctx) {
  for (BackingDevice *d : backend().devices()) {
    DeviceSlot s;
    s.dev = d;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, cl_context_properties(d->platform), 0};
    cl_int err = CL_SUCCESS;
    s.ctx = icd(d->platform).clCreateContext(props, 1, &d->id, nullptr, nullptr, &err);
    if (s.ctx && err == CL_SUCCESS)
      s.queue_ = icd(s.ctx).clCreateCommandQueue(s.ctx, d->id, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
      TUTTI_LOG(Error, "%s: cannot create a context and queue: %s", d->label().c_str(),
                clErrorName(err));
      if (s.ctx) icd(s.ctx).clReleaseContext(s.ctx);
      releaseSlots(ctx);
      return err == CL_OUT_OF_HOST_MEMORY ? err : CL_OUT_OF_RESOURCES;
    }
    calibrateClock(s);
    startWatcher(s);
    // The issuer calls the driver beside the API lock.
    if (settings().issuer && d->callsOutsideLock) s.issuer = std::make_shared<Issuer>(d->label());
    ctx->slots.push_back(s);
  }
  ctx->zeroCopy = pickZeroCopySlot(ctx);
  // MKMD weighs fills into homes before it gives the CPU a GPU's outputs.
  if (settings().mode == KernelMode::Mkmd && ctx->zeroCopy >= 0 && ctx->slots.size() > 1) probeHostFill();
  for (size_t i = 0; i < ctx->slots.size(); ++i) startStaging(ctx, int(i));
  return CL_SUCCESS;
}

void releaseSlots(_cl_context *ctx) {
  for (auto &s : ctx->slots) finishStagedCopies(s);
  for (auto &s : ctx->slots) {
    // A GPU's staging, queue and context go off the app's path (reaper.h), in that order. A
    // CPU driver's take microseconds, and PoCL has asserted when threads released its
    // objects at once (tests/api: api_native_soak): they go now, as before.
    const bool later = s.dev->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR);
    stopStaging(s, later);
    s.issuer.reset();  // what it holds reaches the driver first
    if (s.rawQueue()) {
      icd(s.queue()).clFinish(s.queue());
      stopWatcher(s);  // it holds events of the queue
    }
    auto release = [q = s.rawQueue(), c = s.ctx] {
      if (q) icd(q).clReleaseCommandQueue(q);
      if (c) icd(c).clReleaseContext(c);
    };
    if (later) reapLater(release);
    else release();
  }
  ctx->slots.clear();
}

}  // namespace tutti
