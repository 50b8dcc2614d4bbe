// test_enqueue.cpp - enqueue commands: NDRange validation, read/write/copy (+rect),
// fill, map/unmap, migrate, markers, barriers, task, native kernels, wait lists.
#include "fixture.h"

#include <numeric>

using namespace api;

namespace {

class Enqueue : public ClTest {
 protected:
  std::vector<int> readInts(cl_mem m, size_t n, size_t offsetInts = 0) {
    std::vector<int> out(n, -777);
    EXPECT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, offsetInts * sizeof(int), n * sizeof(int),
                                     out.data(), 0, nullptr, nullptr));
    return out;
  }
  cl_mem intBuffer(const std::vector<int> &v, cl_mem_flags extra = CL_MEM_READ_WRITE) {
    return makeBuffer(v.size() * sizeof(int), extra | CL_MEM_COPY_HOST_PTR,
                      const_cast<int *>(v.data()));
  }
  std::vector<int> iota(size_t n, int start = 0) {
    std::vector<int> v(n);
    std::iota(v.begin(), v.end(), start);
    return v;
  }
  bool deviceIs21OrNewer() {
    cl_version v = deviceInfo<cl_version>(device, CL_DEVICE_NUMERIC_VERSION);
    return CL_VERSION_MAJOR(v) > 2 || (CL_VERSION_MAJOR(v) == 2 && CL_VERSION_MINOR(v) >= 1);
  }
};

}  // namespace

// ---------------------------------------------------------------------------
// NDRange
// ---------------------------------------------------------------------------
TEST_F(Enqueue, NDRange1D2D3DResults) {
  cl_kernel k = commonKernel("write_lin");
  ASSERT_NE(k, nullptr);
  const size_t shapes[3][3] = {{1000, 1, 1}, {40, 25, 1}, {10, 8, 6}};
  for (cl_uint dim = 1; dim <= 3; ++dim) {
    SCOPED_TRACE(dim);
    const size_t *g = shapes[dim - 1];
    size_t n = g[0] * g[1] * g[2];
    cl_mem m = makeBuffer(n * sizeof(int));
    ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
    ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, dim, nullptr, g, nullptr, 0, nullptr, nullptr));
    auto out = readInts(m, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], (int)i + 1) << i;
  }
}

TEST_F(Enqueue, NDRangeWithLocalSizeAndOffset) {
  cl_kernel k = commonKernel("write_gid");
  ASSERT_NE(k, nullptr);
  std::vector<int> init(128, -1);
  cl_mem m = intBuffer(init);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t off = 32, g = 64, l = 16;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, &off, &g, &l, 0, nullptr, nullptr));
  auto out = readInts(m, 128);
  for (size_t i = 0; i < 128; ++i) ASSERT_EQ(out[i], (i >= 32 && i < 96) ? (int)i : -1) << i;
}

TEST_F(Enqueue, NDRangeWorkDimension) {
  cl_kernel k = commonKernel("write_gid");
  cl_mem m = makeBuffer(1024);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t g[4] = {4, 1, 1, 1};
  EXPECT_CL(CL_INVALID_WORK_DIMENSION,
            clEnqueueNDRangeKernel(queue, k, 0, nullptr, g, nullptr, 0, nullptr, nullptr));
  cl_uint maxDims = deviceInfo<cl_uint>(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  EXPECT_CL(CL_INVALID_WORK_DIMENSION,
            clEnqueueNDRangeKernel(queue, k, maxDims + 1, nullptr, g, nullptr, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_WORK_DIMENSION,
            clEnqueueNDRangeKernel(queue, k, 4, nullptr, g, nullptr, 0, nullptr, nullptr));
}

// Found by tests/fuzz/fuzz_api: 2^62 work-items in groups of one made PoCL's pthread device
// abort the process (natively too). Tutti refuses what no backing driver can launch.
TEST_F(Enqueue, NDRangeGlobalSizeNoDriverCanLaunchIsRefused) {
  TUTTI_ONLY();
  cl_kernel k = commonKernel("write_gid");
  cl_mem m = makeBuffer(1024);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t one = 1, huge = size_t(1) << 62, big = (size_t(1) << 32) + 64, l = 64;
  EXPECT_CL(CL_INVALID_GLOBAL_WORK_SIZE,
            clEnqueueNDRangeKernel(queue, k, 1, nullptr, &huge, &one, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_GLOBAL_WORK_SIZE,
            clEnqueueNDRangeKernel(queue, k, 1, nullptr, &huge, nullptr, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_GLOBAL_WORK_SIZE,
            clEnqueueNDRangeKernel(queue, k, 1, nullptr, &big, &l, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
}

// Found by tests/fuzz/fuzz_api: a kernel whose buffer argument the app released for good
// before the launch read freed memory in Tutti. It is refused instead.
TEST_F(Enqueue, NDRangeWithReleasedBufferArgumentIsRefused) {
  TUTTI_ONLY();
  cl_kernel k = commonKernel("write_gid");
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1024, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  ASSERT_CL_OK(clReleaseMemObject(m));
  size_t g = 4;
  EXPECT_CL(CL_INVALID_KERNEL_ARGS, clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
}

TEST_F(Enqueue, NDRangeNullOrZeroGlobalSize) {
  // OpenCL >= 2.1 devices: a NULL global size or a 0 in any dimension is a
  // trivially successful no-op command (the old CL_INVALID_GLOBAL_WORK_SIZE
  // return is deprecated by 2.1).
  cl_kernel k = commonKernel("fill_val");
  std::vector<int> init(16, 3);
  cl_mem m = intBuffer(init);
  int v = 99;
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof v, &v));
  cl_event e1 = nullptr, e2 = nullptr;
  size_t zero[2] = {16, 0};
  cl_int r1 = clEnqueueNDRangeKernel(queue, k, 1, nullptr, nullptr, nullptr, 0, nullptr, &e1);
  cl_int r2 = clEnqueueNDRangeKernel(queue, k, 2, nullptr, zero, nullptr, 0, nullptr, &e2);
  if (e1) track(e1);
  if (e2) track(e2);
  if (deviceIs21OrNewer()) {
    EXPECT_CL_OK(r1);
    EXPECT_CL_OK(r2);
    if (e1) EXPECT_CL_OK(clWaitForEvents(1, &e1));
    if (e2) EXPECT_CL_OK(clWaitForEvents(1, &e2));
  } else {
    EXPECT_CL(CL_INVALID_GLOBAL_WORK_SIZE, r1);
    EXPECT_CL(CL_INVALID_GLOBAL_WORK_SIZE, r2);
  }
  EXPECT_EQ(readInts(m, 16), init) << "a no-op launch must not run the kernel";
}

TEST_F(Enqueue, NDRangeNonUniformRejectedForCL12) {
  cl_kernel k = commonKernel("wg_info", "-cl-std=CL1.2");
  ASSERT_NE(k, nullptr);
  cl_mem m = makeBuffer(64 * sizeof(int));
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t g = 10, l = 4;
  EXPECT_CL(CL_INVALID_WORK_GROUP_SIZE,
            clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, &l, 0, nullptr, nullptr));
  size_t g2[2] = {8, 6}, l2[2] = {4, 4};
  EXPECT_CL(CL_INVALID_WORK_GROUP_SIZE,
            clEnqueueNDRangeKernel(queue, k, 2, nullptr, g2, l2, 0, nullptr, nullptr));
  // Dividing sizes are fine.
  size_t g3 = 12;
  EXPECT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g3, &l, 0, nullptr, nullptr));
  auto out = readInts(m, 24);
  for (size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(out[2 * i], 4);
    EXPECT_EQ(out[2 * i + 1], 3);
  }
}

TEST_F(Enqueue, NDRangeNonUniformForCL30) {
  bool nonUniform = deviceInfo<cl_bool>(device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT);
  size_t sz = 0;
  ASSERT_CL_OK(clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, nullptr, &sz));
  std::vector<cl_name_version> cv(sz / sizeof(cl_name_version));
  ASSERT_CL_OK(clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, sz, cv.data(), nullptr));
  bool has30 = false;
  for (auto &v : cv) has30 |= CL_VERSION_MAJOR(v.version) == 3;
  if (!has30) GTEST_SKIP() << "no OpenCL C 3.0";
  cl_kernel k = commonKernel("wg_info", "-cl-std=CL3.0");
  ASSERT_NE(k, nullptr);
  cl_mem m = makeBuffer(64 * sizeof(int));
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t g = 10, l = 4;
  cl_int err = clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  if (!nonUniform) {
    EXPECT_CL(CL_INVALID_WORK_GROUP_SIZE, err);
    return;
  }
  ASSERT_CL_OK(err);
  auto out = readInts(m, 20);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(out[2 * i], i < 8 ? 4 : 2) << i;
    EXPECT_EQ(out[2 * i + 1], 3) << i;
  }
  // -cl-uniform-work-group-size brings the 1.2 rule back.
  cl_kernel u = commonKernel("wg_info", "-cl-std=CL3.0 -cl-uniform-work-group-size");
  ASSERT_CL_OK(clSetKernelArg(u, 0, sizeof m, &m));
  EXPECT_CL(CL_INVALID_WORK_GROUP_SIZE,
            clEnqueueNDRangeKernel(queue, u, 1, nullptr, &g, &l, 0, nullptr, nullptr));
}

