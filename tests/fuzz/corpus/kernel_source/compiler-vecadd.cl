// Vector add (thesis Table 3.2 VectorAdd: contiguous).
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel vecadd
// CHECK: partitionable: yes
// CHECK: contiguity: contiguous
// CHECK: arg 0 a : global float* access=R range=affine
// CHECK: arg 2 c : global float* access=W range=affine
// CHECK: store 4B @ 4*grp.x*elsz.x + 4*lid.x + 4*goff.x  [<= 4*arg(n) - 4]
// CHECK: cost f(x):
// CHECK: variants: vecadd vecadd__tutti_pr vecadd__tutti_merge(partials: 2)
__kernel void vecadd(__global const float *a, __global const float *b, __global float *c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
