// fixture.h - shared helpers for the Tutti OpenCL API test suite.
//
// The suite links only the OpenCL ICD loader and GoogleTest. Under Tutti
// (LD_PRELOAD=libtutti.so) the first platform is "Tutti" with one virtual
// device; natively (e.g. PoCL with two devices) the fixture takes the first
// platform and its first device, and Tutti-specific tests skip themselves.
#ifndef TUTTI_API_FIXTURE_H
#define TUTTI_API_FIXTURE_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#define CL_USE_DEPRECATED_OPENCL_2_1_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>
#include <CL/cl_egl.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

#include "tutti/tutti_ext.h"

namespace api {

// ---------------------------------------------------------------------------
// Error names and assertion helpers
// ---------------------------------------------------------------------------
const char *errName(cl_int err);
std::string errList(std::initializer_list<cl_int> codes);

// Polls p every 2 ms until it holds or `ms` have passed. The bound only ends a wait for
// something broken, so it is generous: under the sanitizers, with the other tests on a
// 2-core VM and a cold PoCL cache (a first launch compiles its work-group function), a
// callback that comes may take seconds; 5 s bounds failed CI runs that passed locally.
template <class Pred>
bool waitFor(Pred p, int ms = 60000) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    if (p()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return p();
}

inline ::testing::AssertionResult clIs(const char * /*expected_expr*/, const char *expr,
                                       cl_int expected, cl_int got) {
  if (expected == got) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << expr << "\n  expected " << errName(expected) << " (" << expected << ")"
         << "\n  got      " << errName(got) << " (" << got << ")";
}

inline ::testing::AssertionResult clIsAny(const char *codes_expr, const char *expr,
                                          std::initializer_list<cl_int> codes, cl_int got) {
  for (cl_int c : codes)
    if (c == got) return ::testing::AssertionSuccess();
  (void)codes_expr;
  return ::testing::AssertionFailure() << expr << "\n  expected one of " << errList(codes)
                                       << "\n  got      " << errName(got) << " (" << got
                                       << ")";
}

// EXPECT_CL(CL_INVALID_VALUE, clFoo(...)) / ASSERT_CL(...)
#define EXPECT_CL(expected, ...) EXPECT_PRED_FORMAT2(::api::clIs, expected, (__VA_ARGS__))
#define ASSERT_CL(expected, ...) ASSERT_PRED_FORMAT2(::api::clIs, expected, (__VA_ARGS__))
#define EXPECT_CL_OK(...) EXPECT_CL(CL_SUCCESS, __VA_ARGS__)
#define ASSERT_CL_OK(...) ASSERT_CL(CL_SUCCESS, __VA_ARGS__)
// EXPECT_CL_ANY(({CL_INVALID_VALUE, CL_INVALID_OPERATION}), clFoo(...))
#define EXPECT_CL_ANY(codes, ...) \
  EXPECT_PRED_FORMAT2(::api::clIsAny, std::initializer_list<cl_int> codes, (__VA_ARGS__))
#define ASSERT_CL_ANY(codes, ...) \
  ASSERT_PRED_FORMAT2(::api::clIsAny, std::initializer_list<cl_int> codes, (__VA_ARGS__))

// ---------------------------------------------------------------------------
// Global environment (platform/device chosen once per process)
// ---------------------------------------------------------------------------
struct Env {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_uint numPlatforms = 0;
  bool tutti = false;
  std::string platformName;
  std::string deviceName;
  cl_device_type deviceType = 0;
};
const Env &env();
inline bool isTutti() { return env().tutti; }
// ctest runs the suite under LD_PRELOAD=libtutti.so with TUTTI_API_EXPECT_TUTTI=1: there a
// native platform means the preload failed, which must fail tests, not skip them.
bool expectTutti();

// Tests that check behaviour only Tutti guarantees (one device, counters,
// container binaries, exact error codes the native PoCL gets wrong or
// crashes on) skip themselves when the platform is not Tutti, unless Tutti was expected.
#define TUTTI_ONLY()                                                                   \
  do {                                                                                 \
    if (!::api::isTutti()) {                                                           \
      if (::api::expectTutti())                                                        \
        GTEST_FAIL() << "TUTTI_API_EXPECT_TUTTI=1 but the platform is '"               \
                     << ::api::env().platformName << "': the preload of libtutti failed"; \
      GTEST_SKIP() << "Tutti-specific: platform is '" << ::api::env().platformName << "'"; \
    }                                                                                  \
  } while (0)

// Typed info queries.
template <class T>
T deviceInfo(cl_device_id d, cl_device_info p) {
  T v{};
  clGetDeviceInfo(d, p, sizeof(T), &v, nullptr);
  return v;
}
std::string deviceString(cl_device_id d, cl_device_info p);
std::string platformString(cl_platform_id pl, cl_platform_info p);
std::string programBuildLog(cl_program prog, cl_device_id d);

// Environment variable access (empty when unset).
std::string getEnv(const char *name);

// Extension function lookup (NULL when not Tutti).
template <class Fn>
Fn tuttiFn(const char *name) {
  return reinterpret_cast<Fn>(clGetExtensionFunctionAddressForPlatform(env().platform, name));
}

// A stack/heap object full of garbage bytes, used as a "never created"
// handle of any type. Its first word is not a valid dispatch pointer either.
struct Garbage {
  alignas(16) unsigned char bytes[512];
  Garbage() {
    for (size_t i = 0; i < sizeof(bytes); ++i) bytes[i] = static_cast<unsigned char>(0xA5 ^ (i * 37));
  }
  template <class T>
  T as() {
    return reinterpret_cast<T>(static_cast<void *>(bytes));
  }
};

// ---------------------------------------------------------------------------
// Kernel sources shared by several families
// ---------------------------------------------------------------------------
extern const char *kCommonSource;  // kernels: add_one, copy_buf, fill_val, scale, local_sum,
                                   // sum_args, wg_fixed (reqd 4,1,1), write_gid, task_kernel

// ---------------------------------------------------------------------------
// Base fixture: context + in-order queue on the chosen device.
// Objects created through the helpers are released in TearDown.
// ---------------------------------------------------------------------------
class ClTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;

