// dispatch.cpp - the ICD dispatch table built from entry_points.def, the two static
// handles (platform, device), extension lookup, and Tutti's own extension functions.
#include <cstring>

#include "api.h"
#include "tutti/tutti_ext.h"

// Declarations of the GL entry points we export (cl_gl.h declares them already).
namespace tutti {

namespace {
cl_icd_dispatch buildTable() {
  cl_icd_dispatch t;
  std::memset(&t, 0, sizeof t);
#define EXPORT(name) t.name = &::name;
#define ABSENT(name) t.name = nullptr;
#include "entry_points.def"
#undef EXPORT
#undef ABSENT
  return t;
}
}  // namespace

const cl_icd_dispatch *dispatchTable() {
  static const cl_icd_dispatch table = buildTable();
  return &table;
}

_cl_platform_id g_platform;
_cl_device_id g_device;

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
