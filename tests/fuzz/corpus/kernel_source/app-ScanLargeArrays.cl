
__kernel void blockScan(__global const float* in, __global float* out,
                        __global float* sums, const uint n, __local float* tmp) {
  const uint lid = get_local_id(0), lsz = get_local_size(0);
  const uint B = 2 * lsz, g = get_group_id(0), base = g * B;
  const uint ai = lid, bi = lid + lsz;
  float va = (base + ai < n) ? in[base + ai] : 0.0f;
  float vb = (base + bi < n) ? in[base + bi] : 0.0f;
  tmp[ai] = va;
  tmp[bi] = vb;
  uint offset = 1;
  for (uint d = lsz; d > 0; d >>= 1) {  // up-sweep
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      uint i = offset * (2 * lid + 1) - 1, j = offset * (2 * lid + 2) - 1;
      tmp[j] += tmp[i];
    }
    offset <<= 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    sums[g] = tmp[B - 1];
    tmp[B - 1] = 0.0f;
  }
  for (uint d = 1; d < B; d <<= 1) {  // down-sweep: exclusive scan
    offset >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      uint i = offset * (2 * lid + 1) - 1, j = offset * (2 * lid + 2) - 1;
      float t = tmp[i];
      tmp[i] = tmp[j];
      tmp[j] += t;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (base + ai < n) out[base + ai] = tmp[ai] + va;
  if (base + bi < n) out[base + bi] = tmp[bi] + vb;
}

__kernel void blockAdd(__global float* data, __global const float* scannedSums,
                       const uint n, const uint B) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  const uint b = i / B;
  if (b > 0) data[i] += scannedSums[b - 1];
}
