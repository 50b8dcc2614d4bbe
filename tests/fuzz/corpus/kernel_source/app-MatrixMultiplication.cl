//fuzz:|-DTILE=16

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
