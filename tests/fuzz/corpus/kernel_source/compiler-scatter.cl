// Scatter through an index buffer: the written range is data-dependent
// (unknown), so the kernel is discontiguous and merged with the merge kernel,
// which keeps the index loads but drops the computation.
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel scatter
// CHECK: partitionable: yes
// CHECK: contiguity: unknown
// CHECK: arg 2 out : global float* access=W range=unknown
// CHECK: unknown: data-dependent index
// CHECK: variants: scatter scatter__tutti_pr scatter__tutti_merge(partials: 2)
__kernel void scatter(__global const int *idx, __global const float *in, __global float *out) {
  int i = get_global_id(0);
  float v = in[i];
  for (int k = 0; k < 8; ++k) v = v * 0.5f + sqrt(v + (float)k);
  out[idx[i]] = v;
}
