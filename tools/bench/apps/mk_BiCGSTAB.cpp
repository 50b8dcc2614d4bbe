// BiCGSTAB (thesis Table 5.3, Linear Systems: "iterative method with 11
// operations"): unpreconditioned BiCGSTAB for A x = b, n x n nonsymmetric A,
// a fixed number of iterations from x_0 = 0 (thesis: n = 4K).
//
// Per iteration, in program order on one in-order queue:
//   v = A p                      matvec
//   alpha = rho / (r^ . v)       dot_partial + bicg_alpha
//   s = r - alpha v              vec_sub_scaled
//   t = A s                      matvec
//   omega = (t . s) / (t . t)    2 x dot_partial + bicg_omega
//   x = x + alpha p + omega s    bicg_update_x
//   r = s - omega t              vec_sub_scaled
//   rho' = r^ . r, beta = (rho'/rho)(alpha/omega)   dot_partial + bicg_beta
//   p = r + beta (p - omega v)   bicg_update_p
// Dot products are two-round reductions: dot_partial leaves one partial sum per
// work-group and a one-work-item kernel adds them and forms the scalar in a
// small device buffer that later kernels read.  The scalars never go to the
// host, so the whole solve is enqueued without any host synchronisation until
// the final read (reading the partials on the host would put a blocking read
// and a host round trip between every pair of kernels).  Division by an exact
// zero (a converged or broken-down iteration) yields a zero coefficient.
//
// The system: off-diagonal entries U(-1,1)/sqrt(n), diagonal 2 + U(0,1) (well
// conditioned, converges to float precision in about 8 iterations); b = A x*.
//
// Verification: the same algorithm in double on the CPU with the same float A
// and b; |got-ref| <= 1e-3*|ref| + 1e-4*max|ref| (both have converged, the
// difference is float rounding), and the relative residual ||b - A x|| / ||b||
// (computed in double) must be <= 1e-4.
#include "common/mk_util.h"

static const char* kBicgSource = R"CLC(
// S: 0 rho, 1 alpha, 2 omega, 3 beta
__kernel void bicg_rho0(__global const float* part, __global float* S, const uint ng) {
  float s = 0.0f;
  for (uint g = 0; g < ng; ++g) s += part[g];
  S[0] = s; S[1] = 0.0f; S[2] = 0.0f; S[3] = 0.0f;
}
__kernel void bicg_alpha(__global const float* part, __global float* S, const uint ng) {
  float d = 0.0f;
  for (uint g = 0; g < ng; ++g) d += part[g];
  S[1] = (d != 0.0f) ? S[0] / d : 0.0f;
}
__kernel void bicg_omega(__global const float* ts, __global const float* tt, __global float* S,
                         const uint ng) {
  float a = 0.0f, b = 0.0f;
  for (uint g = 0; g < ng; ++g) { a += ts[g]; b += tt[g]; }
  S[2] = (b != 0.0f) ? a / b : 0.0f;
}
__kernel void bicg_beta(__global const float* part, __global float* S, const uint ng) {
  float rn = 0.0f;
  for (uint g = 0; g < ng; ++g) rn += part[g];
  S[3] = (S[0] != 0.0f && S[2] != 0.0f) ? (rn / S[0]) * (S[1] / S[2]) : 0.0f;
  S[0] = rn;
}
// out = x - S[k] * y
__kernel void vec_sub_scaled(__global const float* x, __global const float* y, __global float* out,
                             __global const float* S, const uint k, const uint n) {
  const uint i = get_global_id(0);
  if (i < n) out[i] = x[i] - S[k] * y[i];
}
// x += alpha p + omega s
__kernel void bicg_update_x(__global float* x, __global const float* p, __global const float* s,
                            __global const float* S, const uint n) {
  const uint i = get_global_id(0);
  if (i < n) x[i] = x[i] + S[1] * p[i] + S[2] * s[i];
}
// p = r + beta (p - omega v)
__kernel void bicg_update_p(__global float* p, __global const float* r, __global const float* v,
                            __global const float* S, const uint n) {
  const uint i = get_global_id(0);
  if (i < n) p[i] = r[i] + S[3] * (p[i] - S[2] * v[i]);
}
)CLC";

namespace {
enum { RHO = 0, ALPHA = 1, OMEGA = 2, BETA = 3 };

// CPU reference: the same iteration in double.
std::vector<double> bicgstabRef(const std::vector<float>& A, const std::vector<float>& b, size_t n, size_t iters) {
  auto matvec = [&](const std::vector<double>& v) {
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i) {
      double s = 0;
      for (size_t j = 0; j < n; ++j) s += (double)A[i * n + j] * v[j];
      out[i] = s;
    }
    return out;
  };
  auto dot = [&](const std::vector<double>& u, const std::vector<double>& v) {
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += u[i] * v[i];
    return s;
  };
  std::vector<double> x(n, 0.0), r(b.begin(), b.end()), rh = r, p = r, s(n);
  double rho = dot(rh, r);
  for (size_t it = 0; it < iters; ++it) {
    std::vector<double> v = matvec(p);
    double d = dot(rh, v), alpha = d != 0 ? rho / d : 0;
    for (size_t i = 0; i < n; ++i) s[i] = r[i] - alpha * v[i];
    std::vector<double> t = matvec(s);
    double tt = dot(t, t), omega = tt != 0 ? dot(t, s) / tt : 0;
    for (size_t i = 0; i < n; ++i) x[i] += alpha * p[i] + omega * s[i];
    for (size_t i = 0; i < n; ++i) r[i] = s[i] - omega * t[i];
    double rn = dot(rh, r), beta = (rho != 0 && omega != 0) ? (rn / rho) * (alpha / omega) : 0;
    rho = rn;
    for (size_t i = 0; i < n; ++i) p[i] = r[i] + beta * (p[i] - omega * v[i]);
  }
  return x;
}
}  // namespace

