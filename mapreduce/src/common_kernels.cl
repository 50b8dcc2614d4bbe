// Emitter and record helpers shared by every pipeline's kernels (StreamMR, Mars, MapCG).
//
// Spliced after the user's types and functions. A record is a zero-padded key of
// MR_KEY_BYTES, its (size, hash) and a value; each stage keeps them in three arrays.

#define MR_KEY_WORDS (MR_KEY_BYTES / 4)
#define MR_NONE 0xFFFFFFFFu
#define MR_OVERFLOWED 0x80000000u

// Emits land in this work-group's region; the local counter keeps counting after the
// region is full (opportunistic counting), so the overflow pass knows the exact size.
// How an emit finds its slot: a local counter (StreamMR's regions), the task's own count
// (Mars: exact ranges from a counting pass), or a global counter (MapCG).
#define MR_SLOT_LOCAL 0
#define MR_SLOT_PRIVATE 1
#define MR_SLOT_GLOBAL 2

struct mr_emitter {
  __global uint* keys;
  __global uint2* info;  // (key size, hash)
  __global mr_value_t* vals;
  volatile __local uint* counter;
  volatile __global uint* gcounter;
  __global uint* table;  // MapCG: the shared hash table
  uint mode, base, capacity, skip, emitted, written, full;
};

// Each pipeline's kernels define what happens once record r is written (MapCG inserts it
// into its hash table; the others do nothing).
static void mr_after_write(mr_emitter* e, uint r);

// A record's info.x: its key's size, and in map-only jobs its value's size above it
// (mr_emit_sized); a reduce phase combines and reduces whole values.
#define MR_SIZE_BITS 16
static void mr_emit_record(mr_emitter* e, const uchar* key, uint keySize, const mr_value_t* value,
                           uint valueSize) {
  uint n = e->emitted++;
  if (n < e->skip) return;  // written by the first pass already
  uint slot = e->mode == MR_SLOT_LOCAL ? atomic_inc(e->counter)
              : e->mode == MR_SLOT_GLOBAL ? atomic_inc(e->gcounter)
                                          : n - e->skip;
  // Once one emit of a task misses, later ones must too: what a task wrote stays a
  // prefix of its emits, which is all the overflow pass needs to know.
  if (e->full || slot >= e->capacity) {
    e->full = 1;
    return;
  }
  uint r = e->base + slot;
  uint words[MR_KEY_WORDS];
  uchar* w = (uchar*)words;
  uint size = min(keySize, (uint)MR_KEY_BYTES);
  for (uint i = 0; i < MR_KEY_BYTES; ++i) w[i] = i < size ? key[i] : 0;
  for (uint i = 0; i < MR_KEY_WORDS; ++i) e->keys[(size_t)r * MR_KEY_WORDS + i] = words[i];
#if MR_REDUCE_PHASE
  e->info[r] = (uint2)(size, mr_hash(key, size));
  e->vals[r] = *value;
#else
  e->info[r] = (uint2)(size | (valueSize << MR_SIZE_BITS), mr_hash(key, size));
  if (valueSize == MR_VALUE_BYTES) {
    e->vals[r] = *value;
  } else {  // the bytes past its size are zero, so equal outputs are equal bytes
    mr_value_t v;
    uchar* d = (uchar*)&v;
    const uchar* s = (const uchar*)value;
    for (uint i = 0; i < MR_VALUE_BYTES; ++i) d[i] = i < valueSize ? s[i] : 0;
    e->vals[r] = v;
  }
#endif
  e->written++;
  mr_after_write(e, r);
}

void mr_emit(mr_emitter* e, const uchar* key, uint keySize, const mr_value_t* value) {
  mr_emit_record(e, key, keySize, value, MR_VALUE_BYTES);
}

#if !MR_REDUCE_PHASE
void mr_emit_sized(mr_emitter* e, const uchar* key, uint keySize, const mr_value_t* value,
                   uint valueSize) {
  mr_emit_record(e, key, keySize, value, min(valueSize, (uint)MR_VALUE_BYTES));
}
#endif

