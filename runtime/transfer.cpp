// transfer.cpp - buffer transfers on one backing device: path, counters and trace.
#include "transfer.h"

#include "backend.h"
#include "clock.h"
#include "icd.h"
#include "objects.h"
#include "staging.h"
#include "trace.h"

namespace tutti {

namespace {

// The event a queued copy returns: the caller's, else one of our own only while tracing
// (the timeline reads the copy's times from it), else none, which spares the driver one.
cl_event *eventOut(RealEvent *done, RealEvent &own) {
  if (done) return done->out();
  return tracing() ? own.out() : nullptr;
}

// A blocking copy: `staged` tries pinned staging (false: not staged, nothing done; it
// traces itself), else `driver` makes it. Counted, so a span too: a trace shows every
// transfer TUTTI_STATS counts.
template <typename Staged, typename Driver>
cl_int blocking(DeviceSlot &ds, Transfer kind, size_t n, const char *span, Staged staged,
                Driver driver) {
  uint64_t t0 = nowNs();
  cl_int err = CL_SUCCESS;
  bool wasStaged = staged(&err);
  if (!wasStaged) err = driver();
  if (err != CL_SUCCESS) return err;
  ds.dev->counters.record(kind, n);
  const char *category = kind == Transfer::HostToDevice ? "h2d" : "d2h";
  if (!wasStaged) traceSpan(ds.dev->index, category, span, t0, nowNs(), n);
  return CL_SUCCESS;
}

// A queued copy: `staged` tries pinned staging (it traces itself), else `driver` enqueues
// it, given the cl_event* for its event. Counted when it is queued.
template <typename Staged, typename Driver>
cl_int queued(DeviceSlot &ds, Transfer kind, size_t n, const char *span, RealEvent *done,
              Staged staged, Driver driver) {
  RealEvent own;
  cl_int err = CL_SUCCESS;
  bool wasStaged = staged(done ? done : &own, &err);
  if (!wasStaged) err = driver(eventOut(done, own));
  if (err != CL_SUCCESS) return err;
  ds.dev->counters.record(kind, n);
  const char *category = kind == Transfer::HostToDevice ? "h2d" : "d2h";
  if (!wasStaged) traceRealEvent(done ? *done : own, ds.dev->index, category, span, n, ds.clockOffsetNs);
  return CL_SUCCESS;
}

}  // namespace

cl_int writeNow(DeviceSlot &ds, cl_mem b, size_t off, size_t n, const void *src, const char *span,
                Route route) {
  auto staged = [&](cl_int *err) {
    if (route == Route::StagedBeside) return stagedWriteBeside(ds, b, off, n, src, err);
    return route == Route::StagedIfWanted && stagedWrite(ds, b, off, n, src, err);
  };
  auto driver = [&] {
    return icd(ds.queue()).clEnqueueWriteBuffer(ds.queue(), b, CL_TRUE, off, n, src, 0, nullptr, nullptr);
  };
  return blocking(ds, Transfer::HostToDevice, n, span, staged, driver);
}

cl_int readNow(DeviceSlot &ds, cl_mem b, size_t off, size_t n, void *dst, Route route,
               const char *span) {
  auto staged = [&](cl_int *err) {
    return route == Route::StagedIfWanted && stagedRead(ds, b, off, n, dst, err);
  };
  auto driver = [&] {
    return icd(ds.queue()).clEnqueueReadBuffer(ds.queue(), b, CL_TRUE, off, n, dst, 0, nullptr, nullptr);
  };
  return blocking(ds, Transfer::DeviceToHost, n, span, staged, driver);
}

cl_int writeQueued(DeviceSlot &ds, cl_mem b, size_t off, size_t n, const void *src, Route route,
                   RealEvent *done) {
  auto staged = [&](RealEvent *last, cl_int *err) {
    return route == Route::StagedIfWanted && stagedWriteAsync(ds, b, off, n, src, last, err);
  };
  auto driver = [&](cl_event *ev) {
    return icd(ds.queue()).clEnqueueWriteBuffer(ds.queue(), b, CL_FALSE, off, n, src, 0, nullptr, ev);
  };
  return queued(ds, Transfer::HostToDevice, n, "write", done, staged, driver);
}

cl_int readQueued(DeviceSlot &ds, cl_mem b, size_t off, size_t n, void *dst, Route route,
                  RealEvent *done, const std::vector<RealEvent> *waits) {
  auto staged = [&](RealEvent *landed, cl_int *err) {
    return route == Route::StagedIfWanted && stagedReadQueued(ds, b, off, n, dst, landed, err, waits);
  };
  auto driver = [&](cl_event *ev) {
    return icd(ds.queue()).clEnqueueReadBuffer(ds.queue(), b, CL_FALSE, off, n, dst, 0, nullptr, ev);
  };
  return queued(ds, Transfer::DeviceToHost, n, "read", done, staged, driver);
}

bool uploadQueued(DeviceSlot &ds, cl_mem b, size_t off, size_t n, const void *src, RealEvent *done,
                  cl_int *err) {
  if (!stagedWriteQueued(ds, b, off, n, src, done, err)) return false;  // traces itself
  if (*err == CL_SUCCESS) ds.dev->counters.record(Transfer::HostToDevice, n);
  return true;
}

bool moveQueued(DeviceSlot &from, cl_mem src, DeviceSlot &to, cl_mem dst, size_t off, size_t n,
                RealEvent *done, cl_int *err, const std::vector<RealEvent> *waits) {
  if (!stagedMoveQueued(from, src, to, dst, off, n, done, err, waits)) return false;  // traces itself
  if (*err == CL_SUCCESS) {
    from.dev->counters.record(Transfer::DeviceToHost, n);
    to.dev->counters.record(Transfer::HostToDevice, n);
  }
  return true;
}

// Copies and fills stay on the device: TUTTI_STATS counts them without bytes, and the
// timeline's transfer spans are the host<->device ones it counts (tests/e2e/trace.sh).
cl_int copyQueued(DeviceSlot &ds, cl_mem src, cl_mem dst, size_t srcOff, size_t dstOff, size_t n,
                  RealEvent *done) {
  cl_int err = icd(ds.queue()).clEnqueueCopyBuffer(ds.queue(), src, dst, srcOff, dstOff, n, 0, nullptr,
                                                 done ? done->out() : nullptr);
  if (err == CL_SUCCESS) ds.dev->counters.record(Transfer::DeviceCopy);
  return err;
}

cl_int fillQueued(DeviceSlot &ds, cl_mem b, const void *pattern, size_t patternSize, size_t off,
                  size_t n, RealEvent *done) {
  cl_int err = icd(ds.queue()).clEnqueueFillBuffer(ds.queue(), b, pattern, patternSize, off, n, 0,
                                                 nullptr, done ? done->out() : nullptr);
  if (err == CL_SUCCESS) ds.dev->counters.record(Transfer::DeviceCopy);
  return err;
}

}  // namespace tutti
