// A uniform early return before a barrier, then a per-work-item exit and a loop whose
// zero-trip test leaves early (issue 20, reduced from mapreduce's mr_map_overflow). PoCL
// let work-item 0 choose its group's exit in our bitcode until the spir64 codegen gave
// the exits after the barrier their own return (passes/BarrierExits.cpp); the equivalence
// test compares its split runs with PoCL's own build of this source.
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel early_return_barrier
// CHECK: partitionable: yes
// CHECK: contiguity: contiguous
// CHECK: arg 2 out : global uint* access=W
// CHECK: hazards: barrier local_memory local_atomics
// CHECK: variants: early_return_barrier early_return_barrier__tutti_pr
__kernel void early_return_barrier(__global const uint *groupOn, __global const uint *keep,
                                   __global uint *out) {
  __local uint count;
  if (groupOn[get_group_id(0)] == 0) return;  // uniform over the work-group
  if (get_local_id(0) == 0) count = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint i = get_global_id(0);
  if (i >= 100000) return;  // per work-item (none here)
  uint n = keep[i];
  for (uint j = 0; j < n; ++j)
    if (atomic_inc(&count) < 100000) out[i] = i + 1;
}
