//fuzz:v|

// S: 0 rho, 1 alpha, 2 omega, 3 beta
__kernel void bicg_rho0(__global const float* part, __global float* S, const uint ng) {
  float s = 0.0f;
  for (uint g = 0; g < ng; ++g) s += part[g];
  S[0] = s; S[1] = 0.0f; S[2] = 0.0f; S[3] = 0.0f;
}
__kernel void bicg_alpha(__global const float* part, __global float* S, const uint ng) {
  float d = 0.0f;
  for (uint g = 0; g < ng; ++g) d += part[g];
  S[1] = (d != 0.0f) ? S[0] / d : 0.0f;
}
__kernel void bicg_omega(__global const float* ts, __global const float* tt, __global float* S,
                         const uint ng) {
  float a = 0.0f, b = 0.0f;
  for (uint g = 0; g < ng; ++g) { a += ts[g]; b += tt[g]; }
  S[2] = (b != 0.0f) ? a / b : 0.0f;
}
__kernel void bicg_beta(__global const float* part, __global float* S, const uint ng) {
  float rn = 0.0f;
  for (uint g = 0; g < ng; ++g) rn += part[g];
  S[3] = (S[0] != 0.0f && S[2] != 0.0f) ? (rn / S[0]) * (S[1] / S[2]) : 0.0f;
  S[0] = rn;
}
// out = x - S[k] * y
__kernel void vec_sub_scaled(__global const float* x, __global const float* y, __global float* out,
                             __global const float* S, const uint k, const uint n) {
  const uint i = get_global_id(0);
  if (i < n) out[i] = x[i] - S[k] * y[i];
}
// x += alpha p + omega s
__kernel void bicg_update_x(__global float* x, __global const float* p, __global const float* s,
                            __global const float* S, const uint n) {
  const uint i = get_global_id(0);
  if (i < n) x[i] = x[i] + S[1] * p[i] + S[2] * s[i];
}
// p = r + beta (p - omega v)
__kernel void bicg_update_p(__global float* p, __global const float* r, __global const float* v,
                            __global const float* S, const uint n) {
  const uint i = get_global_id(0);
  if (i < n) p[i] = r[i] + S[3] * (p[i] - S[2] * v[i]);
}
