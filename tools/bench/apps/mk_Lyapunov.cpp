// Continuous Lyapunov (thesis Table 5.3, Control Theory):
//   R = A X + X A^T + Q,   A, X, Q n x n (thesis: 4K x 4K).
// The thesis lists the equation's left-hand side as the benchmark (not a
// solver), so this app evaluates it for given A, X, Q.  Kernels in program
// order on one in-order queue: transpose A, A X, X A^T, two adds - the two
// matmuls are independent.
//
// Verification: double-precision CPU reference, all rows for n <= 256, else 8
// sampled rows.  Tolerance |got-ref| <= 1e-3*|ref| + 1e-4*max|ref|.
#include "common/mk_util.h"

int main(int argc, char** argv) {
  app::App a("mk_Lyapunov");
  long long nArg = 0;
  a.param("n", &nArg, "matrix side (n x n matrices)", 64, 256, 4096);
  a.parse(argc, argv);
  a.init();
  mk::Linalg la(a);

  const size_t n = (size_t)nArg, nn = n * n;
  const std::vector<float> hA = mk::randomMatrix(nn, 31), hX = mk::randomMatrix(nn, 32), hQ = mk::randomMatrix(nn, 33);
  std::vector<float> hR(nn);

  a.startWall();
  cl_mem A = la.buffer(nn, hA.data()), X = la.buffer(nn, hX.data()), Q = la.buffer(nn, hQ.data());
  cl_mem At = la.buffer(nn), AX = la.buffer(nn), XAt = la.buffer(nn), S = la.buffer(nn), R = la.buffer(nn);
  for (int rep = 0; rep < a.repeat(); ++rep) {
    la.transpose(A, At, n, n);
    la.matmul(A, X, AX, n, n, n);
    la.matmul(X, At, XAt, n, n, n);
    la.add(AX, XAt, S, nn);
    la.add(S, Q, R, nn);
  }
  a.read(R, nn * sizeof(float), hR.data());
  a.finishQueue();
  a.stopWall();

  const std::vector<size_t> rows = mk::checkRows(n);
  std::vector<mk::Vec> ref;
  for (size_t i : rows) {
    mk::Vec r = mk::vecMat(mk::row(hA, n, i), hX, n);           // (A X)_i
    mk::axpyInto(r, +1, mk::vecMatT(mk::row(hX, n, i), hA, n));  // (X A^T)_i
    mk::axpyInto(r, +1, mk::row(hQ, n, i));                      // Q_i
    ref.push_back(std::move(r));
  }
  bool ok = mk::compareRows(a, "R", hR, n, rows, ref, 1e-3, 1e-4);
  return a.finish(ok);
}
