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


// ============================================================== K-means ===
// Lloyd's K-means for M models at once by concatenated parallelism (Ravunnikutty,
// Ensemble K-Means on Modern Manycore Hardware, Ch. 5.3): one NDRange covers all
// models, each work-item takes one data point, keeps every model's centroids in
// local memory and finds the closest centroid of each model, so the data are
// read once per iteration whatever M is.  M = 1 is plain K-means (kmeans.cpp).
//
// Per iteration, on one in-order queue, no host round trip:
//   km_assign   (N work-items)        labels[m][p] = closest centroid of model m
//   km_partial  (C x M work-items)    per-chunk sums and counts, no atomics: item
//                                     (c, m) owns its slot, points c, c+C, ...
//   km_update   (M*K work-groups)     centroid = sum of chunk sums / count
//                                     (kept when its cluster is empty)
// The thesis accumulates with atomic adds on floats; OpenCL 1.2 has none for
// float, and a float atomic sum is order-dependent, so the two-round reduction
// above replaces it (deterministic on a device, and partitionable by work-group).
//
// Data: K well-separated blobs (points uniform within +-1 of a centre, centres
// 10 apart along dimension 0), shuffled.  Model m starts with centroid k at a
// random point of blob (k + m) mod K.  Every centroid then stays inside its own
// blob, the nearest centroid is never ambiguous (squared distance <= 4D to the
// own centroid, >= 64 to any other; D <= 8), and labels can be compared exactly.
static const char* kKmeansSource = R"CLC(
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
)CLC";

struct KmeansSize {
  long long n = 0, k = 0, d = 0, iters = 0, m = 1;
};

