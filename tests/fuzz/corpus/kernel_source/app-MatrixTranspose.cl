//fuzz:v|

// in: height rows x width columns; out: width rows x height columns.
__kernel void matrixTranspose(__global float* out, __global const float* in,
                              const uint width, const uint height,
                              __local float* tile) {
  const uint T = get_local_size(0);  // square work-group T x T
  const uint lx = get_local_id(0), ly = get_local_id(1);
  const uint bx = get_group_id(0) * T, by = get_group_id(1) * T;
  uint x = bx + lx, y = by + ly;
  if (x < width && y < height) tile[ly * (T + 1) + lx] = in[y * width + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint ox = by + lx, oy = bx + ly;  // column / row in the output
  if (ox < height && oy < width) out[oy * height + ox] = tile[lx * (T + 1) + ly];
}
