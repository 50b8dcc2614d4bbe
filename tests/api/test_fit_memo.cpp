// test_fit_memo.cpp - placement reuses its answer for a kernel's buffers only while they are
// the same buffers (runtime/placement.cpp fitMask): a launch whose buffers no longer fit any
// device is refused, and one that fits again runs, with the right result.
//
// Run by ctest tutti_api_fit_memo with TUTTI_VAST=off and a 1 MiB TUTTI_MEM_LIMIT on every
// device: two distinct 768 KiB buffers fit nowhere; one of them passed twice fits.
#include <vector>

#include "fixture.h"

using namespace api;

namespace {
class FitMemo : public ClTest {};
}  // namespace

TEST_F(FitMemo, ALaunchWithOtherBuffersIsPlacedAnew) {
  TUTTI_ONLY();
  if (getEnv("TUTTI_VAST") != "off" || getEnv("TUTTI_MEM_LIMIT").empty())
    GTEST_SKIP() << "needs TUTTI_VAST=off and a TUTTI_MEM_LIMIT on every device";
  cl_kernel k = makeKernel(makeProgram("__kernel void f(__global int *a, __global int *b) {\n"
                                       "  size_t i = get_global_id(0); a[i] += 1; b[i] += 2;\n"
                                       "}\n"),
                           "f");
  const size_t small = 16 << 10, large = 768 << 10;  // bytes
  std::vector<cl_int> zeros(large / sizeof(cl_int), 0);
  cl_mem s1 = makeBuffer(small, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.data());
  cl_mem s2 = makeBuffer(small, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.data());
  cl_mem l1 = makeBuffer(large, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.data());
  cl_mem l2 = makeBuffer(large, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.data());
  ASSERT_FALSE(HasFailure());
  const size_t global = small / sizeof(cl_int), local = 64;
  auto launch = [&](cl_mem a, cl_mem b) {
    EXPECT_CL_OK(clSetKernelArg(k, 0, sizeof a, &a));
    EXPECT_CL_OK(clSetKernelArg(k, 1, sizeof b, &b));
    return clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
  };
  // Repeated: the second launch takes the first one's answer.
  ASSERT_CL_OK(launch(s1, s2));
  ASSERT_CL_OK(launch(s1, s2));
  // 1.5 MiB of distinct buffers: no device holds them, and VAST may not page.
  EXPECT_CL(CL_MEM_OBJECT_ALLOCATION_FAILURE, launch(l1, l2));
  EXPECT_CL(CL_MEM_OBJECT_ALLOCATION_FAILURE, launch(l1, l2));
  // One 768 KiB buffer twice is 768 KiB.
  ASSERT_CL_OK(launch(l1, l1));
  EXPECT_CL(CL_MEM_OBJECT_ALLOCATION_FAILURE, launch(l2, l1));
  ASSERT_CL_OK(launch(s2, s1));
  std::vector<cl_int> got(large / sizeof(cl_int));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, s1, CL_TRUE, 0, small, got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < global; ++i) ASSERT_EQ(got[i], 1 + 1 + 2) << "s1[" << i << "]";
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, s2, CL_TRUE, 0, small, got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < global; ++i) ASSERT_EQ(got[i], 2 + 2 + 1) << "s2[" << i << "]";
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, l1, CL_TRUE, 0, large, got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], i < global ? 3 : 0) << "l1[" << i << "]";
}
