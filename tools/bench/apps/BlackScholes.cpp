// BlackScholes (AMD APP SDK style): European call and put prices for N
// options, one option per work-item, Abramowitz-Stegun polynomial CNDF.
// Thesis Table 3.2: 32 million options (in: S, K, T = 384 MB, out: call, put
// = 256 MB).  Odd N allowed (padded global size, guarded kernel).
// --hostptr 1 makes the five buffers CL_MEM_USE_HOST_PTR over page-aligned arrays
// generated per index and checks the prices in place through maps, so the host holds one
// copy of data larger than a GPU (VAST's big runs);
// --packed 1 (with --hostptr) puts S, K, T in one float4 buffer (16 n bytes: one buffer
// over NVIDIA's 19.8 GiB allocation limit from n = 1.33e9); --per P (with --hostptr) has
// each work-item price P consecutive options, so that n = 3.7e9 (88.8 GB packed) is a
// launch of fewer than 2^31 items, which Tutti's index ranges need.
#include "common/app.h"

#include <cstdlib>

static const char* kSource = R"CLC(
float cndf(float x) {
  const float a1 = 0.319381530f, a2 = -0.356563782f, a3 = 1.781477937f;
  const float a4 = -1.821255978f, a5 = 1.330274429f;
  float ax = fabs(x);
  float t = 1.0f / (1.0f + 0.2316419f * ax);
  float y = 1.0f - 0.398942280f * exp(-0.5f * x * x) *
                       t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5))));
  return x < 0.0f ? 1.0f - y : y;
}

void price(float s, float k, float t, float r, float v, __global float* call,
           __global float* put, ulong i) {
  float sqrtT = sqrt(t);
  float d1 = (log(s / k) + (r + 0.5f * v * v) * t) / (v * sqrtT);
  float d2 = d1 - v * sqrtT;
  float kexp = k * exp(-r * t);
  call[i] = s * cndf(d1) - kexp * cndf(d2);
  put[i] = kexp * cndf(-d2) - s * cndf(-d1);
}

__kernel void blackScholes(__global const float* S, __global const float* K,
                           __global const float* T, __global float* call,
                           __global float* put, const float r, const float v,
                           const uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  price(S[i], K[i], T[i], r, v, call, put, i);
}

__kernel void blackScholesPacked(__global const float4* skt, __global float* call,
                                 __global float* put, const float r, const float v,
                                 const uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float4 o = skt[i];
  price(o.x, o.y, o.z, r, v, call, put, i);
}

// --per P: each work-item prices P consecutive options (n / P items). Tutti's index
// ranges assume fewer than 2^31 work-items, so VAST's big runs (3.7e9 options) keep them.
__kernel void blackScholesPer(__global const float* S, __global const float* K,
                              __global const float* T, __global float* call,
                              __global float* put, const float r, const float v,
                              const ulong n, const uint per) {
  ulong b = (ulong)get_global_id(0) * per;
  for (uint j = 0; j < per; ++j)
    if (b + j < n) price(S[b + j], K[b + j], T[b + j], r, v, call, put, b + j);
}

__kernel void blackScholesPackedPer(__global const float4* skt, __global float* call,
                                    __global float* put, const float r, const float v,
                                    const ulong n, const uint per) {
  ulong b = (ulong)get_global_id(0) * per;
  for (uint j = 0; j < per; ++j)
    if (b + j < n) {
      float4 o = skt[b + j];
      price(o.x, o.y, o.z, r, v, call, put, b + j);
    }
}
)CLC";

static double cndfRef(double x) {
  const double a1 = 0.319381530, a2 = -0.356563782, a3 = 1.781477937;
  const double a4 = -1.821255978, a5 = 1.330274429;
  double ax = std::fabs(x);
  double t = 1.0 / (1.0 + 0.2316419 * ax);
  double y = 1.0 - 0.398942280 * std::exp(-0.5 * x * x) * t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5))));
  return x < 0.0 ? 1.0 - y : y;
}

// The double-precision prices of one option.
static void priceRef(double s, double kk, double t, double r, double v, double& call, double& put) {
  double sq = std::sqrt(t);
  double d1 = (std::log(s / kk) + (r + 0.5 * v * v) * t) / (v * sq);
  double d2 = d1 - v * sq;
  double kexp = kk * std::exp(-r * t);
  call = s * cndfRef(d1) - kexp * cndfRef(d2);
  put = kexp * cndfRef(-d2) - s * cndfRef(-d1);
}

