// VectorAdd (AMD APP SDK style): c[i] = a[i] + b[i].
// Thesis Table 3.2: 50 million floats.  Odd sizes allowed (guarded kernel).
// --vec 4 adds float4 elements (n counts float4s), so one buffer can pass 16 GiB with a 32-bit
// index; --hostptr 1 makes the buffers CL_MEM_USE_HOST_PTR over page-aligned host arrays and
// checks the result in place through a map, so the host holds one copy of data larger than
// a GPU (VAST's big runs: > 80 GB in all, one buffer > 19.8 GiB).
#include "common/app.h"

#include <cstdlib>

static const char* kSource = R"CLC(
#if VEC == 4
typedef float4 T;
#else
typedef float T;
#endif
__kernel void vectorAdd(__global const T* a, __global const T* b,
                        __global T* c, const uint n) {
  uint i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
)CLC";

// Exactly representable inputs, so the sums are exact and independent of the device.
static float inA(size_t i) { return (float)(i % 4093) * 0.25f - 500.f; }
static float inB(size_t i) { return (float)((i * 7) % 8191) * 0.125f; }

int main(int argc, char** argv) {
  app::App a("VectorAdd");
  long long n = 0, vec = 0, hostptr = 0;
  a.param("n", &n, "number of elements (floats, or float4s with --vec 4)", 100003, 4000037, 50000000);
  a.param("vec", &vec, "element width: 1 (float) or 4 (float4)", 1, 1, 1);
  a.param("hostptr", &hostptr, "1: USE_HOST_PTR buffers, result checked through a map", 0, 0, 0);
  a.parse(argc, argv);
  if (vec != 1 && vec != 4) {
    std::fprintf(stderr, "VectorAdd: --vec must be 1 or 4\n");
    return 2;
  }
  a.init();

  cl_program prog = a.build(kSource, vec == 4 ? "-DVEC=4" : "-DVEC=1");
  cl_kernel k = a.kernel(prog, "vectorAdd");

  const size_t N = (size_t)n, F = N * (size_t)vec;  // elements, floats
  const size_t bytes = F * sizeof(float);
  const size_t lws = a.pickLocal1D(k, 256);
  const size_t gws = app::roundUp(N, lws);

  if (hostptr) {
    const size_t alloc = (bytes + 4095) / 4096 * 4096;
    float* ha = (float*)std::aligned_alloc(4096, alloc);
    float* hb = (float*)std::aligned_alloc(4096, alloc);
    float* hc = (float*)std::aligned_alloc(4096, alloc);
    if (!ha || !hb || !hc) {
      std::fprintf(stderr, "VectorAdd: --hostptr: host allocation of 3 x %zu bytes failed\n", alloc);
      return 2;
    }
    app::parallelFor(F, [=](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) ha[i] = inA(i), hb[i] = inB(i), hc[i] = 0.f;
    });
    a.startWall();
    cl_mem da = a.buffer(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, ha);
    cl_mem db = a.buffer(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, hb);
    cl_mem dc = a.buffer(CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, bytes, hc);
    a.setArgs(k, da, db, dc, (cl_uint)N);
    for (int r = 0; r < a.repeat(); ++r) a.run1D(k, gws, lws);
    cl_int err = CL_SUCCESS;
    float* got = (float*)clEnqueueMapBuffer(a.queue, dc, CL_TRUE, CL_MAP_READ, 0, bytes, 0, nullptr,
                                            nullptr, &err);
    CHECK_ERR(err, "clEnqueueMapBuffer");
    a.stopWall();
    const app::Mismatches mm = app::findMismatches(F, [&](size_t i) { return got[i] != inA(i) + inB(i); });
    const bool ok = mm.count == 0;
    if (!ok)
      std::printf("FAIL c: %zu of %zu mismatch; first at index %zu: got %.9g expected %.9g\n", mm.count, F,
                  mm.first, (double)got[mm.first], (double)(inA(mm.first) + inB(mm.first)));
    else
      a.log("c: %zu values match, %.1f GB in three USE_HOST_PTR buffers\n", F, 3.0 * bytes / 1e9);
    CHECK(clEnqueueUnmapMemObject(a.queue, dc, got, 0, nullptr, nullptr));
    CHECK(clFinish(a.queue));
    const int rc = a.finish(ok);
    std::free(ha), std::free(hb), std::free(hc);
    return rc;
  }

  std::vector<float> ha(F), hb(F), hc(F, 0.f), ref(F);
  app::Rng rng(42);
  for (size_t i = 0; i < F; ++i) {
    ha[i] = rng.uniform(-100.f, 100.f);
    hb[i] = rng.uniform(-100.f, 100.f);
    ref[i] = ha[i] + hb[i];
  }

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
  bool ok = a.compareFloat("c", hc.data(), ref.data(), F, 0.0, 0.0);
  return a.finish(ok);
}
