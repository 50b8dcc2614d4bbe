// mk_devinfo: prints every OpenCL device as one JSON object (stdout), in the
// order the apps' --device N counts them (app::listDevices: platform order,
// then device order).  Used by tools/bench/bench.py to enumerate real devices
// and to describe the machine (driver versions).  Not a workload: it accepts
// and ignores the apps' common options, so it can share their ctest wiring.
#include "common/app.h"

#include <cstdio>
#include <string>

namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += (char)c;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += (char)c;
    }
  }
  return o;
}

template <class T>
T devInfo(cl_device_id d, cl_device_info what) {
  T v{};
  if (clGetDeviceInfo(d, what, sizeof(v), &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}

std::string devStr(cl_device_id d, cl_device_info what) {
  size_t sz = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &sz) != CL_SUCCESS || sz == 0) return "";
  std::string s(sz, '\0');
  if (clGetDeviceInfo(d, what, sz, &s[0], nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string types(cl_device_type t) {
  std::string s;
  auto add = [&](const char* n) { s += (s.empty() ? "" : "|") + std::string(n); };
  if (t & CL_DEVICE_TYPE_CPU) add("cpu");
  if (t & CL_DEVICE_TYPE_GPU) add("gpu");
  if (t & CL_DEVICE_TYPE_ACCELERATOR) add("accelerator");
  if (t & CL_DEVICE_TYPE_CUSTOM) add("custom");
  return s.empty() ? "other" : s;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::printf("usage: mk_devinfo   (prints {\"devices\": [...]} as JSON; other options are ignored)\n");
      return 0;
    }
  const std::vector<app::DeviceEntry> devs = app::listDevices();
  std::printf("{\"devices\": [");
  for (size_t i = 0; i < devs.size(); ++i) {
    const app::DeviceEntry& e = devs[i];
    const cl_device_id d = e.device;
    std::printf(
        "%s\n  {\"index\": %zu, \"name\": \"%s\", \"type\": \"%s\", \"vendor\": \"%s\", \"platform\": \"%s\", "
        "\"platform_vendor\": \"%s\", \"platform_version\": \"%s\", \"device_version\": \"%s\", "
        "\"driver_version\": \"%s\", \"opencl_c_version\": \"%s\", \"compute_units\": %u, "
        "\"max_clock_mhz\": %u, \"global_mem_bytes\": %llu, \"max_alloc_bytes\": %llu, "
        "\"local_mem_bytes\": %llu, \"max_work_group_size\": %zu}",
        i ? "," : "", i, esc(e.name).c_str(), types(e.type).c_str(), esc(devStr(d, CL_DEVICE_VENDOR)).c_str(),
        esc(e.platformName).c_str(), esc(app::platformString(e.platform, CL_PLATFORM_VENDOR)).c_str(),
        esc(app::platformString(e.platform, CL_PLATFORM_VERSION)).c_str(),
        esc(devStr(d, CL_DEVICE_VERSION)).c_str(), esc(devStr(d, CL_DRIVER_VERSION)).c_str(),
        esc(devStr(d, CL_DEVICE_OPENCL_C_VERSION)).c_str(), devInfo<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS),
        devInfo<cl_uint>(d, CL_DEVICE_MAX_CLOCK_FREQUENCY),
        (unsigned long long)devInfo<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE),
        (unsigned long long)devInfo<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE),
        (unsigned long long)devInfo<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE),
        devInfo<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  }
  std::printf("\n]}\n");
  return 0;
}
