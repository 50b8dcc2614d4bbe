// Matrix transpose through a padded local tile (thesis MatrixTranspose:
// discontiguous). in is H x W, out is W x H.
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel transpose
// CHECK: partitionable: yes
// CHECK: contiguity: discontiguous
// CHECK: hazards: barrier local_memory
// CHECK: tutti_merge
#define T 8
__kernel void transpose(__global const float *in, __global float *out, int W, int H) {
  __local float tile[T][T + 1];
  int gx = get_group_id(0), gy = get_group_id(1);
  int lx = get_local_id(0), ly = get_local_id(1);
  int x = gx * T + lx, y = gy * T + ly;
  if (x < W && y < H) tile[ly][lx] = in[y * W + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  int ox = gy * T + lx, oy = gx * T + ly;
  if (ox < H && oy < W) out[oy * H + ox] = tile[lx][ly];
}
