// StreamMR kernels: map with per-work-group output regions, overflow re-run, per-region
// hash tables with sorted buckets, multi-level joining, final compaction (thesis §4.3).
//
// Spliced after common_kernels.cl; the host defines MR_KEY_BYTES, MR_CAPACITY (records per region, a power of two), MR_BUCKETS,
// MR_GROUP_WG, MR_FANIN, MR_HAS_REDUCE. Everything here is OpenCL C 1.2 without global
// atomics, so a launch's work-groups can run on different devices (Tutti's SKMD).

static void mr_after_write(mr_emitter* e, uint r) {}

// First pass: one map task per work-item, output into region get_group_id(0).
__kernel void mr_map_pass(__global const uchar* input, __global const uchar* params, uint numTasks,
                          __global uint* keys, __global uint2* info, __global mr_value_t* vals,
                          __global uint* wgTotal, __global uint* taskWritten) {
  __local uint counter;
  if (get_local_id(0) == 0) counter = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint task = get_global_id(0);
  if (task < numTasks) {
    mr_emitter e;
    mr_init_emitter(&e, keys, info, vals, &counter, get_group_id(0) * MR_CAPACITY, MR_CAPACITY, 0);
    mr_map(input, params, task, &e);
    taskWritten[task] = e.written | (e.full ? MR_OVERFLOWED : 0);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) wgTotal[get_group_id(0)] = counter;
}

// Second pass, only where a region overflowed: the tasks that missed re-run their map,
// skip what they wrote, and append the rest at this work-group's exact overflow range.
__kernel void mr_map_overflow(__global const uchar* input, __global const uchar* params,
                              uint numTasks, __global uint* keys, __global uint2* info,
                              __global mr_value_t* vals, __global const uint* wgTotal,
                              __global const uint* ovBase, __global const uint* taskWritten) {
  __local uint counter;
  uint total = wgTotal[get_group_id(0)];
  if (total <= MR_CAPACITY) return;  // uniform over the work-group
  if (get_local_id(0) == 0) counter = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint task = get_global_id(0);
  if (task < numTasks && (taskWritten[task] & MR_OVERFLOWED)) {
    mr_emitter e;
    mr_init_emitter(&e, keys, info, vals, &counter, ovBase[get_group_id(0)], total - MR_CAPACITY,
                    taskWritten[task] & ~MR_OVERFLOWED);
    mr_map(input, params, task, &e);
  }
}

// Map-only jobs: copy each region's written records to one contiguous output.
__kernel void mr_compact_regions(__global const uint* keys, __global const uint2* info,
                                 __global const mr_value_t* vals, __global const uint* wgTotal,
                                 __global const uint* outBase, __global uint* outKeys,
                                 __global uint2* outInfo, __global mr_value_t* outVals) {
  uint g = get_global_id(0) / MR_CAPACITY, k = get_global_id(0) % MR_CAPACITY;
  if (k >= min(wgTotal[g], (uint)MR_CAPACITY)) return;
  uint src = g * MR_CAPACITY + k, dst = outBase[g] + k;
  for (uint i = 0; i < MR_KEY_WORDS; ++i)
    outKeys[(size_t)dst * MR_KEY_WORDS + i] = keys[(size_t)src * MR_KEY_WORDS + i];
  outInfo[dst] = info[src];
  outVals[dst] = vals[src];
}

#if MR_REDUCE_PHASE  // the kernels below call the user's mr_combine
// Order of grouped records: hash bucket, then the whole hash, then the user's key order.
// Different keys in one bucket nearly always differ in their hash, so merging and
// grouping read keys only to confirm that equal hashes are equal keys.
static ulong mr_hash_order(uint hash) { return ((ulong)(hash % MR_BUCKETS) << 32) | hash; }

// Sort position of a region's record: (bucket, hash); padding (MR_NONE) sorts last.
static ulong mr_sort_order(uint idx, uint hash) { return idx == MR_NONE ? ~0ul : mr_hash_order(hash); }

