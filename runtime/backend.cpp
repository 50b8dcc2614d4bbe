// backend.cpp - discovery of the real devices, through the system ICD loader or
// (TUTTI_ICD_VENDORS) straight from the vendors' libraries.
#include "backend.h"

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "free_memory.h"
#include "icd.h"
#include "log.h"
#include "settings.h"

namespace tutti {

namespace {

thread_local bool t_discovering = false;

std::string devString(cl_device_id d, cl_device_info p) {
  size_t n = 0;
  if (icd(d).clGetDeviceInfo(d, p, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  icd(d).clGetDeviceInfo(d, p, n, &s[0], nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string platString(cl_platform_id p, cl_platform_info q) {
  size_t n = 0;
  if (icd(p).clGetPlatformInfo(p, q, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  icd(p).clGetPlatformInfo(p, q, n, &s[0], nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T>
T devScalar(cl_device_id d, cl_device_info p, T fallback) {
  T v{};
  return icd(d).clGetDeviceInfo(d, p, sizeof v, &v, nullptr) == CL_SUCCESS ? v : fallback;
}

using GetPlatformsFn = cl_int(CL_API_CALL *)(cl_uint, cl_platform_id *, cl_uint *);

// Platforms from the system ICD loader. Our own platform is filtered out, because the
// loader may have loaded Tutti as one of its vendors.
std::vector<cl_platform_id> loaderPlatforms(std::string &error) {
  void *h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) h = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    error = std::string("cannot load the system ICD loader libOpenCL.so.1: ") + dlerror();
    return {};
  }
  auto get = reinterpret_cast<GetPlatformsFn>(dlsym(h, "clGetPlatformIDs"));
  if (!get || get == reinterpret_cast<GetPlatformsFn>(&clGetPlatformIDs)) {
    error = "the system ICD loader has no clGetPlatformIDs of its own";
    return {};
  }
  cl_uint n = 0;
  if (get(0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_platform_id> ps(n);
  get(n, ps.data(), nullptr);
  ps.erase(std::remove_if(ps.begin(), ps.end(), isOwnPlatform), ps.end());
  return ps;
}

// Platforms from the .icd files of a directory, loading each vendor library ourselves.
std::vector<cl_platform_id> vendorPlatforms(const std::string &dir, std::string &error) {
  std::vector<cl_platform_id> out;
  DIR *d = opendir(dir.c_str());
  if (!d) {
    error = "TUTTI_ICD_VENDORS='" + dir + "' is not a readable directory";
    return out;
  }
  std::vector<std::string> files;
  while (dirent *e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".icd") == 0) files.push_back(dir + "/" + n);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  using IcdGet = cl_int(CL_API_CALL *)(cl_uint, cl_platform_id *, cl_uint *);
  for (const auto &f : files) {
    std::ifstream in(f);
    std::string lib;
    std::getline(in, lib);
    while (!lib.empty() && isspace(static_cast<unsigned char>(lib.back()))) lib.pop_back();
    if (lib.empty()) continue;
    void *h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      TUTTI_LOG(Warn, "cannot load ICD '%s' from %s: %s", lib.c_str(), f.c_str(), dlerror());
      continue;
    }
    auto get = reinterpret_cast<IcdGet>(dlsym(h, "clIcdGetPlatformIDsKHR"));
    if (!get || get == reinterpret_cast<IcdGet>(&clIcdGetPlatformIDsKHR)) continue;  // us
    cl_uint n = 0;
    if (get(0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
    std::vector<cl_platform_id> ps(n);
    if (get(n, ps.data(), nullptr) != CL_SUCCESS) continue;
    for (auto p : ps)
      if (!isOwnPlatform(p)) out.push_back(p);
  }
  return out;
}

}  // namespace

bool BackingDevice::hasExtension(const std::string &e) const {
  return std::find(extensions.begin(), extensions.end(), e) != extensions.end();
}

void BackingDevice::noteFailure(cl_int err) {
  ++counters.failures;
  // Errors that name the launch itself (a work-group size this device cannot take) say
  // nothing about the device's health.
  if (err <= CL_INVALID_VALUE && err >= CL_INVALID_DEVICE_QUEUE) return;
  unsigned inARow = ++failuresInARow;
  uint64_t limit = settings().retire_after;
  if (limit && inARow >= limit && !retired.exchange(true))
    TUTTI_LOG(Warn, "%s failed %u times in a row (last: %s): it gets no new work", label().c_str(),
              inARow, clErrorName(err));
}

double BackingDevice::strength() const {
  // Ranks devices when nothing was measured yet: GPUs first, then by width x clock.
  double w = double(computeUnits) * double(clockMHz ? clockMHz : 1000);
  return (isGpu() ? 1e9 : 0) + w;
}

std::string BackingDevice::label() const {
  return std::to_string(index) + ": " + name + " (" + platformName + ")";
}

bool selectDevices(const DeviceList &picks, const std::vector<BackingDevice *> &all,
                   std::vector<BackingDevice *> &chosen, std::string &error) {
  chosen.clear();
  auto addUnique = [&](BackingDevice *d) {
    if (std::find(chosen.begin(), chosen.end(), d) == chosen.end()) chosen.push_back(d);
  };
  auto typeBit = [](DeviceType t) -> cl_device_type {
    switch (t) {
      case DeviceType::Cpu: return CL_DEVICE_TYPE_CPU;
      case DeviceType::Accelerator: return CL_DEVICE_TYPE_ACCELERATOR;
      case DeviceType::Gpu: break;
    }
    return CL_DEVICE_TYPE_GPU;
  };
  std::string spec;
  for (const DevicePick &p : picks) {
    spec += (spec.empty() ? "" : ",") + p.text;
    bool matched = false;
    switch (p.kind) {
      case DevicePick::All:
        for (auto d : all) addUnique(d);
        matched = true;
        break;
      case DevicePick::Type:
        for (auto d : all)
          if (d->type & typeBit(p.type)) addUnique(d);
        matched = true;
        break;
      case DevicePick::Index:
        if (p.n < all.size()) addUnique(all[p.n]), matched = true;
        break;
      case DevicePick::NthOfType: {
        size_t k = 0;
        for (auto d : all)
          if ((d->type & typeBit(p.type)) && k++ == p.n) addUnique(d), matched = true;
        break;
      }
      case DevicePick::Name:
        for (auto d : all) {
          std::string n = d->name;
          for (auto &c : n) c = char(tolower(static_cast<unsigned char>(c)));
          if (n.find(p.text) != std::string::npos) addUnique(d), matched = true;
        }
        break;
    }
    if (!matched) {
      error = "TUTTI_DEVICES: '" + p.text + "' matches no device";
      return false;
    }
  }
  if (chosen.empty()) {
    error = "TUTTI_DEVICES='" + spec + "' selects no device";
    return false;
  }
  return true;
}

bool selectDevices(const std::string &spec, const std::vector<BackingDevice *> &all,
                   std::vector<BackingDevice *> &chosen, std::string &error) {
  DeviceList picks;
  if (!parseDeviceList(spec, picks)) {
    chosen.clear();
    error = "TUTTI_DEVICES='" + spec + "' is not valid";
    return false;
  }
  return selectDevices(picks, all, chosen, error);
}

bool Backend::discovering() const { return t_discovering; }

bool Backend::ensure(std::string *error) {
  static std::mutex mu;
  if (state_.load(std::memory_order_acquire) >= 2) {
    if (error) *error = error_;
    return state_ == 2;
  }
  if (t_discovering) {  // re-entered from the loader while we discover: not ready
    if (error) *error = "Tutti is discovering its devices";
    return false;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (state_ < 2) {
    t_discovering = true;
    state_ = 1;
    std::string err;
    bool ok = discover(err);
    error_ = err;
    t_discovering = false;
    state_.store(ok ? 2 : 3, std::memory_order_release);
    if (!ok) TUTTI_LOG(Error, "%s", err.c_str());
  }
  if (error) *error = error_;
  return state_ == 2;
}

bool Backend::discover(std::string &error) {
  if (!settingsOk()) {
    error = settingsError();
    return false;
  }
  const Settings &s = settings();
  std::vector<cl_platform_id> plats =
      s.icd_vendors.empty() ? loaderPlatforms(error) : vendorPlatforms(s.icd_vendors, error);
  if (!error.empty()) return false;
  std::vector<BackingDevice *> all;
  for (cl_platform_id p : plats) {
    cl_uint n = 0;
    if (icd(p).clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || !n)
      continue;
    std::vector<cl_device_id> ids(n);
    icd(p).clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr);
    for (cl_device_id id : ids) {
      auto *d = new BackingDevice();
      d->index = int(all.size());
      d->platform = p;
      d->id = id;
      d->type = devScalar<cl_device_type>(id, CL_DEVICE_TYPE, CL_DEVICE_TYPE_DEFAULT);
      d->name = devString(id, CL_DEVICE_NAME);
      d->vendor = devString(id, CL_DEVICE_VENDOR);
      d->version = devString(id, CL_DEVICE_VERSION);
      d->cVersion = devString(id, CL_DEVICE_OPENCL_C_VERSION);
      d->driverVersion = devString(id, CL_DRIVER_VERSION);
      d->platformName = platString(p, CL_PLATFORM_NAME);
      d->platformVersion = platString(p, CL_PLATFORM_VERSION);
      std::stringstream es(devString(id, CL_DEVICE_EXTENSIONS));
      std::string e;
      while (es >> e) d->extensions.push_back(e);
      d->computeUnits = devScalar<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS, 1);
      d->clockMHz = devScalar<cl_uint>(id, CL_DEVICE_MAX_CLOCK_FREQUENCY, 0);
      d->addressBits = devScalar<cl_uint>(id, CL_DEVICE_ADDRESS_BITS, 64);
      d->baseAddrAlign = devScalar<cl_uint>(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, 1024);
      d->globalMem = devScalar<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE, 0);
      d->maxAlloc = devScalar<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
      // A GPU's budget is its free memory less room for Tutti's own context there, not
      // the card's size: 84 GB of buffers "fit" the H100's 81559 MiB.
      if (d->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR))
        if (const uint64_t freeBytes = freeDeviceMemory(id, d->extensions)) {
          constexpr uint64_t kContextReserve = uint64_t(512) << 20;
          const uint64_t usable = freeBytes > 2 * kContextReserve ? freeBytes - kContextReserve : freeBytes / 2;
          if (!d->globalMem || usable < d->globalMem) {
            TUTTI_LOG(Info, "%s: %llu of %llu bytes free: a budget of %llu", d->name.c_str(),
                      (unsigned long long)freeBytes, (unsigned long long)d->globalMem, (unsigned long long)usable);
            d->globalMem = usable;
            if (d->maxAlloc) d->maxAlloc = std::min<cl_ulong>(d->maxAlloc, usable);
          }
        }
      d->localMem = devScalar<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE, 0);
      d->maxWorkGroup = devScalar<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, 1);
      d->imageSupport = devScalar<cl_bool>(id, CL_DEVICE_IMAGE_SUPPORT, CL_FALSE);
      d->compilerAvailable = devScalar<cl_bool>(id, CL_DEVICE_COMPILER_AVAILABLE, CL_TRUE);
      d->linkerAvailable = devScalar<cl_bool>(id, CL_DEVICE_LINKER_AVAILABLE, CL_TRUE);
      d->callsOutsideLock = !(d->platformName == "Portable Computing Language" &&
                              d->name.rfind("basic", 0) == 0);
      all.push_back(d);
    }
  }
  if (all.empty()) {
    error = "no OpenCL device found to back Tutti (is an ICD such as pocl-opencl-icd "
            "installed, and OCL_ICD_VENDORS right?)";
    return false;
  }
  std::vector<BackingDevice *> chosen;
  if (!selectDevices(s.devices, all, chosen, error)) return false;
  for (size_t i = 0; i < chosen.size(); ++i) chosen[i]->index = int(i);
  devices_ = chosen;
  for (auto d : devices_) {
    // TUTTI_MEM_LIMIT: a smaller device than the driver reports (VAST's budget).
    if (uint64_t limit = s.mem_limit.of(size_t(d->index))) {
      d->globalMem = d->globalMem ? std::min<cl_ulong>(d->globalMem, limit) : limit;
      d->maxAlloc = d->maxAlloc ? std::min<cl_ulong>(d->maxAlloc, d->globalMem) : d->globalMem;
      d->memLimited = true;
    }
    TUTTI_LOG(Info, "backing device %s", d->label().c_str());
  }
  return true;
}

BackingDevice *Backend::strongest() const {
  BackingDevice *best = nullptr;
  for (auto d : devices_)
    if (!best || d->strength() > best->strength()) best = d;
  return best;
}

bool Backend::anyGpu() const {
  return std::any_of(devices_.begin(), devices_.end(), [](auto d) { return d->isGpu(); });
}

Backend &backend() {
  static Backend *b = new Backend();
  return *b;
}

}  // namespace tutti
