// device_info.cpp - the virtual device's properties: the honest aggregate of the
// backing devices (features all support, safe minimum limits, summed capacities).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>

#include "backend.h"
#include "icd.h"
#include "info.h"
#include "skmd.h"
#include "objects.h"
#include "settings.h"

#ifndef TUTTI_VERSION_STRING
#define TUTTI_VERSION_STRING "0.1.0"
#endif

namespace tutti {

extern _cl_platform_id g_platform;  // interpose/dispatch.cpp

namespace {

const std::vector<BackingDevice *> &devs() { return backend().devices(); }

template <typename T>
T query(BackingDevice *d, cl_device_info p) {
  T v{};
  if (icd(d->id).clGetDeviceInfo(d->id, p, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}

std::string queryString(BackingDevice *d, cl_device_info p) {
  size_t n = 0;
  if (icd(d->id).clGetDeviceInfo(d->id, p, 0, nullptr, &n) != CL_SUCCESS || !n) return "";
  std::string s(n, '\0');
  icd(d->id).clGetDeviceInfo(d->id, p, n, &s[0], nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T>
std::vector<T> queryArray(BackingDevice *d, cl_device_info p) {
  size_t n = 0;
  if (icd(d->id).clGetDeviceInfo(d->id, p, 0, nullptr, &n) != CL_SUCCESS) return {};
  std::vector<T> v(n / sizeof(T));
  if (n) icd(d->id).clGetDeviceInfo(d->id, p, n, v.data(), nullptr);
  return v;
}

enum class Rule { Min, Max, Sum, And, All };

template <typename T>
T combine(cl_device_info p, Rule r) {
  bool first = true;
  T acc{};
  for (BackingDevice *d : devs()) {
    T v = query<T>(d, p);
    if (first) { acc = v; first = false; continue; }
    switch (r) {
      case Rule::Min: acc = std::min(acc, v); break;
      case Rule::Max: acc = std::max(acc, v); break;
      case Rule::Sum: acc = acc + v; break;
      case Rule::And: acc = T(acc & v); break;
      case Rule::All: acc = T(acc && v); break;
    }
  }
  return acc;
}

// Physical memory, or the cgroup's limit where the process runs under a smaller one.
cl_ulong hostMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  cl_ulong mem = pages > 0 && page > 0 ? cl_ulong(pages) * cl_ulong(page) : (cl_ulong(1) << 32);
  for (const char *path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    if (FILE *f = std::fopen(path, "r")) {
      unsigned long long limit = 0;
      if (std::fscanf(f, "%llu", &limit) == 1 && limit > 0) mem = std::min<cl_ulong>(mem, limit);
      std::fclose(f);  // "max" (no limit) reads as no number
    }
  }
  return mem;
}

const MemoryLimits &memoryLimits() {
  static const MemoryLimits limits = [] {
    std::vector<MemoryLimits> d;
    for (BackingDevice *b : devs()) d.push_back({b->globalMem, b->maxAlloc});
    // VAST can page launches through a GPU (the compiler's paged kernels, TUTTI_VAST):
    // buffers then need only fit the host. Not on CPU-only machines, whose PoCL devices
    // refuse allocations beyond their own limit.
    bool paged = kernelCompilerLinked() && settings().vast != VastMode::Off &&
                 std::any_of(devs().begin(), devs().end(), [](BackingDevice *b) { return b->isGpu(); });
    return virtualMemoryLimits(hostMemory(), d, settings().global_mem_mb << 20, paged);
  }();
  return limits;
}

// "OpenCL C 1.2 ..." -> 1.2 as (major, minor)
std::pair<int, int> cVersion(const std::string &s) {
  int maj = 1, min = 2;
  auto p = s.find("OpenCL C ");
  if (p != std::string::npos) sscanf(s.c_str() + p + 9, "%d.%d", &maj, &min);
  return {maj, min};
}

// Name/version pairs every backing device reports (by name, lowest version).
std::vector<cl_name_version> commonNameVersions(cl_device_info p) {
  std::map<std::string, cl_version> common;
  bool first = true;
  for (BackingDevice *d : devs()) {
    std::map<std::string, cl_version> mine;
    for (auto &nv : queryArray<cl_name_version>(d, p)) {
      std::string key = nv.name + std::string("@") + std::to_string(CL_VERSION_MAJOR(nv.version)) +
                        "." + std::to_string(CL_VERSION_MINOR(nv.version));
      if (p != CL_DEVICE_OPENCL_C_ALL_VERSIONS) key = nv.name;
      mine[key] = nv.version;
    }
    if (first) { common = mine; first = false; continue; }
    for (auto it = common.begin(); it != common.end();) {
      auto m = mine.find(it->first);
      if (m == mine.end()) { it = common.erase(it); continue; }
      it->second = std::min(it->second, m->second);
      ++it;
    }
  }
  std::vector<cl_name_version> out;
  for (auto &kv : common) {
    cl_name_version nv{};
    nv.version = kv.second;
    std::string name = kv.first.substr(0, kv.first.find('@'));
    snprintf(nv.name, sizeof nv.name, "%s", name.c_str());
    out.push_back(nv);
  }
  return out;
}

// Kernel-language extensions: they need nothing from the host API beyond the core.
const char *kSafeExtensions[] = {
    "cl_khr_fp64", "cl_khr_fp16", "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics",
    "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
    "cl_khr_byte_addressable_store", "cl_khr_3d_image_writes", "cl_khr_depth_images",
    "cl_khr_extended_bit_ops", "cl_khr_integer_dot_product", "cl_khr_expect_assume",
    "cl_khr_subgroup_extended_types", "cl_khr_subgroup_shuffle", "cl_khr_subgroup_ballot"};

}  // namespace

MemoryLimits virtualMemoryLimits(cl_ulong hostMemory, const std::vector<MemoryLimits> &devices,
                                 cl_ulong setGlobal, bool paged) {
  constexpr cl_ulong kGiB = cl_ulong(1) << 30;
  cl_ulong largestGlobal = 0, largestAlloc = 0;
  for (const MemoryLimits &d : devices) {
    largestGlobal = std::max(largestGlobal, d.global);
    largestAlloc = std::max(largestAlloc, d.maxAlloc);
  }
  MemoryLimits v;
  v.global = setGlobal;
  if (!v.global) {
    // Apps size their data from this (all of the host's memory made them swap or hang):
    // every buffer has a home in host memory, and the app and the OS need room beside them.
    const cl_ulong reserve = std::max(hostMemory / 4, kGiB);
    v.global = hostMemory > reserve ? hostMemory - reserve : hostMemory / 2;
    // A launch runs whole on one device, whose memory must hold its buffers, unless VAST
    // pages it through a GPU (issue 18): then the homes in host memory are the limit.
    if (largestGlobal && !paged) v.global = std::min(v.global, largestGlobal);
  }
  // One buffer must fit a device's largest allocation, as on a real device; the spec's
  // minimum is max(min(1 GiB, global / 4), 32 MiB).
  const cl_ulong specMin = std::max(std::min(kGiB, v.global / 4), cl_ulong(32) << 20);
  v.maxAlloc = std::min(v.global, std::max(largestAlloc ? largestAlloc : v.global / 4, specMin));
  // VAST keeps a buffer beyond a device's largest allocation in frames there.
  if (paged) v.maxAlloc = v.global;
  return v;
}

cl_device_type virtualDeviceType() {
  switch (settings().device_type) {
    case DeviceType::Cpu: return CL_DEVICE_TYPE_CPU;
    case DeviceType::Accelerator: return CL_DEVICE_TYPE_ACCELERATOR;
    case DeviceType::Gpu: break;
  }
  return CL_DEVICE_TYPE_GPU;
}

const std::vector<std::string> &virtualExtensions() {
  static std::vector<std::string> ext = [] {
    std::vector<std::string> e;
    for (const char *x : kSafeExtensions)
      if (std::all_of(devs().begin(), devs().end(), [&](BackingDevice *d) { return d->hasExtension(x); }))
        e.push_back(x);
    return e;
  }();
  return ext;
}

std::string virtualDeviceName() {
  std::string n = "Tutti virtual device (";
  for (size_t i = 0; i < devs().size(); ++i) n += (i ? " + " : "") + devs()[i]->name;
  return n + ")";
}

namespace {
cl_int computeDeviceInfo(cl_device_info p, size_t size, void *value, size_t *ret);
}  // namespace

// The virtual device's properties do not change while the process runs, but each answer
// asked every backing driver again: clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES) cost
// 0.169 us against PoCL's 0.010 (tools/bench/micro/call_cost, 2 PoCL devices), and
// enqueues and buffer creations ask too. The core properties (0x1000-0x11ff) are kept
// after their first answer: lock-free reads, a racing first answer is dropped. Errors are
// not kept, and the size checks stay per call.
cl_int virtualDeviceInfo(cl_device_info p, size_t size, void *value, size_t *ret) {
  constexpr cl_device_info kFirst = 0x1000, kCount = 0x200;
  static std::atomic<const std::string *> memo[kCount];
  // Only once the backing devices are known (an answer during discovery would be kept).
  if (p < kFirst || p >= kFirst + kCount || backend().discovering() || devs().empty())
    return computeDeviceInfo(p, size, value, ret);
  std::atomic<const std::string *> &slot = memo[p - kFirst];
  const std::string *m = slot.load(std::memory_order_acquire);
  if (!m) {
    size_t n = 0;
    if (computeDeviceInfo(p, 0, nullptr, &n) != CL_SUCCESS) return computeDeviceInfo(p, size, value, ret);
    auto *fresh = new std::string(n, '\0');
    if (computeDeviceInfo(p, n, fresh->data(), nullptr) != CL_SUCCESS) {
      delete fresh;
      return computeDeviceInfo(p, size, value, ret);
    }
    const std::string *expected = nullptr;
    if (slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
      m = fresh;  // kept for the process's life
    } else {
      delete fresh;
      m = expected;
    }
  }
  return answerBytes(m->data(), m->size(), size, value, ret);
}

namespace {

cl_int computeDeviceInfo(cl_device_info p, size_t size, void *value, size_t *ret) {
  auto A = [&](auto v) { return answer(v, size, value, ret); };
  switch (p) {
    case CL_DEVICE_TYPE: return A(virtualDeviceType());
    case CL_DEVICE_VENDOR_ID: return A(cl_uint(0x7077));
    case CL_DEVICE_MAX_COMPUTE_UNITS: return A(combine<cl_uint>(p, Rule::Sum));
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: return A(combine<cl_uint>(p, Rule::Min));
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
      cl_uint dims = combine<cl_uint>(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, Rule::Min);
      std::vector<size_t> v(dims, SIZE_MAX);
      for (BackingDevice *d : devs()) {
        auto s = queryArray<size_t>(d, p);
        for (cl_uint i = 0; i < dims; ++i) v[i] = std::min(v[i], i < s.size() ? s[i] : size_t(1));
      }
      return A(v);
    }
    case CL_DEVICE_MAX_WORK_GROUP_SIZE:
    case CL_DEVICE_IMAGE2D_MAX_WIDTH: case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_WIDTH: case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH: case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: case CL_DEVICE_MAX_PARAMETER_SIZE:
    case CL_DEVICE_PRINTF_BUFFER_SIZE: case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
    case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE:
      return A(combine<size_t>(p, Rule::Min));
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
    case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
      return A(combine<size_t>(p, Rule::Max));
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR: case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT: case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT: case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF: case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT: case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG: case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
    case CL_DEVICE_ADDRESS_BITS: case CL_DEVICE_MAX_READ_IMAGE_ARGS:
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS: case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS:
    case CL_DEVICE_MAX_SAMPLERS: case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
    case CL_DEVICE_MAX_CONSTANT_ARGS: case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
      return A(combine<cl_uint>(p, Rule::Min));
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: return A(combine<cl_uint>(p, Rule::Max));
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE:
    case CL_DEVICE_IMAGE_PITCH_ALIGNMENT: case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
      return A(combine<cl_uint>(p, Rule::Max));
    case CL_DEVICE_GLOBAL_MEM_SIZE: return A(memoryLimits().global);
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: return A(memoryLimits().maxAlloc);
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
    case CL_DEVICE_LOCAL_MEM_SIZE:
      return A(combine<cl_ulong>(p, Rule::Min));
    case CL_DEVICE_SINGLE_FP_CONFIG: case CL_DEVICE_DOUBLE_FP_CONFIG:
    case CL_DEVICE_HALF_FP_CONFIG:
    case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES: case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
      return A(combine<cl_bitfield>(p, Rule::And));
    case CL_DEVICE_IMAGE_SUPPORT: case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
    case CL_DEVICE_ENDIAN_LITTLE: case CL_DEVICE_AVAILABLE: case CL_DEVICE_COMPILER_AVAILABLE:
    case CL_DEVICE_LINKER_AVAILABLE: case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
    case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
    case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
      return A(combine<cl_bool>(p, Rule::All));
    // Kernels may run split across devices with different sub-group sizes, so the
    // virtual device has none (and clGetKernelSubGroupInfo says so).
    case CL_DEVICE_MAX_NUM_SUB_GROUPS: return A(cl_uint(0));
    case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS: return A(cl_bool(CL_FALSE));
    case CL_DEVICE_LOCAL_MEM_TYPE: {
      bool allLocal = std::all_of(devs().begin(), devs().end(), [](BackingDevice *d) {
        return query<cl_device_local_mem_type>(d, CL_DEVICE_LOCAL_MEM_TYPE) == CL_LOCAL;
      });
      return A(cl_device_local_mem_type(allLocal ? CL_LOCAL : CL_GLOBAL));
    }
    case CL_DEVICE_EXECUTION_CAPABILITIES: return A(cl_device_exec_capabilities(CL_EXEC_KERNEL));
    case CL_DEVICE_QUEUE_PROPERTIES:  // == CL_DEVICE_QUEUE_ON_HOST_PROPERTIES
      return A(cl_command_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                           CL_QUEUE_PROFILING_ENABLE));
    case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES: return A(cl_command_queue_properties(0));
    case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE: case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    case CL_DEVICE_MAX_ON_DEVICE_QUEUES: case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    case CL_DEVICE_MAX_PIPE_ARGS: case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    case CL_DEVICE_PIPE_MAX_PACKET_SIZE: case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT: case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
      return A(cl_uint(0));
    case CL_DEVICE_SVM_CAPABILITIES: return A(cl_device_svm_capabilities(0));
    case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES: return A(cl_device_device_enqueue_capabilities(0));
    case CL_DEVICE_PIPE_SUPPORT: return A(cl_bool(CL_FALSE));
    case CL_DEVICE_HOST_UNIFIED_MEMORY: return A(cl_bool(CL_FALSE));
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: return A(cl_bool(CL_TRUE));
    case CL_DEVICE_PLATFORM: return A(static_cast<cl_platform_id>(&g_platform));
    case CL_DEVICE_PARENT_DEVICE: return A(static_cast<cl_device_id>(nullptr));
    case CL_DEVICE_PARTITION_PROPERTIES: return A(std::vector<cl_device_partition_property>{0});
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: return A(cl_device_affinity_domain(0));
    case CL_DEVICE_PARTITION_TYPE: return A(std::vector<cl_device_partition_property>{});
    case CL_DEVICE_REFERENCE_COUNT: return A(cl_uint(1));
    case CL_DEVICE_NAME: return A(virtualDeviceName());
    case CL_DEVICE_VENDOR: return A(std::string("Tutti"));
    case CL_DRIVER_VERSION: return A(std::string(TUTTI_VERSION_STRING));
    case CL_DEVICE_PROFILE: {
      bool full = std::all_of(devs().begin(), devs().end(), [](BackingDevice *d) {
        return queryString(d, CL_DEVICE_PROFILE) == "FULL_PROFILE";
      });
      return A(std::string(full ? "FULL_PROFILE" : "EMBEDDED_PROFILE"));
    }
    case CL_DEVICE_VERSION: return A(std::string("OpenCL 3.0 Tutti " TUTTI_VERSION_STRING));
    case CL_DEVICE_NUMERIC_VERSION: return A(cl_version(CL_MAKE_VERSION(3, 0, 0)));
    case CL_DEVICE_OPENCL_C_VERSION: {
      std::pair<int, int> v{9, 9};
      for (BackingDevice *d : devs()) v = std::min(v, cVersion(d->cVersion));
      return A("OpenCL C " + std::to_string(v.first) + "." + std::to_string(v.second) + " Tutti");
    }
    case CL_DEVICE_OPENCL_C_ALL_VERSIONS:
    case CL_DEVICE_OPENCL_C_FEATURES:
      return A(commonNameVersions(p));
    case CL_DEVICE_EXTENSIONS: {
      std::string s;
      for (auto &e : virtualExtensions()) s += e + " ";
      return A(s);
    }
    case CL_DEVICE_EXTENSIONS_WITH_VERSION: {
      std::vector<cl_name_version> v;
      for (auto &nv : commonNameVersions(p))
        if (std::find(virtualExtensions().begin(), virtualExtensions().end(), nv.name) !=
            virtualExtensions().end())
          v.push_back(nv);
      return A(v);
    }
    case CL_DEVICE_BUILT_IN_KERNELS: case CL_DEVICE_IL_VERSION: return A(std::string());
    case CL_DEVICE_ILS_WITH_VERSION: case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
      return A(std::vector<cl_name_version>{});
    case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED: return A(std::string("v0000-01-01-00"));
    default: return CL_INVALID_VALUE;
  }
}

}  // namespace

cl_int virtualPlatformInfo(cl_platform_info p, size_t size, void *value, size_t *ret) {
  auto A = [&](auto v) { return answer(v, size, value, ret); };
  bool ready = !backend().discovering() && backend().ensure();
  switch (p) {
    case CL_PLATFORM_PROFILE: return A(std::string("FULL_PROFILE"));
    case CL_PLATFORM_VERSION: return A(std::string("OpenCL 3.0 Tutti " TUTTI_VERSION_STRING));
    case CL_PLATFORM_NUMERIC_VERSION: return A(cl_version(CL_MAKE_VERSION(3, 0, 0)));
    case CL_PLATFORM_NAME: return A(std::string("Tutti"));
    case CL_PLATFORM_VENDOR: return A(std::string("Tutti"));
    case CL_PLATFORM_ICD_SUFFIX_KHR: return A(std::string("Tutti"));
    case CL_PLATFORM_HOST_TIMER_RESOLUTION: return A(cl_ulong(1));
    case CL_PLATFORM_EXTENSIONS: {
      std::string s = "cl_khr_icd ";
      if (ready)
        for (auto &e : virtualExtensions()) s += e + " ";
      return A(s);
    }
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION: {
      std::vector<cl_name_version> v;
      cl_name_version icdv{};
      icdv.version = CL_MAKE_VERSION(1, 0, 0);
      snprintf(icdv.name, sizeof icdv.name, "cl_khr_icd");
      v.push_back(icdv);
      if (ready)
        for (auto &e : virtualExtensions()) {
          cl_name_version nv{};
          nv.version = CL_MAKE_VERSION(1, 0, 0);
          snprintf(nv.name, sizeof nv.name, "%s", e.c_str());
          v.push_back(nv);
        }
      return A(v);
    }
    default: return CL_INVALID_VALUE;
  }
}

}  // namespace tutti
