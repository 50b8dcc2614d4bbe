// dispatch.cpp - the ICD dispatch table built from entry_points.def, the two static
// handles (platform, device), extension lookup, and Tutti's own extension functions.
#include <cstring>

#include "api.h"
#include "tutti/tutti_ext.h"
#include <CL/cl_egl.h>
#include <CL/cl_ext.h>

// Declarations of the GL entry points we export (cl_gl.h declares them already).
namespace tutti {

_cl_platform_id g_platform;
_cl_device_id g_device;

namespace {
// Extension slots for features the virtual device does not advertise.
cl_mem CL_API_CALL absentMem(cl_context, CLeglDisplayKHR, CLeglImageKHR, cl_mem_flags,
                             const cl_egl_image_properties_khr *, cl_int *err) {
  if (err) *err = CL_INVALID_OPERATION;
  return nullptr;
}
cl_event CL_API_CALL absentEglEvent(cl_context, CLeglSyncKHR, CLeglDisplayKHR, cl_int *err) {
  if (err) *err = CL_INVALID_OPERATION;
  return nullptr;
}
cl_event CL_API_CALL absentGlEvent(cl_context, cl_GLsync, cl_int *err) {
  if (err) *err = CL_INVALID_OPERATION;
  return nullptr;
}
cl_int CL_API_CALL absentEglEnqueue(cl_command_queue, cl_uint, const cl_mem *, cl_uint,
                                    const cl_event *, cl_event *) {
  return CL_INVALID_OPERATION;
}
cl_int CL_API_CALL absentSubDevicesExt(cl_device_id, const cl_device_partition_property_ext *,
                                       cl_uint, cl_device_id *, cl_uint *) {
  return CL_INVALID_OPERATION;
}
cl_int CL_API_CALL absentDeviceExt(cl_device_id d) {
  return d == &g_device ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_icd_dispatch buildTable() {
  cl_icd_dispatch t;
  std::memset(&t, 0, sizeof t);
#define EXPORT(name) t.name = &::name;
#define ABSENT(name) t.name = nullptr;
#define INTERNAL(name)
#include "entry_points.def"
#undef EXPORT
#undef ABSENT
#undef INTERNAL
  t.clCreateFromEGLImageKHR = absentMem;
  t.clEnqueueAcquireEGLObjectsKHR = absentEglEnqueue;
  t.clEnqueueReleaseEGLObjectsKHR = absentEglEnqueue;
  t.clCreateEventFromEGLSyncKHR = absentEglEvent;
  t.clCreateEventFromGLsyncKHR = absentGlEvent;
  t.clCreateSubDevicesEXT = absentSubDevicesExt;
  t.clRetainDeviceEXT = absentDeviceExt;
  t.clReleaseDeviceEXT = absentDeviceExt;
  return t;
}
}  // namespace

const cl_icd_dispatch *dispatchTable() {
  static const cl_icd_dispatch table = buildTable();
  return &table;
}


bool isOwnPlatform(cl_platform_id p) { return p == &g_platform; }

bool ready() { return backend().ensure(); }

}  // namespace tutti

using namespace tutti;

// ---------------------------------------------------------------- Tutti extensions

static cl_int CL_API_CALL tuttiGetDeviceCounters(cl_uint n, tutti_device_counters *out,
                                                 cl_uint *num) {
  if (!ready()) return CL_PLATFORM_NOT_FOUND_KHR;
  if ((n == 0) != (out == nullptr)) return CL_INVALID_VALUE;
  const auto &devs = backend().devices();
  if (num) *num = cl_uint(devs.size());
  for (cl_uint i = 0; i < n && i < devs.size(); ++i) {
    BackingDevice *d = devs[i];
    tutti_device_counters &c = out[i];
    std::memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", d->label().c_str());
    c.type = d->type;
    c.h2d_bytes = d->counters.h2dBytes;
    c.d2h_bytes = d->counters.d2hBytes;
    c.h2d_transfers = d->counters.h2dTransfers;
    c.d2h_transfers = d->counters.d2hTransfers;
    c.kernels = d->counters.kernels;
    c.kernel_ns = d->counters.kernelNs;
    c.device_copies = d->counters.deviceCopies;
    c.staged_bytes = d->counters.stagedBytes;
    c.writes_aside = d->counters.writesAside;
  }
  return CL_SUCCESS;
}

static cl_int CL_API_CALL tuttiResetCounters() {
  if (!ready()) return CL_PLATFORM_NOT_FOUND_KHR;
  for (BackingDevice *d : backend().devices()) d->counters.reset();
  return CL_SUCCESS;
}

static cl_int CL_API_CALL tuttiGetEventDevice(cl_event event, cl_int *index) {
  ApiLock lock;
  if (!validEvent(event)) return CL_INVALID_EVENT;
  if (!index) return CL_INVALID_VALUE;
  *index = event->device;
  return CL_SUCCESS;
}

namespace {
struct ExtFn {
  const char *name;
  void *fn;
};
const ExtFn kExtensions[] = {
    {"clIcdGetPlatformIDsKHR", reinterpret_cast<void *>(&clIcdGetPlatformIDsKHR)},
    {"tuttiGetDeviceCounters", reinterpret_cast<void *>(&tuttiGetDeviceCounters)},
    {"tuttiResetCounters", reinterpret_cast<void *>(&tuttiResetCounters)},
    {"tuttiGetEventDevice", reinterpret_cast<void *>(&tuttiGetEventDevice)},
};
}  // namespace

TUTTI_API void *CL_API_CALL clGetExtensionFunctionAddress(const char *name) {
  if (!name) return nullptr;
  for (auto &e : kExtensions)
    if (std::strcmp(e.name, name) == 0) return e.fn;
  return nullptr;
}

TUTTI_API void *CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id p,
                                                                      const char *name) {
  if (!validPlatform(p)) return nullptr;
  return clGetExtensionFunctionAddress(name);
}

// The ICD loader's entry: hands out our one platform without discovering devices,
// because the loader may call this while Tutti itself is asking the loader.
TUTTI_API cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint n, cl_platform_id *platforms,
                                                    cl_uint *num) {
  if ((n == 0 && platforms) || (!platforms && !num)) return CL_INVALID_VALUE;
  if (platforms) platforms[0] = &g_platform;
  if (num) *num = 1;
  return CL_SUCCESS;
}