TEST_F(Enqueue, NDRangeLocalSizeTooLarge) {
  cl_kernel k = commonKernel("write_gid");
  size_t kwg = 0;
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg,
                                        nullptr));
  size_t items[3];
  ASSERT_CL_OK(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, nullptr));
  cl_mem m = makeBuffer(4 * (kwg + 1) * 4);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  // Product of local sizes above CL_KERNEL_WORK_GROUP_SIZE (each dimension within limits).
  size_t l2[2] = {std::min(items[0], kwg), 0};
  l2[1] = kwg / l2[0] + 1;
  if (l2[1] <= items[1]) {
    size_t g2[2] = {l2[0], l2[1]};
    EXPECT_CL(CL_INVALID_WORK_GROUP_SIZE,
              clEnqueueNDRangeKernel(queue, k, 2, nullptr, g2, l2, 0, nullptr, nullptr));
  }
  // One dimension above CL_DEVICE_MAX_WORK_ITEM_SIZES.
  size_t l3[3] = {1, 1, items[2] + 1};
  size_t g3[3] = {1, 1, items[2] + 1};
  EXPECT_CL_ANY(({CL_INVALID_WORK_ITEM_SIZE, CL_INVALID_WORK_GROUP_SIZE}),
                clEnqueueNDRangeKernel(queue, k, 3, nullptr, g3, l3, 0, nullptr, nullptr));
  if (items[2] < kwg) {
    EXPECT_CL(CL_INVALID_WORK_ITEM_SIZE,
              clEnqueueNDRangeKernel(queue, k, 3, nullptr, g3, l3, 0, nullptr, nullptr));
  }
}

TEST_F(Enqueue, NDRangeRequiredWorkGroupSize) {
  cl_kernel k = commonKernel("wg_fixed");  // reqd_work_group_size(4,1,1)
  ASSERT_NE(k, nullptr);
  cl_mem m = makeBuffer(16 * sizeof(int));
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t g = 16, l8 = 8, l4 = 4;
  EXPECT_CL(CL_INVALID_WORK_GROUP_SIZE,
            clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, &l8, 0, nullptr, nullptr));
  EXPECT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, &l4, 0, nullptr, nullptr));
  EXPECT_EQ(readInts(m, 16), std::vector<int>(16, 4));
  // OpenCL >= 2.0: a NULL local size with reqd_work_group_size is fine (the 1.x
  // CL_INVALID_WORK_GROUP_SIZE for that case is gone); PoCL 3.1 still rejects it.
  if (!isTutti()) return;
  std::vector<int> zeros(16, 0);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 64, zeros.data(), 0, nullptr, nullptr));
  EXPECT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(readInts(m, 16), std::vector<int>(16, 4));
}

TEST_F(Enqueue, NDRangeArgsNotSet) {
  cl_kernel k = commonKernel("copy_buf");
  ASSERT_NE(k, nullptr);
  size_t g = 4;
  EXPECT_CL(CL_INVALID_KERNEL_ARGS,
            clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
  cl_mem m = makeBuffer(64);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  EXPECT_CL(CL_INVALID_KERNEL_ARGS,
            clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_KERNEL_ARGS, clEnqueueTask(queue, k, 0, nullptr, nullptr));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof m, &m));
  EXPECT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
}

TEST_F(Enqueue, NDRangeContextMismatch) {
  cl_context other = makeContext();
  cl_command_queue oq = makeQueue(0, other);
  cl_kernel k = commonKernel("write_gid");
  cl_mem m = makeBuffer(64);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t g = 4;
  EXPECT_CL(CL_INVALID_CONTEXT,
            clEnqueueNDRangeKernel(oq, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
}

TEST_F(Enqueue, NDRangeGlobalOffsetOverflow) {
  TUTTI_ONLY();
  cl_kernel k = commonKernel("write_gid");
  cl_mem m = makeBuffer(64);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t off = SIZE_MAX - 1, g = 4;
  EXPECT_CL(CL_INVALID_GLOBAL_OFFSET,
            clEnqueueNDRangeKernel(queue, k, 1, &off, &g, nullptr, 0, nullptr, nullptr));
}

TEST_F(Enqueue, TaskRuns) {
  cl_kernel k = commonKernel("task_kernel");
  cl_mem m = makeBuffer(16);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  cl_event ev;
  ASSERT_CL_OK(clEnqueueTask(queue, k, 0, nullptr, &ev));
  track(ev);
  ASSERT_CL_OK(clWaitForEvents(1, &ev));
  cl_command_type t = 0;
  ASSERT_CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof t, &t, nullptr));
  if (isTutti()) EXPECT_EQ(t, (cl_command_type)CL_COMMAND_TASK);  // PoCL says NDRANGE_KERNEL
  EXPECT_EQ(readInts(m, 1)[0], 42);
}

namespace {
// The args block holds a cl_mem handle that the implementation replaces with a
// pointer to the buffer's global memory before calling the function.
struct NativeArgs {
  void *data;  // cl_mem on enqueue, int * when the function runs
  int n;
};
void CL_CALLBACK nativeFn(void *args) {
  auto *a = static_cast<NativeArgs *>(args);
  int *p = static_cast<int *>(a->data);
  for (int i = 0; i < a->n; ++i) p[i] *= 2;
}
}  // namespace

