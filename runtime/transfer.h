// transfer.h - one call per kind of buffer transfer on a backing device.
//
// Every write, read, device copy and fill of a real buffer goes through here: the unit
// picks pinned staging or the driver's own path, counts the transfer (TUTTI_STATS) and
// puts it on the TUTTI_TRACE timeline, so that callers say only what moves and what a
// failure means to them (they log it; these return the driver's error).
#pragma once
#include <CL/cl.h>

#include <cstddef>
#include <vector>

#include "real_event.h"

namespace tutti {

struct DeviceSlot;

// Driver: the copy must not be staged. A caller that decided at issue time that staging
// was not wanted keeps that decision (staging memory may become ready meanwhile), and a
// blocking staged copy completes before it returns, so it would wait for work queued
// before it. StagedBeside (blocking writes): staged on the staging's own queue, beside the
// work queued on the slot's, when staging is usable.
enum class Route { StagedIfWanted, StagedBeside, Driver };

// Blocking: they return once the bytes have arrived. `span`: the trace name of a copy
// the driver makes (a staged one names its own).
cl_int writeNow(DeviceSlot &ds, cl_mem b, size_t off, size_t n, const void *src, const char *span,
                Route route = Route::StagedIfWanted);
cl_int readNow(DeviceSlot &ds, cl_mem b, size_t off, size_t n, void *dst, Route route,
               const char *span);

// Queued on the slot's in-order queue: *done (when not null) gets the event of the
// transfer's last part. The app's memory must stay until that completes.
cl_int writeQueued(DeviceSlot &ds, cl_mem b, size_t off, size_t n, const void *src, Route route,
                   RealEvent *done);
// Staged, a read is made in the background or, where the driver must not be called beside
// the API lock, now: then *done comes back empty, the bytes having landed
// (staging.h stagedReadQueued).
// waits: as stagedReadQueued's (the driver's path keeps the queue's order).
cl_int readQueued(DeviceSlot &ds, cl_mem b, size_t off, size_t n, void *dst, Route route,
                  RealEvent *done, const std::vector<RealEvent> *waits = nullptr);
// n bytes from a host home (src) into b at off through pinned staging in the background;
// *done as readQueued's. False: not staged (staging not usable for n bytes); nothing was
// done.
bool uploadQueued(DeviceSlot &ds, cl_mem b, size_t off, size_t n, const void *src, RealEvent *done,
                  cl_int *err);
// n bytes at off from src on `from` to dst on `to` through pinned staging, without a host
// home; *done as readQueued's. Counted as a read on `from` and a write on `to`. False: not
// staged (staging memory not usable on both for n bytes); nothing was done.
bool moveQueued(DeviceSlot &from, cl_mem src, DeviceSlot &to, cl_mem dst, size_t off, size_t n,
                RealEvent *done, cl_int *err, const std::vector<RealEvent> *waits = nullptr);
cl_int copyQueued(DeviceSlot &ds, cl_mem src, cl_mem dst, size_t srcOff, size_t dstOff, size_t n,
                  RealEvent *done);
cl_int fillQueued(DeviceSlot &ds, cl_mem b, const void *pattern, size_t patternSize, size_t off,
                  size_t n, RealEvent *done);

}  // namespace tutti
