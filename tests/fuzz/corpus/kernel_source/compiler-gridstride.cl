// Blackscholes-style grid-stride loop (thesis Fig. 5.3(b)): a fixed number of
// work-items loops over all n elements; trip count n/T.
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel gridstride
// CHECK: partitionable: yes
// CHECK: contiguity: discontiguous
// CHECK: arg 1 out : global float* access=W range=affine
// CHECK: cost f(x):
// CHECK-SAME: gsz.x
// CHECK: tutti_merge
__kernel void gridstride(__global const float *in, __global float *out, int n, float r) {
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
    float x = in[i];
    out[i] = x * r + exp(-x * x);
  }
}