TEST_F(Enqueue, NativeKernel) {
  cl_device_exec_capabilities caps =
      deviceInfo<cl_device_exec_capabilities>(device, CL_DEVICE_EXECUTION_CAPABILITIES);
  std::vector<int> init = iota(8, 1);
  cl_mem m = intBuffer(init);
  NativeArgs args{m, 8};
  const void *locs[] = {&args.data};
  cl_int err = clEnqueueNativeKernel(queue, nativeFn, &args, sizeof args, 1, &m, locs, 0, nullptr,
                                     nullptr);
  if (!(caps & CL_EXEC_NATIVE_KERNEL)) {
    EXPECT_CL(CL_INVALID_OPERATION, err);
    return;
  }
  ASSERT_CL_OK(err);
  auto out = readInts(m, 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], 2 * (i + 1));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueNativeKernel(queue, nullptr, &args, sizeof args, 0, nullptr,
                                                    nullptr, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueNativeKernel(queue, nativeFn, nullptr, sizeof args, 0,
                                                    nullptr, nullptr, 0, nullptr, nullptr));
}

// ---------------------------------------------------------------------------
// Wait-list validation, shared by every enqueue entry point
// ---------------------------------------------------------------------------
TEST_F(Enqueue, WaitListValidationAllCommands) {
  TUTTI_ONLY();  // PoCL 3.1 crashes on NULL wait-list entries
  cl_mem a = makeBuffer(256), b = makeBuffer(256);
  cl_kernel k = commonKernel("write_gid");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof a, &a));
  cl_context other = makeContext();
  cl_event foreign = makeUserEvent(other);
  cl_event good = makeUserEvent();
  ASSERT_CL_OK(clSetUserEventStatus(good, CL_COMPLETE));
  char host[256];
  int pat = 0;
  size_t g = 4;
  size_t o3[3] = {0, 0, 0}, r3[3] = {16, 1, 1};

  // Each command under test, parameterised by its wait list.
  using Cmd = std::function<cl_int(cl_uint, const cl_event *)>;
  struct Named {
    const char *name;
    Cmd fn;
  };
  std::vector<Named> cmds = {
      {"NDRange", [&](cl_uint n, const cl_event *l) {
         return clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, nullptr, n, l, nullptr);
       }},
      {"Task", [&](cl_uint n, const cl_event *l) {
         cl_kernel t = commonKernel("task_kernel");
         clSetKernelArg(t, 0, sizeof a, &a);
         return clEnqueueTask(queue, t, n, l, nullptr);
       }},
      {"Read", [&](cl_uint n, const cl_event *l) {
         return clEnqueueReadBuffer(queue, a, CL_TRUE, 0, 16, host, n, l, nullptr);
       }},
      {"Write", [&](cl_uint n, const cl_event *l) {
         return clEnqueueWriteBuffer(queue, a, CL_TRUE, 0, 16, host, n, l, nullptr);
       }},
      {"ReadRect", [&](cl_uint n, const cl_event *l) {
         return clEnqueueReadBufferRect(queue, a, CL_TRUE, o3, o3, r3, 0, 0, 0, 0, host, n, l,
                                        nullptr);
       }},
      {"WriteRect", [&](cl_uint n, const cl_event *l) {
         return clEnqueueWriteBufferRect(queue, a, CL_TRUE, o3, o3, r3, 0, 0, 0, 0, host, n, l,
                                         nullptr);
       }},
      {"Copy", [&](cl_uint n, const cl_event *l) {
         return clEnqueueCopyBuffer(queue, a, b, 0, 0, 16, n, l, nullptr);
       }},
      {"CopyRect", [&](cl_uint n, const cl_event *l) {
         return clEnqueueCopyBufferRect(queue, a, b, o3, o3, r3, 0, 0, 0, 0, n, l, nullptr);
       }},
      {"Fill", [&](cl_uint n, const cl_event *l) {
         return clEnqueueFillBuffer(queue, a, &pat, sizeof pat, 0, 16, n, l, nullptr);
       }},
      {"Map", [&](cl_uint n, const cl_event *l) {
         cl_int err = CL_SUCCESS;
         void *p = clEnqueueMapBuffer(queue, a, CL_TRUE, CL_MAP_READ, 0, 16, n, l, nullptr, &err);
         if (p) {
           clEnqueueUnmapMemObject(queue, a, p, 0, nullptr, nullptr);
           clFinish(queue);
         }
         return err;
       }},
      {"Unmap", [&](cl_uint n, const cl_event *l) {
         cl_int err = CL_SUCCESS;
         void *p = clEnqueueMapBuffer(queue, a, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr,
                                      &err);
         if (!p) return err;
         cl_int r = clEnqueueUnmapMemObject(queue, a, p, n, l, nullptr);
         if (r != CL_SUCCESS) clEnqueueUnmapMemObject(queue, a, p, 0, nullptr, nullptr);
         clFinish(queue);
         return r;
       }},
      {"Migrate", [&](cl_uint n, const cl_event *l) {
         return clEnqueueMigrateMemObjects(queue, 1, &a, 0, n, l, nullptr);
       }},
      {"Marker", [&](cl_uint n, const cl_event *l) {
         cl_event e = nullptr;
         cl_int r = clEnqueueMarkerWithWaitList(queue, n, l, &e);
         if (e) clReleaseEvent(e);
         return r;
       }},
      {"Barrier", [&](cl_uint n, const cl_event *l) {
         return clEnqueueBarrierWithWaitList(queue, n, l, nullptr);
       }},
  };
  for (auto &c : cmds) {
    SCOPED_TRACE(c.name);
    EXPECT_CL(CL_INVALID_EVENT_WAIT_LIST, c.fn(1, nullptr));
    EXPECT_CL(CL_INVALID_EVENT_WAIT_LIST, c.fn(0, &good));
    cl_event withNull[2] = {good, nullptr};
    EXPECT_CL(CL_INVALID_EVENT_WAIT_LIST, c.fn(2, withNull));
    EXPECT_CL(CL_INVALID_CONTEXT, c.fn(1, &foreign));
    EXPECT_CL_OK(c.fn(1, &good));
    ASSERT_CL_OK(clFinish(queue));
  }
  ASSERT_CL_OK(clSetUserEventStatus(foreign, CL_COMPLETE));
}

TEST_F(Enqueue, WaitListGarbageEvent) {
  TUTTI_ONLY();
  cl_mem a = makeBuffer(64);
  char host[64];
  Garbage g;
  cl_event bad = g.as<cl_event>();
  EXPECT_CL(CL_INVALID_EVENT_WAIT_LIST,
            clEnqueueReadBuffer(queue, a, CL_TRUE, 0, 16, host, 1, &bad, nullptr));
  EXPECT_CL(CL_INVALID_EVENT_WAIT_LIST, clEnqueueMarkerWithWaitList(queue, 1, &bad, nullptr));
}

