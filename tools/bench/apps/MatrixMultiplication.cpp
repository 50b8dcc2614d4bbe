// MatrixMultiplication (AMD APP SDK style): C = A * B with TILE x TILE tiles
// staged in local memory, 2-D NDRange, one output element per work-item.
// Thesis Table 3.2: 8192 x 8192 matrices.  Any M, N, K (padded NDRange,
// guarded loads/stores).
//
// Inputs are small integers stored as float, so every partial sum is an
// integer below 2^24 and the product is exact in any summation order: the
// result is compared exactly.
#include "common/app.h"

static const char* kSource = R"CLC(
#ifndef TILE
#define TILE 16
#endif
// C[M x N] = A[M x K] * B[K x N], row-major.
__kernel void matrixMul(__global const float* A, __global const float* B,
                        __global float* C, const uint M, const uint N, const uint K) {
  __local float As[TILE][TILE];
  __local float Bs[TILE][TILE];
  const uint col = get_global_id(0), row = get_global_id(1);
  const uint lx = get_local_id(0), ly = get_local_id(1);
  float acc = 0.0f;
  for (uint t = 0; t < K; t += TILE) {
    uint ac = t + lx, br = t + ly;
    As[ly][lx] = (row < M && ac < K) ? A[row * K + ac] : 0.0f;
    Bs[ly][lx] = (br < K && col < N) ? B[br * N + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < TILE; ++k) acc += As[ly][k] * Bs[k][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
)CLC";

int main(int argc, char** argv) {
  app::App a("MatrixMultiplication");
  long long m = 0, n = 0, kk = 0;
  a.param("m", &m, "rows of A and C", 96, 512, 8192);
  a.param("n", &n, "columns of B and C", 80, 512, 8192);
  a.param("k", &kk, "columns of A = rows of B", 72, 512, 8192);
  a.parse(argc, argv);
  a.init();

  // Largest power-of-two tile (<= 16) whose TILE*TILE work-group is legal.
  size_t tile = 16;
  cl_program prog = nullptr;
  cl_kernel k = nullptr;
  for (;;) {
    std::string opts = "-DTILE=" + std::to_string(tile);
    prog = a.build(kSource, opts.c_str());
    k = a.kernel(prog, "matrixMul");
    if (tile * tile <= a.maxWorkGroupSize(k) && tile <= a.deviceMaxWorkItemSize(0) &&
        tile <= a.deviceMaxWorkItemSize(1))
      break;
    if (tile == 1) break;
    tile /= 2;
  }
  a.log("tile %zux%zu\n", tile, tile);

  const size_t M = (size_t)m, N = (size_t)n, K = (size_t)kk;
  std::vector<float> ha(M * K), hb(K * N), hc(M * N);
  app::Rng rng(1234);
  for (auto& x : ha) x = (float)((int)rng.below(9) - 4);
  for (auto& x : hb) x = (float)((int)rng.below(9) - 4);

  a.startWall();
  cl_mem da = a.buffer(CL_MEM_READ_ONLY, ha.size() * sizeof(float));
  cl_mem db = a.buffer(CL_MEM_READ_ONLY, hb.size() * sizeof(float));
  cl_mem dc = a.buffer(CL_MEM_WRITE_ONLY, hc.size() * sizeof(float));
  a.write(da, ha.size() * sizeof(float), ha.data());
  a.write(db, hb.size() * sizeof(float), hb.data());
  a.setArgs(k, da, db, dc, (cl_uint)M, (cl_uint)N, (cl_uint)K);
  for (int i = 0; i < a.repeat(); ++i) a.run2D(k, app::roundUp(N, tile), app::roundUp(M, tile), tile, tile);
  a.read(dc, hc.size() * sizeof(float), hc.data());
  a.stopWall();

  // Full host reference up to 2^31 multiply-adds, otherwise 8192 sampled
  // elements (each a full K-long dot product).
  bool ok;
  if ((double)M * N * K <= 2147483648.0) {
    std::vector<float> ref(M * N, 0.f);
    for (size_t i = 0; i < M; ++i)
      for (size_t p = 0; p < K; ++p) {
        float av = ha[i * K + p];
        const float* brow = &hb[p * N];
        float* crow = &ref[i * N];
        for (size_t j = 0; j < N; ++j) crow[j] += av * brow[j];
      }
    ok = a.compareExact("C", hc.data(), ref.data(), M * N);
  } else {
    const size_t samples = 8192;
    std::vector<float> got(samples), ref(samples);
    app::Rng pick(5);
    for (size_t s = 0; s < samples; ++s) {
      size_t i = pick.below((uint32_t)M), j = pick.below((uint32_t)N);
      float acc = 0.f;
      for (size_t p = 0; p < K; ++p) acc += ha[i * K + p] * hb[p * N + j];
      got[s] = hc[i * N + j];
      ref[s] = acc;
    }
    a.log("checking %zu sampled elements\n", samples);
    ok = a.compareExact("C(sampled)", got.data(), ref.data(), samples);
  }
  return a.finish(ok);
}
