// test_vast.cpp - launches VAST pages through a device too small for their buffers.
//
// Run by ctest tutti_api_vast with TUTTI_VAST=force and a 1 MiB TUTTI_MEM_LIMIT on the
// pthread device (TUTTI_ZERO_COPY=0: its replicas are copies, not the homes): every result
// is checked against the host, and the device's counters show that it ran the kernels.
#include <numeric>
#include <random>

#include "fixture.h"
#include "tutti/tutti_ext.h"

using namespace api;

namespace {

class Vast : public ClTest {
 protected:
  // Kernels and bytes the paging device (TUTTI_PLACEMENT's) has run and received.
  void counters(cl_ulong *kernels, cl_ulong *h2d) {
    auto get = reinterpret_cast<tuttiGetDeviceCounters_fn>(
        clGetExtensionFunctionAddressForPlatform(platform, "tuttiGetDeviceCounters"));
    ASSERT_NE(get, nullptr);
    tutti_device_counters c[4];
    cl_uint n = 0;
    ASSERT_CL_OK(get(4, c, &n));
    int dev = std::stoi(getEnv("TUTTI_PLACEMENT").substr(7));
    ASSERT_LT(cl_uint(dev), n);
    *kernels = c[dev].kernels;
    *h2d = c[dev].h2d_bytes;
  }
};

#define VAST_ONLY()                                                                      \
  do {                                                                                   \
    TUTTI_ONLY();                                                                        \
    if (getEnv("TUTTI_VAST") != "force" || getEnv("TUTTI_PLACEMENT").rfind("device:", 0)) \
      GTEST_SKIP() << "needs TUTTI_VAST=force and TUTTI_PLACEMENT=device:N";           \
  } while (0)

}  // namespace

// A kernel that reads and writes the same bytes, four times the device's memory.
TEST_F(Vast, InPlaceKernelOverFourTimesTheDevice) {
  VAST_ONLY();
  const size_t n = 1 << 20;  // 4 MiB of ints
  std::vector<cl_int> x(n), got(n);
  std::iota(x.begin(), x.end(), 0);
  cl_kernel k = makeKernel(makeProgram("__kernel void f(__global int *x) {\n"
                                       "  size_t i = get_global_id(0); x[i] = x[i] * 3 + 1;\n"
                                       "}\n"),
                           "f");
  cl_mem b = makeBuffer(n * sizeof(cl_int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.data());
  ASSERT_FALSE(HasFailure());
  cl_ulong k0, h0, k1, h1;
  counters(&k0, &h0);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof b, &b));
  const size_t global = n, local = 64;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, n * sizeof(cl_int), got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i)
    if (got[i] != cl_int(i) * 3 + 1) {
      ADD_FAILURE() << "x[" << i << "] = " << got[i];
      break;
    }
  counters(&k1, &h1);
  EXPECT_GT(k1, k0) << "the paging device ran no kernel";
  EXPECT_GE(h1 - h0, n * sizeof(cl_int)) << "its pages did not cross to the paging device";
}

// Indices read from a buffer (the inspector's path): a gather through a permutation.
TEST_F(Vast, GatherThroughDataDependentIndices) {
  VAST_ONLY();
  const size_t n = 1 << 19;
  std::vector<cl_uint> idx(n);
  std::iota(idx.begin(), idx.end(), 0u);
  // Shuffled within blocks of 8192 (32 KiB): a group's reads stay on a page or two, so
  // the slices fit (a shuffle over all of it would put every page in every group).
  std::mt19937 rng(7);
  for (size_t b = 0; b < n; b += 8192) std::shuffle(idx.begin() + ptrdiff_t(b), idx.begin() + ptrdiff_t(b + 8192), rng);
  std::vector<cl_float> in(n), out(n);
  for (size_t i = 0; i < n; ++i) in[i] = float(i) * 0.5f;
  cl_kernel k = makeKernel(makeProgram("__kernel void g(__global const uint *idx, __global const float *in,\n"
                                       "                __global float *out) {\n"
                                       "  size_t i = get_global_id(0); out[i] = in[idx[i]] + 1.0f;\n"
                                       "}\n"),
                           "g");
  cl_mem bi = makeBuffer(n * 4, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, idx.data());
  cl_mem bx = makeBuffer(n * 4, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.data());
  cl_mem bo = makeBuffer(n * 4, CL_MEM_WRITE_ONLY);
  ASSERT_FALSE(HasFailure());
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof bx, &bx));
  ASSERT_CL_OK(clSetKernelArg(k, 2, sizeof bo, &bo));
  cl_ulong k0, h0, k1, h1;
  counters(&k0, &h0);
  const size_t global = n, local = 128;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, bo, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  counters(&k1, &h1);
  EXPECT_GT(k1, k0) << "the paging device ran no kernel";
  for (size_t i = 0; i < n; ++i)
    if (out[i] != float(idx[i]) * 0.5f + 1.0f) {
      ADD_FAILURE() << "out[" << i << "] = " << out[i];
      break;
    }
}

