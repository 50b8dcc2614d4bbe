// staging.h - the app's large copies to and from a GPU through pinned staging buffers.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <memory>

#include "real_event.h"

struct _cl_context;

namespace tutti {

struct DeviceSlot;
class PinnedRing;

// Starts allocating slot's staging memory in the background when TUTTI_STAGING wants it.
void startStaging(_cl_context *ctx, int slot);
// A buffer of `bytes` is being made in ctx: one of a quarter of a GPU's memory or more
// starts pinning that GPU's VAST ring in the background.
void stagingForBuffer(_cl_context *ctx, size_t bytes);
// Waits for the slot's background copies (staged*Queued). Every slot's come before any
// slot's staging stops: a copy from one device writes through another's queue.
void finishStagedCopies(DeviceSlot &s);
// Waits for the allocation and frees the memory, before the slot's queue and context go:
// now, or `later` on the reaper's thread (reaper.h), where they go after it.
void stopStaging(DeviceSlot &s, bool later);

// A ring of pinned regions (pinned_ring.h) for a long run of copies on q, a queue of the
// slot's context (a VAST run): the slot's own regions serve the app's copies meanwhile.
// Null where the slot stages nothing. Rings are kept per slot between runs (pinning 128
// MiB costs tens of milliseconds) and freed with the staging. runBytes: what the run moves;
// a run of fewer bytes than a ring holds takes a kept ring only (null: pageable copies).
std::unique_ptr<PinnedRing> takeRing(DeviceSlot &s, cl_command_queue q, uint64_t runBytes);
// Lands the ring's copies and keeps it for the next run.
void returnRing(DeviceSlot &s, std::unique_ptr<PinnedRing> ring);

// Waits (up to 2 s) until the slot's staging memory is allocated, or failed to be.
void awaitStaging(DeviceSlot &s);
// Whether a copy of n bytes to or from this slot would be staged now.
bool stagingWants(DeviceSlot &s, size_t n);

// Copy n bytes between the app's memory and b at off through the slot's staging memory,
// on the slot's queue, and return once they have arrived. False: not staged (not wanted,
// too small, or the memory is not allocated yet); nothing was done. True: *err says
// how it went.
bool stagedWrite(DeviceSlot &s, cl_mem b, size_t off, size_t n, const void *src, cl_int *err);
// As stagedWrite, on the staging's own queue: the copy waits for none of the work queued
// on the slot (the caller knows that none of it uses those bytes).
bool stagedWriteBeside(DeviceSlot &s, cl_mem b, size_t off, size_t n, const void *src, cl_int *err);
// A non-blocking write: only regions that are free now are used, and what does not fit
// goes straight from src (which the app keeps until *last completes). *last: the event
// of the copy's final part, the slot's queue being in order.
bool stagedWriteAsync(DeviceSlot &s, cl_mem b, size_t off, size_t n, const void *src, RealEvent *last,
                      cl_int *err);
bool stagedRead(DeviceSlot &s, cl_mem b, size_t off, size_t n, void *dst, cl_int *err);

// Copies for coherence, which a command waits for without the API lock held for them. They
// keep their place in the order of the source's queue (after what was queued there
// before the call) without waiting for that work here: where the drivers may be called
// beside the API lock, a thread of the source's staging makes the copy on the staging's
// own queues (so work queued later on the slots does not hold it back) and *done gets a
// user event that completes, with a negative status on failure, once the bytes have
// landed; elsewhere the copy is made now and *done stays empty. Until *done completes,
// nothing may use the destination's bytes, nor change the source's. False: not staged
// (as stagedRead); nothing was done. `waits` (copies out of a device, from copyOutWaits):
// the copy waits for these events instead of everything queued on the source before it.
// n bytes of b at off into dst (a host home).
bool stagedReadQueued(DeviceSlot &s, cl_mem b, size_t off, size_t n, void *dst, RealEvent *done,
                      cl_int *err, const std::vector<RealEvent> *waits = nullptr);
// n bytes from src (a host home) into b at off.
bool stagedWriteQueued(DeviceSlot &s, cl_mem b, size_t off, size_t n, const void *src, RealEvent *done,
                       cl_int *err);
// n bytes at off from src on `from` to dst on `to`, through from's regions without any other
// host memory: staging must be usable on both (`to`'s queue carries the writes).
bool stagedMoveQueued(DeviceSlot &from, cl_mem src, DeviceSlot &to, cl_mem dst, size_t off,
                      size_t n, RealEvent *done, cl_int *err, const std::vector<RealEvent> *waits = nullptr);

}  // namespace tutti
