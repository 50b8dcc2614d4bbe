// MapCG-style kernels: emits take slots from one global atomic counter and are inserted
// into one hash table shared by all work-items, with compare-and-swap on its chains.
//
// The baseline StreamMR is measured against; spliced after common_kernels.cl. The table
// is one buffer: MR_BUCKETS chain heads, then per record the next key node and the next
// value of its key (a key's node heads its own value list; MR_NONE ends a list).

// Key a may have been written by another work-item of this launch: read it volatile.
static bool mapcg_same_key(__global const uint* keys, __global const uint2* info, uint a, uint b) {
  volatile __global const uint* k = keys;
  volatile __global const uint2* in = info;
  if (in[a].y != in[b].y) return false;  // equal keys hash equally
  uint ka[MR_KEY_WORDS], kb[MR_KEY_WORDS];
  for (uint i = 0; i < MR_KEY_WORDS; ++i) {
    ka[i] = k[(size_t)a * MR_KEY_WORDS + i];
    kb[i] = k[(size_t)b * MR_KEY_WORDS + i];
  }
  return mr_key_compare((const uchar*)ka, in[a].x, (const uchar*)kb, in[b].x) == 0;
}

// Lock-free insert. Links are published with atomics and chains are read through volatile
// pointers, without mem_fence: Tutti's partition-ready SPIR build of this program did not
// link on PoCL 3.1 with it ("Cannot find symbol _Z9mem_fencej"), so no launch could split.
static void mr_after_write(mr_emitter* e, uint r) {
#if MR_MAPCG_INSERT
  volatile __global uint* heads = e->table;
  volatile __global uint* nextKey = e->table + MR_BUCKETS;
  volatile __global uint* valNext = nextKey + e->capacity;
  const uint b = e->info[r].y % MR_BUCKETS;
  atomic_xchg(&valNext[r], MR_NONE);
  for (;;) {
    uint h = atomic_or(&heads[b], 0u);  // an atomic read of the chain head
    uint k = h;
    while (k != MR_NONE && !mapcg_same_key(e->keys, e->info, k, r)) k = nextKey[k];
    if (k != MR_NONE) {  // the key is there: push r right after its node
      uint old;
      do {
        old = atomic_or(&valNext[k], 0u);
        atomic_xchg(&valNext[r], old);
      } while (atomic_cmpxchg(&valNext[k], old, r) != old);
      return;
    }
    // A new key: r becomes its node, if no one changed the chain since it was walked.
    atomic_xchg(&nextKey[r], h);
    if (atomic_cmpxchg(&heads[b], h, r) == h) return;
  }
#endif
}

__kernel void mapcg_map(__global const uchar* input, __global const uchar* params, uint numTasks,
                        __global uint* keys, __global uint2* info, __global mr_value_t* vals,
                        volatile __global uint* counter, uint capacity, __global uint* table) {
  uint task = get_global_id(0);
  if (task >= numTasks) return;
  mr_emitter e;
  mr_init_emitter(&e, keys, info, vals, 0, 0, capacity, 0);
  e.mode = MR_SLOT_GLOBAL;
  e.gcounter = counter;
  e.table = table;
  mr_map(input, params, task, &e);
}

// Keys per bucket (the chain's nodes), for the output offsets.
__kernel void mapcg_count(__global const uint* table, __global uint* perBucket) {
  uint b = get_global_id(0);
  if (b >= MR_BUCKETS) return;
  __global const uint* nextKey = table + MR_BUCKETS;
  uint n = 0;
  for (uint k = table[b]; k != MR_NONE; k = nextKey[k]) ++n;
  perBucket[b] = n;
}

#if MR_REDUCE_PHASE  // the user's reduce functions exist only in jobs with a reduce phase
// Reduce: each key node combines its value list and writes one record.
__kernel void mapcg_reduce(__global const uint* keys, __global const uint2* info,
                           __global const mr_value_t* vals, __global const uint* table,
                           uint capacity, __global const uint* outBase, __global uint* outKeys,
                           __global uint2* outInfo, __global mr_value_t* outVals) {
  uint b = get_global_id(0);
  if (b >= MR_BUCKETS) return;
  __global const uint* nextKey = table + MR_BUCKETS;
  __global const uint* valNext = nextKey + capacity;
  uint dst = outBase[b];
  for (uint k = table[b]; k != MR_NONE; k = nextKey[k], ++dst) {
    mr_value_t v = vals[k];
    uint kw[MR_KEY_WORDS];
    mr_load_key(keys, k, kw);
#if MR_COMBINER
    for (uint x = valNext[k]; x != MR_NONE; x = valNext[x]) {
      mr_value_t o = vals[x];
      mr_combine(&v, &o);
    }
#if MR_HAS_REDUCE
    mr_reduce((const uchar*)kw, info[k].x, &v);
#endif
#else
    mr_values it = {MR_VALUES_CHAIN, vals, valNext, 0, k, 0, 0};
    mr_reduce_list((const uchar*)kw, info[k].x, &it, &v);
#endif
    mr_copy_record(keys, info, k, outKeys, outInfo, dst);
    outVals[dst] = v;
  }
}
#endif
