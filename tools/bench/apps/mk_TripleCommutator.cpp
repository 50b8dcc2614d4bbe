// Triple Commutator (thesis Table 5.3, Mathematics):
//   R = ABC + BCA + CAB - BAC - ACB - CBA,   A, B, C n x n (thesis: 4K x 4K).
// Kernel graph as in thesis Fig. 5.12: six independent pairwise products, six
// products with the third matrix, then the additions: 12 matmuls + 5 matrix
// adds, all enqueued in program order on one in-order queue, with no host
// synchronisation until the final read.  Every intermediate has its own buffer,
// so the only dependences between kernels are true data dependences.
//
// Verification: double-precision CPU reference, all rows for n <= 256, else 8
// sampled rows (a row of a product chain costs O(n^2)).  Tolerance per element
// |got-ref| <= 1e-3*|ref| + 1e-4*max|ref|: float accumulation error of a chain
// of two n-long dot products is ~sqrt(n)*eps relative, about 1e-5 at n=4096.
#include "common/mk_util.h"

int main(int argc, char** argv) {
  app::App a("mk_TripleCommutator");
  long long nArg = 0;
  a.param("n", &nArg, "matrix side (n x n matrices)", 64, 256, 4096);
  a.parse(argc, argv);
  a.init();
  mk::Linalg la(a);

  const size_t n = (size_t)nArg, nn = n * n;
  const std::vector<float> hA = mk::randomMatrix(nn, 1), hB = mk::randomMatrix(nn, 2), hC = mk::randomMatrix(nn, 3);
  std::vector<float> hR(nn);

  a.startWall();
  cl_mem A = la.buffer(nn, hA.data()), B = la.buffer(nn, hB.data()), C = la.buffer(nn, hC.data());
  cl_mem AB = la.buffer(nn), BC = la.buffer(nn), CA = la.buffer(nn);
  cl_mem BA = la.buffer(nn), AC = la.buffer(nn), CB = la.buffer(nn);
  cl_mem ABC = la.buffer(nn), BCA = la.buffer(nn), CAB = la.buffer(nn);
  cl_mem BAC = la.buffer(nn), ACB = la.buffer(nn), CBA = la.buffer(nn);
  cl_mem P1 = la.buffer(nn), P2 = la.buffer(nn), N1 = la.buffer(nn), N2 = la.buffer(nn), R = la.buffer(nn);
  for (int rep = 0; rep < a.repeat(); ++rep) {
    la.matmul(A, B, AB, n, n, n);      // 1
    la.matmul(AB, C, ABC, n, n, n);    // 2
    la.matmul(B, C, BC, n, n, n);      // 3
    la.matmul(BC, A, BCA, n, n, n);    // 4
    la.matmul(C, A, CA, n, n, n);      // 5
    la.matmul(CA, B, CAB, n, n, n);    // 6
    la.matmul(B, A, BA, n, n, n);      // 7
    la.matmul(BA, C, BAC, n, n, n);    // 8
    la.matmul(A, C, AC, n, n, n);      // 9
    la.matmul(AC, B, ACB, n, n, n);    // 10
    la.matmul(C, B, CB, n, n, n);      // 11
    la.matmul(CB, A, CBA, n, n, n);    // 12
    la.add(ABC, BCA, P1, nn);
    la.add(P1, CAB, P2, nn);
    la.add(BAC, ACB, N1, nn);
    la.add(N1, CBA, N2, nn);
    la.sub(P2, N2, R, nn);
  }
  a.read(R, nn * sizeof(float), hR.data());
  a.finishQueue();
  a.stopWall();

  const std::vector<size_t> rows = mk::checkRows(n);
  std::vector<mk::Vec> ref;
  for (size_t i : rows) {
    const mk::Vec a_i = mk::row(hA, n, i), b_i = mk::row(hB, n, i), c_i = mk::row(hC, n, i);
    mk::Vec r(n, 0.0);
    mk::axpyInto(r, +1, mk::vecMat(mk::vecMat(a_i, hB, n), hC, n));  // ABC
    mk::axpyInto(r, +1, mk::vecMat(mk::vecMat(b_i, hC, n), hA, n));  // BCA
    mk::axpyInto(r, +1, mk::vecMat(mk::vecMat(c_i, hA, n), hB, n));  // CAB
    mk::axpyInto(r, -1, mk::vecMat(mk::vecMat(b_i, hA, n), hC, n));  // BAC
    mk::axpyInto(r, -1, mk::vecMat(mk::vecMat(a_i, hC, n), hB, n));  // ACB
    mk::axpyInto(r, -1, mk::vecMat(mk::vecMat(c_i, hB, n), hA, n));  // CBA
    ref.push_back(std::move(r));
  }
  bool ok = mk::compareRows(a, "R", hR, n, rows, ref, 1e-3, 1e-4);
  return a.finish(ok);
}
