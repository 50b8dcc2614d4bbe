// first_device.h - the micro benchmarks' device choice: the first device of the first
// platform whose name contains `want`.
#pragma once
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstring>

// Fills platformName (256 bytes); nullptr when no platform matches or it has no device.
inline cl_device_id firstDevice(const char *want, char *platformName) {
  cl_platform_id ps[16], p = nullptr;
  cl_uint np = 0;
  clGetPlatformIDs(16, ps, &np);
  for (cl_uint i = 0; i < np && !p; ++i)
    if (clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, 256, platformName, nullptr) == CL_SUCCESS &&
        std::strstr(platformName, want))
      p = ps[i];
  cl_device_id d;
  if (!p || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, nullptr) != CL_SUCCESS) return nullptr;
  return d;
}
