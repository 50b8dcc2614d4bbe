// Shared helper for the Tutti workload apps (tools/bench/apps/*.cpp).
//
// These apps model unmodified OpenCL 1.2 user programs: they link only the
// standard libOpenCL and nothing of Tutti.  This header is header-only so that
// every app stays a single self-contained binary.
//
// Typical use:
//
//   int main(int argc, char** argv) {
//     app::App a("VectorAdd");
//     long long n = 0;
//     a.param("n", &n, "number of elements", 1000, 1 << 20, 50000000);
//     a.parse(argc, argv);          // --size, explicit size flags, --device ...
//     a.init();                     // device selection, context, profiling queue
//     cl_program p = a.build(kSource);
//     cl_kernel k = a.kernel(p, "vadd");
//     ... host data + CPU reference ...
//     a.startWall();                // before the first buffer creation
//     cl_mem d = a.buffer(CL_MEM_READ_ONLY, bytes);
//     a.write(d, bytes, host);
//     a.setArgs(k, d, (cl_uint)n, app::Local(256 * sizeof(float)));
//     a.run1D(k, app::roundUp(n, lws), lws);
//     a.read(d, bytes, out);
//     a.stopWall();                 // after the final read
//     bool ok = a.compareFloat("c", out, ref, n, 1e-6, 0.0);
//     return a.finish(ok);          // prints PASS/FAIL + RESULT line, releases
//   }
//
// Command line understood by every app:
//   --size tiny|small|thesis   preset (default: small)
//   --<param> N                explicit size flag (makes size=custom)
//   --device N                 index over all devices of all platforms, in
//                              platform order (default: first GPU, else first)
//   --repeat N                 kernel iterations where meaningful (default 1)
//   --quiet                    only the PASS/FAIL and RESULT lines
//   --list                     list devices and exit
//   --help
//
// Exit status: 0 PASS, 1 FAIL (mismatch), 2 OpenCL or usage error.
// APP_EVENT_MS=1 also prints one "EVENT kernel=<name> kernel_ms=<f>" line per kernel event to stderr
// (launch-to-launch spread inside one process, for the repeatability measurements).
// APP_SYNC=1 waits for each kernel launched through run*() before the next one, so that
// what a launch measured is known before the next is placed (tests of online learning).
//
// Every CL object created through App helpers (buffer, build, kernel, run*,
// addKernelEvent) is released by finish(); objects an app creates itself it
// releases itself.  API is kept stable: only additions, no changes.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace app {

// ---------------------------------------------------------------- errors ---

