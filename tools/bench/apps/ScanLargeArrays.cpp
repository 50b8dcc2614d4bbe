// ScanLargeArrays (AMD APP SDK style): inclusive prefix sum of n floats by a
// multi-level block scan.  blockScan: every work-group scans a block of
// 2*lws elements in local memory (work-efficient up/down sweep with a
// barrier per level) and writes the block total; the block totals are scanned
// the same way (recursively, in place) and blockAdd adds the scanned total of
// the preceding blocks to every element.
// Thesis Table 3.2: 8 million floats, 32,768 work-groups (blocks of 256).
// Any n (guarded).
#include "common/app.h"

static const char* kSource = R"CLC(
__kernel void blockScan(__global const float* in, __global float* out,
                        __global float* sums, const uint n, __local float* tmp) {
  const uint lid = get_local_id(0), lsz = get_local_size(0);
  const uint B = 2 * lsz, g = get_group_id(0), base = g * B;
  const uint ai = lid, bi = lid + lsz;
  float va = (base + ai < n) ? in[base + ai] : 0.0f;
  float vb = (base + bi < n) ? in[base + bi] : 0.0f;
  tmp[ai] = va;
  tmp[bi] = vb;
  uint offset = 1;
  for (uint d = lsz; d > 0; d >>= 1) {  // up-sweep
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      uint i = offset * (2 * lid + 1) - 1, j = offset * (2 * lid + 2) - 1;
      tmp[j] += tmp[i];
    }
    offset <<= 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    sums[g] = tmp[B - 1];
    tmp[B - 1] = 0.0f;
  }
  for (uint d = 1; d < B; d <<= 1) {  // down-sweep: exclusive scan
    offset >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      uint i = offset * (2 * lid + 1) - 1, j = offset * (2 * lid + 2) - 1;
      float t = tmp[i];
      tmp[i] = tmp[j];
      tmp[j] += t;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (base + ai < n) out[base + ai] = tmp[ai] + va;
  if (base + bi < n) out[base + bi] = tmp[bi] + vb;
}

__kernel void blockAdd(__global float* data, __global const float* scannedSums,
                       const uint n, const uint B) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  const uint b = i / B;
  if (b > 0) data[i] += scannedSums[b - 1];
}
)CLC";

int main(int argc, char** argv) {
  app::App a("ScanLargeArrays");
  long long n = 0;
  a.param("n", &n, "number of floats", 100003, 2000003, 8LL * 1024 * 1024);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel kscan = a.kernel(prog, "blockScan");
  cl_kernel kadd = a.kernel(prog, "blockAdd");
  const size_t lws = std::max<size_t>(1, a.pickLocal1D(kscan, 128));
  const size_t addLws = a.pickLocal1D(kadd, 256);
  const size_t B = 2 * lws, N = (size_t)n;

  // Level sizes: level 0 = n, level k+1 = number of blocks of level k, until
  // one block covers a level.
  std::vector<size_t> levels{N};
  while (levels.back() > B) levels.push_back(app::divUp(levels.back(), B));

  std::vector<float> hin(N), hout(N), ref(N);
  app::Rng rng(23);
  for (auto& x : hin) x = (float)rng.unit();
  double acc = 0;
  for (size_t i = 0; i < N; ++i) ref[i] = (float)(acc += hin[i]);

  a.startWall();
  cl_mem din = a.buffer(CL_MEM_READ_ONLY, N * sizeof(float));
  cl_mem dout = a.buffer(CL_MEM_READ_WRITE, N * sizeof(float));
  std::vector<cl_mem> sums;  // sums[k] holds the block totals of level k
  for (size_t l = 0; l < levels.size(); ++l)
    sums.push_back(a.buffer(CL_MEM_READ_WRITE, app::divUp(levels[l], B) * sizeof(float)));
  a.write(din, N * sizeof(float), hin.data());
  for (int r = 0; r < a.repeat(); ++r) {
    for (size_t l = 0; l < levels.size(); ++l) {  // scan every level
      cl_mem src = l == 0 ? din : sums[l - 1];
      cl_mem dst = l == 0 ? dout : sums[l - 1];
      size_t groups = app::divUp(levels[l], B);
      a.setArgs(kscan, src, dst, sums[l], (cl_uint)levels[l], app::Local(B * sizeof(float)));
      a.run1D(kscan, groups * lws, lws);
    }
    for (size_t l = levels.size() - 1; l-- > 0;) {  // propagate block offsets down
      cl_mem data = l == 0 ? dout : sums[l - 1];
      a.setArgs(kadd, data, sums[l], (cl_uint)levels[l], (cl_uint)B);
      a.run1D(kadd, app::roundUp(levels[l], addLws), addLws);
    }
  }
  a.read(dout, N * sizeof(float), hout.data());
  a.stopWall();

  // Tolerance: prefix sums of values in [0,1) reach n/2; the block-tree
  // order differs from the sequential double reference by O(log n) float
  // roundings: |got - ref| <= 1e-4 + 2e-5 * |ref|.
  bool ok = a.compareFloat("scan", hout.data(), ref.data(), N, 2e-5, 1e-4);
  return a.finish(ok);
}
