// 7-point 3-D stencil (thesis FDTD3d class: discontiguous), 3-D NDRange.
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel stencil3d
// CHECK: max_dim 3
// CHECK: partitionable: yes
// CHECK: contiguity: discontiguous
// CHECK: tutti_merge
__kernel void stencil3d(__global const float *in, __global float *out, int X, int Y, int Z) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= X || y >= Y || z >= Z) return;
  int i = (z * Y + y) * X + x;
  float v = in[i] * 0.4f;
  if (x > 0) v += 0.1f * in[i - 1];
  if (x < X - 1) v += 0.1f * in[i + 1];
  if (y > 0) v += 0.1f * in[i - X];
  if (y < Y - 1) v += 0.1f * in[i + X];
  if (z > 0) v += 0.1f * in[i - X * Y];
  if (z < Z - 1) v += 0.1f * in[i + X * Y];
  out[i] = v;
}