// ---------------------------------------------------------------------------
// Read / write
// ---------------------------------------------------------------------------
TEST_F(Enqueue, ReadWriteOffsetsAndNonBlocking) {
  cl_mem m = makeBuffer(1024 * sizeof(int));
  std::vector<int> src = iota(1024);
  cl_event w;
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_FALSE, 0, 4096, src.data(), 0, nullptr, &w));
  track(w);
  std::vector<int> part(100, 0);
  cl_event r;
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_FALSE, 400 * sizeof(int), 100 * sizeof(int),
                                   part.data(), 1, &w, &r));
  track(r);
  ASSERT_CL_OK(clWaitForEvents(1, &r));
  for (int i = 0; i < 100; ++i) ASSERT_EQ(part[i], 400 + i);
  std::vector<int> patch(10, -5);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 1000 * sizeof(int), 10 * sizeof(int),
                                    patch.data(), 0, nullptr, nullptr));
  auto all = readInts(m, 1024);
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(all[i], (i >= 1000 && i < 1010) ? -5 : i) << i;
  // Unaligned byte offsets and sizes.
  unsigned char bytes[7] = {1, 2, 3, 4, 5, 6, 7};
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 3, 7, bytes, 0, nullptr, nullptr));
  unsigned char back[9];
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 2, 9, back, 0, nullptr, nullptr));
  for (int i = 0; i < 7; ++i) EXPECT_EQ(back[i + 1], bytes[i]);
}

