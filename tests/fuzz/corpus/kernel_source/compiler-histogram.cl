// Histogram: per-group local histogram with local atomics, then global
// atomic_add per bin (not in the thesis, which excluded atomics). Partitioned
// with the atomic combine rule (per-device partial histograms, host add).
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel histogram
// CHECK: partitionable: yes
// CHECK: contiguity: n/a
// CHECK: arg 1 hist : global uint* access=A atomics=add combine=add/4
// CHECK: hazards: barrier local_memory global_atomics local_atomics
#define BINS 64
__kernel void histogram(__global const uint *data, __global uint *hist, int n) {
  __local uint lh[BINS];
  int lid = get_local_id(0), ls = get_local_size(0);
  for (int b = lid; b < BINS; b += ls) lh[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int i = get_global_id(0);
  if (i < n) atomic_inc(&lh[data[i] % BINS]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = lid; b < BINS; b += ls)
    if (lh[b]) atomic_add(&hist[b], lh[b]);
}
