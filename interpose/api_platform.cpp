// api_platform.cpp - platform and device entry points: one platform, one device.
#include "api.h"

using namespace tutti;

TUTTI_API cl_int CL_API_CALL clGetPlatformIDs(cl_uint n, cl_platform_id *platforms, cl_uint *num) {
  if ((n == 0 && platforms) || (!platforms && !num)) return CL_INVALID_VALUE;
  if (!backend().discovering()) {
    std::string why;
    if (!backend().ensure(&why)) {
      // Bad settings or no device at all: say so, and show no platform.
      static bool said = false;
      if (!said) TUTTI_LOG(Error, "no Tutti platform: %s", why.c_str());
      said = true;
      if (num) *num = 0;
      return CL_PLATFORM_NOT_FOUND_KHR;
    }
  }
  if (platforms) platforms[0] = &g_platform;
  if (num) *num = 1;
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id p, cl_platform_info param,
                                               size_t size, void *value, size_t *ret) {
  if (!validPlatform(p)) return CL_INVALID_PLATFORM;
  return virtualPlatformInfo(param, size, value, ret);
}

TUTTI_API cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id p, cl_device_type type, cl_uint n,
                                            cl_device_id *devices, cl_uint *num) {
  if (p && !validPlatform(p)) return CL_INVALID_PLATFORM;
  const cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                               CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  if (type != CL_DEVICE_TYPE_ALL && (type & ~known)) return CL_INVALID_DEVICE_TYPE;
  if ((n == 0 && devices) || (!devices && !num)) return CL_INVALID_VALUE;
  if (!ready()) return CL_DEVICE_NOT_FOUND;
  bool match = type == CL_DEVICE_TYPE_ALL || (type & CL_DEVICE_TYPE_DEFAULT) ||
               (type & virtualDeviceType());
  if (!match) {
    if (num) *num = 0;
    return CL_DEVICE_NOT_FOUND;
  }
  if (devices) devices[0] = &g_device;
  if (num) *num = 1;
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clGetDeviceInfo(cl_device_id d, cl_device_info param, size_t size,
                                             void *value, size_t *ret) {
  if (!validDevice(d)) return CL_INVALID_DEVICE;
  if (!ready()) return CL_INVALID_DEVICE;
  return virtualDeviceInfo(param, size, value, ret);
}

TUTTI_API cl_int CL_API_CALL clCreateSubDevices(cl_device_id d,
                                                const cl_device_partition_property *props,
                                                cl_uint, cl_device_id *, cl_uint *) {
  if (!validDevice(d)) return CL_INVALID_DEVICE;
  if (!props) return CL_INVALID_VALUE;
  switch (props[0]) {
    case CL_DEVICE_PARTITION_EQUALLY: case CL_DEVICE_PARTITION_BY_COUNTS:
    case CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN:
      // The virtual device reports CL_DEVICE_PARTITION_MAX_SUB_DEVICES = 0.
      return CL_INVALID_VALUE;
    default: return CL_INVALID_VALUE;
  }
}

TUTTI_API cl_int CL_API_CALL clRetainDevice(cl_device_id d) {
  return validDevice(d) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

TUTTI_API cl_int CL_API_CALL clReleaseDevice(cl_device_id d) {
  return validDevice(d) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

TUTTI_API cl_int CL_API_CALL clGetHostTimer(cl_device_id d, cl_ulong *host) {
  if (!validDevice(d)) return CL_INVALID_DEVICE;
  if (!host) return CL_INVALID_VALUE;
  *host = nowNs();
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clGetDeviceAndHostTimer(cl_device_id d, cl_ulong *dev, cl_ulong *host) {
  if (!validDevice(d)) return CL_INVALID_DEVICE;
  if (!dev || !host) return CL_INVALID_VALUE;
  // Every timestamp Tutti reports is on the host's monotonic clock.
  *dev = *host = nowNs();
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clUnloadCompiler() { return CL_SUCCESS; }

TUTTI_API cl_int CL_API_CALL clUnloadPlatformCompiler(cl_platform_id p) {
  return validPlatform(p) ? CL_SUCCESS : CL_INVALID_PLATFORM;
}
