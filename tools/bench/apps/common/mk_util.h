// mk_util.h - shared pieces of the multi-kernel apps (mk_*.cpp, thesis Table 5.3)
// and the K-means apps (kmeans*.cpp).  Builds on app.h, which stays unchanged.
//
// What is here:
//   - kLinalgSource: the OpenCL kernels the linear-algebra apps are made of, in the
//     spirit of the NVIDIA SDK ones the thesis used: 16x16 tiled matrix multiply
//     in local memory, tiled transpose, scale-add (axpby), mat-vec (one
//     work-group per row, local reduction), reduction partial dot products.
//   - Linalg: builds that program once and enqueues those kernels on App's one
//     in-order queue (each with a profiling event counted in kernel_ms).
//   - CPU reference helpers in double precision, including row-sampled
//     verification for big matrices (a full O(n^3) reference at 4K x 4K would
//     take minutes on a CPU; a row of a product chain costs O(n^2)).
#pragma once

#include "app.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace mk {

// ------------------------------------------------------------ kernels ---
// TS (tile side) and LS (1-D reduction work-group size) come from build options.
static const char* kLinalgSource = R"CLC(
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
)CLC";

// ------------------------------------------------------------- host side ---

// Owns the linear-algebra program and enqueues its kernels on a.queue.
class Linalg {
 public:
  // extraSource: app-specific kernels appended to kLinalgSource (same TS/LS).
  explicit Linalg(app::App& a, const char* extraSource = "") : a_(a) {
    // 16x16 tiles as in the NVIDIA SDK; smaller only where the device cannot
    // run 256 work-items per group.
    size_t wg = a.deviceMaxWorkGroupSize();
    ts_ = 16;
    while (ts_ > 1 && (ts_ * ts_ > wg || ts_ > a.deviceMaxWorkItemSize(0) || ts_ > a.deviceMaxWorkItemSize(1)))
      ts_ /= 2;
    ls_ = 64;
    while (ls_ > 1 && (ls_ > wg || ls_ > a.deviceMaxWorkItemSize(0))) ls_ /= 2;
    src_ = std::string(kLinalgSource) + extraSource;
    std::string opts = "-DTS=" + std::to_string(ts_) + " -DLS=" + std::to_string(ls_);
    prog_ = a.build(src_.c_str(), opts.c_str());
    kMatmul_ = a.kernel(prog_, "matmul");
    kTranspose_ = a.kernel(prog_, "transpose");
    kAxpby_ = a.kernel(prog_, "axpby");
    kMatvec_ = a.kernel(prog_, "matvec");
    kDot_ = a.kernel(prog_, "dot_partial");
    lws1_ = a.pickLocal1D(kAxpby_, 256);
  }

  cl_program program() const { return prog_; }
  size_t ls() const { return ls_; }
  size_t lws1() const { return lws1_; }

  // C[m x n] = A[m x k] * B[k x n]
  void matmul(cl_mem A, cl_mem B, cl_mem C, size_t m, size_t n, size_t k) {
    a_.setArgs(kMatmul_, A, B, C, (cl_uint)m, (cl_uint)n, (cl_uint)k);
    a_.run2D(kMatmul_, app::roundUp(n, ts_), app::roundUp(m, ts_), ts_, ts_);
  }
  // out[cols x rows] = in[rows x cols]^T
  void transpose(cl_mem in, cl_mem out, size_t rows, size_t cols) {
    a_.setArgs(kTranspose_, in, out, (cl_uint)rows, (cl_uint)cols);
    a_.run2D(kTranspose_, app::roundUp(cols, ts_), app::roundUp(rows, ts_), ts_, ts_);
  }
  // out = alpha*x + beta*y, count elements
  void axpby(cl_mem x, cl_mem y, cl_mem out, float alpha, float beta, size_t count) {
    a_.setArgs(kAxpby_, x, y, out, alpha, beta, (cl_uint)count);
    a_.run1D(kAxpby_, app::roundUp(count, lws1_), lws1_);
  }
  void add(cl_mem x, cl_mem y, cl_mem out, size_t count) { axpby(x, y, out, 1.f, 1.f, count); }
  void sub(cl_mem x, cl_mem y, cl_mem out, size_t count) { axpby(x, y, out, 1.f, -1.f, count); }
  // y = A x
  void matvec(cl_mem A, cl_mem x, cl_mem y, size_t rows, size_t cols) {
    a_.setArgs(kMatvec_, A, x, y, (cl_uint)rows, (cl_uint)cols);
    a_.run1D(kMatvec_, rows * ls_, ls_);
  }
  // Number of work-groups (= partial sums) dotPartial uses for n elements.
  size_t dotGroups(size_t n) const { return std::max<size_t>(1, std::min<size_t>(64, app::divUp(n, ls_))); }
  // partial[0 .. dotGroups(n)) = per-group sums of a[i]*b[i]
  void dotPartial(cl_mem x, cl_mem y, cl_mem partial, size_t n) {
    a_.setArgs(kDot_, x, y, partial, (cl_uint)n);
    a_.run1D(kDot_, dotGroups(n) * ls_, ls_);
  }

