// slots.h - a virtual context's real contexts and queues, one per backing device.
//
// Creating and ending them is driver work, so it lives here and not in interpose/,
// which only validates what the app asked for.
#pragma once
#include <CL/cl.h>

struct _cl_context;

namespace tutti {

// Gives ctx a real context and in-order profiling queue on every backing device, picks
// its zero-copy slot and starts staging. On failure the slots made so far are released
// and the error for the app is returned (CL_OUT_OF_HOST_MEMORY or CL_OUT_OF_RESOURCES).
cl_int createSlots(_cl_context *ctx);

// Ends ctx's staging, drains its real queues and releases them and the real contexts.
void releaseSlots(_cl_context *ctx);

}  // namespace tutti