inline const char* errorName(cl_int e) {
  switch (e) {
#define APP_ERR(x) \
  case x:          \
    return #x;
    APP_ERR(CL_SUCCESS)
    APP_ERR(CL_DEVICE_NOT_FOUND)
    APP_ERR(CL_DEVICE_NOT_AVAILABLE)
    APP_ERR(CL_COMPILER_NOT_AVAILABLE)
    APP_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    APP_ERR(CL_OUT_OF_RESOURCES)
    APP_ERR(CL_OUT_OF_HOST_MEMORY)
    APP_ERR(CL_PROFILING_INFO_NOT_AVAILABLE)
    APP_ERR(CL_MEM_COPY_OVERLAP)
    APP_ERR(CL_IMAGE_FORMAT_MISMATCH)
    APP_ERR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    APP_ERR(CL_BUILD_PROGRAM_FAILURE)
    APP_ERR(CL_MAP_FAILURE)
    APP_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    APP_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    APP_ERR(CL_COMPILE_PROGRAM_FAILURE)
    APP_ERR(CL_LINKER_NOT_AVAILABLE)
    APP_ERR(CL_LINK_PROGRAM_FAILURE)
    APP_ERR(CL_DEVICE_PARTITION_FAILED)
    APP_ERR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    APP_ERR(CL_INVALID_VALUE)
    APP_ERR(CL_INVALID_DEVICE_TYPE)
    APP_ERR(CL_INVALID_PLATFORM)
    APP_ERR(CL_INVALID_DEVICE)
    APP_ERR(CL_INVALID_CONTEXT)
    APP_ERR(CL_INVALID_QUEUE_PROPERTIES)
    APP_ERR(CL_INVALID_COMMAND_QUEUE)
    APP_ERR(CL_INVALID_HOST_PTR)
    APP_ERR(CL_INVALID_MEM_OBJECT)
    APP_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    APP_ERR(CL_INVALID_IMAGE_SIZE)
    APP_ERR(CL_INVALID_SAMPLER)
    APP_ERR(CL_INVALID_BINARY)
    APP_ERR(CL_INVALID_BUILD_OPTIONS)
    APP_ERR(CL_INVALID_PROGRAM)
    APP_ERR(CL_INVALID_PROGRAM_EXECUTABLE)
    APP_ERR(CL_INVALID_KERNEL_NAME)
    APP_ERR(CL_INVALID_KERNEL_DEFINITION)
    APP_ERR(CL_INVALID_KERNEL)
    APP_ERR(CL_INVALID_ARG_INDEX)
    APP_ERR(CL_INVALID_ARG_VALUE)
    APP_ERR(CL_INVALID_ARG_SIZE)
    APP_ERR(CL_INVALID_KERNEL_ARGS)
    APP_ERR(CL_INVALID_WORK_DIMENSION)
    APP_ERR(CL_INVALID_WORK_GROUP_SIZE)
    APP_ERR(CL_INVALID_WORK_ITEM_SIZE)
    APP_ERR(CL_INVALID_GLOBAL_OFFSET)
    APP_ERR(CL_INVALID_EVENT_WAIT_LIST)
    APP_ERR(CL_INVALID_EVENT)
    APP_ERR(CL_INVALID_OPERATION)
    APP_ERR(CL_INVALID_GL_OBJECT)
    APP_ERR(CL_INVALID_BUFFER_SIZE)
    APP_ERR(CL_INVALID_MIP_LEVEL)
    APP_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
    APP_ERR(CL_INVALID_PROPERTY)
    APP_ERR(CL_INVALID_IMAGE_DESCRIPTOR)
    APP_ERR(CL_INVALID_COMPILER_OPTIONS)
    APP_ERR(CL_INVALID_LINKER_OPTIONS)
    APP_ERR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef APP_ERR
    default:
      return "CL_UNKNOWN_ERROR";
  }
}

// Runs f(begin, end) over [0, n) on every hardware thread: big generated inputs and the
// host references of big runs (VAST's over 80 GB), which one core takes minutes over.
template <class F>
void parallelFor(size_t n, F f) {
  const unsigned t = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < t; ++k) pool.emplace_back([=] { f(n * k / t, n * (k + 1) / t); });
  for (auto& th : pool) th.join();
}

// Indices i in [0, n) with bad(i), found on every core: how many, and the first (n: none).
struct Mismatches {
  size_t count = 0, first = 0;
};
template <class F>
Mismatches findMismatches(size_t n, F bad) {
  std::mutex mu;
  Mismatches all{0, n};
  parallelFor(n, [&](size_t b, size_t e) {  // however many threads it runs
    Mismatches m{0, n};
    for (size_t i = b; i < e; ++i)
      if (bad(i) && !m.count++) m.first = i;
    std::lock_guard<std::mutex> l(mu);
    all.count += m.count;
    if (m.count) all.first = std::min(all.first, m.first);
  });
  return all;
}

class App;
inline App*& currentApp() {
  static App* cur = nullptr;
  return cur;
}
[[noreturn]] inline void clFail(const char* call, cl_int err, const char* file, int line);

}  // namespace app