TEST_F(Enqueue, ReadWriteErrors) {
  cl_mem m = makeBuffer(256);
  char host[512];
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 257, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueReadBuffer(queue, m, CL_TRUE, 200, 57, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueReadBuffer(queue, m, CL_TRUE, 256, 1, host, 0, nullptr, nullptr));
  if (isTutti())  // size 0 is invalid; PoCL 3.1 accepts it
    EXPECT_CL(CL_INVALID_VALUE, clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 0, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 16, nullptr, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clEnqueueReadBuffer(queue, m, CL_TRUE, SIZE_MAX, 2, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clEnqueueReadBuffer(queue, m, CL_TRUE, 2, SIZE_MAX, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 257, host, 0, nullptr, nullptr));
  if (isTutti())
    EXPECT_CL(CL_INVALID_VALUE, clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 0, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 16, nullptr, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_MEM_OBJECT,
            clEnqueueReadBuffer(queue, nullptr, CL_TRUE, 0, 16, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE,
            clEnqueueReadBuffer(nullptr, m, CL_TRUE, 0, 16, host, 0, nullptr, nullptr));
  cl_context other = makeContext();
  cl_mem foreign = makeBuffer(256, CL_MEM_READ_WRITE, nullptr, other);
  EXPECT_CL(CL_INVALID_CONTEXT,
            clEnqueueReadBuffer(queue, foreign, CL_TRUE, 0, 16, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_CONTEXT,
            clEnqueueWriteBuffer(queue, foreign, CL_TRUE, 0, 16, host, 0, nullptr, nullptr));
}

TEST_F(Enqueue, ReadWriteGarbageHandles) {
  TUTTI_ONLY();
  cl_mem m = makeBuffer(256);
  char host[64];
  Garbage g;
  EXPECT_CL(CL_INVALID_MEM_OBJECT,
            clEnqueueReadBuffer(queue, g.as<cl_mem>(), CL_TRUE, 0, 16, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clEnqueueReadBuffer(g.as<cl_command_queue>(), m, CL_TRUE, 0,
                                                          16, host, 0, nullptr, nullptr));
  // An image is not a buffer.
  if (deviceInfo<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT)) {
    cl_image_format fmt{CL_RGBA, CL_UNSIGNED_INT8};
    cl_int err;
    cl_mem img = clCreateImage2D(ctx, CL_MEM_READ_WRITE, &fmt, 4, 4, 0, nullptr, &err);
    ASSERT_CL_OK(err);
    track(img);
    EXPECT_CL(CL_INVALID_MEM_OBJECT,
              clEnqueueReadBuffer(queue, img, CL_TRUE, 0, 16, host, 0, nullptr, nullptr));
  }
}

// ---------------------------------------------------------------------------
// Copy
// ---------------------------------------------------------------------------
TEST_F(Enqueue, CopyBufferAndOverlap) {
  std::vector<int> src = iota(256);
  cl_mem a = intBuffer(src);
  cl_mem b = makeBuffer(256 * sizeof(int));
  ASSERT_CL_OK(clEnqueueCopyBuffer(queue, a, b, 16 * sizeof(int), 0, 100 * sizeof(int), 0, nullptr,
                                   nullptr));
  auto out = readInts(b, 100);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(out[i], 16 + i);
  // Same buffer, disjoint regions: OK.
  ASSERT_CL_OK(clEnqueueCopyBuffer(queue, a, a, 0, 128 * sizeof(int), 64 * sizeof(int), 0, nullptr,
                                   nullptr));
  out = readInts(a, 256);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(out[i], (i >= 128 && i < 192) ? i - 128 : i) << i;
  // Same buffer, overlapping.
  EXPECT_CL(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(queue, a, a, 0, 32, 64, 0, nullptr, nullptr));
  EXPECT_CL(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(queue, a, a, 32, 0, 64, 0, nullptr, nullptr));
  EXPECT_CL(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(queue, a, a, 0, 0, 4, 0, nullptr, nullptr));
  // Bounds and sizes.
  size_t bytes = 256 * sizeof(int);
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueCopyBuffer(queue, a, b, 8, 0, bytes, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueCopyBuffer(queue, a, b, 0, 8, bytes, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueCopyBuffer(queue, a, b, 0, 0, 0, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueCopyBuffer(queue, a, b, SIZE_MAX, 0, 4, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueCopyBuffer(queue, nullptr, b, 0, 0, 4, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueCopyBuffer(queue, a, nullptr, 0, 0, 4, 0, nullptr, nullptr));
  cl_context other = makeContext();
  cl_mem foreign = makeBuffer(256, CL_MEM_READ_WRITE, nullptr, other);
  EXPECT_CL(CL_INVALID_CONTEXT, clEnqueueCopyBuffer(queue, a, foreign, 0, 0, 4, 0, nullptr, nullptr));
}

TEST_F(Enqueue, CopyBetweenOverlappingSubBuffers) {
  size_t al = deviceInfo<cl_uint>(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
  cl_mem parent = makeBuffer(al * 4);
  cl_buffer_region r1{0, al * 2}, r2{al, al * 2}, r3{al * 2, al * 2};
  cl_int err;
  cl_mem s1 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
  ASSERT_CL_OK(err);
  track(s1);
  cl_mem s2 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
  ASSERT_CL_OK(err);
  track(s2);
  cl_mem s3 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r3, &err);
  ASSERT_CL_OK(err);
  track(s3);
  // s1[al..2al) and s2[0..al) are the same bytes.
  EXPECT_CL(CL_MEM_COPY_OVERLAP, clEnqueueCopyBuffer(queue, s1, s2, al, 0, al, 0, nullptr, nullptr));
  // Parent vs. its sub-buffer.
  EXPECT_CL(CL_MEM_COPY_OVERLAP,
            clEnqueueCopyBuffer(queue, parent, s3, al * 2, 0, al, 0, nullptr, nullptr));
  // Disjoint: s1 and s3.
  EXPECT_CL_OK(clEnqueueCopyBuffer(queue, s1, s3, 0, 0, al * 2, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
}

// ---------------------------------------------------------------------------
// Rect variants
// ---------------------------------------------------------------------------
TEST_F(Enqueue, ReadWriteBufferRect2DAnd3D) {
  // Buffer holds a 3-D box of 10 x 6 x 4 ints with padded pitches.
  const size_t W = 10, H = 6, D = 4;
  const size_t bRow = 12 * sizeof(int), bSlice = bRow * 7;
  cl_mem m = makeBuffer(bSlice * D);
  std::vector<int> zeros(bSlice * D / sizeof(int), 0);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bSlice * D, zeros.data(), 0, nullptr, nullptr));
  // Host side: tight box.
  std::vector<int> host(W * H * D);
  for (size_t i = 0; i < host.size(); ++i) host[i] = (int)i + 1;
  size_t bo[3] = {0, 0, 0}, ho[3] = {0, 0, 0}, reg[3] = {W * sizeof(int), H, D};
  ASSERT_CL_OK(clEnqueueWriteBufferRect(queue, m, CL_TRUE, bo, ho, reg, bRow, bSlice,
                                        W * sizeof(int), W * H * sizeof(int), host.data(), 0,
                                        nullptr, nullptr));
  // Check the layout through a plain read.
  std::vector<int> raw(bSlice * D / sizeof(int));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, bSlice * D, raw.data(), 0, nullptr, nullptr));
  for (size_t z = 0; z < D; ++z)
    for (size_t y = 0; y < 7; ++y)
      for (size_t x = 0; x < 12; ++x) {
        int got = raw[(z * bSlice + y * bRow) / sizeof(int) + x];
        int want = (x < W && y < H) ? host[(z * H + y) * W + x] : 0;
        ASSERT_EQ(got, want) << x << "," << y << "," << z;
      }
  // Read a sub-box back into a padded host layout (host origin non-zero).
  size_t bo2[3] = {2 * sizeof(int), 1, 1}, ho2[3] = {sizeof(int), 2, 0},
         reg2[3] = {3 * sizeof(int), 2, 2};
  const size_t hRow = 5 * sizeof(int), hSlice = hRow * 4;
  std::vector<int> box(hSlice * 2 / sizeof(int), -1);
  ASSERT_CL_OK(clEnqueueReadBufferRect(queue, m, CL_TRUE, bo2, ho2, reg2, bRow, bSlice, hRow, hSlice,
                                       box.data(), 0, nullptr, nullptr));
  for (size_t z = 0; z < 2; ++z)
    for (size_t y = 0; y < 4; ++y)
      for (size_t x = 0; x < 5; ++x) {
        int got = box[(z * hSlice + y * hRow) / sizeof(int) + x];
        bool in = x >= 1 && x < 4 && y >= 2 && y < 4;
        int want = in ? host[((z + 1) * H + (y - 2 + 1)) * W + (x - 1 + 2)] : -1;
        ASSERT_EQ(got, want) << x << "," << y << "," << z;
      }
  // Zero pitches mean "tight" (row = region[0], slice = region[1] * row).
  std::vector<int> tight(3 * 2 * 2, 0);
  ASSERT_CL_OK(clEnqueueReadBufferRect(queue, m, CL_TRUE, bo2, bo, reg2, bRow, bSlice, 0, 0,
                                       tight.data(), 0, nullptr, nullptr));
  for (size_t z = 0; z < 2; ++z)
    for (size_t y = 0; y < 2; ++y)
      for (size_t x = 0; x < 3; ++x)
        ASSERT_EQ(tight[(z * 2 + y) * 3 + x], host[((z + 1) * H + (y + 1)) * W + (x + 2)]);
}

TEST_F(Enqueue, CopyBufferRect) {
  const size_t W = 8, H = 8;
  std::vector<int> src(W * H);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (int)i;
  cl_mem a = intBuffer(src);
  std::vector<int> zeros(W * H, 0);
  cl_mem b = intBuffer(zeros);
  size_t so[3] = {2 * sizeof(int), 1, 0}, dor[3] = {0, 4, 0}, reg[3] = {4 * sizeof(int), 3, 1};
  ASSERT_CL_OK(clEnqueueCopyBufferRect(queue, a, b, so, dor, reg, W * sizeof(int), 0,
                                       W * sizeof(int), 0, 0, nullptr, nullptr));
  auto out = readInts(b, W * H);
  for (size_t y = 0; y < H; ++y)
    for (size_t x = 0; x < W; ++x) {
      bool in = x < 4 && y >= 4 && y < 7;
      int want = in ? src[(y - 4 + 1) * W + (x + 2)] : 0;
      ASSERT_EQ(out[y * W + x], want) << x << "," << y;
    }
  // Same buffer, overlapping rectangles.
  size_t o1[3] = {0, 0, 0}, o2[3] = {sizeof(int), 1, 0};
  EXPECT_CL(CL_MEM_COPY_OVERLAP, clEnqueueCopyBufferRect(queue, a, a, o1, o2, reg, W * sizeof(int),
                                                         0, W * sizeof(int), 0, 0, nullptr, nullptr));
  // Same buffer with different pitches is invalid.
  size_t o4[3] = {0, 4, 0};
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueCopyBufferRect(queue, a, a, o1, o4, reg, W * sizeof(int), 0,
                                                      W * sizeof(int) + 4, 0, 0, nullptr, nullptr));
  size_t o3[3] = {0, 5, 0};
  // Same buffer, disjoint rows: fine.
  EXPECT_CL_OK(clEnqueueCopyBufferRect(queue, a, a, o1, o3, reg, W * sizeof(int), 0,
                                       W * sizeof(int), 0, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
}

TEST_F(Enqueue, RectErrors) {
  cl_mem m = makeBuffer(64 * 64);
  std::vector<char> host(64 * 64);
  size_t o[3] = {0, 0, 0};
  auto rd = [&](const size_t *bo, const size_t *reg, size_t brp, size_t bsp, size_t hrp,
                size_t hsp, void *ptr) {
    return clEnqueueReadBufferRect(queue, m, CL_TRUE, bo, o, reg, brp, bsp, hrp, hsp, ptr, 0,
                                   nullptr, nullptr);
  };
  size_t r0[3] = {0, 1, 1}, r1[3] = {16, 0, 1}, r2[3] = {16, 1, 0};
  EXPECT_CL(CL_INVALID_VALUE, rd(o, r0, 0, 0, 0, 0, host.data()));
  EXPECT_CL(CL_INVALID_VALUE, rd(o, r1, 0, 0, 0, 0, host.data()));
  EXPECT_CL(CL_INVALID_VALUE, rd(o, r2, 0, 0, 0, 0, host.data()));
  size_t reg[3] = {16, 4, 2};
  // Row pitch smaller than region[0].
  EXPECT_CL(CL_INVALID_VALUE, rd(o, reg, 8, 0, 0, 0, host.data()));
  EXPECT_CL(CL_INVALID_VALUE, rd(o, reg, 0, 0, 8, 0, host.data()));
  // Slice pitch smaller than region[1] * row pitch, or not a multiple of it.
  EXPECT_CL(CL_INVALID_VALUE, rd(o, reg, 16, 32, 0, 0, host.data()));
  EXPECT_CL(CL_INVALID_VALUE, rd(o, reg, 16, 65, 0, 0, host.data()));
  EXPECT_CL(CL_INVALID_VALUE, rd(o, reg, 0, 0, 16, 32, host.data()));
  EXPECT_CL(CL_INVALID_VALUE, rd(o, reg, 0, 0, 16, 65, host.data()));
  // Out of bounds in the buffer.
  size_t far[3] = {0, 0, 100};
  EXPECT_CL(CL_INVALID_VALUE, rd(far, reg, 64, 64 * 8, 0, 0, host.data()));
  size_t bigReg[3] = {64, 64, 2};
  EXPECT_CL(CL_INVALID_VALUE, rd(o, bigReg, 64, 64 * 64, 0, 0, host.data()));
  EXPECT_CL(CL_INVALID_VALUE, rd(o, reg, 0, 0, 0, 0, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, rd(nullptr, reg, 0, 0, 0, 0, host.data()));
  EXPECT_CL(CL_INVALID_VALUE, rd(o, nullptr, 0, 0, 0, 0, host.data()));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueWriteBufferRect(queue, m, CL_TRUE, o, o, bigReg, 64, 64 * 64,
                                                       0, 0, host.data(), 0, nullptr, nullptr));
  cl_mem b = makeBuffer(64 * 64);
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueCopyBufferRect(queue, m, b, o, o, bigReg, 64, 64 * 64, 64,
                                                      64 * 64, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueCopyBufferRect(queue, m, b, o, o, r0, 0, 0, 0, 0, 0, nullptr,
                                                      nullptr));
}

// ---------------------------------------------------------------------------
// Fill
// ---------------------------------------------------------------------------
TEST_F(Enqueue, FillBufferAllPatternSizes) {
  const size_t total = 1024;
  cl_mem m = makeBuffer(total);
  for (size_t ps : {1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u}) {
    SCOPED_TRACE(ps);
    std::vector<unsigned char> zeros(total, 0);
    ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, total, zeros.data(), 0, nullptr, nullptr));
    std::vector<unsigned char> pat(ps);
    for (size_t i = 0; i < ps; ++i) pat[i] = (unsigned char)(i * 5 + ps);
    size_t off = ps * 2, size = ps * 5;
    ASSERT_CL_OK(clEnqueueFillBuffer(queue, m, pat.data(), ps, off, size, 0, nullptr, nullptr));
    std::vector<unsigned char> out(total);
    ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, total, out.data(), 0, nullptr, nullptr));
    for (size_t i = 0; i < total; ++i) {
      unsigned char want = (i >= off && i < off + size) ? pat[(i - off) % ps] : 0;
      ASSERT_EQ(out[i], want) << i;
    }
  }
}

TEST_F(Enqueue, FillBufferErrors) {
  cl_mem m = makeBuffer(1024);
  unsigned char pat[256] = {0};
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueFillBuffer(queue, m, pat, 3, 0, 12, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueFillBuffer(queue, m, pat, 256, 0, 512, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueFillBuffer(queue, m, pat, 0, 0, 16, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueFillBuffer(queue, m, nullptr, 4, 0, 16, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueFillBuffer(queue, m, pat, 4, 2, 16, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueFillBuffer(queue, m, pat, 4, 0, 18, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueFillBuffer(queue, m, pat, 4, 1020, 8, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueFillBuffer(queue, m, pat, 4, 0, 1028, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_MEM_OBJECT,
            clEnqueueFillBuffer(queue, nullptr, pat, 4, 0, 16, 0, nullptr, nullptr));
}

// ---------------------------------------------------------------------------
// Map / unmap
// ---------------------------------------------------------------------------
TEST_F(Enqueue, MapUnmapSemantics) {
  std::vector<int> src = iota(512);
  cl_mem m = intBuffer(src);
  cl_int err;
  cl_event mapEv;
  int *p = (int *)clEnqueueMapBuffer(queue, m, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE,
                                     100 * sizeof(int), 50 * sizeof(int), 0, nullptr, &mapEv, &err);
  ASSERT_CL_OK(err);
  ASSERT_NE(p, nullptr);
  track(mapEv);
  ASSERT_CL_OK(clWaitForEvents(1, &mapEv));
  for (int i = 0; i < 50; ++i) ASSERT_EQ(p[i], 100 + i);
  cl_uint mc = 0;
  ASSERT_CL_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof mc, &mc, nullptr));
  EXPECT_EQ(mc, 1u);
  // A second, overlapping read-only map is allowed.
  int *q = (int *)clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, 16 * sizeof(int), 0,
                                     nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  for (int i = 0; i < 50; ++i) p[i] = -i;
  // Unmapping a pointer that was never returned by a map fails.
  int bogus[4];
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueUnmapMemObject(queue, m, bogus, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueUnmapMemObject(queue, m, p + 1, 0, nullptr, nullptr));
  cl_event unEv;
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, &unEv));
  track(unEv);
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, q, 0, nullptr, nullptr));
  ASSERT_CL_OK(clWaitForEvents(1, &unEv));
  cl_command_type t;
  ASSERT_CL_OK(clGetEventInfo(unEv, CL_EVENT_COMMAND_TYPE, sizeof t, &t, nullptr));
  EXPECT_EQ(t, (cl_command_type)CL_COMMAND_UNMAP_MEM_OBJECT);
  ASSERT_CL_OK(clGetEventInfo(mapEv, CL_EVENT_COMMAND_TYPE, sizeof t, &t, nullptr));
  EXPECT_EQ(t, (cl_command_type)CL_COMMAND_MAP_BUFFER);
  ASSERT_CL_OK(clFinish(queue));
  ASSERT_CL_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof mc, &mc, nullptr));
  EXPECT_EQ(mc, 0u);
  auto out = readInts(m, 512);
  for (int i = 0; i < 512; ++i) ASSERT_EQ(out[i], (i >= 100 && i < 150) ? -(i - 100) : i) << i;
}

TEST_F(Enqueue, MapWriteInvalidateThenKernel) {
  cl_mem m = makeBuffer(256 * sizeof(int));
  cl_int err;
  int *p = (int *)clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                     256 * sizeof(int), 0, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  for (int i = 0; i < 256; ++i) p[i] = i * 10;
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
  cl_kernel k = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  ASSERT_CL_OK(run1D(k, 256));
  p = (int *)clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, 256 * sizeof(int), 0, nullptr,
                                nullptr, &err);
  ASSERT_CL_OK(err);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(p[i], i * 10 + 1) << i;
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
}

