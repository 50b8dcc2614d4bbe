// VectorAdd (AMD APP SDK style): c[i] = a[i] + b[i].
// Thesis Table 3.2: 50 million floats.  Odd sizes allowed (guarded kernel).
#include "common/app.h"

static const char* kSource = R"CLC(
__kernel void vectorAdd(__global const float* a, __global const float* b,
                        __global float* c, const uint n) {
  uint i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
)CLC";

int main(int argc, char** argv) {
  app::App a("VectorAdd");
  long long n = 0;
  a.param("n", &n, "number of float elements", 100003, 4000037, 50000000);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "vectorAdd");

  const size_t N = (size_t)n;
  std::vector<float> ha(N), hb(N), hc(N, 0.f), ref(N);
  app::Rng rng(42);
  for (size_t i = 0; i < N; ++i) {
    ha[i] = rng.uniform(-100.f, 100.f);
    hb[i] = rng.uniform(-100.f, 100.f);
    ref[i] = ha[i] + hb[i];
  }

  const size_t bytes = N * sizeof(float);
  const size_t lws = a.pickLocal1D(k, 256);
  const size_t gws = app::roundUp(N, lws);

  a.startWall();
  cl_mem da = a.buffer(CL_MEM_READ_ONLY, bytes);
  cl_mem db = a.buffer(CL_MEM_READ_ONLY, bytes);
  cl_mem dc = a.buffer(CL_MEM_WRITE_ONLY, bytes);
  a.write(da, bytes, ha.data());
  a.write(db, bytes, hb.data());
  a.setArgs(k, da, db, dc, (cl_uint)N);
  for (int r = 0; r < a.repeat(); ++r) a.run1D(k, gws, lws);
  a.read(dc, bytes, hc.data());
  a.stopWall();

  // Single IEEE float addition on both sides: results must be bit-identical.
  bool ok = a.compareFloat("c", hc.data(), ref.data(), N, 0.0, 0.0);
  return a.finish(ok);
}
