//fuzz:|-DTS=16 -DLS=8

#ifndef TS
#define TS 16
#endif
#ifndef LS
#define LS 64
#endif

// C[M x N] = A[M x K] * B[K x N], row-major.  Work-group TS x TS, one C element
// per work-item; A and B tiles staged in local memory.  Any sizes (zero padded).
__kernel void matmul(__global const float* A, __global const float* B, __global float* C,
                     const uint M, const uint N, const uint K) {
  __local float As[TS][TS];
  __local float Bs[TS][TS];
  const uint tx = get_local_id(0), ty = get_local_id(1);
  const uint col = get_group_id(0) * TS + tx;
  const uint row = get_group_id(1) * TS + ty;
  float acc = 0.0f;
  for (uint t = 0; t < K; t += TS) {
    As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < TS; ++k) acc += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// out[cols x rows] = in[rows x cols]^T through a padded local tile.
__kernel void transpose(__global const float* in, __global float* out,
                        const uint rows, const uint cols) {
  __local float tile[TS][TS + 1];
  uint x = get_group_id(0) * TS + get_local_id(0);
  uint y = get_group_id(1) * TS + get_local_id(1);
  if (x < cols && y < rows) tile[get_local_id(1)][get_local_id(0)] = in[y * cols + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = get_group_id(1) * TS + get_local_id(0);
  y = get_group_id(0) * TS + get_local_id(1);
  if (x < rows && y < cols) out[y * rows + x] = tile[get_local_id(0)][get_local_id(1)];
}

// out = a*x + b*y over n elements (matrix add: a=b=1, subtract: b=-1).
__kernel void axpby(__global const float* x, __global const float* y, __global float* out,
                    const float a, const float b, const uint n) {
  const uint i = get_global_id(0);
  if (i < n) out[i] = a * x[i] + b * y[i];
}

// y = A x, A rows x cols.  One work-group of LS work-items per row.
__kernel void matvec(__global const float* A, __global const float* x, __global float* y,
                     const uint rows, const uint cols) {
  __local float part[LS];
  const uint row = get_group_id(0), lid = get_local_id(0);
  float s = 0.0f;
  if (row < rows)
    for (uint j = lid; j < cols; j += LS) s += A[row * cols + j] * x[j];
  part[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint o = LS / 2; o > 0; o >>= 1) {
    if (lid < o) part[lid] += part[lid + o];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0 && row < rows) y[row] = part[0];
}

// First round of a dot product: partial[g] = sum over work-group g's grid-stride
// share of a[i]*b[i].  The second round (sum of the partials) is done by the app.
__kernel void dot_partial(__global const float* a, __global const float* b,
                          __global float* partial, const uint n) {
  __local float part[LS];
  const uint lid = get_local_id(0);
  float s = 0.0f;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) s += a[i] * b[i];
  part[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint o = LS / 2; o > 0; o >>= 1) {
    if (lid < o) part[lid] += part[lid + o];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = part[0];
}
