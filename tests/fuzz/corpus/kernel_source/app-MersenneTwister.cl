
#define MT_N 624
#define MT_M 397

__kernel void mersenneTwister(__global const uint* seeds, __global uint* out,
                              const uint perItem, const uint items) {
  const uint gid = get_global_id(0);
  if (gid >= items) return;
  uint mt[MT_N];
  mt[0] = seeds[gid];
  for (uint i = 1; i < MT_N; ++i)
    mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i;
  uint idx = MT_N;
  for (uint k = 0; k < perItem; ++k) {
    if (idx >= MT_N) {
      for (uint i = 0; i < MT_N; ++i) {
        uint y = (mt[i] & 0x80000000u) | (mt[i + 1 < MT_N ? i + 1 : 0] & 0x7fffffffu);
        uint j = i + MT_M < MT_N ? i + MT_M : i + MT_M - MT_N;
        mt[i] = mt[j] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
      }
      idx = 0;
    }
    uint y = mt[idx++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    out[k * items + gid] = y;
  }
}

__kernel void boxMuller(__global const uint* in, __global float* out, const uint pairs) {
  const uint i = get_global_id(0);
  if (i >= pairs) return;
  float u1 = ((float)in[2 * i] + 1.0f) * 2.3283064365386963e-10f;  // (0, 1]
  float u2 = (float)in[2 * i + 1] * 2.3283064365386963e-10f;        // [0, 1]
  float r = sqrt(-2.0f * log(u1));
  float th = 6.283185307179586f * u2;
  out[2 * i] = r * cos(th);
  out[2 * i + 1] = r * sin(th);
}