// CHECK(clSomething(...)): on error prints the call, the error name and exits 2.
#define CHECK(call)                                                  \
  do {                                                               \
    cl_int app_check_err_ = (call);                                  \
    if (app_check_err_ != CL_SUCCESS)                                \
      ::app::clFail(#call, app_check_err_, __FILE__, __LINE__);      \
  } while (0)

// CHECK_ERR(err, "clCreateBuffer"): for calls that return an object and report
// the error through an out-parameter.
#define CHECK_ERR(err, what)                                         \
  do {                                                               \
    cl_int app_check_err_ = (err);                                   \
    if (app_check_err_ != CL_SUCCESS)                                \
      ::app::clFail((what), app_check_err_, __FILE__, __LINE__);     \
  } while (0)

namespace app {

// ------------------------------------------------------------ utilities ---

inline size_t roundUp(size_t x, size_t m) { return m == 0 ? x : (x + m - 1) / m * m; }
inline size_t divUp(size_t x, size_t m) { return (x + m - 1) / m; }
inline size_t floorPow2(size_t x) {
  size_t p = 1;
  while (p * 2 <= x) p *= 2;
  return x == 0 ? 0 : p;
}

// Deterministic RNG (splitmix64); identical on every platform and compiler.
class Rng {
 public:
  explicit Rng(uint64_t seed = 12345) : s_(seed) {}
  uint64_t next64() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t next32() { return (uint32_t)(next64() >> 32); }
  // uniform in [0, 1)
  double unit() { return (double)(next64() >> 11) * (1.0 / 9007199254740992.0); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * (float)unit(); }
  uint32_t below(uint32_t n) { return (uint32_t)(((uint64_t)next32() * n) >> 32); }

 private:
  uint64_t s_;
};

// Pass app::Local(bytes) to setArgs for a __local pointer argument.
struct Local {
  size_t bytes;
  explicit Local(size_t b) : bytes(b) {}
};

struct DeviceEntry {
  cl_platform_id platform;
  cl_device_id device;
  cl_device_type type;
  std::string name, platformName;
};

inline std::string deviceString(cl_device_id d, cl_device_info what) {
  size_t sz = 0;
  CHECK(clGetDeviceInfo(d, what, 0, nullptr, &sz));
  std::string s(sz, '\0');
  CHECK(clGetDeviceInfo(d, what, sz, &s[0], nullptr));
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

inline std::string platformString(cl_platform_id p, cl_platform_info what) {
  size_t sz = 0;
  CHECK(clGetPlatformInfo(p, what, 0, nullptr, &sz));
  std::string s(sz, '\0');
  CHECK(clGetPlatformInfo(p, what, sz, &s[0], nullptr));
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

// All devices of all platforms, in platform order.
inline std::vector<DeviceEntry> listDevices() {
  std::vector<DeviceEntry> out;
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &np);
  if (err != CL_SUCCESS || np == 0) return out;  // includes CL_PLATFORM_NOT_FOUND_KHR
  std::vector<cl_platform_id> ps(np);
  CHECK(clGetPlatformIDs(np, ps.data(), nullptr));
  for (cl_platform_id p : ps) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ds(nd);
    CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr));
    std::string pname = platformString(p, CL_PLATFORM_NAME);
    for (cl_device_id d : ds) {
      DeviceEntry e;
      e.platform = p;
      e.device = d;
      CHECK(clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(e.type), &e.type, nullptr));
      e.name = deviceString(d, CL_DEVICE_NAME);
      e.platformName = pname;
      out.push_back(e);
    }
  }
  return out;
}

// ------------------------------------------------------------------ App ---

class App {
 public:
  explicit App(const char* name) : name_(name) { currentApp() = this; }
  ~App() {
    releaseAll();
    if (currentApp() == this) currentApp() = nullptr;
  }
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // ---- command line ------------------------------------------------------

  // Registers an explicit size flag --<flag> with its value per preset.
  // Must be called before parse().
  void param(const char* flag, long long* var, const char* help, long long tiny, long long small,
             long long thesis) {
    Param p;
    p.flag = flag;
    p.help = help;
    p.var = var;
    p.preset[0] = tiny;
    p.preset[1] = small;
    p.preset[2] = thesis;
    params_.push_back(p);
    *var = small;
  }

