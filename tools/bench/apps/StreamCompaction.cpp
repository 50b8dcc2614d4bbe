// StreamCompaction: keep the values below a threshold (about 30% of them);
// each kept value is written at an index taken from a global atomic counter,
// so the output order is nondeterministic.  Verified: the count exactly, and
// the kept values as a multiset (both sides sorted, compared exactly).
// Not in thesis Table 3.2 (SKMD excluded atomic kernels); the "thesis" preset
// uses 67 million (2^26) uint values like Histogram.  Any n (guarded).
#include "common/app.h"

static const char* kSource = R"CLC(
__kernel void streamCompact(__global const uint* in, __global uint* out,
                            __global uint* counter, const uint n,
                            const uint threshold) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  const uint v = in[i];
  if (v < threshold) out[atomic_inc(counter)] = v;
}
)CLC";

int main(int argc, char** argv) {
  app::App a("StreamCompaction");
  long long n = 0;
  a.param("n", &n, "number of uint values", 100003, 4000037, 64LL * 1024 * 1024);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "streamCompact");
  const size_t lws = a.pickLocal1D(k, 256), N = (size_t)n;
  const cl_uint threshold = 1288490189u;  // 0.3 * 2^32

  std::vector<cl_uint> hin(N), hout(N), ref;
  app::Rng rng(89);
  for (auto& x : hin) x = rng.next32();
  for (cl_uint x : hin)
    if (x < threshold) ref.push_back(x);
  std::sort(ref.begin(), ref.end());

  cl_uint count = 0;
  const cl_uint zero = 0;
  a.startWall();
  cl_mem din = a.buffer(CL_MEM_READ_ONLY, N * sizeof(cl_uint));
  cl_mem dout = a.buffer(CL_MEM_WRITE_ONLY, N * sizeof(cl_uint));
  cl_mem dcount = a.buffer(CL_MEM_READ_WRITE, sizeof(cl_uint));
  a.write(din, N * sizeof(cl_uint), hin.data());
  a.setArgs(k, din, dout, dcount, (cl_uint)N, threshold);
  for (int r = 0; r < a.repeat(); ++r) {
    a.write(dcount, sizeof(cl_uint), &zero);
    a.run1D(k, app::roundUp(N, lws), lws);
  }
  a.read(dcount, sizeof(cl_uint), &count);
  if (count > 0 && count <= N) a.read(dout, count * sizeof(cl_uint), hout.data());
  a.stopWall();

  bool ok = true;
  if (count != ref.size()) {
    std::printf("FAIL count: got %u expected %zu\n", count, ref.size());
    ok = false;
  } else {
    std::sort(hout.begin(), hout.begin() + count);
    ok = a.compareExact("kept values (sorted)", hout.data(), ref.data(), count);
    a.log("kept %u of %zu\n", count, N);
  }
  return a.finish(ok);
}