TEST_F(Enqueue, MapErrors) {
  cl_mem m = makeBuffer(256);
  cl_int err = CL_SUCCESS;
  auto mapErr = [&](cl_map_flags f, size_t off, size_t size) {
    err = CL_SUCCESS;
    void *p = clEnqueueMapBuffer(queue, m, CL_TRUE, f, off, size, 0, nullptr, nullptr, &err);
    if (p) {
      clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr);
      clFinish(queue);
    }
    return p == nullptr ? err : CL_SUCCESS;
  };
  EXPECT_CL(CL_INVALID_VALUE, mapErr(CL_MAP_READ, 0, 257));
  EXPECT_CL(CL_INVALID_VALUE, mapErr(CL_MAP_READ, 250, 7));
  EXPECT_CL(CL_INVALID_VALUE, mapErr(CL_MAP_READ, 0, 0));
  if (isTutti()) {  // PoCL 3.1 does not validate map flags
    EXPECT_CL(CL_INVALID_VALUE, mapErr(CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 16));
    EXPECT_CL(CL_INVALID_VALUE, mapErr(CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION, 0, 16));
    EXPECT_CL(CL_INVALID_VALUE, mapErr((cl_map_flags)1 << 20, 0, 16));
  }
  EXPECT_EQ(clEnqueueMapBuffer(queue, nullptr, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr,
                               &err),
            nullptr);
  EXPECT_CL(CL_INVALID_MEM_OBJECT, err);
  int x;
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueUnmapMemObject(queue, nullptr, &x, 0, nullptr, nullptr));
}

