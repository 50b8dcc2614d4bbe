// test_split.cpp - kernels whose split launches (TUTTI_MODE=skmd) once lost output: each
// checks every output value against what the kernel must compute, in every configuration
// of the suite; ctest tutti_api_split and tutti_api_split_pthreads force the split
// (TUTTI_PARTITION=fixed:1,1), where both backing devices must run a piece.
#include "fixture.h"

#include <vector>

#include "tutti/tutti_ext.h"

using namespace api;

namespace {

class Split : public ClTest {
 protected:
  // Kernel launches per backing device so far (empty when not under Tutti).
  std::vector<cl_ulong> kernelsPerDevice() {
    std::vector<cl_ulong> out;
    auto get = tuttiFn<tuttiGetDeviceCounters_fn>("tuttiGetDeviceCounters");
    cl_uint n = 0;
    if (!get || get(0, nullptr, &n) != CL_SUCCESS) return out;
    std::vector<tutti_device_counters> c(n);
    if (get(n, c.data(), &n) != CL_SUCCESS) return out;
    for (auto &d : c) out.push_back(d.kernels);
    return out;
  }
  static bool forcedSplit() {
    return getEnv("TUTTI_MODE") == "skmd" && getEnv("TUTTI_PARTITION") == "fixed:1,1";
  }
};

// Issue 20 (mr_StringMatch lost its 2,025 outputs under skmd): a uniform early return
// before a barrier, then a per-work-item exit after it. The return block was shared by
// the path that skips the barrier and the paths after it, and PoCL's barrier-tail
// replication gave each edge into it from after the barrier its own exit barrier; with
// several exits it assumed that branches leading to different barriers are uniform and
// let work-item 0 decide for its whole group, so a group whose first work-item exits
// early wrote nothing. Tutti's bitcode (TUTTI_MODE=skmd, every launch) had that shape,
// PoCL's own front end did not. Work-item 0 of every group exits here.
TEST_F(Split, UniformEarlyReturnBeforeBarrier) {
  const char *src =
      "__kernel void early_return_barrier(__global const uint *groupOn, __global const uint *keep,\n"
      "                                   __global uint *out) {\n"
      "  __local uint count;\n"
      "  if (groupOn[get_group_id(0)] == 0) return;  // uniform over the work-group\n"
      "  if (get_local_id(0) == 0) count = 0;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  uint i = get_global_id(0);\n"
      "  if (i >= 100000) return;  // per work-item (none here)\n"
      "  uint n = keep[i];  // 0 for work-item 0 of every group\n"
      "  for (uint j = 0; j < n; ++j)\n"
      "    if (atomic_inc(&count) < 100000) out[i] = i + 1;\n"
      "}\n";
  cl_kernel k = makeKernel(makeProgram(src), "early_return_barrier");
  const size_t local = 64, groups = 16, n = local * groups;
  std::vector<cl_uint> groupOn(groups), keep(n), out(n, 0xdeadbeefu), got(n, 0);
  for (size_t g = 0; g < groups; ++g) groupOn[g] = g % 3 != 1;
  for (size_t i = 0; i < n; ++i) keep[i] = i % 4;
  cl_mem gb = makeBuffer(groups * 4, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, groupOn.data());
  cl_mem kb = makeBuffer(n * 4, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, keep.data());
  cl_mem ob = makeBuffer(n * 4, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.data());
  ASSERT_FALSE(HasFailure());
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof gb, &gb));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof kb, &kb));
  ASSERT_CL_OK(clSetKernelArg(k, 2, sizeof ob, &ob));
  std::vector<cl_ulong> before = kernelsPerDevice();
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, &local, 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, ob, CL_TRUE, 0, n * 4, got.data(), 0, nullptr, nullptr));
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    cl_uint want = groupOn[i / local] && keep[i] ? cl_uint(i + 1) : 0xdeadbeefu;
    if (got[i] != want && wrong++ < 8) ADD_FAILURE() << "out[" << i << "] is " << got[i] << ", not " << want;
  }
  EXPECT_EQ(wrong, 0u) << "of " << n << " outputs";
  if (forcedSplit()) {
    std::vector<cl_ulong> after = kernelsPerDevice();
    ASSERT_EQ(after.size(), before.size());
    ASSERT_GE(after.size(), 2u);
    for (size_t d = 0; d < after.size(); ++d)
      EXPECT_GT(after[d], before[d]) << "backing device " << d << " ran no piece: the launch did not split";
  }
}

}  // namespace
