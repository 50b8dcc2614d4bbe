//fuzz:|-DTS=16 -DLS=8

#define KM_DMAX 8
// pts: structure of arrays, pts[d*N + p]; cent: [M][K][D]; labels: [M][N].
__kernel void km_assign(__global const float* pts, __global const float* cent,
                        __global int* labels, __local float* lc,
                        const uint N, const uint D, const uint K, const uint M) {
  const uint total = M * K * D;
  for (uint i = get_local_id(0); i < total; i += get_local_size(0)) lc[i] = cent[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint p = get_global_id(0);
  if (p >= N) return;
  float x[KM_DMAX];
  for (uint d = 0; d < D; ++d) x[d] = pts[d * N + p];
  for (uint m = 0; m < M; ++m) {
    __local const float* cm = lc + m * K * D;
    float best = INFINITY;
    int bi = 0;
    for (uint k = 0; k < K; ++k) {
      float dist = 0.0f;
      for (uint d = 0; d < D; ++d) {
        const float diff = x[d] - cm[k * D + d];
        dist += diff * diff;
      }
      if (dist < best) { best = dist; bi = (int)k; }
    }
    labels[m * N + p] = bi;
  }
}

// Work-item (c, m): slot partial[m][c][K][D+1] = sums (D) and count of the
// points p = c, c+C, c+2C, ... per cluster of model m.
__kernel void km_partial(__global const float* pts, __global const int* labels,
                         __global float* partial, const uint N, const uint D, const uint K,
                         const uint C) {
  const uint c = get_global_id(0), m = get_global_id(1);
  if (c >= C) return;
  const uint W = D + 1;
  __global float* slot = partial + ((size_t)m * C + c) * K * W;
  for (uint i = 0; i < K * W; ++i) slot[i] = 0.0f;
  for (uint p = c; p < N; p += C) {
    __global float* s = slot + labels[(size_t)m * N + p] * W;
    for (uint d = 0; d < D; ++d) s[d] += pts[d * N + p];
    s[D] += 1.0f;
  }
}

// One work-group per (model m, cluster k), group id m*K + k; power-of-two
// work-group size L; red: (D+1)*L floats of local memory.
__kernel void km_update(__global const float* partial, __global float* cent,
                        __local float* red, const uint D, const uint K, const uint C) {
  const uint g = get_group_id(0), lid = get_local_id(0), L = get_local_size(0);
  const uint m = g / K, k = g % K, W = D + 1;
  float acc[KM_DMAX + 1];
  for (uint j = 0; j < W; ++j) acc[j] = 0.0f;
  for (uint c = lid; c < C; c += L) {
    __global const float* s = partial + (((size_t)m * C + c) * K + k) * W;
    for (uint j = 0; j < W; ++j) acc[j] += s[j];
  }
  for (uint j = 0; j < W; ++j) red[j * L + lid] = acc[j];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint o = L / 2; o > 0; o >>= 1) {
    if (lid < o)
      for (uint j = 0; j < W; ++j) red[j * L + lid] += red[j * L + lid + o];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid < D) {
    const float cnt = red[D * L];
    if (cnt > 0.0f) cent[(m * K + k) * D + lid] = red[lid * L] / cnt;
  }
}
