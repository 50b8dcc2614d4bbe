// test_stripes.cpp - blocking writes striped over two paging devices (issue 22).
//
// Run by ctest tutti_api_stripes on three PoCL devices, the first and the last with a
// 2 MiB TUTTI_MEM_LIMIT, under TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,0,1: the buffers
// exceed either device, so a blocking write lands in halves on the two. Reads across the
// stripes and a split, paged launch over them must see exactly what was written.
#include <algorithm>
#include <numeric>

#include "fixture.h"
#include "tutti/tutti_ext.h"

using namespace api;

namespace {

class Stripes : public ClTest {
 protected:
  void SetUp() override {
    ClTest::SetUp();
    if (getEnv("TUTTI_PARTITION") != "fixed:1,0,1" || getEnv("TUTTI_MODE") != "skmd")
      GTEST_SKIP() << "needs TUTTI_MODE=skmd TUTTI_PARTITION=fixed:1,0,1 (ctest tutti_api_stripes)";
  }
  // Each backing device's counters so far.
  std::vector<tutti_device_counters> counters() {
    auto get = reinterpret_cast<tuttiGetDeviceCounters_fn>(
        clGetExtensionFunctionAddressForPlatform(platform, "tuttiGetDeviceCounters"));
    tutti_device_counters c[4];
    cl_uint n = 0;
    if (!get || get(4, c, &n) != CL_SUCCESS) return {};
    return std::vector<tutti_device_counters>(c, c + std::min<cl_uint>(n, 4));
  }
  std::vector<cl_ulong> h2d() {
    std::vector<cl_ulong> v;
    for (const tutti_device_counters &c : counters()) v.push_back(c.h2d_bytes);
    return v;
  }
};

}  // namespace

TEST_F(Stripes, ReadsAcrossStripesAndASplitPagedLaunchSeeTheWrite) {
  TUTTI_ONLY();
  const size_t n = 320 * 1024;  // 1.25 MiB of ints (TUTTI_DIRECT_MIN is 1 MiB); with the output, more than either device
  std::vector<cl_int> x(n), got(n, -1);
  std::iota(x.begin(), x.end(), 7);
  cl_mem in = makeBuffer(n * sizeof(cl_int), CL_MEM_READ_ONLY);
  cl_mem out = makeBuffer(n * sizeof(cl_int), CL_MEM_WRITE_ONLY);
  ASSERT_FALSE(HasFailure());
  const std::vector<cl_ulong> before = h2d();
  ASSERT_EQ(before.size(), 3u);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, in, CL_TRUE, 0, n * sizeof(cl_int), x.data(), 0, nullptr, nullptr));
  const std::vector<cl_ulong> after = h2d();
  // Both paging devices hold part of it; the third (weight 0) none.
  EXPECT_GT(after[0], before[0]);
  EXPECT_GT(after[2], before[2]);
  EXPECT_EQ(after[1], before[1]);
  EXPECT_EQ(after[0] - before[0] + after[2] - before[2], n * sizeof(cl_int));
  // Whole, and a range across the middle, where the stripes meet.
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, in, CL_TRUE, 0, n * sizeof(cl_int), got.data(), 0, nullptr, nullptr));
  EXPECT_EQ(got, x);
  std::vector<cl_int> mid(n / 2, -1);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, in, CL_TRUE, n / 4 * sizeof(cl_int), mid.size() * sizeof(cl_int),
                                   mid.data(), 0, nullptr, nullptr));
  EXPECT_TRUE(std::equal(mid.begin(), mid.end(), x.begin() + ptrdiff_t(n / 4)));
  cl_kernel k = makeKernel(makeProgram("__kernel void f(__global const int *a, __global int *b) {\n"
                                       "  size_t i = get_global_id(0); b[i] = a[i] * 3 + 1;\n"
                                       "}\n"),
                           "f");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof in, &in));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof out, &out));
  const size_t global = n, local = 64;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, n * sizeof(cl_int), got.data(), 0, nullptr, nullptr));
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += got[i] != x[i] * 3 + 1;
  EXPECT_EQ(wrong, 0u);
  // Split between the two paging devices, as the stripes assumed.
  const std::vector<tutti_device_counters> c = counters();
  ASSERT_EQ(c.size(), 3u);
  EXPECT_GE(c[0].kernels, 1u);
  EXPECT_GE(c[2].kernels, 1u);
  EXPECT_EQ(c[1].kernels, 0u);
}
