// Every work-item function, for a non-uniform (OpenCL 2.0) NDRange: the
// partition-ready kernel must answer them all as the full launch would.
// RUN: tutti-cc %s -cl-std=CL2.0 | FileCheck %s
// CHECK: kernel workitem
// CHECK: partitionable: yes
// CHECK: get_global_id* get_local_id get_group_id* get_global_size* get_local_size get_num_groups* get_global_offset* get_work_dim* get_enqueued_local_size* get_global_linear_id* get_local_linear_id
__kernel void workitem(__global uint *out, __global const uint *in) {
  size_t g = get_global_linear_id();
  uint d = get_work_dim();
  uint v[16];
  v[0] = get_global_id(0); v[1] = get_global_id(1);
  v[2] = get_local_id(0); v[3] = get_local_id(1);
  v[4] = get_group_id(0); v[5] = get_group_id(1);
  v[6] = get_global_size(0); v[7] = get_global_size(1);
  v[8] = get_local_size(0); v[9] = get_local_size(1);
  v[10] = get_num_groups(0); v[11] = get_num_groups(1);
  v[12] = get_global_offset(0) + 100 * get_global_offset(1);
  v[13] = d + 10 * get_enqueued_local_size(0) + 1000 * get_enqueued_local_size(1);
  v[14] = get_local_linear_id();
  v[15] = in[g] ^ get_global_id(2) ^ get_group_id(2);
  for (int k = 0; k < 16; ++k) out[g * 16 + k] = v[k];
}
