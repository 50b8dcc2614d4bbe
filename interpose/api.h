// api.h - what every entry-point file needs: the runtime, validation and helpers.
#pragma once
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl.h>
#include <CL/cl_gl.h>

#include <string>
#include <vector>

#include "backend.h"
#include "memory.h"
#include "placement.h"
#include "info.h"
#include "log.h"
#include "staging.h"
#include "runtime.h"
#include "settings.h"

#define TUTTI_API extern "C" CL_API_ENTRY __attribute__((visibility("default")))

namespace tutti {

extern _cl_platform_id g_platform;
extern _cl_device_id g_device;

// The first OpenCL call brings the backend up; false if no device can back Tutti.
bool ready();

inline bool validPlatform(cl_platform_id p) { return p == &g_platform; }
inline bool validDevice(cl_device_id d) { return d == &g_device; }

template <typename H>
bool valid(H h, ObjType t) {
  return h && runtime().valid(h, t);
}
inline bool validContext(cl_context c) { return valid(c, ObjType::Context); }
inline bool validQueue(cl_command_queue q) { return valid(q, ObjType::Queue); }
inline bool validMem(cl_mem m) { return valid(m, ObjType::Mem); }
inline bool validProgram(cl_program p) { return valid(p, ObjType::Program); }
inline bool validKernel(cl_kernel k) { return valid(k, ObjType::Kernel); }
inline bool validEvent(cl_event e) { return valid(e, ObjType::Event); }
inline bool validSampler(cl_sampler s) { return valid(s, ObjType::Sampler); }

inline void setErr(cl_int *e, cl_int v) {
  if (e) *e = v;
}

// Validates an event wait list for a command in ctx; fills out on success.
cl_int checkWaitList(cl_context ctx, cl_uint n, const cl_event *list, std::vector<_cl_event *> &out);

// Device list arguments that must name only the virtual device.
cl_int checkDeviceList(cl_uint n, const cl_device_id *list);

// Creates the event the app asked for (if any) and returns the internal one.
_cl_event *commandEvent(_cl_command_queue *q, cl_command_type type, bool handle = true);
// Enqueues and hands the event to the app (event may be NULL); for blocking commands
// waits for completion and returns its status.
cl_int submit(ApiLock &lock, Command *cmd, const std::vector<_cl_event *> &waits, cl_event *event,
              bool blocking);

// Shared prologue of every enqueue: queue, wait list, and a new command.
// Holds the API lock for the enqueue call's lifetime (a scoped capability, like ApiLock).
struct SCOPED_CAPABILITY Enqueue {
  ApiLock lock;
  cl_int err = CL_SUCCESS;
  std::vector<_cl_event *> waits;
  Enqueue(cl_command_queue q, cl_uint n, const cl_event *list,
          const char *caller = __builtin_FUNCTION()) ACQUIRE(apiMutex)
      : lock(caller) {
    if (!validQueue(q)) err = CL_INVALID_COMMAND_QUEUE;
    else err = checkWaitList(q->ctx, n, list, waits);
  }
  ~Enqueue() RELEASE() {}  // `lock` lets go
  // handle: false where the app asked for no event (see newEvent).
  Command *command(cl_command_queue q, CmdKind kind, cl_command_type type, bool handle = true) {
    auto *c = runtime().newCommand();
    c->kind = kind;
    c->q = q;
    c->ev = commandEvent(q, type, handle);
    return c;
  }
  void hold(Command *c, _cl_mem *m) {
    if (!m) return;
    runtime().retain(m);
    c->mems.push_back(m);
  }
};

}  // namespace tutti
