// Global atomic min/max/or on separate buffers: all combinable.
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel minmax
// CHECK: partitionable: yes
// CHECK: combine=min.s/4
// CHECK: combine=max.u/4
// CHECK: combine=or/4
__kernel void minmax(__global const int *in, __global int *mn, __global uint *mx,
                     __global uint *bits, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  int v = in[i];
  atomic_min(&mn[i % 4], v);
  atomic_max(&mx[i % 4], (uint)v * 2654435761u);
  atomic_or(&bits[(v >> 5) & 7], 1u << (v & 31));
}
