// coherence.h - keeping each buffer's bytes valid where a command needs them.
//
// Every buffer has a host home and replicas on devices, with byte-range validity per
// copy (BufferStore). Before a command runs, the ranges it reads are made valid where it
// runs; after it, what it wrote is marked valid there and stale everywhere else. Data move
// only when a command needs bytes that are stale where it runs.
//
// Functions that return bool return false when cmd must first wait for device->host
// copies in flight (listed in cmd->staging); they are safe to call again then.
#pragma once
#include "command.h"

namespace tutti {

// Adds the copies in flight overlapping r (device->host, and device->device) to cmd's
// wait set (finished ones are dropped). True: cmd must wait.
bool waitFills(BufferStore &st, Range r, Command *cmd) REQUIRES(apiMutex);
// Makes r valid in the host home, copying stale parts from devices that hold them.
bool ensureHost(_cl_context *ctx, BufferStore &st, Range r, Command *cmd) REQUIRES(apiMutex);
bool ensureDevice(_cl_context *ctx, _cl_mem *m, int slot, Command *cmd, cl_int *err) REQUIRES(apiMutex);
// hostOnly: only bring to the host what the device lacks and only a device holds (the
// uploads themselves are left for a later call). uploads: when given, gets the event of
// every upload from the home made here through the driver (a staged one makes cmd wait
// instead: false).
bool ensureDeviceRange(_cl_context *ctx, _cl_mem *root, Range r, int slot, Command *cmd,
                       cl_int *err, bool hostOnly = false,
                       std::vector<RealEvent> *uploads = nullptr) REQUIRES(apiMutex);
// TUTTI_MODE=mkmd: starts moving what cmd, just issued whole on its slot, wrote to the
// slots that read it next (Command::pushTo), behind it on its queue. Nothing waits here:
// the copies join the buffers' copies in flight, which those readers wait for.
void pushOutputs(Command *cmd) REQUIRES(apiMutex);
// After a write of r on `slot` (-1: the host), every other copy of r is stale.
void wrote(BufferStore &st, Range r, int slot) REQUIRES(apiMutex);
// After wrote(): the write on `slot` was the launch whose event this is, on the slot's
// in-order queue (no event: the write stays unknown, and copies out wait for the queue).
void wroteBy(BufferStore &st, int slot, const RealEvent &launch) REQUIRES(apiMutex);
// Makes the writers of roots' replicas known where they are launches without an event,
// with one marker per slot enqueued now (MKMD, before a graph is issued).
void pinQueuedWriters(_cl_context *ctx, const std::vector<_cl_mem *> &roots) REQUIRES(apiMutex);
// True when every device->host copy cmd waited for has landed (a failed one sets
// cmd->stagingError).
bool stagingComplete(Command *cmd);
// A real event's execution status (CL_INVALID_EVENT when the driver cannot say).
cl_int eventStatus(cl_event e);
// Waits for real events of any contexts (one clWaitForEvents may name only one context);
// the first error, if any.
cl_int waitEach(const std::vector<RealEvent> &events);

}  // namespace tutti
