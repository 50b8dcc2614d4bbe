// Atomics whose results are used / exchange: not partitionable; the kernel
// runs whole on one device with the reason logged.
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel compact
// CHECK: partitionable: no (argument 2 (count): the result of a global atomic is used)
// CHECK: kernel swap
// CHECK: partitionable: no (argument 0 (slot): the result of a global atomic is used)
__kernel void compact(__global const int *in, __global int *out, __global int *count) {
  int i = get_global_id(0);
  if (in[i] > 0) out[atomic_inc(count)] = in[i];
}
__kernel void swap(__global int *slot, __global int *out) {
  int i = get_global_id(0);
  out[i] = atomic_xchg(slot, i);
}