// One work-group per region: sort the region's records by (bucket, hash, key) in local
// memory (bitonic on the hashes alone, then by key within the rare runs where different
// keys share a hash), combine equal keys (the first of a run is its master), and write
// the region's hash table: unique records at out[outFirst + region*C ...], sorted within
// each bucket, and per bucket its start and count at [bucket * tables + table].
__kernel void mr_group(__global const uint* keys, __global const uint2* info,
                       __global const mr_value_t* vals, uint firstPass,
                       __global const uint* wgTotal, uint overflowTotal, uint firstTable, uint tables, __global uint* outKeys,
                       __global uint2* outInfo, __global mr_value_t* outVals,
                       __global uint* lstart, __global uint* cnt, __global mr_value_t* segVals,
                       __global uint2* segs, __global uint2* outLinks) {
  // Record indices and their hashes, sorted together: the sort never reads a key.
  __local uint idx[MR_CAPACITY], lh[MR_CAPACITY];
  __local uint sums[MR_GROUP_WG];
  __local uchar same[MR_CAPACITY];
  const uint lid = get_local_id(0), W = get_local_size(0), g = get_group_id(0);
  const uint src0 = g * MR_CAPACITY;
  // First-pass regions hold up to C of their work-group's emits; overflow regions are
  // C-record slices of the overflow records.
  uint n = firstPass ? min(wgTotal[g], (uint)MR_CAPACITY)
                   : min((uint)MR_CAPACITY, overflowTotal - src0);
  const uint table = firstTable + g, out0 = table * MR_CAPACITY;
  // The sort covers the region's records rounded up to a power of two, not its capacity:
  // regions sized for the busiest work-group leave most others half empty.
  const uint P = n <= 1 ? 1 : 1u << (32 - clz(n - 1));
  for (uint i = lid; i < P; i += W) {
    idx[i] = i < n ? src0 + i : MR_NONE;
    lh[i] = i < n ? info[src0 + i].y : 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint size = 2; size <= P; size <<= 1) {
    for (uint stride = size >> 1; stride > 0; stride >>= 1) {
      for (uint t = lid; t < P / 2; t += W) {
        uint i = 2 * t - (t & (stride - 1));
        uint j = i + stride;
        uint a = idx[i], b = idx[j], ha = lh[i], hb = lh[j];
        // (bucket, hash, record index): a total order, so equal keys keep one order.
        ulong oa = mr_sort_order(a, ha), ob = mr_sort_order(b, hb);
        bool greater = oa > ob || (oa == ob && a > b);
        if (greater == ((i & size) == 0)) {
          idx[i] = b;
          idx[j] = a;
          lh[i] = hb;
          lh[j] = ha;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  // Each work-item owns a contiguous chunk of sorted positions. same[p]: position p holds
  // the key of position p - 1. Computed in parallel, so no work-item walks a frequent
  // key's long run comparing keys in global memory one after another.
  const uint chunk = MR_CAPACITY / W, c0 = lid * chunk;
  for (uint p = c0; p < c0 + chunk; ++p)
    same[p] = p > 0 && p < n && lh[p - 1] == lh[p] && mr_compare_keys(keys, info, idx[p - 1], idx[p]) == 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  // A run of equal hashes holding different keys (a hash collision) is sorted by key,
  // records of one key staying in index order, by the work-item owning the run's start.
  // Other work-items read only hashes meanwhile, which the run's sort does not move.
  for (uint p = c0; p < c0 + chunk && p < n; ++p) {
    if (p != 0 && lh[p - 1] == lh[p]) continue;
    uint e = p + 1;
    bool mixed = false;
    for (; e < n && lh[e] == lh[p]; ++e) mixed = mixed || !same[e];
    if (!mixed) continue;
    for (uint s = p + 1; s < e; ++s) {  // insertion sort by key: stable in index
      uint r = idx[s], t = s;
      for (; t > p && mr_compare_keys(keys, info, idx[t - 1], r) > 0; --t) idx[t] = idx[t - 1];
      idx[t] = r;
    }
    for (uint s = p + 1; s < e; ++s) same[s] = mr_compare_keys(keys, info, idx[s - 1], idx[s]) == 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Masters: first record of each key.
  uint mine = 0;
  for (uint p = c0; p < c0 + chunk; ++p)
    if (p < n && !same[p]) ++mine;
  sums[lid] = mine;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = 1; d < W; d <<= 1) {  // inclusive Hillis-Steele scan of the chunk counts
    uint v = lid >= d ? sums[lid - d] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    sums[lid] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  uint u = sums[lid] - mine;
  for (uint p = c0; p < c0 + chunk && p < n; ++p) {
    if (same[p]) continue;
    mr_value_t v = vals[idx[p]];
    uint q = p + 1;
#if MR_COMBINER
    for (; q < n && same[q]; ++q) {
      mr_value_t o = vals[idx[q]];
      mr_combine(&v, &o);
    }
#else
    // No combiner: the key's values, in sorted order, are its first segment.
    for (; q < n && same[q]; ++q) segVals[out0 + q] = vals[idx[q]];
    segVals[out0 + p] = v;
    segs[out0 + u] = (uint2)(out0 + p, q - p);
    outLinks[out0 + u] = (uint2)(out0 + u, out0 + u);  // chain head and tail
#endif
    mr_copy_record(keys, info, idx[p], outKeys, outInfo, out0 + u);
    outVals[out0 + u] = v;
    const uint bucket = lh[p] % MR_BUCKETS;
    if (p == 0 || lh[p - 1] % MR_BUCKETS != bucket) {
      // First key of its bucket: count the bucket's keys (buckets are short).
      uint keysInBucket = 1;
      for (uint r = q; r < n && lh[r] % MR_BUCKETS == bucket; ++r)
        if (!same[r]) ++keysInBucket;
      lstart[bucket * tables + table] = out0 + u;
      cnt[bucket * tables + table] = keysInBucket;
    }
    ++u;
  }
}

// Where the key of a joined record is: joins never move keys, only (size, hash), the
// value and the index of the grouped record that holds the key (its key reference).
// Grouped records hold their own keys (direct).
#define MR_KEY_OF(r) (direct ? (r) : refs[r])

// One joining level: work-item (bucket b, group j) merges the sorted lists of tables
// j*F .. j*F+F-1 for bucket b into one, combining equal keys. Its output starts at
// base[b*tablesIn + j*F]: the scanned counts on the first level, the lists' own starts
// after it, so groups write disjoint ranges without atomics. `keys` are the grouped
// records' keys on every level.
__kernel void mr_join(__global const uint* keys, __global const uint* refs, uint direct,
                      __global const uint2* info, __global const mr_value_t* vals,
                      __global const uint* lstartIn, __global const uint* cntIn,
                      __global const uint* base, uint tablesIn, uint tablesOut,
                      __global uint* outRefs, __global uint2* outInfo,
                      __global mr_value_t* outVals, __global uint* lstartOut,
                      __global uint* cntOut, __global const uint2* links,
                      __global uint2* outLinks, __global uint* segNext) {
  uint t = get_global_id(0);
  if (t >= MR_BUCKETS * tablesOut) return;
  uint b = t / tablesOut, j = t % tablesOut;
  uint first = j * MR_FANIN, lists = min((uint)MR_FANIN, tablesIn - first);
  // The non-empty lists, in table order, with each head's hash kept privately: choosing
  // the next record reads no global memory, and keys are read only to tell equal hashes
  // apart. Every list here is bucket b's, so the hash alone orders their heads. Most
  // first-level lists are empty (a region has fewer keys than buckets).
  uint cur[MR_FANIN], end[MR_FANIN], hh[MR_FANIN];
  uint live = 0;
  for (uint i = 0; i < lists; ++i) {
    uint k = b * tablesIn + first + i, c = cntIn[k];
    if (!c) continue;
    cur[live] = lstartIn[k];
    end[live] = cur[live] + c;
    hh[live] = info[cur[live]].y;
    ++live;
  }
  uint o0 = base[b * tablesIn + first], o = o0;
  for (;;) {
    uint m = MR_NONE;
    for (uint i = 0; i < live; ++i)
      if (cur[i] < end[i] && (m == MR_NONE || hh[i] < hh[m])) m = i;
    if (m == MR_NONE) break;
    const uint h = hh[m];
    // Heads of equal hashes: the smallest key (the first list's of equal keys) goes first.
    // Each such head is compared with the leader once; `same` keeps which heads hold the
    // leader's key, so they are combined without a second compare. A smaller key (a hash
    // collision) takes the lead; no head before it holds its key, so the bits below it
    // are never read.
    uint r = cur[m], rk = MR_KEY_OF(r), same = 0;
    uint2 ri = info[r];
    for (uint i = m + 1; i < live; ++i) {
      if (cur[i] >= end[i] || hh[i] != h) continue;
      const uint k = MR_KEY_OF(cur[i]), s = info[cur[i]].x;
      const int c = mr_compare_keys_at(keys, k, s, rk, ri.x);
      if (c == 0) {
        same |= 1u << i;
      } else if (c < 0) {
        m = i, r = cur[i], rk = k, ri = info[r];
      }
    }
    ++cur[m];
    if (cur[m] < end[m]) hh[m] = info[cur[m]].y;
    mr_value_t v = vals[r];
#if !MR_COMBINER
    uint2 chain = links[r];
#endif
    for (uint i = m + 1; i < live; ++i)  // lists before m hold no head of r's key
      if (same >> i & 1) {
#if MR_COMBINER
        mr_value_t w = vals[cur[i]];
        mr_combine(&v, &w);
#else
        uint2 more = links[cur[i]];  // append its segments: each tail is linked once
        segNext[chain.y] = more.x;
        chain.y = more.y;
#endif
        ++cur[i];
        if (cur[i] < end[i]) hh[i] = info[cur[i]].y;
      }
    outRefs[o] = rk;
    outInfo[o] = ri;
    outVals[o] = v;
#if !MR_COMBINER
    outLinks[o] = chain;
#endif
    ++o;
  }
  lstartOut[t] = o0;
  cntOut[t] = o - o0;
}

// Final compaction: bucket b's unique keys go to out[outBase[b] ...], finalised by the
// user's reduce (finalise: 0 for a streamed run's running result), so only useful output
// returns to the host.
__kernel void mr_compact_buckets(__global const uint* keys, __global const uint* refs, uint direct,
                                 __global const uint2* info,
                                 __global const mr_value_t* vals, __global const uint* lstart,
                                 __global const uint* cnt, __global const uint* outBase,
                                 __global uint* outKeys, __global uint2* outInfo,
                                 __global mr_value_t* outVals, __global uint* srcOf, uint finalise) {
  uint b = get_global_id(0);
  if (b >= MR_BUCKETS) return;
  for (uint i = 0; i < cnt[b]; ++i) {
    uint src = lstart[b] + i, dst = outBase[b] + i, key = MR_KEY_OF(src);
    mr_copy_key(keys, key, outKeys, dst);
    outInfo[dst] = info[src];
#if MR_COMBINER
    mr_value_t v = vals[src];
#if MR_HAS_REDUCE
    // A streamed run's merges keep combined values; mr_reduce finalises them once.
    if (finalise) {
      uint k[MR_KEY_WORDS];
      mr_load_key(keys, key, k);
      mr_reduce((const uchar*)k, info[src].x, &v);
    }
#endif
    outVals[dst] = v;
#else
    srcOf[dst] = src;  // mr_reduce_lists reduces it, one work-item per key
#endif
  }
}

#if !MR_COMBINER
// Reduce without a combiner: one work-item per output key walks the key's value chain.
__kernel void mr_reduce_lists(__global const uint* outKeys, __global const uint2* outInfo,
                              __global mr_value_t* outVals, __global const uint* srcOf, uint count,
                              __global const uint2* links, __global const uint* segNext,
                              __global const uint2* segs, __global const mr_value_t* segVals) {
  uint dst = get_global_id(0);
  if (dst >= count) return;
  uint k[MR_KEY_WORDS];
  mr_load_key(outKeys, dst, k);
  mr_values it = {MR_VALUES_SEGMENTS, segVals, segNext, segs, links[srcOf[dst]].x, 0, 0};
  mr_value_t v;
  mr_reduce_list((const uchar*)k, outInfo[dst].x, &it, &v);
  outVals[dst] = v;
}
#endif
#endif  // MR_REDUCE_PHASE
