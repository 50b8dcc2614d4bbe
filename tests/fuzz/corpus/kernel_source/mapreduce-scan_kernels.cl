// Exclusive prefix sum of uint counts: per-block scan, recursive scan of block sums, add.
//
// Used for the bucket-major layout of the hash tables and for the final compaction.
// Blocks of MR_SCAN_WG work-items, MR_SCAN_PER_ITEM consecutive elements each.

#define MR_SCAN_BLOCK (MR_SCAN_WG * MR_SCAN_PER_ITEM)

__kernel void mr_scan_blocks(__global const uint* in, __global uint* out, uint n,
                             __global uint* blockSums) {
  __local uint sums[MR_SCAN_WG];
  const uint lid = get_local_id(0);
  const uint first = get_group_id(0) * MR_SCAN_BLOCK + lid * MR_SCAN_PER_ITEM;
  uint v[MR_SCAN_PER_ITEM], mine = 0;
  for (uint i = 0; i < MR_SCAN_PER_ITEM; ++i) {
    v[i] = first + i < n ? in[first + i] : 0;
    mine += v[i];
  }
  sums[lid] = mine;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = 1; d < MR_SCAN_WG; d <<= 1) {
    uint add = lid >= d ? sums[lid - d] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    sums[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  uint run = sums[lid] - mine;
  for (uint i = 0; i < MR_SCAN_PER_ITEM; ++i) {
    if (first + i < n) out[first + i] = run;
    run += v[i];
  }
  if (lid == MR_SCAN_WG - 1) blockSums[get_group_id(0)] = sums[lid];
}

__kernel void mr_scan_add(__global uint* out, uint n, __global const uint* blockOffsets) {
  uint i = get_global_id(0);
  if (i < n) out[i] += blockOffsets[i / MR_SCAN_BLOCK];
}