// ---------------------------------------------------------------------------
// Migrate
// ---------------------------------------------------------------------------
TEST_F(Enqueue, MigrateMemObjects) {
  std::vector<int> src = iota(1024, 5);
  cl_mem a = intBuffer(src);
  cl_mem b = intBuffer(src);
  cl_mem both[] = {a, b};
  cl_event ev;
  ASSERT_CL_OK(clEnqueueMigrateMemObjects(queue, 2, both, 0, 0, nullptr, &ev));
  track(ev);
  ASSERT_CL_OK(clWaitForEvents(1, &ev));
  cl_command_type t;
  ASSERT_CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof t, &t, nullptr));
  EXPECT_EQ(t, (cl_command_type)CL_COMMAND_MIGRATE_MEM_OBJECTS);
  EXPECT_EQ(readInts(a, 1024), src);
  ASSERT_CL_OK(clEnqueueMigrateMemObjects(queue, 1, &a, CL_MIGRATE_MEM_OBJECT_HOST, 0, nullptr, nullptr));
  EXPECT_EQ(readInts(a, 1024), src);
  // Kernel after a migration still sees the data.
  cl_kernel k = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof a, &a));
  ASSERT_CL_OK(run1D(k, 1024));
  auto out = readInts(a, 1024);
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(out[i], src[i] + 1);
  // Content-undefined migration is legal (contents then unspecified).
  EXPECT_CL_OK(clEnqueueMigrateMemObjects(queue, 1, &b, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0,
                                          nullptr, nullptr));
  EXPECT_CL_OK(clEnqueueMigrateMemObjects(
      queue, 1, &b, CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0,
      nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
}

TEST_F(Enqueue, MigrateErrors) {
  cl_mem a = makeBuffer(64);
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueMigrateMemObjects(queue, 0, &a, 0, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueMigrateMemObjects(queue, 1, nullptr, 0, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clEnqueueMigrateMemObjects(queue, 1, &a, (cl_mem_migration_flags)1 << 10, 0, nullptr, nullptr));
  cl_mem withNull[] = {a, nullptr};
  EXPECT_CL(CL_INVALID_MEM_OBJECT,
            clEnqueueMigrateMemObjects(queue, 2, withNull, 0, 0, nullptr, nullptr));
  cl_context other = makeContext();
  cl_mem foreign = makeBuffer(64, CL_MEM_READ_WRITE, nullptr, other);
  EXPECT_CL(CL_INVALID_CONTEXT, clEnqueueMigrateMemObjects(queue, 1, &foreign, 0, 0, nullptr, nullptr));
}

// ---------------------------------------------------------------------------
// Markers and barriers
// ---------------------------------------------------------------------------
TEST_F(Enqueue, MarkerWaitsForItsList) {
  cl_event gate = makeUserEvent();
  cl_event marker;
  ASSERT_CL_OK(clEnqueueMarkerWithWaitList(queue, 1, &gate, &marker));
  track(marker);
  ASSERT_CL_OK(clFlush(queue));
  cl_int st;
  ASSERT_CL_OK(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
  EXPECT_GT(st, CL_COMPLETE) << "marker completed before the event it waits on";
  ASSERT_CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  ASSERT_CL_OK(clWaitForEvents(1, &marker));
  cl_command_type t;
  ASSERT_CL_OK(clGetEventInfo(marker, CL_EVENT_COMMAND_TYPE, sizeof t, &t, nullptr));
  EXPECT_EQ(t, (cl_command_type)CL_COMMAND_MARKER);
}

TEST_F(Enqueue, MarkerWithoutListWaitsForPriorCommands) {
  cl_command_queue q = makeQueue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  ASSERT_NE(q, nullptr);
  cl_event gate = makeUserEvent();
  cl_mem m = makeBuffer(64);
  int v[16] = {0};
  ASSERT_CL_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 64, v, 1, &gate, nullptr));
  cl_event marker;
  ASSERT_CL_OK(clEnqueueMarkerWithWaitList(q, 0, nullptr, &marker));
  track(marker);
  ASSERT_CL_OK(clFlush(q));
  cl_int st;
  ASSERT_CL_OK(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
  EXPECT_GT(st, CL_COMPLETE);
  ASSERT_CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  ASSERT_CL_OK(clWaitForEvents(1, &marker));
}

TEST_F(Enqueue, BarrierOrdersOutOfOrderQueue) {
  cl_command_queue q = makeQueue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  ASSERT_NE(q, nullptr);
  cl_event gate = makeUserEvent();
  std::vector<int> ones(256, 1);
  cl_mem m = makeBuffer(256 * sizeof(int));
  ASSERT_CL_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 1024, ones.data(), 1, &gate, nullptr));
  cl_event bar;
  ASSERT_CL_OK(clEnqueueBarrierWithWaitList(q, 0, nullptr, &bar));
  track(bar);
  cl_kernel k = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t g = 256;
  cl_event kev;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, nullptr, 0, nullptr, &kev));
  track(kev);
  ASSERT_CL_OK(clFlush(q));
  cl_int st;
  ASSERT_CL_OK(clGetEventInfo(kev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
  EXPECT_GT(st, CL_COMPLETE) << "kernel ran past the barrier";
  ASSERT_CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  ASSERT_CL_OK(clFinish(q));
  cl_command_type t;
  ASSERT_CL_OK(clGetEventInfo(bar, CL_EVENT_COMMAND_TYPE, sizeof t, &t, nullptr));
  EXPECT_EQ(t, (cl_command_type)CL_COMMAND_BARRIER);
  std::vector<int> out(256);
  ASSERT_CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 1024, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, std::vector<int>(256, 2));
}

TEST_F(Enqueue, LegacyMarkerAndBarrier) {
  cl_event gate = makeUserEvent();
  cl_mem m = makeBuffer(64);
  int v[16] = {0};
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_FALSE, 0, 64, v, 1, &gate, nullptr));
  cl_event marker;
  ASSERT_CL_OK(clEnqueueMarker(queue, &marker));
  track(marker);
  ASSERT_CL_OK(clEnqueueBarrier(queue));
  ASSERT_CL_OK(clFlush(queue));
  cl_int st;
  ASSERT_CL_OK(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
  EXPECT_GT(st, CL_COMPLETE);
  ASSERT_CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  ASSERT_CL_OK(clFinish(queue));
  ASSERT_CL_OK(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
  EXPECT_EQ(st, CL_COMPLETE);
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueMarker(queue, nullptr));
}

TEST_F(Enqueue, LegacyWaitForEvents) {
  TUTTI_ONLY();  // PoCL 3.1 aborts: clEnqueueWaitForEvents is unimplemented
  cl_event gate = makeUserEvent();
  ASSERT_CL_OK(clEnqueueWaitForEvents(queue, 1, &gate));
  cl_event marker;
  ASSERT_CL_OK(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &marker));
  track(marker);
  ASSERT_CL_OK(clFlush(queue));
  cl_int st;
  ASSERT_CL_OK(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
  EXPECT_GT(st, CL_COMPLETE);
  ASSERT_CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  ASSERT_CL_OK(clFinish(queue));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueWaitForEvents(queue, 0, &gate));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueWaitForEvents(queue, 1, nullptr));
  cl_context other = makeContext();
  cl_event foreign = makeUserEvent(other);
  EXPECT_CL(CL_INVALID_CONTEXT, clEnqueueWaitForEvents(queue, 1, &foreign));
  ASSERT_CL_OK(clSetUserEventStatus(foreign, CL_COMPLETE));
}

