
float cndf(float x) {
  const float a1 = 0.319381530f, a2 = -0.356563782f, a3 = 1.781477937f;
  const float a4 = -1.821255978f, a5 = 1.330274429f;
  float ax = fabs(x);
  float t = 1.0f / (1.0f + 0.2316419f * ax);
  float y = 1.0f - 0.398942280f * exp(-0.5f * x * x) *
                       t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5))));
  return x < 0.0f ? 1.0f - y : y;
}

__kernel void blackScholes(__global const float* S, __global const float* K,
                           __global const float* T, __global float* call,
                           __global float* put, const float r, const float v,
                           const uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float s = S[i], k = K[i], t = T[i];
  float sqrtT = sqrt(t);
  float d1 = (log(s / k) + (r + 0.5f * v * v) * t) / (v * sqrtT);
  float d2 = d1 - v * sqrtT;
  float kexp = k * exp(-r * t);
  call[i] = s * cndf(d1) - kexp * cndf(d2);
  put[i] = kexp * cndf(-d2) - s * cndf(-d1);
}
