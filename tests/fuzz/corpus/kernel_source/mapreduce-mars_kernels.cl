// Mars-style kernels (seed 003): a counting pass, map at exact per-task offsets, a
// bitonic sort of all intermediate records by key, and a reduce over equal-key runs.
//
// The baseline StreamMR is measured against; spliced after common_kernels.cl.

static void mr_after_write(mr_emitter* e, uint r) {}

static void mars_task_emitter(mr_emitter* e, __global uint* keys, __global uint2* info,
                              __global mr_value_t* vals, uint base, uint capacity) {
  mr_init_emitter(e, keys, info, vals, 0, base, capacity, 0);
  e->mode = MR_SLOT_PRIVATE;
}

// Counting pass: the map runs once only to count what it would emit.
__kernel void mars_map_count(__global const uchar* input, __global const uchar* params,
                             uint numTasks, __global uint* counts) {
  uint task = get_global_id(0);
  if (task >= numTasks) return;
  mr_emitter e;
  mars_task_emitter(&e, 0, 0, 0, 0, 0);
  mr_map(input, params, task, &e);
  counts[task] = e.emitted;
}

// The map again, each task writing at its scanned offset.
__kernel void mars_map(__global const uchar* input, __global const uchar* params, uint numTasks,
                       __global uint* keys, __global uint2* info, __global mr_value_t* vals,
                       __global const uint* counts, __global const uint* offsets) {
  uint task = get_global_id(0);
  if (task >= numTasks) return;
  mr_emitter e;
  mars_task_emitter(&e, keys, info, vals, offsets[task], counts[task]);
  mr_map(input, params, task, &e);
}

__kernel void mars_sort_init(__global uint* idx, uint n, uint padded) {
  uint i = get_global_id(0);
  if (i < padded) idx[i] = i < n ? i : MR_NONE;
}

// One step of the global bitonic sort of record indices by key (ties by index).
__kernel void mars_bitonic_step(__global const uint* keys, __global const uint2* info,
                                __global uint* idx, uint size, uint stride) {
  uint t = get_global_id(0);
  uint i = 2 * t - (t & (stride - 1)), j = i + stride;
  uint a = idx[i], b = idx[j];
  int c = a == MR_NONE || b == MR_NONE ? 0 : mr_compare_keys(keys, info, a, b);
  bool greater = a == MR_NONE ? b != MR_NONE : b == MR_NONE ? false : c > 0 || (c == 0 && a > b);
  if (greater == ((i & size) == 0)) {
    idx[i] = b;
    idx[j] = a;
  }
}

__kernel void mars_heads(__global const uint* keys, __global const uint2* info,
                         __global const uint* idx, uint n, __global uint* head) {
  uint i = get_global_id(0);
  if (i < n) head[i] = i == 0 || mr_compare_keys(keys, info, idx[i - 1], idx[i]) != 0;
}

#if MR_REDUCE_PHASE  // the user's reduce functions exist only in jobs with a reduce phase
// Reduce: the head of each equal-key run combines the run and writes one record.
__kernel void mars_reduce(__global const uint* keys, __global const uint2* info,
                          __global const mr_value_t* vals, __global const uint* idx, uint n,
                          __global const uint* head, __global const uint* outIndex,
                          __global uint* outKeys, __global uint2* outInfo,
                          __global mr_value_t* outVals) {
  uint i = get_global_id(0);
  if (i >= n || !head[i]) return;
  mr_value_t v = vals[idx[i]];
  uint k[MR_KEY_WORDS];
  mr_load_key(keys, idx[i], k);
#if MR_COMBINER
  for (uint q = i + 1; q < n && !head[q]; ++q) {
    mr_value_t o = vals[idx[q]];
    mr_combine(&v, &o);
  }
#if MR_HAS_REDUCE
  mr_reduce((const uchar*)k, info[idx[i]].x, &v);
#endif
#else
  uint q = i + 1;
  while (q < n && !head[q]) ++q;
  mr_values it = {MR_VALUES_RUN, vals, idx, 0, MR_NONE, i, q};
  mr_reduce_list((const uchar*)k, info[idx[i]].x, &it, &v);
#endif
  uint dst = outIndex[i];
  mr_copy_record(keys, info, idx[i], outKeys, outInfo, dst);
  outVals[dst] = v;
}
#endif
