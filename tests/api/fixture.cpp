// fixture.cpp - shared helpers for the Tutti OpenCL API test suite.
#include "fixture.h"

#include <cstdlib>
#include <mutex>
#include <sstream>

namespace api {

const char *errName(cl_int err) {
  switch (err) {
#define E(x) \
  case x:    \
    return #x;
    E(CL_SUCCESS)
    E(CL_DEVICE_NOT_FOUND)
    E(CL_DEVICE_NOT_AVAILABLE)
    E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    E(CL_OUT_OF_RESOURCES)
    E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE)
    E(CL_MEM_COPY_OVERLAP)
    E(CL_IMAGE_FORMAT_MISMATCH)
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    E(CL_BUILD_PROGRAM_FAILURE)
    E(CL_MAP_FAILURE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE)
    E(CL_LINKER_NOT_AVAILABLE)
    E(CL_LINK_PROGRAM_FAILURE)
    E(CL_DEVICE_PARTITION_FAILED)
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    E(CL_INVALID_VALUE)
    E(CL_INVALID_DEVICE_TYPE)
    E(CL_INVALID_PLATFORM)
    E(CL_INVALID_DEVICE)
    E(CL_INVALID_CONTEXT)
    E(CL_INVALID_QUEUE_PROPERTIES)
    E(CL_INVALID_COMMAND_QUEUE)
    E(CL_INVALID_HOST_PTR)
    E(CL_INVALID_MEM_OBJECT)
    E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    E(CL_INVALID_IMAGE_SIZE)
    E(CL_INVALID_SAMPLER)
    E(CL_INVALID_BINARY)
    E(CL_INVALID_BUILD_OPTIONS)
    E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE)
    E(CL_INVALID_KERNEL_NAME)
    E(CL_INVALID_KERNEL_DEFINITION)
    E(CL_INVALID_KERNEL)
    E(CL_INVALID_ARG_INDEX)
    E(CL_INVALID_ARG_VALUE)
    E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS)
    E(CL_INVALID_WORK_DIMENSION)
    E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE)
    E(CL_INVALID_GLOBAL_OFFSET)
    E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT)
    E(CL_INVALID_OPERATION)
    E(CL_INVALID_GL_OBJECT)
    E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_MIP_LEVEL)
    E(CL_INVALID_GLOBAL_WORK_SIZE)
    E(CL_INVALID_PROPERTY)
    E(CL_INVALID_IMAGE_DESCRIPTOR)
    E(CL_INVALID_COMPILER_OPTIONS)
    E(CL_INVALID_LINKER_OPTIONS)
    E(CL_INVALID_DEVICE_PARTITION_COUNT)
    E(CL_INVALID_PIPE_SIZE)
    E(CL_INVALID_DEVICE_QUEUE)
    E(CL_INVALID_SPEC_ID)
    E(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
    E(CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR)
    E(CL_PLATFORM_NOT_FOUND_KHR)
    E(CL_INVALID_EGL_OBJECT_KHR)
#undef E
    default:
      return "<unknown error>";
  }
}

std::string errList(std::initializer_list<cl_int> codes) {
  std::ostringstream os;
  os << "{";
  bool first = true;
  for (cl_int c : codes) {
    os << (first ? "" : ", ") << errName(c) << " (" << c << ")";
    first = false;
  }
  os << "}";
  return os.str();
}

