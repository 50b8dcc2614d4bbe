// 5-point 2-D stencil with boundary copy (thesis Sobel/MedianFilter class:
// discontiguous with 2-D work-groups).
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel stencil2d
// CHECK: partitionable: yes
// CHECK: contiguity: discontiguous
// CHECK: arg 0 in : global float* access=R range=affine
// CHECK: tutti_merge
__kernel void stencil2d(__global const float *in, __global float *out, int W, int H, float c0,
                        float c1) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= W || y >= H) return;
  float v = in[y * W + x];
  if (x > 0 && y > 0 && x < W - 1 && y < H - 1)
    v = c0 * v + c1 * (in[y * W + x - 1] + in[y * W + x + 1] + in[(y - 1) * W + x] +
                       in[(y + 1) * W + x]);
  out[y * W + x] = v;
}
