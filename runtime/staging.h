// staging.h - the app's large copies to and from a GPU through pinned staging buffers.
#pragma once

#include <CL/cl.h>

#include <cstddef>

#include "real_event.h"

struct _cl_context;

namespace tutti {

struct DeviceSlot;

// Starts allocating slot's staging memory in the background when TUTTI_STAGING wants it.
void startStaging(_cl_context *ctx, int slot);
// Waits for the allocation and frees the memory (before the slot's queue and context go).
void stopStaging(DeviceSlot &s);

// Whether a copy of n bytes to or from this slot would be staged now.
bool stagingWants(DeviceSlot &s, size_t n);

// Copy n bytes between the app's memory and b at off through the slot's staging memory,
// on the slot's queue, and return once they have arrived. False: not staged (not wanted,
// too small, or the memory is not allocated yet); nothing was done. True: *err says
// how it went.
bool stagedWrite(DeviceSlot &s, cl_mem b, size_t off, size_t n, const void *src, cl_int *err);
// A non-blocking write: only regions that are free now are used, and what does not fit
// goes straight from src (which the app keeps until *last completes). *last: the event
// of the copy's final part, the slot's queue being in order.
bool stagedWriteAsync(DeviceSlot &s, cl_mem b, size_t off, size_t n, const void *src, RealEvent *last,
                      cl_int *err);
bool stagedRead(DeviceSlot &s, cl_mem b, size_t off, size_t n, void *dst, cl_int *err);

}  // namespace tutti
