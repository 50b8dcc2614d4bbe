//fuzz:v|

__kernel void reduce(__global const float* in, __global float* partial,
                     const uint n, const uint perGroup, __local float* sdata) {
  const uint lid = get_local_id(0), lsz = get_local_size(0);
  const uint base = get_group_id(0) * perGroup;
  float sum = 0.0f;
  for (uint j = lid; j < perGroup; j += lsz) {
    uint i = base + j;
    if (i < n) sum += in[i];
  }
  sdata[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = lsz / 2; s > 0; s >>= 1) {
    if (lid < s) sdata[lid] += sdata[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = sdata[0];
}
