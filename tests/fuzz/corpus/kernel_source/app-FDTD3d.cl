//fuzz:v|-DRADIUS=2

#ifndef RADIUS
#define RADIUS 4
#endif
__kernel void fdtd3d(__global const float* in, __global float* out,
                     __constant float* coeff, const uint dx, const uint dy,
                     const uint dz) {
  const uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= dx || y >= dy || z >= dz) return;
  const uint sxy = dx * dy;
  const uint idx = z * sxy + y * dx + x;
  if (x < RADIUS || x >= dx - RADIUS || y < RADIUS || y >= dy - RADIUS ||
      z < RADIUS || z >= dz - RADIUS) {
    out[idx] = in[idx];
    return;
  }
  float v = coeff[0] * in[idx];
  for (uint r = 1; r <= RADIUS; ++r)
    v += coeff[r] * (in[idx - r] + in[idx + r] + in[idx - r * dx] + in[idx + r * dx] +
                     in[idx - r * sxy] + in[idx + r * sxy]);
  out[idx] = v;
}
