// Algebraic Bernoulli Equation, ABE (thesis Table 5.3, System Theory):
//   R = A^T X + X A - X B B^T X,   A, B, X n x n (thesis: 4K x 4K).
// The thesis benchmarks evaluate the left-hand side of the equation (the
// residual for a candidate X); so does this app.  Kernels in program order on
// one in-order queue: transpose A, A^T X, X A, transpose B, B B^T, X (B B^T),
// (X B B^T) X, add, subtract - 5 matmuls, 2 transposes, 2 matrix adds, with
// independent branches a scheduler may run side by side.
//
// Verification: double-precision CPU reference, all rows for n <= 256, else 8
// sampled rows.  Tolerance |got-ref| <= 1e-3*|ref| + 1e-4*max|ref| (float
// error of the longest chain, three n-long dot products, ~sqrt(n)*eps).
#include "common/mk_util.h"

int main(int argc, char** argv) {
  app::App a("mk_ABE");
  long long nArg = 0;
  a.param("n", &nArg, "matrix side (n x n matrices)", 64, 256, 4096);
  a.parse(argc, argv);
  a.init();
  mk::Linalg la(a);

  const size_t n = (size_t)nArg, nn = n * n;
  const std::vector<float> hA = mk::randomMatrix(nn, 11), hB = mk::randomMatrix(nn, 12), hX = mk::randomMatrix(nn, 13);
  std::vector<float> hR(nn);

  a.startWall();
  cl_mem A = la.buffer(nn, hA.data()), B = la.buffer(nn, hB.data()), X = la.buffer(nn, hX.data());
  cl_mem At = la.buffer(nn), AtX = la.buffer(nn), XA = la.buffer(nn), Bt = la.buffer(nn), BBt = la.buffer(nn);
  cl_mem XBBt = la.buffer(nn), XBBtX = la.buffer(nn), S = la.buffer(nn), R = la.buffer(nn);
  for (int rep = 0; rep < a.repeat(); ++rep) {
    la.transpose(A, At, n, n);
    la.matmul(At, X, AtX, n, n, n);
    la.matmul(X, A, XA, n, n, n);
    la.transpose(B, Bt, n, n);
    la.matmul(B, Bt, BBt, n, n, n);
    la.matmul(X, BBt, XBBt, n, n, n);
    la.matmul(XBBt, X, XBBtX, n, n, n);
    la.add(AtX, XA, S, nn);
    la.sub(S, XBBtX, R, nn);
  }
  a.read(R, nn * sizeof(float), hR.data());
  a.finishQueue();
  a.stopWall();

  const std::vector<size_t> rows = mk::checkRows(n);
  std::vector<mk::Vec> ref;
  for (size_t i : rows) {
    const mk::Vec x_i = mk::row(hX, n, i);
    mk::Vec r = mk::vecMat(mk::col(hA, n, i), hX, n);                        // (A^T X)_i
    mk::axpyInto(r, +1, mk::vecMat(x_i, hA, n));                             // (X A)_i
    mk::axpyInto(r, -1, mk::vecMat(mk::vecMatT(mk::vecMat(x_i, hB, n), hB, n), hX, n));  // (X B B^T X)_i
    ref.push_back(std::move(r));
  }
  bool ok = mk::compareRows(a, "R", hR, n, rows, ref, 1e-3, 1e-4);
  return a.finish(ok);
}
