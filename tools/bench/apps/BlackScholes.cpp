// BlackScholes (AMD APP SDK style): European call and put prices for N
// options, one option per work-item, Abramowitz-Stegun polynomial CNDF.
// Thesis Table 3.2: 32 million options (in: S, K, T = 384 MB, out: call, put
// = 256 MB).  Odd N allowed (padded global size, guarded kernel).
#include "common/app.h"

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

__kernel void blackScholes(__global const float* S, __global const float* K,
                           __global const float* T, __global float* call,
                           __global float* put, const float r, const float v,
                           const uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float s = S[i], k = K[i], t = T[i];
  float sqrtT = sqrt(t);
  float d1 = (log(s / k) + (r + 0.5f * v * v) * t) / (v * sqrtT);
  float d2 = d1 - v * sqrtT;
  float kexp = k * exp(-r * t);
  call[i] = s * cndf(d1) - kexp * cndf(d2);
  put[i] = kexp * cndf(-d2) - s * cndf(-d1);
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

int main(int argc, char** argv) {
  app::App a("BlackScholes");
  long long n = 0;
  a.param("n", &n, "number of options", 10007, 1000003, 32LL * 1024 * 1024);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "blackScholes");

  const size_t N = (size_t)n;
  const float r = 0.02f, v = 0.30f;
  std::vector<float> hs(N), hk(N), ht(N), hcall(N), hput(N), rcall(N), rput(N);
  app::Rng rng(7);
  for (size_t i = 0; i < N; ++i) {
    hs[i] = rng.uniform(5.f, 30.f);
    hk[i] = rng.uniform(1.f, 100.f);
    ht[i] = rng.uniform(0.25f, 10.f);
  }
  for (size_t i = 0; i < N; ++i) {
    double s = hs[i], kk = hk[i], t = ht[i], sq = std::sqrt(t);
    double d1 = (std::log(s / kk) + (r + 0.5 * v * v) * t) / (v * sq);
    double d2 = d1 - v * sq;
    double kexp = kk * std::exp(-(double)r * t);
    rcall[i] = (float)(s * cndfRef(d1) - kexp * cndfRef(d2));
    rput[i] = (float)(kexp * cndfRef(-d2) - s * cndfRef(-d1));
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
