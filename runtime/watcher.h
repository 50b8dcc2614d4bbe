// watcher.h - learning that a real event completed by waiting for it, not by a driver callback.
//
// NVIDIA's OpenCL calls clSetEventCallback's CL_COMPLETE callbacks 12-20 ms after the work
// ends (measured on the H100 and on two H100s), and Tutti learns through them when a
// piece of a split kernel, a staged copy or a command another device waits for is done:
// every such edge paid that delay (BinomialOption's 50/50 split ran its kernel in 14.8 ms
// against 28.1 ms whole, yet the wall time fell by 2.6 ms only). A watcher thread per
// device queue instead blocks in clWaitForEvents, which returns as the work ends, and then
// calls the same callback. Devices whose driver must not be called beside the API lock
// (BackingDevice::callsOutsideLock) keep the driver's callbacks.
#pragma once
#include <CL/cl.h>

#include <memory>

struct _cl_context;

namespace tutti {

struct DeviceSlot;
class Watcher;

using CompletionFn = void(CL_CALLBACK *)(cl_event, cl_int, void *);

// Gives slot s a watcher where TUTTI_COMPLETION and its device allow one.
void startWatcher(DeviceSlot &s);
// Waits until every event handed to s's watcher was reported, then ends its thread.
void stopWatcher(DeviceSlot &s);

// Calls fn(e, status, user) once e (an event of s's queue) is complete or failed: from
// s's watcher thread where s has one, else as the driver's callback. fn must not take
// the API lock (see inbox.h). Returns the driver's error for a callback that could not be
// set (the caller's fallback is its own), else CL_SUCCESS.
cl_int whenComplete(DeviceSlot &s, cl_event e, CompletionFn fn, void *user);

// The same for an event whose queue the caller does not know: it is looked up among the
// slots of ctx (a driver call); callbacks where none matches.
cl_int whenComplete(_cl_context *ctx, cl_event e, CompletionFn fn, void *user);

}  // namespace tutti
