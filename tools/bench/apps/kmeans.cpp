// K-means (one model): Lloyd iterations with an assignment kernel and a
// two-kernel centroid update, a fixed number of iterations, all on one
// in-order queue (see mk_util.h, runKmeans).  Sizes: thesis = the StreamMR KM
// large input (Elteir, Table 4.2: 131,072 points), 2-D, K = 10, 10 iterations.
#include "common/mk_util.h"

int main(int argc, char** argv) {
  app::App a("kmeans");
  mk::KmeansSize s;
  a.param("n", &s.n, "data points", 4096, 32768, 131072);
  a.param("k", &s.k, "clusters", 8, 10, 10);
  a.param("d", &s.d, "dimensions (<= 8)", 2, 2, 2);
  a.param("iters", &s.iters, "Lloyd iterations", 5, 10, 10);
  a.parse(argc, argv);
  a.init();
  return mk::runKmeans(a, s);
}