TEST_F(Enqueue, InOrderQueueImplicitOrdering) {
  // A long chain of dependent commands with no events: in-order semantics.
  cl_kernel k = commonKernel("add_one");
  std::vector<int> zero(4096, 0);
  cl_mem m = intBuffer(zero);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t g = 4096;
  for (int i = 0; i < 20; ++i) {
    ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
    if (i == 9) {
      int pat = 100;
      ASSERT_CL_OK(clEnqueueFillBuffer(queue, m, &pat, sizeof pat, 0, 4096 * sizeof(int), 0,
                                       nullptr, nullptr));
    }
  }
  EXPECT_EQ(readInts(m, 4096), std::vector<int>(4096, 110));
}

// A chain of dependent kernels on an out-of-order queue, each reading what the
// previous one wrote into another buffer (under round-robin placement the data
// hops between devices at every step).
TEST_F(Enqueue, DependentChainOutOfOrder) {
  cl_command_queue q = makeQueue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  ASSERT_NE(q, nullptr);
  const size_t n = 16384;
  std::vector<int> init = iota(n);
  cl_mem a = intBuffer(init);
  cl_mem b = makeBuffer(n * sizeof(int));
  cl_program prog = makeProgram(kCommonSource);
  std::vector<cl_kernel> ks;
  cl_event prev = nullptr;
  const int steps = 8;
  for (int s = 0; s < steps; ++s) {
    cl_kernel add = makeKernel(prog, "add_one");
    cl_kernel cp = makeKernel(prog, "copy_buf");
    cl_mem src = (s % 2) ? b : a, dst = (s % 2) ? a : b;
    ASSERT_CL_OK(clSetKernelArg(add, 0, sizeof src, &src));
    ASSERT_CL_OK(clSetKernelArg(cp, 0, sizeof src, &src));
    ASSERT_CL_OK(clSetKernelArg(cp, 1, sizeof dst, &dst));
    cl_event e1, e2;
    ASSERT_CL_OK(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, prev ? 1 : 0,
                                        prev ? &prev : nullptr, &e1));
    track(e1);
    ASSERT_CL_OK(clEnqueueNDRangeKernel(q, cp, 1, nullptr, &n, nullptr, 1, &e1, &e2));
    track(e2);
    prev = e2;
  }
  std::vector<int> out(n);
  ASSERT_CL_OK(clEnqueueReadBuffer(q, steps % 2 ? b : a, CL_TRUE, 0, n * sizeof(int), out.data(), 1,
                                   &prev, nullptr));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], (int)i + steps) << i;
}

// Copies between buffers whose newest data lives on (possibly different) devices.
TEST_F(Enqueue, CopyBetweenDeviceResidentBuffers) {
  const size_t n = 8192;
  cl_mem a = makeBuffer(n * sizeof(int)), b = makeBuffer(n * sizeof(int));
  cl_kernel fa = commonKernel("fill_val"), fb = commonKernel("fill_val");
  int va = 5, vb = 9;
  ASSERT_CL_OK(clSetKernelArg(fa, 0, sizeof a, &a));
  ASSERT_CL_OK(clSetKernelArg(fa, 1, sizeof va, &va));
  ASSERT_CL_OK(clSetKernelArg(fb, 0, sizeof b, &b));
  ASSERT_CL_OK(clSetKernelArg(fb, 1, sizeof vb, &vb));
  ASSERT_CL_OK(run1D(fa, n));
  ASSERT_CL_OK(run1D(fb, n));
  ASSERT_CL_OK(clEnqueueCopyBuffer(queue, a, b, 0, n / 2 * sizeof(int), n / 4 * sizeof(int), 0,
                                   nullptr, nullptr));
  cl_kernel add = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(add, 0, sizeof b, &b));
  ASSERT_CL_OK(run1D(add, n));
  auto out = readInts(b, n);
  for (size_t i = 0; i < n; ++i) {
    int want = (i >= n / 2 && i < n / 2 + n / 4) ? va + 1 : vb + 1;
    ASSERT_EQ(out[i], want) << i;
  }
}

TEST_F(Enqueue, NDRange2DLocalAndGroupIds) {
  cl_program p = makeProgram(R"CLC(
    __kernel void ids(__global int4 *o) {
      size_t gx = get_global_id(0), gy = get_global_id(1);
      o[gy * get_global_size(0) + gx] = (int4)((int)get_local_id(0), (int)get_local_id(1),
                                               (int)get_group_id(0), (int)get_group_id(1));
    })CLC");
  cl_kernel k = makeKernel(p, "ids");
  ASSERT_NE(k, nullptr);
  const size_t g[2] = {24, 12}, l[2] = {8, 4};
  cl_mem o = makeBuffer(g[0] * g[1] * sizeof(cl_int4));
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof o, &o));
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 2, nullptr, g, l, 0, nullptr, nullptr));
  std::vector<cl_int4> out(g[0] * g[1]);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, o, CL_TRUE, 0, out.size() * sizeof(cl_int4), out.data(),
                                   0, nullptr, nullptr));
  for (size_t y = 0; y < g[1]; ++y)
    for (size_t x = 0; x < g[0]; ++x) {
      const cl_int4 &v = out[y * g[0] + x];
      ASSERT_EQ(v.s[0], (int)(x % l[0]));
      ASSERT_EQ(v.s[1], (int)(y % l[1]));
      ASSERT_EQ(v.s[2], (int)(x / l[0]));
      ASSERT_EQ(v.s[3], (int)(y / l[1]));
    }
}

TEST_F(Enqueue, UnmapWaitsForItsWaitList) {
  cl_mem m = makeBuffer(1024 * sizeof(int));
  cl_int err;
  int *p = (int *)clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                     1024 * sizeof(int), 0, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  cl_command_queue q2 = makeQueue();
  cl_event gate = makeUserEvent();
  cl_event un;
  // Unmap on a second queue, gated; the kernel on q2 follows it in order.
  ASSERT_CL_OK(clEnqueueUnmapMemObject(q2, m, p, 1, &gate, &un));
  track(un);
  cl_kernel k = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t n = 1024;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(q2, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  // The host writes the mapped region before the gate opens: allowed, the region is still mapped.
  for (int i = 0; i < 1024; ++i) p[i] = 3 * i;
  ASSERT_CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  ASSERT_CL_OK(clFinish(q2));
  auto out = readInts(m, 1024);
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(out[i], 3 * i + 1) << i;
}

TEST_F(Enqueue, UseHostPtrUnalignedHostMemory) {
  // Any host pointer is legal for CL_MEM_USE_HOST_PTR; alignment is only a hint.
  char *base = static_cast<char *>(hostAlloc(4096 + 64)) + 1;  // deliberately misaligned
  for (int i = 0; i < 1024; ++i) {
    int v = i;
    memcpy(base + i * sizeof(int), &v, sizeof v);
  }
  cl_mem m = makeBuffer(4096, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, base);
  ASSERT_NE(m, nullptr);
  cl_kernel k = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  ASSERT_CL_OK(run1D(k, 1024));
  cl_int err;
  char *p = (char *)clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, 4096, 0, nullptr,
                                       nullptr, &err);
  ASSERT_CL_OK(err);
  EXPECT_EQ(p, base);
  for (int i = 0; i < 1024; ++i) {
    int v;
    memcpy(&v, base + i * sizeof(int), sizeof v);
    ASSERT_EQ(v, i + 1) << i;
  }
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
}