std::string getEnv(const char *name) {
  const char *v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string deviceString(cl_device_id d, cl_device_info p) {
  size_t n = 0;
  if (clGetDeviceInfo(d, p, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, p, n, &s[0], nullptr) != CL_SUCCESS) return {};
  s.resize(strnlen(s.c_str(), n));
  return s;
}

std::string platformString(cl_platform_id pl, cl_platform_info p) {
  size_t n = 0;
  if (clGetPlatformInfo(pl, p, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (clGetPlatformInfo(pl, p, n, &s[0], nullptr) != CL_SUCCESS) return {};
  s.resize(strnlen(s.c_str(), n));
  return s;
}

std::string programBuildLog(cl_program prog, cl_device_id d) {
  size_t n = 0;
  if (clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS || !n)
    return {};
  std::string s(n, '\0');
  clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, n, &s[0], nullptr);
  s.resize(strnlen(s.c_str(), n));
  return s;
}

bool expectTutti() { return getEnv("TUTTI_API_EXPECT_TUTTI") == "1"; }

const Env &env() {
  static Env e;
  static std::once_flag once;
  std::call_once(once, [] {
    cl_uint n = 0;
    if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) return;
    std::vector<cl_platform_id> ps(n);
    clGetPlatformIDs(n, ps.data(), nullptr);
    e.numPlatforms = n;
    e.platform = ps[0];
    e.platformName = platformString(e.platform, CL_PLATFORM_NAME);
    e.tutti = e.platformName.rfind("Tutti", 0) == 0;
    cl_uint nd = 0;
    if (clGetDeviceIDs(e.platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || !nd)
      return;
    std::vector<cl_device_id> ds(nd);
    clGetDeviceIDs(e.platform, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
    e.device = ds[0];
    e.deviceName = deviceString(e.device, CL_DEVICE_NAME);
    e.deviceType = deviceInfo<cl_device_type>(e.device, CL_DEVICE_TYPE);
  });
  return e;
}

const char *kCommonSource = R"CLC(
__kernel void add_one(__global int *a) {
  size_t i = get_global_id(0);
  a[i] = a[i] + 1;
}
__kernel void copy_buf(__global const int *src, __global int *dst) {
  size_t i = get_global_id(0);
  dst[i] = src[i];
}
__kernel void fill_val(__global int *a, int v) {
  a[get_global_id(0)] = v;
}
__kernel void scale(__global float *a, float f) {
  size_t i = get_global_id(0);
  a[i] = a[i] * f;
}
__kernel void local_sum(__global const int *in, __global int *out, __local int *tmp) {
  size_t l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    int s = 0;
    for (size_t j = 0; j < get_local_size(0); ++j) s += tmp[j];
    out[get_group_id(0)] = s;
  }
}
__kernel void sum_args(__global long *out, char c, short s, int i, long l, float f, int4 v) {
  out[0] = (long)c + (long)s + (long)i + l + (long)f + (long)(v.x + v.y + v.z + v.w);
}
__kernel __attribute__((reqd_work_group_size(4, 1, 1))) void wg_fixed(__global int *a) {
  a[get_global_id(0)] = (int)get_local_size(0);
}
__kernel void write_gid(__global int *a) {
  size_t i = get_global_id(0);
  a[i] = (int)i;
}
__kernel void write_lin(__global int *a) {
  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  size_t idx = (z * get_global_size(1) + y) * get_global_size(0) + x;
  a[idx] = (int)(idx + 1);
}
__kernel void wg_info(__global int *a) {
  size_t i = get_global_id(0);
  a[2 * i] = (int)get_local_size(0);
  a[2 * i + 1] = (int)get_num_groups(0);
}
__kernel void task_kernel(__global int *a) {
  a[0] = 42;
}
__kernel void add_arrays(__global const int *a, __global const int *b, __global int *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
__kernel void spin(__global int *a, int n) {
  int acc = a[get_global_id(0)];
  for (int k = 0; k < n; ++k) acc = acc * 1103515245 + 12345;
  a[get_global_id(0)] = acc;
}
)CLC";

// ---------------------------------------------------------------------------
// ClTest
// ---------------------------------------------------------------------------
void ClTest::SetUp() {
  const Env &e = env();
  ASSERT_NE(e.platform, nullptr) << "no OpenCL platform";
  ASSERT_NE(e.device, nullptr) << "no OpenCL device";
  platform = e.platform;
  device = e.device;
  cl_int err = CL_SUCCESS;
  ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_NE(ctx, nullptr);
  queue = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_NE(queue, nullptr);
}

void ClTest::TearDown() {
  if (queue) clFinish(queue);
  for (cl_command_queue q : queues_)
    if (q) clFinish(q);
  for (cl_event e : events_)
    if (e) clReleaseEvent(e);
  for (cl_kernel k : kernels_)
    if (k) clReleaseKernel(k);
  for (cl_program p : programs_)
    if (p) clReleaseProgram(p);
  for (cl_sampler s : samplers_)
    if (s) clReleaseSampler(s);
  for (cl_mem m : mems_)
    if (m) clReleaseMemObject(m);
  for (cl_command_queue q : queues_)
    if (q) clReleaseCommandQueue(q);
  if (queue) clReleaseCommandQueue(queue);
  for (cl_context c : contexts_)
    if (c) clReleaseContext(c);
  if (ctx) clReleaseContext(ctx);
  queue = nullptr;
  ctx = nullptr;
  for (void *p : hostBlocks_) std::free(p);
  hostBlocks_.clear();
}

void *ClTest::hostAlloc(size_t bytes, size_t align) {
  size_t rounded = ((bytes + align - 1) / align) * align;
  void *p = std::aligned_alloc(align, rounded ? rounded : align);
  if (p) {
    std::memset(p, 0, rounded ? rounded : align);
    hostBlocks_.push_back(p);
  }
  return p;
}

cl_context ClTest::makeContext() {
  cl_int err = CL_SUCCESS;
  cl_context c = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  EXPECT_CL_OK(err);
  if (c) contexts_.push_back(c);
  return c;
}

cl_command_queue ClTest::makeQueue(cl_command_queue_properties props, cl_context c) {
  cl_int err = CL_SUCCESS;
  cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, props, 0};
  cl_command_queue q =
      clCreateCommandQueueWithProperties(c ? c : ctx, device, props ? qp : nullptr, &err);
  EXPECT_CL_OK(err);
  if (q) queues_.push_back(q);
  return q;
}

cl_mem ClTest::makeBuffer(size_t size, cl_mem_flags flags, void *host, cl_context c) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(c ? c : ctx, flags, size, host, &err);
  EXPECT_CL_OK(err);
  if (m) mems_.push_back(m);
  return m;
}

