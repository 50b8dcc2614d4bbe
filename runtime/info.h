// info.h - answering clGet*Info queries: size checks done once, per the spec.
#pragma once
#include <CL/cl.h>

#include <cstring>
#include <string>
#include <vector>

namespace tutti {

inline cl_int answerBytes(const void *src, size_t n, size_t size, void *value, size_t *ret) {
  if (value) {
    if (size < n) return CL_INVALID_VALUE;
    if (n) std::memcpy(value, src, n);
  }
  if (ret) *ret = n;
  return CL_SUCCESS;
}

template <typename T>
cl_int answer(const T &v, size_t size, void *value, size_t *ret) {
  return answerBytes(&v, sizeof(T), size, value, ret);
}

inline cl_int answer(const std::string &s, size_t size, void *value, size_t *ret) {
  return answerBytes(s.c_str(), s.size() + 1, size, value, ret);
}

template <typename T>
cl_int answer(const std::vector<T> &v, size_t size, void *value, size_t *ret) {
  return answerBytes(v.data(), v.size() * sizeof(T), size, value, ret);
}

// The virtual device's answer to clGetDeviceInfo (aggregated over backing devices).
cl_int virtualDeviceInfo(cl_device_info param, size_t size, void *value, size_t *ret);
cl_int virtualPlatformInfo(cl_platform_info param, size_t size, void *value, size_t *ret);
cl_device_type virtualDeviceType();
// Extensions the virtual device advertises (supported by every backing device and
// needing no host API that Tutti does not provide).
const std::vector<std::string> &virtualExtensions();
std::string virtualDeviceName();

// CL_DEVICE_GLOBAL_MEM_SIZE and CL_DEVICE_MAX_MEM_ALLOC_SIZE of the virtual device, from
// the host's memory, each backing device's two values and TUTTI_GLOBAL_MEM_MB in bytes
// (0: automatic). device_info.cpp says why. paged: VAST runs launches whose buffers
// exceed a GPU on it, so the virtual device's memory is the host's.
struct MemoryLimits {
  cl_ulong global = 0, maxAlloc = 0;
};
MemoryLimits virtualMemoryLimits(cl_ulong hostMemory, const std::vector<MemoryLimits> &devices,
                                 cl_ulong setGlobal, bool paged = false);

}  // namespace tutti