  void parse(int argc, char** argv) {
    std::vector<std::pair<std::string, std::string>> kv;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        usage(stdout);
        std::exit(0);
      }
      if (a == "--quiet" || a == "-q") {
        quiet_ = true;
        continue;
      }
      if (a == "--list") {
        list_ = true;
        continue;
      }
      if (a.size() < 3 || a[0] != '-' || a[1] != '-') usageError("unexpected argument '" + a + "'");
      std::string key = a.substr(2), val;
      size_t eq = key.find('=');
      if (eq != std::string::npos) {
        val = key.substr(eq + 1);
        key = key.substr(0, eq);
      } else {
        if (i + 1 >= argc) usageError("missing value for --" + key);
        val = argv[++i];
      }
      kv.emplace_back(key, val);
    }
    int presetIdx = 1;
    for (auto& p : kv) {
      if (p.first != "size") continue;
      if (p.second == "tiny") presetIdx = 0;
      else if (p.second == "small") presetIdx = 1;
      else if (p.second == "thesis") presetIdx = 2;
      else usageError("--size must be tiny, small or thesis");
      size_ = p.second;
    }
    if (size_.empty()) size_ = "small";
    for (auto& p : params_) *p.var = p.preset[presetIdx];
    for (auto& p : kv) {
      if (p.first == "size") continue;
      if (p.first == "device") {
        device_ = (int)parseInt(p.first, p.second);
        continue;
      }
      if (p.first == "repeat") {
        repeat_ = (int)parseInt(p.first, p.second);
        if (repeat_ < 1) usageError("--repeat must be >= 1");
        continue;
      }
      bool found = false;
      for (auto& q : params_) {
        if (q.flag == p.first) {
          *q.var = parseInt(p.first, p.second);
          if (*q.var <= 0) usageError("--" + p.first + " must be > 0");
          found = true;
          size_ = "custom";
        }
      }
      if (!found) usageError("unknown option --" + p.first);
    }
  }

  const std::string& sizeName() const { return size_; }
  const std::string& name() const { return name_; }
  int repeat() const { return repeat_; }
  bool quiet() const { return quiet_; }

  // Informational output; suppressed by --quiet.
  void log(const char* fmt, ...) const
#if defined(__GNUC__)
      __attribute__((format(printf, 2, 3)))
