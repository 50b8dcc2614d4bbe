
__kernel void streamCompact(__global const uint* in, __global uint* out,
                            __global uint* counter, const uint n,
                            const uint threshold) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  const uint v = in[i];
  if (v < threshold) out[atomic_inc(counter)] = v;
}