  // Read-write device matrix/vector of count floats, optionally initialised
  // from host (blocking write, as an ordinary app does before computing).
  cl_mem buffer(size_t count, const float* host = nullptr) {
    cl_mem m = a_.buffer(CL_MEM_READ_WRITE, count * sizeof(float));
    if (host) a_.write(m, count * sizeof(float), host);
    return m;
  }

 private:
  app::App& a_;
  std::string src_;
  cl_program prog_ = nullptr;
  cl_kernel kMatmul_ = nullptr, kTranspose_ = nullptr, kAxpby_ = nullptr, kMatvec_ = nullptr, kDot_ = nullptr;
  size_t ts_ = 16, ls_ = 64, lws1_ = 256;
};

// --------------------------------------------------------- CPU reference ---

using Vec = std::vector<double>;

inline std::vector<float> randomMatrix(size_t count, uint64_t seed, float lo = -1.f, float hi = 1.f) {
  app::Rng rng(seed);
  std::vector<float> m(count);
  for (auto& v : m) v = rng.uniform(lo, hi);
  return m;
}

// Row i of the n x n row-major matrix M.
inline Vec row(const std::vector<float>& M, size_t n, size_t i) {
  return Vec(M.begin() + i * n, M.begin() + (i + 1) * n);
}
// Column j of M (= row j of M^T).
inline Vec col(const std::vector<float>& M, size_t n, size_t j) {
  Vec v(n);
  for (size_t i = 0; i < n; ++i) v[i] = M[i * n + j];
  return v;
}
// v^T M for an n x n matrix M: O(n^2), row-streaming.
inline Vec vecMat(const Vec& v, const std::vector<float>& M, size_t n) {
  Vec out(n, 0.0);
  for (size_t k = 0; k < n; ++k) {
    const double vk = v[k];
    const float* r = &M[k * n];
    for (size_t j = 0; j < n; ++j) out[j] += vk * r[j];
  }
  return out;
}
// v^T M^T, i.e. (M v)^T: O(n^2).
inline Vec vecMatT(const Vec& v, const std::vector<float>& M, size_t n) {
  Vec out(n, 0.0);
  for (size_t j = 0; j < n; ++j) {
    const float* r = &M[j * n];
    double s = 0;
    for (size_t k = 0; k < n; ++k) s += v[k] * r[k];
    out[j] = s;
  }
  return out;
}
inline void axpyInto(Vec& acc, double s, const Vec& v) {
  for (size_t i = 0; i < acc.size(); ++i) acc[i] += s * v[i];
}

// Rows of an n x n result that verification looks at: all of them up to
// fullUpTo, else `samples` rows spread over the matrix (first and last included).
inline std::vector<size_t> checkRows(size_t n, size_t fullUpTo = 256, size_t samples = 8) {
  std::vector<size_t> rows;
  if (n <= fullUpTo) {
    for (size_t i = 0; i < n; ++i) rows.push_back(i);
    return rows;
  }
  app::Rng rng(777);
  rows.push_back(0);
  for (size_t s = 1; s + 1 < samples; ++s) rows.push_back(s * n / samples + rng.below((uint32_t)(n / samples)));
  rows.push_back(n - 1);
  return rows;
}

// Compares the given rows of the device result (n x n, float) with reference
// rows (double).  Tolerance: |got - ref| <= rtol*|ref| + atolRel*max|ref|,
// where max|ref| is taken over the checked rows.
inline bool compareRows(app::App& a, const char* what, const std::vector<float>& got, size_t n,
                        const std::vector<size_t>& rows, const std::vector<Vec>& ref, double rtol,
                        double atolRel) {
  double scale = 0;
  for (const Vec& r : ref)
    for (double v : r) scale = std::max(scale, std::fabs(v));
  const double atol = atolRel * scale;
  size_t bad = 0, checked = 0;
  double maxErr = 0;
  for (size_t ri = 0; ri < rows.size(); ++ri) {
    const size_t i = rows[ri];
    for (size_t j = 0; j < n; ++j) {
      const double g = got[i * n + j], r = ref[ri][j], e = std::fabs(g - r);
      ++checked;
      if (e > maxErr || std::isnan(e)) maxErr = std::isnan(e) ? INFINITY : e;
      if (!(e <= atol + rtol * std::fabs(r))) {
        if (bad == 0)
          std::printf("FAIL %s: element (%zu,%zu): got %.9g expected %.9g (rtol=%g atol=%g)\n", what, i, j, g, r,
                      rtol, atol);
        ++bad;
      }
    }
  }
  if (bad) {
    std::printf("FAIL %s: %zu of %zu checked elements mismatch\n", what, bad, checked);
    return false;
  }
  a.log("%s: %zu elements in %zu rows match (max abs err %.3g, max|ref| %.3g, rel %.3g)\n", what, checked,
        rows.size(), maxErr, scale, scale > 0 ? maxErr / scale : maxErr);
  return true;
}

}  // namespace mk