// Runs K-means for s.m models; verifies labels exactly and centroids to
// |got-ref| <= 1e-4*|ref| + 1e-4 against a double-precision CPU run of the same
// algorithm; returns App::finish's exit code.
inline int runKmeans(app::App& a, const KmeansSize& sz) {
  const size_t N = (size_t)sz.n, K = (size_t)sz.k, D = (size_t)sz.d, iters = (size_t)sz.iters, M = (size_t)sz.m;
  if (D > 8 || K > N || N >= (1u << 24)) {
    std::fprintf(stderr, "%s: need d <= 8, k <= n and n < 2^24 (exact float counts)\n", a.name().c_str());
    return 2;
  }
  const size_t W = D + 1, MKD = M * K * D;
  if (MKD * sizeof(float) > a.localMemSize()) {
    std::fprintf(stderr, "%s: %zu centroids x %zu dims do not fit in local memory\n", a.name().c_str(), M * K, D);
    return 2;
  }

  // Data: blobs, shuffled; SoA layout.
  app::Rng rng(61);
  std::vector<uint32_t> blob(N);
  for (size_t p = 0; p < N; ++p) blob[p] = (uint32_t)(p % K);
  for (size_t p = N - 1; p > 0; --p) std::swap(blob[p], blob[rng.below((uint32_t)(p + 1))]);
  std::vector<float> pts(D * N);
  std::vector<std::vector<uint32_t>> members(K);
  for (size_t p = 0; p < N; ++p) {
    const uint32_t b = blob[p];
    members[b].push_back((uint32_t)p);
    for (size_t d = 0; d < D; ++d) {
      const float centre = d == 0 ? 10.f * (float)b - 5.f * (float)(K - 1) : 3.f * (float)((b * 7 + d) % 5);
      pts[d * N + p] = centre + rng.uniform(-1.f, 1.f);
    }
  }
  std::vector<float> cent0(MKD);
  for (size_t m = 0; m < M; ++m)
    for (size_t k = 0; k < K; ++k) {
      const auto& mem = members[(k + m) % K];
      const uint32_t p = mem[rng.below((uint32_t)mem.size())];
      for (size_t d = 0; d < D; ++d) cent0[(m * K + k) * D + d] = pts[d * N + p];
    }

  cl_program prog = a.build(kKmeansSource);
  cl_kernel kAssign = a.kernel(prog, "km_assign"), kPartial = a.kernel(prog, "km_partial"),
            kUpdate = a.kernel(prog, "km_update");
  const size_t la = a.pickLocal1D(kAssign, 128);
  const size_t C = std::max<size_t>(1, std::min<size_t>(4096, app::divUp(N, 256)));
  size_t lpx = 0, lpy = 0;
  a.pickLocal2D(kPartial, 64, 1, lpx, lpy);
  const size_t lu = a.pickLocal1D(kUpdate, 64);
  const cl_uint uN = (cl_uint)N, uD = (cl_uint)D, uK = (cl_uint)K, uM = (cl_uint)M, uC = (cl_uint)C;
  a.log("%s: n=%zu k=%zu d=%zu iters=%zu models=%zu chunks=%zu\n", a.name().c_str(), N, K, D, iters, M, C);

  std::vector<int> labels(M * N);
  std::vector<float> cent(MKD);
  a.startWall();
  cl_mem dPts = a.buffer(CL_MEM_READ_ONLY, pts.size() * sizeof(float));
  cl_mem dCent0 = a.buffer(CL_MEM_READ_ONLY, MKD * sizeof(float));
  cl_mem dCent = a.buffer(CL_MEM_READ_WRITE, MKD * sizeof(float));
  cl_mem dLabels = a.buffer(CL_MEM_READ_WRITE, M * N * sizeof(int));
  cl_mem dPartial = a.buffer(CL_MEM_READ_WRITE, M * C * K * W * sizeof(float));
  a.write(dPts, pts.size() * sizeof(float), pts.data());
  a.write(dCent0, MKD * sizeof(float), cent0.data());
  a.setArgs(kAssign, dPts, dCent, dLabels, app::Local(MKD * sizeof(float)), uN, uD, uK, uM);
  a.setArgs(kPartial, dPts, dLabels, dPartial, uN, uD, uK, uC);
  a.setArgs(kUpdate, dPartial, dCent, app::Local(W * lu * sizeof(float)), uD, uK, uC);
  for (int rep = 0; rep < a.repeat(); ++rep) {
    CHECK(clEnqueueCopyBuffer(a.queue, dCent0, dCent, 0, 0, MKD * sizeof(float), 0, nullptr, nullptr));
    for (size_t it = 0; it < iters; ++it) {
      a.run1D(kAssign, app::roundUp(N, la), la);
      a.run2D(kPartial, app::roundUp(C, lpx), app::roundUp(M, lpy), lpx, lpy);
      a.run1D(kUpdate, M * K * lu, lu);
    }
  }
  a.read(dLabels, M * N * sizeof(int), labels.data());
  a.read(dCent, MKD * sizeof(float), cent.data());
  a.finishQueue();
  a.stopWall();

  // CPU reference in double.
  std::vector<double> rc(cent0.begin(), cent0.end());
  std::vector<int> rl(M * N);
  for (size_t it = 0; it < iters; ++it) {
    std::vector<double> sum(MKD, 0.0), cnt(M * K, 0.0);
    for (size_t m = 0; m < M; ++m)
      for (size_t p = 0; p < N; ++p) {
        double best = INFINITY;
        int bi = 0;
        for (size_t k = 0; k < K; ++k) {
          double dist = 0;
          for (size_t d = 0; d < D; ++d) {
            const double diff = pts[d * N + p] - rc[(m * K + k) * D + d];
            dist += diff * diff;
          }
          if (dist < best) {
            best = dist;
            bi = (int)k;
          }
        }
        rl[m * N + p] = bi;
        for (size_t d = 0; d < D; ++d) sum[(m * K + bi) * D + d] += pts[d * N + p];
        cnt[m * K + bi] += 1;
      }
    for (size_t mk = 0; mk < M * K; ++mk)
      if (cnt[mk] > 0)
        for (size_t d = 0; d < D; ++d) rc[mk * D + d] = sum[mk * D + d] / cnt[mk];
  }
  std::vector<float> refCent(rc.begin(), rc.end());
  bool ok = a.compareExact("labels", labels.data(), rl.data(), M * N);
  ok = a.compareFloat("centroids", cent.data(), refCent.data(), MKD, 1e-4, 1e-4) && ok;

  // The ensemble's answer: the model with the smallest sum of squared errors.
  size_t bestM = 0;
  double bestSse = INFINITY;
  for (size_t m = 0; m < M; ++m) {
    double sse = 0;
    for (size_t p = 0; p < N; ++p)
      for (size_t d = 0; d < D; ++d) {
        const double diff = pts[d * N + p] - cent[(m * K + labels[m * N + p]) * D + d];
        sse += diff * diff;
      }
    if (sse < bestSse) {
      bestSse = sse;
      bestM = m;
    }
  }
  a.log("best model %zu of %zu: SSE %.6g\n", bestM, M, bestSse);
  return a.finish(ok);
}

}  // namespace mk