int main(int argc, char** argv) {
  app::App a("mk_BiCGSTAB");
  long long nArg = 0, itArg = 0;
  a.param("n", &nArg, "unknowns (n x n matrix)", 256, 1024, 4096);
  a.param("iters", &itArg, "BiCGSTAB iterations", 12, 12, 12);
  a.parse(argc, argv);
  a.init();
  mk::Linalg la(a, kBicgSource);
  cl_program prog = la.program();
  cl_kernel kRho0 = a.kernel(prog, "bicg_rho0"), kAlpha = a.kernel(prog, "bicg_alpha");
  cl_kernel kOmega = a.kernel(prog, "bicg_omega"), kBeta = a.kernel(prog, "bicg_beta");
  cl_kernel kSub = a.kernel(prog, "vec_sub_scaled"), kUpdX = a.kernel(prog, "bicg_update_x");
  cl_kernel kUpdP = a.kernel(prog, "bicg_update_p");

  const size_t n = (size_t)nArg, iters = (size_t)itArg;
  app::Rng rng(51);
  std::vector<float> hA(n * n), hb(n), hxs(n), hx(n);
  const float off = 1.0f / std::sqrt((float)n);
  for (size_t i = 0; i < n; ++i) hxs[i] = rng.uniform(-1.f, 1.f);
  for (size_t i = 0; i < n; ++i) {
    double bi = 0;
    for (size_t j = 0; j < n; ++j) {
      hA[i * n + j] = (i == j) ? 2.f + rng.uniform(0.f, 1.f) : rng.uniform(-off, off);
      bi += (double)hA[i * n + j] * hxs[j];
    }
    hb[i] = (float)bi;
  }

  const size_t ng = la.dotGroups(n), lws = la.lws1(), gws = app::roundUp(n, lws);
  const cl_uint un = (cl_uint)n, ung = (cl_uint)ng;
  auto scalar = [&](cl_kernel k) { a.run1D(k, 1, 1); };
  auto subScaled = [&](cl_mem x, cl_mem y, cl_mem out, cl_mem S, cl_uint idx) {
    a.setArgs(kSub, x, y, out, S, idx, un);
    a.run1D(kSub, gws, lws);
  };

  a.startWall();
  cl_mem A = la.buffer(n * n, hA.data()), b = la.buffer(n, hb.data());
  cl_mem x = la.buffer(n), r = la.buffer(n), p = la.buffer(n), v = la.buffer(n), s = la.buffer(n),
         t = la.buffer(n);
  cl_mem S = la.buffer(4), P1 = la.buffer(ng), P2 = la.buffer(ng), P3 = la.buffer(ng);
  const cl_mem& rhat = b;  // r^ = r_0 = b (x_0 = 0)
  for (int rep = 0; rep < a.repeat(); ++rep) {
    const float zero = 0.f;
    CHECK(clEnqueueFillBuffer(a.queue, x, &zero, sizeof(zero), 0, n * sizeof(float), 0, nullptr, nullptr));
    CHECK(clEnqueueCopyBuffer(a.queue, b, r, 0, 0, n * sizeof(float), 0, nullptr, nullptr));
    CHECK(clEnqueueCopyBuffer(a.queue, b, p, 0, 0, n * sizeof(float), 0, nullptr, nullptr));
    la.dotPartial(rhat, r, P1, n);
    a.setArgs(kRho0, P1, S, ung);
    scalar(kRho0);
    for (size_t it = 0; it < iters; ++it) {
      la.matvec(A, p, v, n, n);
      la.dotPartial(rhat, v, P1, n);
      a.setArgs(kAlpha, P1, S, ung);
      scalar(kAlpha);
      subScaled(r, v, s, S, ALPHA);
      la.matvec(A, s, t, n, n);
      la.dotPartial(t, s, P2, n);
      la.dotPartial(t, t, P3, n);
      a.setArgs(kOmega, P2, P3, S, ung);
      scalar(kOmega);
      a.setArgs(kUpdX, x, p, s, S, un);
      a.run1D(kUpdX, gws, lws);
      subScaled(s, t, r, S, OMEGA);
      la.dotPartial(rhat, r, P1, n);
      a.setArgs(kBeta, P1, S, ung);
      scalar(kBeta);
      a.setArgs(kUpdP, p, r, v, S, un);
      a.run1D(kUpdP, gws, lws);
    }
  }
  a.read(x, n * sizeof(float), hx.data());
  a.finishQueue();
  a.stopWall();

  const std::vector<double> xr = bicgstabRef(hA, hb, n, iters);
  std::vector<float> ref(xr.begin(), xr.end());
  double scale = 0, res2 = 0, b2 = 0;
  for (size_t i = 0; i < n; ++i) {
    scale = std::max(scale, std::fabs(xr[i]));
    double ri = hb[i];
    for (size_t j = 0; j < n; ++j) ri -= (double)hA[i * n + j] * hx[j];
    res2 += ri * ri;
    b2 += (double)hb[i] * hb[i];
  }
  bool ok = a.compareFloat("x", hx.data(), ref.data(), n, 1e-3, 1e-4 * scale);
  const double relRes = std::sqrt(res2 / b2);
  a.log("relative residual ||b - A x|| / ||b|| = %.3g after %zu iterations\n", relRes, iters);
  if (!(relRes <= 1e-4)) {
    std::printf("FAIL x: relative residual %.3g > 1e-4\n", relRes);
    ok = false;
  }
  return a.finish(ok);
}