  // Creation helpers (ASSERT on failure inside; check HasFatalFailure()).
  cl_context makeContext();
  cl_command_queue makeQueue(cl_command_queue_properties props = 0, cl_context c = nullptr);
  cl_mem makeBuffer(size_t size, cl_mem_flags flags = CL_MEM_READ_WRITE, void *host = nullptr,
                    cl_context c = nullptr);
  cl_program makeProgram(const char *src, const char *options = nullptr, cl_context c = nullptr);
  cl_kernel makeKernel(cl_program prog, const char *name);
  cl_kernel commonKernel(const char *name, const char *options = nullptr);
  cl_event makeUserEvent(cl_context c = nullptr);

  // Register an arbitrary object for release at TearDown.
  void track(cl_mem m) { mems_.push_back(m); }
  void track(cl_kernel k) { kernels_.push_back(k); }
  void track(cl_program p) { programs_.push_back(p); }
  void track(cl_event e) { events_.push_back(e); }
  void track(cl_command_queue q) { queues_.push_back(q); }
  void track(cl_context c) { contexts_.push_back(c); }
  void track(cl_sampler s) { samplers_.push_back(s); }

  // Host memory for CL_MEM_USE_HOST_PTR objects: it must stay valid for the whole
  // life of the memory object, so it is freed only after TearDown released everything.
  void *hostAlloc(size_t bytes, size_t align = 4096);

  // Run kernel with 1-D range, blocking until done.
  cl_int run1D(cl_kernel k, size_t global, size_t local = 0, cl_command_queue q = nullptr);

  std::vector<cl_mem> mems_;
  std::vector<cl_kernel> kernels_;
  std::vector<cl_program> programs_;
  std::vector<cl_event> events_;
  std::vector<cl_command_queue> queues_;
  std::vector<cl_context> contexts_;
  std::vector<cl_sampler> samplers_;
  cl_program common_ = nullptr;
  std::vector<void *> hostBlocks_;
};

}  // namespace api

#endif  // TUTTI_API_FIXTURE_H
