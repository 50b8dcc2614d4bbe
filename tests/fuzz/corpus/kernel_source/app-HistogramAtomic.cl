//fuzz:v|

__kernel void histogramAtomic(__global const uint* data, __global uint* bins,
                              const uint n) {
  const uint i = get_global_id(0);
  if (i < n) atomic_inc(&bins[data[i] & 0xFFu]);
}
