// Reduction, first round: each work-group sums its chunk in local memory and
// writes one partial sum (thesis Reduction: discontiguous by its definition;
// here each group writes one distinct, consecutive element, which the
// generalized definition classifies as contiguous).
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel reduce
// CHECK: partitionable: yes
// CHECK: contiguity: contiguous
// CHECK: arg 1 partial : global float* access=W range=affine
// CHECK: store 4B @ 4*grp.x
// CHECK: tutti_merge
__kernel void reduce(__global const float *in, __global float *partial, __local float *scratch,
                     int n) {
  int lid = get_local_id(0), gid = get_global_id(0);
  scratch[lid] = gid < n ? in[gid] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
