// free_memory.cpp - free memory of a GPU from its vendor's own interface.
//
// CL_DEVICE_GLOBAL_MEM_SIZE is the card's size (81559 MiB on the H100), not what a launch
// can have: the driver, other contexts and other processes hold some of it. A launch
// planned against the size alone (84 GB of buffers on the H100) may not fit at all.
// OpenCL has no standard query, so NVIDIA devices are asked through NVML, loaded at
// run time (no link dependency; absent on machines without the driver).
#include "free_memory.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>

#include "icd.h"
#include "log.h"

namespace tutti {

namespace {

constexpr cl_device_info kPciBusIdNv = 0x4008, kPciSlotIdNv = 0x4009, kPciDomainIdNv = 0x400A;
constexpr cl_device_info kFreeMemoryAmd = 0x4039;  // KiB: total free, largest free block

struct NvmlMemory {
  unsigned long long total, free, used;
};
using NvmlDevice = void *;

struct Nvml {
  int (*byPci)(const char *, NvmlDevice *) = nullptr;
  int (*memoryInfo)(NvmlDevice, NvmlMemory *) = nullptr;
  bool ok = false;
};

const Nvml &nvml() {
  static Nvml n = [] {
    Nvml m;
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return m;
    auto init = reinterpret_cast<int (*)()>(dlsym(h, "nvmlInit_v2"));
    m.byPci = reinterpret_cast<int (*)(const char *, NvmlDevice *)>(dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2"));
    m.memoryInfo = reinterpret_cast<int (*)(NvmlDevice, NvmlMemory *)>(dlsym(h, "nvmlDeviceGetMemoryInfo"));
    m.ok = init && m.byPci && m.memoryInfo && init() == 0;  // kept loaded and initialised
    return m;
  }();
  return n;
}

template <typename T>
bool query(cl_device_id id, cl_device_info p, T &v) {
  return icd(id).clGetDeviceInfo(id, p, sizeof v, &v, nullptr) == CL_SUCCESS;
}

bool has(const std::vector<std::string> &ext, const char *name) {
  return std::find(ext.begin(), ext.end(), name) != ext.end();
}

}  // namespace

uint64_t freeDeviceMemory(cl_device_id id, const std::vector<std::string> &extensions) {
  if (has(extensions, "cl_nv_device_attribute_query")) {
    cl_uint bus = 0, slot = 0, domain = 0;
    if (!query(id, kPciBusIdNv, bus) || !query(id, kPciSlotIdNv, slot)) {
      TUTTI_LOG(Info, "no PCI address from the NVIDIA driver: the budget is the card's size");
      return 0;
    }
    if (!query(id, kPciDomainIdNv, domain)) domain = 0;
    const Nvml &n = nvml();
    if (!n.ok) {
      TUTTI_LOG(Info, "no NVML (libnvidia-ml.so.1): the budget is the card's size");
      return 0;
    }
    // The slot id is the PCI device number (00:06.0 reads slot 6 on the H100 machines);
    // some tools read it as device << 3 | function, tried second.
    char addr[2][32];
    std::snprintf(addr[0], sizeof addr[0], "%08x:%02x:%02x.0", domain, bus, slot);
    std::snprintf(addr[1], sizeof addr[1], "%08x:%02x:%02x.%x", domain, bus, slot >> 3, slot & 7);
    for (const char *a : addr) {
      NvmlDevice dev = nullptr;
      NvmlMemory mem{};
      if (n.byPci(a, &dev) == 0 && n.memoryInfo(dev, &mem) == 0) return mem.free;
    }
    TUTTI_LOG(Info, "NVML knows no device at PCI %s: the budget is the card's size", addr[0]);
    return 0;
  }
  if (has(extensions, "cl_amd_device_attribute_query")) {
    size_t kib[2] = {0, 0};
    if (icd(id).clGetDeviceInfo(id, kFreeMemoryAmd, sizeof kib, kib, nullptr) == CL_SUCCESS && kib[0])
      return uint64_t(kib[0]) << 10;
  }
  return 0;
}

}  // namespace tutti
