// tutti-info - shows the virtual device, the devices backing it, and the settings.
#include <CL/cl.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "settings.h"
#include "tutti/tutti_ext.h"

namespace {

void printEnv() {
  std::printf("Tutti settings (environment variables):\n\n");
  for (const auto &s : tutti::settingSpecs()) {
    std::string def = *s.def ? s.def : "(empty)";
    std::printf("  %-20s default: %s", s.env, def.c_str());
    if (*s.choices) std::printf("   values: %s", s.choices);
    const char *cur = std::getenv(s.env);
    if (cur) std::printf("   now: %s", cur);
    std::printf("\n      %s\n", s.help);
  }
  std::string err;
  tutti::Settings parsed;
  if (!tutti::parseSettings(parsed, err)) std::printf("\nerror: %s\n", err.c_str());
}

std::string devString(cl_device_id d, cl_device_info p) {
  size_t n = 0;
  clGetDeviceInfo(d, p, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetDeviceInfo(d, p, n, &s[0], nullptr);
  if (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T>
T devValue(cl_device_id d, cl_device_info p) {
  T v{};
  clGetDeviceInfo(d, p, sizeof v, &v, nullptr);
  return v;
}

}  // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--env")) {
      printEnv();
      return 0;
    }
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: tutti-info [--env]\n  Shows Tutti's virtual device and the real devices "
                  "behind it; --env lists every TUTTI_* setting.\n");
      return 0;
    }
    std::fprintf(stderr, "tutti-info: unknown option '%s' (try --help)\n", argv[i]);
    return 2;
  }
  cl_platform_id p;
  cl_uint np = 0;
  if (clGetPlatformIDs(1, &p, &np) != CL_SUCCESS || np == 0) {
    std::fprintf(stderr, "tutti-info: no Tutti platform (see the message above)\n");
    return 1;
  }
  cl_device_id d;
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, nullptr) != CL_SUCCESS) return 1;
  std::printf("Virtual device: %s\n", devString(d, CL_DEVICE_NAME).c_str());
  std::printf("  version:          %s / %s\n", devString(d, CL_DEVICE_VERSION).c_str(),
              devString(d, CL_DEVICE_OPENCL_C_VERSION).c_str());
  cl_device_type t = devValue<cl_device_type>(d, CL_DEVICE_TYPE);
  std::printf("  type:             %s\n", t & CL_DEVICE_TYPE_GPU ? "GPU" : t & CL_DEVICE_TYPE_CPU ? "CPU" : "accelerator");
  std::printf("  compute units:    %u\n", devValue<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS));
  std::printf("  global memory:    %.1f GiB (TUTTI_GLOBAL_MEM_MB)\n",
              double(devValue<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE)) / (1 << 30));
  std::printf("  max allocation:   %.1f GiB\n", double(devValue<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE)) / (1 << 30));
  std::printf("  local memory:     %lu KiB\n", (unsigned long)(devValue<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE) / 1024));
  std::printf("  work-group size:  %zu\n", devValue<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  std::printf("  images:           %s\n", devValue<cl_bool>(d, CL_DEVICE_IMAGE_SUPPORT) ? "yes" : "no");
  std::printf("  extensions:       %s\n", devString(d, CL_DEVICE_EXTENSIONS).c_str());
  auto get = reinterpret_cast<tuttiGetDeviceCounters_fn>(
      clGetExtensionFunctionAddressForPlatform(p, "tuttiGetDeviceCounters"));
  cl_uint n = 0;
  if (get && get(0, nullptr, &n) == CL_SUCCESS && n) {
    std::vector<tutti_device_counters> c(n);
    get(n, c.data(), nullptr);
    std::printf("Backing devices:\n");
    for (auto &x : c)
      std::printf("  %s [%s]\n", x.name, x.type & CL_DEVICE_TYPE_GPU ? "GPU" : x.type & CL_DEVICE_TYPE_CPU ? "CPU" : "other");
  }
  return 0;
}