#endif
  {
    if (quiet_) return;
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stdout, fmt, ap);
    va_end(ap);
    std::fflush(stdout);
  }

  // ---- OpenCL setup ------------------------------------------------------

  // Selects the device (--device N, else first GPU on any platform, else the
  // first device), creates a context and an in-order profiling queue.
  void init() {
    std::vector<DeviceEntry> devs = listDevices();
    if (list_) {
      for (size_t i = 0; i < devs.size(); ++i)
        std::printf("%zu: %s [%s]%s\n", i, devs[i].name.c_str(), devs[i].platformName.c_str(),
                    (devs[i].type & CL_DEVICE_TYPE_GPU) ? " GPU" : "");
      std::exit(0);
    }
    if (devs.empty()) {
      std::fprintf(stderr, "%s: no OpenCL device found\n", name_.c_str());
      std::exit(2);
    }
    size_t idx = 0;
    if (device_ >= 0) {
      if ((size_t)device_ >= devs.size()) usageError("--device out of range (" + std::to_string(devs.size()) + " devices)");
      idx = (size_t)device_;
    } else {
      for (size_t i = 0; i < devs.size(); ++i)
        if (devs[i].type & CL_DEVICE_TYPE_GPU) {
          idx = i;
          break;
        }
    }
    platform = devs[idx].platform;
    device = devs[idx].device;
    deviceName_ = devs[idx].name;
    platformName_ = devs[idx].platformName;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_int err = CL_SUCCESS;
    context = clCreateContext(props, 1, &device, nullptr, nullptr, &err);
    CHECK_ERR(err, "clCreateContext");
    queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK_ERR(err, "clCreateCommandQueue(CL_QUEUE_PROFILING_ENABLE)");
    CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(maxWg_), &maxWg_, nullptr));
    cl_uint dims = 0;
    CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof(dims), &dims, nullptr));
    std::vector<size_t> items(std::max<cl_uint>(dims, 3), 1);
    CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), items.data(), nullptr));
    for (int d = 0; d < 3; ++d) maxItems_[d] = items[d];
    CHECK(clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(localMem_), &localMem_, nullptr));
    log("%s: device \"%s\" platform \"%s\" size=%s\n", name_.c_str(), deviceName_.c_str(),
        platformName_.c_str(), size_.c_str());
  }

  const std::string& deviceName() const { return deviceName_; }
  const std::string& platformName() const { return platformName_; }
  size_t deviceMaxWorkGroupSize() const { return maxWg_; }
  size_t deviceMaxWorkItemSize(int dim) const { return maxItems_[dim]; }
  cl_ulong localMemSize() const { return localMem_; }

  // Builds a program from source; on failure prints the build log, exits 2.
  cl_program build(const char* source, const char* options = "") {
    cl_int err = CL_SUCCESS;
    const char* srcs[] = {source};
    cl_program p = clCreateProgramWithSource(context, 1, srcs, nullptr, &err);
    CHECK_ERR(err, "clCreateProgramWithSource");
    programs_.push_back(p);
    err = clBuildProgram(p, 1, &device, options, nullptr, nullptr);
    if (err != CL_SUCCESS) {
      size_t sz = 0;
      clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &sz);
      std::string logText(sz, '\0');
      if (sz) clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, sz, &logText[0], nullptr);
      std::fprintf(stderr, "%s: build log:\n%s\n", name_.c_str(), logText.c_str());
      clFail("clBuildProgram", err, __FILE__, __LINE__);
    }
    dumpBinary(p);
    return p;
  }

  // APP_DUMP_BINARY=PREFIX writes each program's binary (PTX on NVIDIA) to PREFIX.N, to
  // compare the driver's code generation with Tutti's.
  void dumpBinary(cl_program p) {
    const char* prefix = std::getenv("APP_DUMP_BINARY");
    if (!prefix) return;
    size_t sz = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof sz, &sz, nullptr) != CL_SUCCESS || !sz) return;
    std::string bin(sz, '\0');
    unsigned char* ptr = reinterpret_cast<unsigned char*>(&bin[0]);
    if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) return;
    std::string path = std::string(prefix) + "." + std::to_string(programs_.size());
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
      std::fwrite(bin.data(), 1, bin.size(), f);
      std::fclose(f);
    }
  }

  cl_kernel kernel(cl_program p, const char* kname) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, kname, &err);
    CHECK_ERR(err, (std::string("clCreateKernel(") + kname + ")").c_str());
    kernels_.push_back(k);
    return k;
  }

  cl_mem buffer(cl_mem_flags flags, size_t bytes, void* host = nullptr) {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context, flags, bytes, host, &err);
    CHECK_ERR(err, "clCreateBuffer");
    mems_.push_back(m);
    return m;
  }

  // Releases a buffer made by buffer() before finish() (e.g. temporaries).
  void releaseBuffer(cl_mem m) {
    auto it = std::find(mems_.begin(), mems_.end(), m);
    if (it != mems_.end()) mems_.erase(it);
    CHECK(clReleaseMemObject(m));
  }

  // Blocking transfers.
  void write(cl_mem m, size_t bytes, const void* src, size_t offset = 0) {
    CHECK(clEnqueueWriteBuffer(queue, m, CL_TRUE, offset, bytes, src, 0, nullptr, nullptr));
  }
  void read(cl_mem m, size_t bytes, void* dst, size_t offset = 0) {
    CHECK(clEnqueueReadBuffer(queue, m, CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr));
  }

  template <class T>
  void setArg(cl_kernel k, cl_uint i, const T& v) {
    static_assert(std::is_trivially_copyable<T>::value, "kernel argument must be trivially copyable");
    CHECK(clSetKernelArg(k, i, sizeof(T), &v));
  }
  void setArg(cl_kernel k, cl_uint i, const Local& l) { CHECK(clSetKernelArg(k, i, l.bytes, nullptr)); }

  // setArgs(k, a0, a1, ...) sets arguments 0, 1, ... in order.
  template <class... A>
  void setArgs(cl_kernel k, const A&... a) {
    cl_uint i = 0;
    (setArg(k, i++, a), ...);
  }

  // Enqueues a kernel with a profiling event counted in kernel_ms.
  // local may be nullptr (implementation chooses).
  void run(cl_kernel k, cl_uint dims, const size_t* global, const size_t* local) {
    cl_event ev = nullptr;
    CHECK(clEnqueueNDRangeKernel(queue, k, dims, nullptr, global, local, 0, nullptr, &ev));
    events_.push_back(ev);
    if (sync_) CHECK(clWaitForEvents(1, &ev));
    if (eventMs_) {
      char name[128] = "";
      clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name) - 1, name, nullptr);
      eventNames_.resize(events_.size());
      eventNames_.back() = name;
    }
  }
  void run1D(cl_kernel k, size_t g, size_t l) {
    size_t gs[1] = {g}, ls[1] = {l};
    run(k, 1, gs, l ? ls : nullptr);
  }
  void run2D(cl_kernel k, size_t gx, size_t gy, size_t lx, size_t ly) {
    size_t gs[2] = {gx, gy}, ls[2] = {lx, ly};
    run(k, 2, gs, (lx && ly) ? ls : nullptr);
  }
  void run3D(cl_kernel k, size_t gx, size_t gy, size_t gz, size_t lx, size_t ly, size_t lz) {
    size_t gs[3] = {gx, gy, gz}, ls[3] = {lx, ly, lz};
    run(k, 3, gs, (lx && ly && lz) ? ls : nullptr);
  }

  // For kernels an app enqueues itself: hands over the event (App releases it)
  // and counts its END-START in kernel_ms.
  void addKernelEvent(cl_event ev) { events_.push_back(ev); }

  void finishQueue() { CHECK(clFinish(queue)); }

  // Largest work-group size usable for kernel k on the device.
  size_t maxWorkGroupSize(cl_kernel k) const {
    size_t kw = 0;
    CHECK(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kw), &kw, nullptr));
    return std::max<size_t>(1, std::min(kw, maxWg_));
  }

  // Power-of-two 1-D work-group size: <= preferred, legal for k and device.
  size_t pickLocal1D(cl_kernel k, size_t preferred) const {
    size_t m = std::min({maxWorkGroupSize(k), preferred, maxItems_[0]});
    return std::max<size_t>(1, floorPow2(m));
  }

  // Power-of-two 2-D work-group size, starting from prefX x prefY and halving
  // the larger side until legal.
  void pickLocal2D(cl_kernel k, size_t prefX, size_t prefY, size_t& lx, size_t& ly) const {
    size_t m = maxWorkGroupSize(k);
    lx = std::max<size_t>(1, floorPow2(std::min(prefX, maxItems_[0])));
    ly = std::max<size_t>(1, floorPow2(std::min(prefY, maxItems_[1])));
    while (lx * ly > m) {
      if (ly >= lx && ly > 1) ly /= 2;
      else lx /= 2;
    }
  }

  void pickLocal3D(cl_kernel k, size_t prefX, size_t prefY, size_t prefZ, size_t& lx, size_t& ly,
                   size_t& lz) const {
    size_t m = maxWorkGroupSize(k);
    lx = std::max<size_t>(1, floorPow2(std::min(prefX, maxItems_[0])));
    ly = std::max<size_t>(1, floorPow2(std::min(prefY, maxItems_[1])));
    lz = std::max<size_t>(1, floorPow2(std::min(prefZ, maxItems_[2])));
    while (lx * ly * lz > m) {
      if (lz >= ly && lz >= lx && lz > 1) lz /= 2;
      else if (ly >= lx && ly > 1) ly /= 2;
      else lx /= 2;
    }
  }

  // ---- timing ------------------------------------------------------------

  // Wall clock of the whole computation: call startWall() before the first
  // buffer creation and stopWall() after the final read.
  void startWall() { t0_ = std::chrono::steady_clock::now(); wallStarted_ = true; }
  void stopWall() {
    t1_ = std::chrono::steady_clock::now();
    wallMs_ = std::chrono::duration<double, std::milli>(t1_ - t0_).count();
    walls_.push_back(wallMs_);
  }
  double wallMs() const { return wallMs_; }

  // Sum of END-START over every kernel event recorded so far.
  double kernelMs() {
    collectEvents();
    return kernelNs_ * 1e-6;
  }

  // ---- verification ------------------------------------------------------

  // Exact comparison (integer outputs).  Prints the first mismatch.
  template <class T>
  bool compareExact(const char* what, const T* got, const T* ref, size_t n) {
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; ++i)
      if (!(got[i] == ref[i])) {
        if (first == n) first = i;
        ++bad;
      }
    if (bad) {
      std::printf("FAIL %s: %zu of %zu mismatch; first at index %zu: got %s expected %s\n", what, bad, n,
                  first, toStr(got[first]).c_str(), toStr(ref[first]).c_str());
      return false;
    }
    return true;
  }

  // Float comparison: element i matches when |got-ref| <= atol + rtol*|ref|
  // (NaN never matches).  Prints the first mismatch.
  template <class T>
  bool compareFloat(const char* what, const T* got, const T* ref, size_t n, double rtol, double atol) {
    size_t bad = 0, first = n;
    double maxErr = 0;
    for (size_t i = 0; i < n; ++i) {
      double g = (double)got[i], r = (double)ref[i];
      double e = std::fabs(g - r);
      if (!(e <= atol + rtol * std::fabs(r))) {
        if (first == n) first = i;
        ++bad;
      }
      if (e > maxErr) maxErr = e;
    }
    if (bad) {
      std::printf("FAIL %s: %zu of %zu mismatch (rtol=%g atol=%g); first at index %zu: got %.9g expected %.9g\n",
                  what, bad, n, rtol, atol, first, (double)got[first], (double)ref[first]);
      return false;
    }
    log("%s: %zu values match (max abs err %.3g, rtol=%g atol=%g)\n", what, n, maxErr, rtol, atol);
    return true;
  }

  // ---- end ---------------------------------------------------------------

  // Prints PASS/FAIL and the RESULT line, releases every tracked CL object,
  // returns the exit code (0 PASS, 1 FAIL).
  int finish(bool pass) {
    if (!wallStarted_) wallMs_ = 0;
    double km = context ? kernelMs() : 0.0;
    releaseAll();
    std::printf("%s\n", pass ? "PASS" : "FAIL");
    printResult(pass ? "PASS" : "FAIL", km, wallMs_);
    std::fflush(stdout);
    return pass ? 0 : 1;
  }

  // Used by clFail(); not normally called by apps.
  // With --repeat above 2, wall_median_ms is the median wall of the repeats after the
  // first (which compiles and warms up), so one process gives a figure that noise moves
  // less than the last repeat's.
  void printResult(const char* status, double kernelMsV, double wallMsV) const {
    std::string median;
    if (walls_.size() > 2) {
      std::vector<double> w(walls_.begin() + 1, walls_.end());
      std::sort(w.begin(), w.end());
      const size_t n = w.size();
      char b[48];
      std::snprintf(b, sizeof b, " wall_median_ms=%.3f", n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2);
      median = b;
    }
    std::printf("RESULT app=%s size=%s device=\"%s\" platform=\"%s\" kernel_ms=%.3f wall_ms=%.3f status=%s%s\n",
                name_.c_str(), size_.empty() ? "small" : size_.c_str(), deviceName_.c_str(),
                platformName_.c_str(), kernelMsV, wallMsV, status, median.c_str());
  }

  // Public handles for apps that call the OpenCL API directly.
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;

 private:
  struct Param {
    std::string flag, help;
    long long* var = nullptr;
    long long preset[3] = {0, 0, 0};
  };

  static std::string toStr(long long v) { return std::to_string(v); }
  static std::string toStr(unsigned long long v) { return std::to_string(v); }
  static std::string toStr(long v) { return std::to_string(v); }
  static std::string toStr(unsigned long v) { return std::to_string(v); }
  static std::string toStr(int v) { return std::to_string(v); }
  static std::string toStr(unsigned v) { return std::to_string(v); }
  static std::string toStr(short v) { return std::to_string(v); }
  static std::string toStr(unsigned short v) { return std::to_string(v); }
  static std::string toStr(signed char v) { return std::to_string(v); }
  static std::string toStr(unsigned char v) { return std::to_string(v); }
  static std::string toStr(char v) { return std::to_string((int)v); }
  static std::string toStr(float v) { return std::to_string(v); }
  static std::string toStr(double v) { return std::to_string(v); }
  template <class T>
  static std::string toStr(const T&) {
    return "<value>";
  }

  long long parseInt(const std::string& key, const std::string& v) const {
    char* end = nullptr;
    errno = 0;
    long long x = std::strtoll(v.c_str(), &end, 0);
    if (v.empty() || *end != '\0' || errno) usageError("bad integer '" + v + "' for --" + key);
    return x;
  }

  void usage(FILE* f) const {
    std::fprintf(f,
                 "usage: %s [--size tiny|small|thesis] [--device N] [--repeat N] [--quiet] [--list]",
                 name_.c_str());
    for (auto& p : params_) std::fprintf(f, " [--%s N]", p.flag.c_str());
    std::fprintf(f, "\n");
    for (auto& p : params_)
      std::fprintf(f, "  --%-12s %s (tiny %lld, small %lld, thesis %lld)\n", p.flag.c_str(), p.help.c_str(),
                   p.preset[0], p.preset[1], p.preset[2]);
  }

  [[noreturn]] void usageError(const std::string& msg) const {
    std::fprintf(stderr, "%s: %s\n", name_.c_str(), msg.c_str());
    usage(stderr);
    std::exit(2);
  }

  void collectEvents() {
    if (events_.empty()) return;
    CHECK(clWaitForEvents((cl_uint)events_.size(), events_.data()));
    eventNames_.resize(events_.size());
    for (size_t i = 0; i < events_.size(); ++i) {
      cl_event ev = events_[i];
      cl_ulong s = 0, e = 0;
      CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(s), &s, nullptr));
      CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(e), &e, nullptr));
      if (e > s) kernelNs_ += (double)(e - s);
      if (eventMs_)
        std::fprintf(stderr, "EVENT kernel=%s kernel_ms=%.4f\n",
                     eventNames_[i].empty() ? "?" : eventNames_[i].c_str(), (double)(e - s) * 1e-6);
      clReleaseEvent(ev);
    }
    events_.clear();
    eventNames_.clear();
  }

  void releaseAll() {
    for (cl_event e : events_) clReleaseEvent(e);
    events_.clear();
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    kernels_.clear();
    for (cl_program p : programs_) clReleaseProgram(p);
    programs_.clear();
    for (cl_mem m : mems_) clReleaseMemObject(m);
    mems_.clear();
    if (queue) clReleaseCommandQueue(queue);
    queue = nullptr;
    if (context) clReleaseContext(context);
    context = nullptr;
  }

  std::string name_, size_, deviceName_, platformName_;
  std::vector<Param> params_;
  int device_ = -1;
  int repeat_ = 1;
  bool eventMs_ = std::getenv("APP_EVENT_MS") && std::string(std::getenv("APP_EVENT_MS")) == "1";
  bool sync_ = std::getenv("APP_SYNC") && std::string(std::getenv("APP_SYNC")) == "1";
  bool quiet_ = false, list_ = false;
  size_t maxWg_ = 1;
  size_t maxItems_[3] = {1, 1, 1};
  cl_ulong localMem_ = 0;
  std::vector<cl_event> events_;
  std::vector<std::string> eventNames_;  // kernel of each event, with APP_EVENT_MS=1
  std::vector<cl_kernel> kernels_;
  std::vector<cl_program> programs_;
  std::vector<cl_mem> mems_;
  double kernelNs_ = 0;
  bool wallStarted_ = false;
  double wallMs_ = 0;
  std::vector<double> walls_;  // every stopWall, in order
  std::chrono::steady_clock::time_point t0_, t1_;
};

[[noreturn]] inline void clFail(const char* call, cl_int err, const char* file, int line) {
  std::fflush(stdout);
  std::fprintf(stderr, "OpenCL error: %s returned %s (%d) at %s:%d\n", call, errorName(err), (int)err, file, line);
  if (App* a = currentApp()) {
    std::printf("FAIL\n");
    a->printResult("ERROR", 0.0, 0.0);
  }
  std::fflush(stdout);
  std::exit(2);
}

}  // namespace app
