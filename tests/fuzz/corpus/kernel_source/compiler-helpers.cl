// Aliasing through local pointer variables, casts, vector loads/stores and
// helper functions (issue: argument access analysis), plus an in-place update.
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel helpers
// CHECK: partitionable: yes
// CHECK: contiguity: contiguous
// CHECK: arg 0 src : global float* access=R range=affine
// CHECK: arg 1 acc : global float* access=RW range=affine
// CHECK: arg 2 dst : global float* access=W range=affine
// CHECK: store 16B
// CHECK: tutti_merge
static float4 load4(__global const float *p, int i) { return vload4(i, p); }
static void store4(__global float *p, int i, float4 v) { vstore4(v, i, p); }
static void bump(__global float *p, float s) { *p = *p * s + 1.0f; }

__kernel void helpers(__global const float *src, __global float *acc, __global float *dst,
                      float s) {
  int i = get_global_id(0);
  __global const float *q = src;      // local pointer variable
  __global float *a = acc + 4 * i;    // pointer arithmetic
  float4 v = load4(q, i);
  store4(dst, i, v * s);
  for (int k = 0; k < 4; ++k) bump(a + k, s);
  __global uint *bits = (__global uint *)dst;  // cast: write through another type
  if (i == 0) bits[0] ^= 0u;
}
