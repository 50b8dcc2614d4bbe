// Jacobi (thesis Table 5.3, Linear Systems): solves A x = b by
//   x_{k+1} = D^{-1}(L + U) x_k + D^{-1} b
// (A = D - L - U), a fixed number of iterations from x_0 = 0.  The iteration
// matrix M = D^{-1}(L + U) and c = D^{-1} b are formed once on the host as the
// problem's input; each iteration is then a mat-vec and a vector add, the
// kernels the thesis names (MatVecMul, VectorAdd), enqueued in program order
// on one in-order queue with no host synchronisation until the final read.
// n x n matrix, n-vectors (thesis: 4K).
//
// The system: off-diagonal entries U(-1,1)/sqrt(n), diagonal 2 + U(0,1), so the
// spectral radius of M is about 0.25 and 20 iterations converge to float
// precision; b = A x* for a random x*.
//
// Verification: the same iteration in double on the CPU from the same float
// M and c; |got-ref| <= 1e-4*|ref| + 1e-4*max|ref| (each step is a contraction,
// so float rounding does not grow), and the final x must be within 1e-3
// (relative, max norm) of x* when the iteration count is >= 20.
#include "common/mk_util.h"

int main(int argc, char** argv) {
  app::App a("mk_Jacobi");
  long long nArg = 0, itArg = 0;
  a.param("n", &nArg, "unknowns (n x n matrix)", 256, 1024, 4096);
  a.param("iters", &itArg, "Jacobi iterations", 20, 20, 20);
  a.parse(argc, argv);
  a.init();
  mk::Linalg la(a);

  const size_t n = (size_t)nArg, iters = (size_t)itArg;
  // Problem: A = D + R (R off-diagonal), b = A x*.
  app::Rng rng(41);
  std::vector<float> hM(n * n), hc(n), hxs(n), hx(n);
  const float off = 1.0f / std::sqrt((float)n);
  for (size_t i = 0; i < n; ++i) hxs[i] = rng.uniform(-1.f, 1.f);
  for (size_t i = 0; i < n; ++i) {
    double bi = 0;
    std::vector<float> rowA(n);
    for (size_t j = 0; j < n; ++j) rowA[j] = (i == j) ? 2.f + rng.uniform(0.f, 1.f) : rng.uniform(-off, off);
    for (size_t j = 0; j < n; ++j) bi += (double)rowA[j] * hxs[j];
    const double d = rowA[i];
    for (size_t j = 0; j < n; ++j) hM[i * n + j] = (i == j) ? 0.f : (float)(-rowA[j] / d);
    hc[i] = (float)(bi / d);
  }
  const std::vector<float> zeros(n, 0.f);

  a.startWall();
  cl_mem M = la.buffer(n * n, hM.data()), c = la.buffer(n, hc.data()), x0 = la.buffer(n, zeros.data());
  cl_mem x[2] = {la.buffer(n), la.buffer(n)}, y = la.buffer(n);
  cl_mem cur = x0;
  for (int rep = 0; rep < a.repeat(); ++rep) {
    cur = x0;
    for (size_t k = 0; k < iters; ++k) {
      cl_mem next = x[k % 2];
      la.matvec(M, cur, y, n, n);     // y = D^{-1}(L+U) x_k
      la.add(y, c, next, n);          // x_{k+1} = y + D^{-1} b
      cur = next;
    }
  }
  a.read(cur, n * sizeof(float), hx.data());
  a.finishQueue();
  a.stopWall();

  std::vector<double> xr(n, 0.0), yr(n);
  for (size_t k = 0; k < iters; ++k) {
    for (size_t i = 0; i < n; ++i) {
      double s = 0;
      const float* r = &hM[i * n];
      for (size_t j = 0; j < n; ++j) s += r[j] * xr[j];
      yr[i] = s + hc[i];
    }
    xr.swap(yr);
  }
  std::vector<float> ref(xr.begin(), xr.end());
  double scale = 0, errStar = 0;
  for (size_t i = 0; i < n; ++i) {
    scale = std::max(scale, std::fabs(xr[i]));
    errStar = std::max(errStar, std::fabs((double)hx[i] - hxs[i]));
  }
  bool ok = a.compareFloat("x", hx.data(), ref.data(), n, 1e-4, 1e-4 * scale);
  a.log("max |x - x*| = %.3g after %zu iterations\n", errStar, iters);
  if (iters >= 20 && !(errStar <= 1e-3)) {
    std::printf("FAIL x: not converged to x* (max err %.3g)\n", errStar);
    ok = false;
  }
  return a.finish(ok);
}
