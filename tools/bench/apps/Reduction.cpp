// Reduction, 1st round (NVIDIA/AMD SDK style): every work-group sums a
// contiguous chunk of 4096 floats (each work-item a strided partial sum, then
// a tree reduction in local memory with a barrier per level) and writes one
// partial sum; the host adds the per-group partial sums (2nd round).
// Thesis Table 3.2: 67 million floats (2^26), 16,384 work-groups.
// Any n (guarded loads). --hostptr 1: the input is CL_MEM_USE_HOST_PTR over the app's array.
#include <cstdlib>
#include <memory>

#include "common/app.h"

static const char* kSource = R"CLC(
__kernel void reduce(__global const float* in, __global float* partial,
                     const uint n, const uint perGroup, __local float* sdata) {
  const uint lid = get_local_id(0), lsz = get_local_size(0);
  const uint base = get_group_id(0) * perGroup;
  float sum = 0.0f;
  for (uint j = lid; j < perGroup; j += lsz) {
    uint i = base + j;
    if (i < n) sum += in[i];
  }
  sdata[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = lsz / 2; s > 0; s >>= 1) {
    if (lid < s) sdata[lid] += sdata[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = sdata[0];
}
)CLC";

int main(int argc, char** argv) {
  app::App a("Reduction");
  long long n = 0, hostptr = 0;
  a.param("n", &n, "number of floats", 100001, 4000000, 64LL * 1024 * 1024);
  a.param("hostptr", &hostptr, "1: the input is a USE_HOST_PTR buffer over a page-aligned host array", 0, 0, 0);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "reduce");
  const size_t perGroup = 4096;
  const size_t lws = a.pickLocal1D(k, 256);  // power of two, divides perGroup
  const size_t N = (size_t)n, groups = app::divUp(N, perGroup);

  // --hostptr: the input lives in host memory the app keeps, as data an app computed or
  // read from a file would (thesis Fig. 3.11: the CPU reduces its share in place).
  const size_t alloc = (N * sizeof(float) + 4095) / 4096 * 4096;
  std::unique_ptr<float, decltype(&std::free)> hin((float*)std::aligned_alloc(4096, alloc), &std::free);
  if (!hin) {
    std::fprintf(stderr, "Reduction: host allocation of %zu bytes failed\n", alloc);
    return 2;
  }
  std::vector<float> partial(groups);
  app::Rng rng(11);
  for (size_t i = 0; i < N; ++i) hin.get()[i] = (float)rng.unit();
  std::vector<float> refPartial(groups);
  double refTotal = 0;
  for (size_t g = 0; g < groups; ++g) {
    double s = 0;
    for (size_t i = g * perGroup; i < std::min(N, (g + 1) * perGroup); ++i) s += hin.get()[i];
    refPartial[g] = (float)s;
    refTotal += s;
  }

  a.startWall();
  cl_mem din = hostptr ? a.buffer(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, N * sizeof(float), hin.get())
                       : a.buffer(CL_MEM_READ_ONLY, N * sizeof(float));
  cl_mem dpart = a.buffer(CL_MEM_WRITE_ONLY, groups * sizeof(float));
  if (!hostptr) a.write(din, N * sizeof(float), hin.get());
  a.setArgs(k, din, dpart, (cl_uint)N, (cl_uint)perGroup, app::Local(lws * sizeof(float)));
  for (int i = 0; i < a.repeat(); ++i) a.run1D(k, groups * lws, lws);
  a.read(dpart, groups * sizeof(float), partial.data());
  double total = 0;  // 2nd round on the host
  for (float p : partial) total += p;
  a.stopWall();

  // Tolerance: a partial is a float sum of 4096 values in [0,1) (~2048) in
  // a different order than the double reference: |err| <= 1e-3 + 1e-5*|ref|;
  // the total: relative 1e-5.
  bool ok = a.compareFloat("partial", partial.data(), refPartial.data(), groups, 1e-5, 1e-3);
  if (std::fabs(total - refTotal) > 1e-5 * std::fabs(refTotal)) {
    std::printf("FAIL total: got %.9g expected %.9g\n", total, refTotal);
    ok = false;
  } else {
    a.log("total %.9g (ref %.9g)\n", total, refTotal);
  }
  return a.finish(ok);
}
