// HistogramAtomic: 256-bin histogram with global atomics: one value per
// work-item, atomic_inc on the global bin (low byte of the value).  Not in
// thesis Table 3.2 (SKMD excluded atomic kernels); the "thesis" preset uses
// the Histogram size, 67 million (2^26) uint values.  Any n (guarded).
#include "common/app.h"

static const char* kSource = R"CLC(
__kernel void histogramAtomic(__global const uint* data, __global uint* bins,
                              const uint n) {
  const uint i = get_global_id(0);
  if (i < n) atomic_inc(&bins[data[i] & 0xFFu]);
}
)CLC";

int main(int argc, char** argv) {
  app::App a("HistogramAtomic");
  long long n = 0;
  a.param("n", &n, "number of uint values", 100003, 4000037, 64LL * 1024 * 1024);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "histogramAtomic");
  const size_t lws = a.pickLocal1D(k, 256), N = (size_t)n, bins = 256;

  std::vector<cl_uint> hin(N), hist(bins), ref(bins, 0), zero(bins, 0);
  app::Rng rng(83);
  // Skewed data (sum of two uniform bytes, folded): uneven bin contention.
  for (auto& x : hin) x = (rng.below(256) + rng.below(256)) & 0xFF;
  for (cl_uint x : hin) ref[x & 0xFF]++;

  a.startWall();
  cl_mem din = a.buffer(CL_MEM_READ_ONLY, N * sizeof(cl_uint));
  cl_mem dbins = a.buffer(CL_MEM_READ_WRITE, bins * sizeof(cl_uint));
  a.write(din, N * sizeof(cl_uint), hin.data());
  a.setArgs(k, din, dbins, (cl_uint)N);
  for (int r = 0; r < a.repeat(); ++r) {
    a.write(dbins, bins * sizeof(cl_uint), zero.data());
    a.run1D(k, app::roundUp(N, lws), lws);
  }
  a.read(dbins, bins * sizeof(cl_uint), hist.data());
  a.stopWall();

  bool ok = a.compareExact("bins", hist.data(), ref.data(), bins);
  return a.finish(ok);
}
