// Histogram, 1st round (SDK style, no atomics): 256 bins.  Every work-item
// keeps its own 256 uchar sub-histogram in local memory (column layout
// bin*lws + lid), counts up to 128 values into it, then after a barrier the
// work-items of the group sum the sub-histograms bin by bin and write one
// 256-bin histogram per work-group.  The host merges them (2nd round).
// Thesis Table 3.2: 67 million numbers (2^26 uint).  The thesis (NVIDIA SDK)
// used 2,048 groups of 256 items with 64 KiB of local bins; to stay inside
// 32 KiB of local memory here a group has at most 128 items, i.e. 4,096
// groups at the thesis size.  Any n (guarded loads).
#include "common/app.h"

static const char* kSource = R"CLC(
#define BINS 256
__kernel void histogram256(__global const uint* data, __global uint* partial,
                           const uint n, const uint perItem, __local uchar* sub) {
  const uint lid = get_local_id(0), lsz = get_local_size(0);
  const uint g = get_group_id(0);
  for (uint b = 0; b < BINS; ++b) sub[b * lsz + lid] = 0;
  const uint base = g * lsz * perItem;
  for (uint j = 0; j < perItem; ++j) {
    uint i = base + j * lsz + lid;
    if (i < n) {
      uint v = data[i] & 0xFFu;
      sub[v * lsz + lid] += 1;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < BINS; b += lsz) {
    uint s = 0;
    for (uint t = 0; t < lsz; ++t) s += sub[b * lsz + t];
    partial[g * BINS + b] = s;
  }
}
)CLC";

int main(int argc, char** argv) {
  app::App a("Histogram");
  long long n = 0;
  a.param("n", &n, "number of uint values", 100003, 4000037, 64LL * 1024 * 1024);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "histogram256");
  const size_t bins = 256, perItem = 128;  // perItem < 256: uchar counters cannot overflow
  size_t lws = a.pickLocal1D(k, 128);
  while (lws > 1 && lws * bins + 1024 > a.localMemSize()) lws /= 2;
  const size_t N = (size_t)n, perGroup = lws * perItem, groups = app::divUp(N, perGroup);
  a.log("work-group %zu, %zu groups\n", lws, groups);

  std::vector<cl_uint> hin(N), partial(groups * bins), refPartial(groups * bins, 0), hist(bins, 0),
      refHist(bins, 0);
  app::Rng rng(17);
  for (auto& x : hin) x = rng.next32();
  for (size_t i = 0; i < N; ++i) {
    refPartial[(i / perGroup) * bins + (hin[i] & 0xFF)]++;
    refHist[hin[i] & 0xFF]++;
  }

  a.startWall();
  cl_mem din = a.buffer(CL_MEM_READ_ONLY, N * sizeof(cl_uint));
  cl_mem dpart = a.buffer(CL_MEM_WRITE_ONLY, partial.size() * sizeof(cl_uint));
  a.write(din, N * sizeof(cl_uint), hin.data());
  a.setArgs(k, din, dpart, (cl_uint)N, (cl_uint)perItem, app::Local(lws * bins));
  for (int i = 0; i < a.repeat(); ++i) a.run1D(k, groups * lws, lws);
  a.read(dpart, partial.size() * sizeof(cl_uint), partial.data());
  for (size_t g = 0; g < groups; ++g)  // 2nd round on the host
    for (size_t b = 0; b < bins; ++b) hist[b] += partial[g * bins + b];
  a.stopWall();

  bool ok = a.compareExact("partial", partial.data(), refPartial.data(), partial.size());
  ok = a.compareExact("histogram", hist.data(), refHist.data(), bins) && ok;
  return a.finish(ok);
}