// Inputs of the big mode, a function of the index (generated on every core).
static float unitAt(uint64_t i, uint64_t salt) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + salt;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return (float)((x ^ (x >> 31)) >> 40) * (1.0f / 16777216.0f);
}
static float sAt(uint64_t i) { return 5.f + 25.f * unitAt(i, 1); }
static float kAt(uint64_t i) { return 1.f + 99.f * unitAt(i, 2); }
static float tAt(uint64_t i) { return 0.25f + 9.75f * unitAt(i, 3); }

static int runHostPtr(app::App& a, cl_program prog, size_t N, bool packed, size_t per, float r, float v) {
  cl_kernel k = a.kernel(prog, per > 1 ? (packed ? "blackScholesPackedPer" : "blackScholesPer")
                                       : (packed ? "blackScholesPacked" : "blackScholes"));
  const size_t bytes = N * sizeof(float), inBytes = packed ? 4 * bytes : bytes;
  auto alloc = [](size_t b) { return (float*)std::aligned_alloc(4096, (b + 4095) / 4096 * 4096); };
  float *hs = alloc(inBytes), *hk = packed ? nullptr : alloc(bytes), *ht = packed ? nullptr : alloc(bytes);
  float *hc = alloc(bytes), *hp = alloc(bytes);
  if (!hs || !hc || !hp || (!packed && (!hk || !ht))) {
    std::fprintf(stderr, "BlackScholes: --hostptr: host allocation of %zu bytes failed\n", inBytes + 4 * bytes);
    return 2;
  }
  app::parallelFor(N, [=](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      if (packed) hs[4 * i] = sAt(i), hs[4 * i + 1] = kAt(i), hs[4 * i + 2] = tAt(i), hs[4 * i + 3] = 0.f;
      else hs[i] = sAt(i), hk[i] = kAt(i), ht[i] = tAt(i);
      hc[i] = hp[i] = 0.f;
    }
  });
  const size_t lws = a.pickLocal1D(k, 256), gws = app::roundUp((N + per - 1) / per, lws);
  a.startWall();
  cl_mem ds = a.buffer(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, inBytes, hs);
  cl_mem dc = a.buffer(CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, bytes, hc);
  cl_mem dp = a.buffer(CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, bytes, hp);
  if (packed) {
    if (per > 1) a.setArgs(k, ds, dc, dp, r, v, (cl_ulong)N, (cl_uint)per);
    else a.setArgs(k, ds, dc, dp, r, v, (cl_uint)N);
  } else {
    cl_mem dk = a.buffer(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, hk);
    cl_mem dt = a.buffer(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes, ht);
    if (per > 1) a.setArgs(k, ds, dk, dt, dc, dp, r, v, (cl_ulong)N, (cl_uint)per);
    else a.setArgs(k, ds, dk, dt, dc, dp, r, v, (cl_uint)N);
  }
  for (int i = 0; i < a.repeat(); ++i) a.run1D(k, gws, lws);
  cl_int err = CL_SUCCESS;
  float* call = (float*)clEnqueueMapBuffer(a.queue, dc, CL_TRUE, CL_MAP_READ, 0, bytes, 0, nullptr, nullptr, &err);
  CHECK_ERR(err, "clEnqueueMapBuffer");
  float* put = (float*)clEnqueueMapBuffer(a.queue, dp, CL_TRUE, CL_MAP_READ, 0, bytes, 0, nullptr, nullptr, &err);
  CHECK_ERR(err, "clEnqueueMapBuffer");
  a.stopWall();
  // The same tolerance as the default mode, checked on every core against prices computed
  // on the fly (no reference arrays: the data may be most of the host's memory).
  const app::Mismatches mm = app::findMismatches(N, [&](size_t i) {
    double rc, rp;
    priceRef(sAt(i), kAt(i), tAt(i), r, v, rc, rp);
    return !(std::fabs(call[i] - rc) <= 1e-3 + 1e-4 * std::fabs(rc)) ||
           !(std::fabs(put[i] - rp) <= 1e-3 + 1e-4 * std::fabs(rp));
  });
  const bool ok = mm.count == 0;
  if (!ok) std::printf("FAIL prices: %zu of %zu options mismatch; first at index %zu\n", mm.count, N, mm.first);
  else a.log("call, put: %zu options match, %.1f GB in %d USE_HOST_PTR buffers\n", N, (inBytes + 2.0 * bytes) / 1e9, packed ? 3 : 5);
  CHECK(clEnqueueUnmapMemObject(a.queue, dc, call, 0, nullptr, nullptr));
  CHECK(clEnqueueUnmapMemObject(a.queue, dp, put, 0, nullptr, nullptr));
  CHECK(clFinish(a.queue));
  const int rc = a.finish(ok);
  for (float* p : {hs, hk, ht, hc, hp}) std::free(p);
  return rc;
}