static void mr_init_emitter(mr_emitter* e, __global uint* keys, __global uint2* info,
                            __global mr_value_t* vals, volatile __local uint* counter, uint base,
                            uint capacity, uint skip) {
  e->keys = keys;
  e->info = info;
  e->vals = vals;
  e->counter = counter;
  e->gcounter = 0;
  e->table = 0;
  e->mode = MR_SLOT_LOCAL;
  e->base = base;
  e->capacity = capacity;
  e->skip = skip;
  e->emitted = 0;
  e->written = 0;
  e->full = 0;
}

static void mr_load_key(__global const uint* keys, uint r, uint* words) {
  for (uint i = 0; i < MR_KEY_WORDS; ++i) words[i] = keys[(size_t)r * MR_KEY_WORDS + i];
}

// The user's key order between the stored keys ka and kb (of sa and sb bytes). Identical
// stored keys are equal under any key order, so they skip the user's compare: grouping
// compares equal keys far more often than different ones, and the compare reads its keys
// through byte pointers, which puts them in slow private memory on GPUs. Only the slow
// path takes the keys' address.
static int mr_compare_keys_at(__global const uint* keys, uint ka, uint sa, uint kb, uint sb) {
  if (sa == sb) {
    uint diff = 0;
    for (uint i = 0; i < MR_KEY_WORDS; ++i)
      diff |= keys[(size_t)ka * MR_KEY_WORDS + i] ^ keys[(size_t)kb * MR_KEY_WORDS + i];
    if (diff == 0) return 0;
  }
  uint wa[MR_KEY_WORDS], wb[MR_KEY_WORDS];
  mr_load_key(keys, ka, wa);
  mr_load_key(keys, kb, wb);
  return mr_key_compare((const uchar*)wa, sa, (const uchar*)wb, sb);
}

// The same for records a and b, each holding its own key.
static int mr_compare_keys(__global const uint* keys, __global const uint2* info, uint a, uint b) {
  return mr_compare_keys_at(keys, a, info[a].x, b, info[b].x);
}

static void mr_copy_key(__global const uint* keys, uint src, __global uint* outKeys, uint dst) {
  for (uint i = 0; i < MR_KEY_WORDS; ++i)
    outKeys[(size_t)dst * MR_KEY_WORDS + i] = keys[(size_t)src * MR_KEY_WORDS + i];
}

static void mr_copy_record(__global const uint* keys, __global const uint2* info, uint src,
                           __global uint* outKeys, __global uint2* outInfo, uint dst) {
  mr_copy_key(keys, src, outKeys, dst);
  outInfo[dst] = info[src];
}


// The values of one key for mr_reduce_list (jobs without a combiner). Each pipeline keeps
// them differently: StreamMR as chained segments of sorted values, Mars as a run of
// sorted record indices, MapCG as a linked list after the key's own record.
#define MR_VALUES_SEGMENTS 0
#define MR_VALUES_RUN 1
#define MR_VALUES_CHAIN 2
struct mr_values {
  uint mode;
  __global const mr_value_t* vals;
  __global const uint* links;  // segment chain, run indices or value chain
  __global const uint2* segs;  // StreamMR: (first value, count) per segment
  uint s, i, end;
};

bool mr_next_value(mr_values* it, mr_value_t* v) {
  if (it->mode == MR_VALUES_RUN) {
    if (it->i >= it->end) return false;
    *v = it->vals[it->links[it->i++]];
    return true;
  }
  if (it->mode == MR_VALUES_CHAIN) {
    if (it->s == MR_NONE) return false;
    *v = it->vals[it->s];
    it->s = it->links[it->s];
    return true;
  }
  while (it->i >= it->end) {
    if (it->s == MR_NONE) return false;
    it->i = it->segs[it->s].x;
    it->end = it->i + it->segs[it->s].y;
    it->s = it->links[it->s];
  }
  *v = it->vals[it->i++];
  return true;
}
