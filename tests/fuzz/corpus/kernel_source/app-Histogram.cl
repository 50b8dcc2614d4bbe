
#define BINS 256
__kernel void histogram256(__global const uint* data, __global uint* partial,
                           const uint n, const uint perItem, __local uchar* sub) {
  const uint lid = get_local_id(0), lsz = get_local_size(0);
  const uint g = get_group_id(0);
  for (uint b = 0; b < BINS; ++b) sub[b * lsz + lid] = 0;
  const uint base = g * lsz * perItem;
  for (uint j = 0; j < perItem; ++j) {
    uint i = base + j * lsz + lid;
    if (i < n) {
      uint v = data[i] & 0xFFu;
      sub[v * lsz + lid] += 1;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < BINS; b += lsz) {
    uint s = 0;
    for (uint t = 0; t < lsz; ++t) s += sub[b * lsz + t];
    partial[g * BINS + b] = s;
  }
}
