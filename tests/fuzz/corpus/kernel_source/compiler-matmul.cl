// Tiled matrix multiplication with local memory (thesis MatrixMultiplication:
// discontiguous). C[M x N] = A[M x K] * B[K x N]; TILE x TILE work-groups.
// RUN: tutti-cc %s -DTILE=8 | FileCheck %s
// CHECK: kernel matmul
// CHECK: partitionable: yes
// CHECK: contiguity: discontiguous
// CHECK: arg 2 C : global float* access=W range=affine
// CHECK: hazards: barrier local_memory
// CHECK: variants: matmul matmul__tutti_pr matmul__tutti_merge(partials: 2)
#ifndef TILE
#define TILE 16
#endif
__kernel void matmul(__global const float *A, __global const float *B, __global float *C,
                     int M, int N, int K) {
  __local float As[TILE][TILE];
  __local float Bs[TILE][TILE];
  int col = get_global_id(0), row = get_global_id(1);
  int lx = get_local_id(0), ly = get_local_id(1);
  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    As[ly][lx] = A[row * K + t + lx];
    Bs[ly][lx] = B[(t + ly) * N + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k) acc += As[ly][k] * Bs[k][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * N + col] = acc;
}