// One buffer passed as two written arguments: two frame buffers would hide each other's
// writes (a work-item's store through one, then its load through the other, reads the
// stale copy), so the launch is not paged; it runs whole.
TEST_F(Vast, BufferPassedTwiceSeesItsOwnWrites) {
  VAST_ONLY();
  const size_t n = 1 << 19;
  std::vector<cl_int> zero(n, 0), got(n);
  cl_kernel k = makeKernel(makeProgram("__kernel void two(__global int *a, __global int *b) {\n"
                                       "  size_t i = get_global_id(0); a[i] = (int)i; b[i] = b[i] + 1;\n"
                                       "}\n"),
                           "two");
  cl_mem b = makeBuffer(n * 4, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zero.data());
  ASSERT_FALSE(HasFailure());
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof b, &b));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof b, &b));
  const size_t global = n, local = 64;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, n * 4, got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i)
    if (got[i] != cl_int(i) + 1) {
      ADD_FAILURE() << "b[" << i << "] = " << got[i] << ", not " << i + 1;
      break;
    }
}

// Every group reads all of one buffer (Nbody's positions): that buffer is resident, copied
// to the device once for the whole launch, where each slice would otherwise copy it again;
// and it is outside the two frame sets' budget (alone it exceeds half of it).
TEST_F(Vast, BufferEveryGroupReadsIsCopiedOnce) {
  VAST_ONLY();
  const size_t m = 1 << 17, n = 1 << 17;  // 512 KiB read whole by every group; 512 KiB in and out
  std::vector<cl_float> all(m), w(n), out(n);
  for (size_t i = 0; i < m; ++i) all[i] = float(i % 1000) * 0.25f;
  for (size_t i = 0; i < n; ++i) w[i] = float(i % 77);
  cl_kernel k = makeKernel(makeProgram("__kernel void f(__global const float *all, __global const float *w,\n"
                                       "                __global float *out, uint m) {\n"
                                       "  size_t i = get_global_id(0);\n"
                                       "  float s = 0.0f;\n"
                                       "  for (uint j = (uint)get_local_id(0); j < m; j += 4096) s += all[j];\n"
                                       "  out[i] = w[i] + s;\n"
                                       "}\n"),
                           "f");
  cl_mem ba = makeBuffer(m * 4, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, all.data());
  cl_mem bw = makeBuffer(n * 4, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, w.data());
  cl_mem bo = makeBuffer(n * 4, CL_MEM_WRITE_ONLY);
  ASSERT_FALSE(HasFailure());
  const cl_uint mm = cl_uint(m);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof ba, &ba));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof bw, &bw));
  ASSERT_CL_OK(clSetKernelArg(k, 2, sizeof bo, &bo));
  ASSERT_CL_OK(clSetKernelArg(k, 3, sizeof mm, &mm));
  cl_ulong k0, h0, k1, h1;
  counters(&k0, &h0);
  const size_t global = n, local = 64;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, bo, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  counters(&k1, &h1);
  EXPECT_GT(k1, k0) << "the paging device ran no kernel";
  // Each local id sums the same 32 elements in the same order on every device.
  std::vector<float> sums(local);
  for (size_t l = 0; l < local; ++l)
    for (size_t j = l; j < m; j += 4096) sums[l] += all[j];
  for (size_t i = 0; i < n; ++i)
    if (out[i] != w[i] + sums[i % local]) {
      ADD_FAILURE() << "out[" << i << "] = " << out[i] << ", not " << w[i] + sums[i % local];
      break;
    }
  // The whole buffer once, w once, and a page of rounding for each.
  EXPECT_LE(h1 - h0, (m + n) * 4 + 2 * (64u << 10)) << "the buffer every group reads crossed more than once";
}

// One group's window (480 KiB) exceeds half the budget of a 1 MiB device: the slices run
// from one frame set of the whole budget, not pipelined, rather than off the device.
TEST_F(Vast, GroupLargerThanHalfTheBudgetRunsFromOneFrameSet) {
  VAST_ONLY();
  const size_t chunk = 122880, groups = 4, local = 64;
  std::vector<cl_int> in(chunk * groups), out(groups * local);
  for (size_t i = 0; i < in.size(); ++i) in[i] = cl_int(i % 1013);
  cl_kernel k = makeKernel(makeProgram("__kernel void g(__global const int *in, __global int *out) {\n"
                                       "  size_t base = get_group_id(0) * 122880;\n"
                                       "  int s = 0;\n"
                                       "  for (uint j = (uint)get_local_id(0); j < 122880; j += 64) s += in[base + j];\n"
                                       "  out[get_global_id(0)] = s;\n"
                                       "}\n"),
                           "g");
  cl_mem bi = makeBuffer(in.size() * 4, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.data());
  cl_mem bo = makeBuffer(out.size() * 4, CL_MEM_WRITE_ONLY);
  ASSERT_FALSE(HasFailure());
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof bo, &bo));
  cl_ulong k0, h0, k1, h1;
  counters(&k0, &h0);
  const size_t global = groups * local;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, bo, CL_TRUE, 0, out.size() * 4, out.data(), 0, nullptr, nullptr));
  counters(&k1, &h1);
  EXPECT_GT(k1, k0) << "the paging device ran no kernel";
  for (size_t g = 0; g < groups; ++g)
    for (size_t l = 0; l < local; ++l) {
      cl_int s = 0;
      for (size_t j = l; j < chunk; j += local) s += in[g * chunk + j];
      if (out[g * local + l] != s) {
        ADD_FAILURE() << "out[" << g * local + l << "] = " << out[g * local + l] << ", not " << s;
        return;
      }
    }
}