int main(int argc, char** argv) {
  app::App a("BlackScholes");
  long long n = 0, hostptr = 0, packed = 0, per = 1;
  a.param("n", &n, "number of options", 10007, 1000003, 32LL * 1024 * 1024);
  a.param("hostptr", &hostptr, "1: USE_HOST_PTR buffers, prices checked through maps", 0, 0, 0);
  a.param("packed", &packed, "1 (with --hostptr): S, K, T in one float4 buffer", 0, 0, 0);
  a.param("per", &per, "P (with --hostptr): options per work-item (n / P items)", 1, 1, 1);
  a.parse(argc, argv);
  if (per < 1 || per > 1024 || (per > 1 && !hostptr)) {
    std::fprintf(stderr, "BlackScholes: --per must be from 1 to 1024, and above 1 needs --hostptr 1\n");
    return 2;
  }
  if (packed && !hostptr) {
    std::fprintf(stderr, "BlackScholes: --packed needs --hostptr 1\n");
    return 2;
  }
  if (n <= 0 || (per == 1 && (unsigned long long)n > 0xFFFFFFFFull)) {
    std::fprintf(stderr, "BlackScholes: --n must be from 1 to 2^32 - 1 (a 32-bit index; more with --per)\n");
    return 2;
  }
  a.init();

  cl_program prog = a.build(kSource);
  const size_t N = (size_t)n;
  const float r = 0.02f, v = 0.30f;
  if (hostptr) return runHostPtr(a, prog, N, packed != 0, (size_t)per, r, v);
  cl_kernel k = a.kernel(prog, "blackScholes");
  std::vector<float> hs(N), hk(N), ht(N), hcall(N), hput(N), rcall(N), rput(N);
  app::Rng rng(7);
  for (size_t i = 0; i < N; ++i) {
    hs[i] = rng.uniform(5.f, 30.f);
    hk[i] = rng.uniform(1.f, 100.f);
    ht[i] = rng.uniform(0.25f, 10.f);
  }
  for (size_t i = 0; i < N; ++i) {
    double c, p;
    priceRef(hs[i], hk[i], ht[i], r, v, c, p);
    rcall[i] = (float)c;
    rput[i] = (float)p;
  }

  const size_t bytes = N * sizeof(float);
  const size_t lws = a.pickLocal1D(k, 256);
  const size_t gws = app::roundUp(N, lws);

  a.startWall();
  cl_mem ds = a.buffer(CL_MEM_READ_ONLY, bytes);
  cl_mem dk = a.buffer(CL_MEM_READ_ONLY, bytes);
  cl_mem dt = a.buffer(CL_MEM_READ_ONLY, bytes);
  cl_mem dcall = a.buffer(CL_MEM_WRITE_ONLY, bytes);
  cl_mem dput = a.buffer(CL_MEM_WRITE_ONLY, bytes);
  a.write(ds, bytes, hs.data());
  a.write(dk, bytes, hk.data());
  a.write(dt, bytes, ht.data());
  a.setArgs(k, ds, dk, dt, dcall, dput, r, v, (cl_uint)N);
  for (int i = 0; i < a.repeat(); ++i) a.run1D(k, gws, lws);
  a.read(dcall, bytes, hcall.data());
  a.read(dput, bytes, hput.data());
  a.stopWall();

  // Tolerance: prices are at most ~30 and are differences of two terms up to
  // ~100 each computed in float (exp/log <= 4 ulp); the reference is double.
  // |got - ref| <= 1e-3 + 1e-4 * |ref|.
  bool ok = a.compareFloat("call", hcall.data(), rcall.data(), N, 1e-4, 1e-3);
  ok = a.compareFloat("put", hput.data(), rput.data(), N, 1e-4, 1e-3) && ok;
  return a.finish(ok);
}
