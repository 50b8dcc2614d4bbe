// Ensemble K-means by concatenated parallelism (Ravunnikutty, Ch. 5.3): M models
// with different initial centroids clustered together, one NDRange covering all
// models per kernel, data read once per iteration (see mk_util.h, runKmeans).
// Sizes: thesis = Ch. 7 set-up: 1M 2-D points, K = 10, 10 iterations, M = 10.
#include "common/mk_util.h"

int main(int argc, char** argv) {
  app::App a("kmeans_ensemble");
  mk::KmeansSize s;
  a.param("n", &s.n, "data points", 4096, 65536, 1048576);
  a.param("k", &s.k, "clusters per model", 8, 10, 10);
  a.param("d", &s.d, "dimensions (<= 8)", 2, 2, 2);
  a.param("iters", &s.iters, "Lloyd iterations", 5, 10, 10);
  a.param("m", &s.m, "models in the ensemble", 4, 8, 10);
  a.parse(argc, argv);
  a.init();
  return mk::runKmeans(a, s);
}
