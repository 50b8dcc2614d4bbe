// Reachability Gramian (thesis Table 5.3, Control Theory):
//   R = A P + P A^T + B B^T,   A, P, B n x n (thesis: 4K x 4K).
// Evaluates the left-hand side of the Lyapunov equation whose solution is the
// reachability Gramian, as the thesis benchmark does.  Kernels in program order
// on one in-order queue: transpose A, A P, P A^T, transpose B, B B^T, two adds -
// three independent matmuls a scheduler may spread over devices.
//
// Verification: double-precision CPU reference, all rows for n <= 256, else 8
// sampled rows.  Tolerance |got-ref| <= 1e-3*|ref| + 1e-4*max|ref|.
#include "common/mk_util.h"

int main(int argc, char** argv) {
  app::App a("mk_ReachabilityGramian");
  long long nArg = 0;
  a.param("n", &nArg, "matrix side (n x n matrices)", 64, 256, 4096);
  a.parse(argc, argv);
  a.init();
  mk::Linalg la(a);

  const size_t n = (size_t)nArg, nn = n * n;
  const std::vector<float> hA = mk::randomMatrix(nn, 21), hP = mk::randomMatrix(nn, 22), hB = mk::randomMatrix(nn, 23);
  std::vector<float> hR(nn);

  a.startWall();
  cl_mem A = la.buffer(nn, hA.data()), P = la.buffer(nn, hP.data()), B = la.buffer(nn, hB.data());
  cl_mem At = la.buffer(nn), AP = la.buffer(nn), PAt = la.buffer(nn), Bt = la.buffer(nn), BBt = la.buffer(nn);
  cl_mem S = la.buffer(nn), R = la.buffer(nn);
  for (int rep = 0; rep < a.repeat(); ++rep) {
    la.transpose(A, At, n, n);
    la.matmul(A, P, AP, n, n, n);
    la.matmul(P, At, PAt, n, n, n);
    la.transpose(B, Bt, n, n);
    la.matmul(B, Bt, BBt, n, n, n);
    la.add(AP, PAt, S, nn);
    la.add(S, BBt, R, nn);
  }
  a.read(R, nn * sizeof(float), hR.data());
  a.finishQueue();
  a.stopWall();

  const std::vector<size_t> rows = mk::checkRows(n);
  std::vector<mk::Vec> ref;
  for (size_t i : rows) {
    mk::Vec r = mk::vecMat(mk::row(hA, n, i), hP, n);           // (A P)_i
    mk::axpyInto(r, +1, mk::vecMatT(mk::row(hP, n, i), hA, n));  // (P A^T)_i
    mk::axpyInto(r, +1, mk::vecMatT(mk::row(hB, n, i), hB, n));  // (B B^T)_i
    ref.push_back(std::move(r));
  }
  bool ok = mk::compareRows(a, "R", hR, n, rows, ref, 1e-3, 1e-4);
  return a.finish(ok);
}