cl_program ClTest::makeProgram(const char *src, const char *options, cl_context c) {
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(c ? c : ctx, 1, &src, nullptr, &err);
  EXPECT_CL_OK(err);
  if (!p) return nullptr;
  programs_.push_back(p);
  err = clBuildProgram(p, 0, nullptr, options, nullptr, nullptr);
  EXPECT_CL_OK(err) << "build log:\n" << programBuildLog(p, device);
  return err == CL_SUCCESS ? p : nullptr;
}

cl_kernel ClTest::makeKernel(cl_program prog, const char *name) {
  if (!prog) return nullptr;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(prog, name, &err);
  EXPECT_CL_OK(err) << "kernel " << name;
  if (k) kernels_.push_back(k);
  return k;
}

cl_kernel ClTest::commonKernel(const char *name, const char *options) {
  if (options) return makeKernel(makeProgram(kCommonSource, options), name);
  if (!common_) common_ = makeProgram(kCommonSource, nullptr);
  return makeKernel(common_, name);
}

cl_event ClTest::makeUserEvent(cl_context c) {
  cl_int err = CL_SUCCESS;
  cl_event e = clCreateUserEvent(c ? c : ctx, &err);
  EXPECT_CL_OK(err);
  if (e) events_.push_back(e);
  return e;
}

cl_int ClTest::run1D(cl_kernel k, size_t global, size_t local, cl_command_queue q) {
  cl_command_queue qq = q ? q : queue;
  cl_int err = clEnqueueNDRangeKernel(qq, k, 1, nullptr, &global, local ? &local : nullptr, 0,
                                      nullptr, nullptr);
  if (err != CL_SUCCESS) return err;
  return clFinish(qq);
}

}  // namespace api
