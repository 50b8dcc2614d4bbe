// Index-range tightness on bundled apps (issue 18, VAST): accessedRange per group range.
// VAST slices a launch only where one work-group's bytes come out far smaller
// than the buffer, so this compiles the apps' own kernels and checks that the
// ranges of a few group ranges are known and tight (and, being hulls of the
// exact accesses computed here on the host, never miss an access).
// Usage: tutti_compiler_ranges [-v]   (-v prints every range)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tutti/compiler.h"

using namespace tutti::compiler;

namespace {

int failures = 0;
bool verbose = false;
#define CHECK(c, ...)                              \
  do {                                             \
    if (!(c)) {                                    \
      std::printf("  FAIL %s: ", #c);              \
      std::printf(__VA_ARGS__);                    \
      std::printf("\n");                           \
      ++failures;                                  \
    }                                              \
  } while (0)

std::string appSource(const std::string &app) {
  std::ifstream f(std::string(TUTTI_APPS_DIR) + "/" + app + ".cpp");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  size_t b = s.find("R\"CLC("), e = s.find(")CLC\"");
  if (b == std::string::npos || e == std::string::npos) return "";
  return s.substr(b + 6, e - b - 6);
}

const KernelInfo *compileKernel(CompileResult &r, const std::string &app, const std::string &kernel,
                                const std::string &options = "") {
  CompileRequest req;
  req.source = appSource(app);
  req.options = options;
  r = compile(req);
  if (!r.ok) {
    std::printf("  FAIL compile %s: %s\n", app.c_str(), r.error.c_str());
    ++failures;
    return nullptr;
  }
  for (auto &k : r.kernels)
    if (k.name == kernel) return &k;
  std::printf("  FAIL no kernel %s in %s\n", kernel.c_str(), app.c_str());
  ++failures;
  return nullptr;
}

template <class T> void setScalar(ScalarArgs &sa, unsigned i, T v) { sa.set(i, &v, sizeof v); }

// Exact accessed byte hull of groups [first, first+count) of a 2-D launch, from
// a host model of the kernel: f(x, y, add) calls add(byte_lo, byte_hi_excl).
struct Hull {
  uint64_t lo = UINT64_MAX, hi = 0;
  void add(uint64_t a, uint64_t b) { lo = std::min(lo, a); hi = std::max(hi, b); }
  bool empty() const { return lo >= hi; }
};

Hull exactHull(const NDRange &nd, uint64_t first, uint64_t count,
               const std::function<void(uint64_t gx, uint64_t gy, uint64_t gz, Hull &)> &item) {
  Hull h;
  uint64_t N0 = nd.numGroups(0), N1 = nd.numGroups(1);
  for (uint64_t g = first; g < first + count && g < nd.totalGroups(); ++g) {
    uint64_t g0 = g % N0, g1 = (g / N0) % N1, g2 = g / (N0 * N1);
    for (uint64_t lz = 0; lz < std::max<size_t>(nd.local_size[2], 1); ++lz)
      for (uint64_t ly = 0; ly < std::max<size_t>(nd.local_size[1], 1); ++ly)
        for (uint64_t lx = 0; lx < nd.local_size[0]; ++lx)
          item(g0 * nd.local_size[0] + lx, g1 * nd.local_size[1] + ly,
               g2 * std::max<size_t>(nd.local_size[2], 1) + lz, h);
  }
  return h;
}

// The exact hull of a 1-D launch whose items' accesses grow with the item: the first
// and the last item of the range bound it (billions of items, too many to visit).
Hull exactHullLinear(const NDRange &nd, uint64_t first, uint64_t count,
                     const std::function<void(uint64_t, uint64_t, uint64_t, Hull &)> &item) {
  Hull h;
  const uint64_t L = nd.local_size[0], end = std::min(first + count, nd.totalGroups());
  if (first < end) {
    item(first * L, 0, 0, h);
    for (uint64_t x = end * L; x-- > first * L;) {  // the last item that accesses anything
      Hull one;
      item(x, 0, 0, one);
      if (!one.empty()) {
        h.add(one.lo, one.hi);
        break;
      }
    }
  }
  return h;
}

// Checks one (arg, mode, group range): known, covers the exact hull, and is
// at most `slack` bytes wider than it on either side.
void checkRange(const char *what, const KernelInfo &k, unsigned arg, AccessMode mode,
                const NDRange &nd, const ScalarArgs &sa, uint64_t first, uint64_t count,
                const Hull &exact, uint64_t bufBytes, uint64_t slack) {
  ByteRange r = accessedRange(k, arg, mode, nd, sa, first, count);
  if (verbose || !r.known)
    std::printf("  %s arg %u groups [%llu,+%llu): %s [%llu,%llu) exact [%llu,%llu) of %llu\n", what,
                arg, (unsigned long long)first, (unsigned long long)count,
                r.known ? "known" : "UNKNOWN", (unsigned long long)r.begin,
                (unsigned long long)r.end, (unsigned long long)(exact.empty() ? 0 : exact.lo),
                (unsigned long long)exact.hi, (unsigned long long)bufBytes);
  CHECK(r.known, "%s arg %u [%llu,+%llu) unknown", what, arg, (unsigned long long)first,
        (unsigned long long)count);
  if (!r.known) return;
  if (exact.empty()) return;
  CHECK(r.begin <= exact.lo && r.end >= exact.hi,
        "%s arg %u [%llu,+%llu): [%llu,%llu) misses exact [%llu,%llu)", what, arg,
        (unsigned long long)first, (unsigned long long)count, (unsigned long long)r.begin,
        (unsigned long long)r.end, (unsigned long long)exact.lo, (unsigned long long)exact.hi);
  CHECK(exact.lo - std::min(r.begin, exact.lo) <= slack && r.end - std::min(r.end, exact.hi) <= slack,
        "%s arg %u [%llu,+%llu): [%llu,%llu) wider than exact [%llu,%llu) by more than %llu", what,
        arg, (unsigned long long)first, (unsigned long long)count, (unsigned long long)r.begin,
        (unsigned long long)r.end, (unsigned long long)exact.lo, (unsigned long long)exact.hi,
        (unsigned long long)slack);
}

// median3x3 and sobel: 3x3 clamp-to-edge neighbourhood of uchar4 pixels.
void testImage3x3(const char *app, const char *kernel) {
  std::printf("%s/%s\n", app, kernel);
  CompileResult cr;
  const KernelInfo *k = compileKernel(cr, app, kernel);
  if (!k) return;
  for (uint64_t W : {257ull, 1920ull}) {
    uint64_t H = W == 257 ? 131 : 1080;
    NDRange nd;
    nd.work_dim = 2;
    nd.local_size[0] = nd.local_size[1] = 16;
    nd.global_size[0] = (W + 15) / 16 * 16;
    nd.global_size[1] = (H + 15) / 16 * 16;
    ScalarArgs sa;
    setScalar<uint32_t>(sa, 2, (uint32_t)W);
    setScalar<uint32_t>(sa, 3, (uint32_t)H);
    uint64_t N0 = nd.numGroups(0), total = nd.totalGroups();
    auto in = [&](uint64_t x, uint64_t y, uint64_t, Hull &h) {
      if (x >= W || y >= H) return;
      uint64_t xm = x ? x - 1 : 0, xp = std::min(x + 1, W - 1);
      uint64_t ym = y ? y - 1 : 0, yp = std::min(y + 1, H - 1);
      h.add(4 * (ym * W + xm), 4 * (ym * W + xp) + 4);
      h.add(4 * (yp * W + xm), 4 * (yp * W + xp) + 4);
    };
    auto out = [&](uint64_t x, uint64_t y, uint64_t, Hull &h) {
      if (x < W && y < H) h.add(4 * (y * W + x), 4 * (y * W + x) + 4);
    };
    // one group, a row of groups, an interior group, the last groups
    std::vector<std::pair<uint64_t, uint64_t>> ranges = {
        {0, 1}, {0, 8}, {N0 + 1, 1}, {total / 2, 1}, {total / 2 - 3, 8}, {total - 1, 1}, {total - 8, 8}};
    for (auto [f, c] : ranges) {
      checkRange("in", *k, 0, AccessMode::Read, nd, sa, f, c, exactHull(nd, f, c, in), 4 * W * H, 0);
      checkRange("out", *k, 1, AccessMode::Write, nd, sa, f, c, exactHull(nd, f, c, out), 4 * W * H, 0);
    }
    // the example: an interior 16x16 group at (gx, gy) reads rows
    // gy*16-1 .. gy*16+16 only
    uint64_t gx = 3, gy = 4, g = gy * N0 + gx;
    ByteRange r = accessedRange(*k, 0, AccessMode::Read, nd, sa, g, 1);
    CHECK(r.known && r.begin == 4 * ((gy * 16 - 1) * W + gx * 16 - 1) &&
              r.end == 4 * ((gy * 16 + 16) * W + gx * 16 + 17),
          "interior group reads [%llu,%llu)", (unsigned long long)r.begin, (unsigned long long)r.end);
  }
}

// fdtd3d: radius-4 star stencil over a 3-D volume, boundary points copied.
void testFdtd3d() {
  std::printf("FDTD3d/fdtd3d\n");
  CompileResult cr;
  const KernelInfo *k = compileKernel(cr, "FDTD3d", "fdtd3d", "-DRADIUS=4");
  if (!k) return;
  const uint64_t R = 4;
  for (auto dims : {std::vector<uint64_t>{41, 37, 33}, std::vector<uint64_t>{128, 128, 128}}) {
    uint64_t DX = dims[0], DY = dims[1], DZ = dims[2], SXY = DX * DY;
    NDRange nd;
    nd.work_dim = 3;
    nd.local_size[0] = 16, nd.local_size[1] = 4, nd.local_size[2] = 4;
    for (int d = 0; d < 3; ++d)
      nd.global_size[d] = (dims[d] + nd.local_size[d] - 1) / nd.local_size[d] * nd.local_size[d];
    ScalarArgs sa;
    setScalar<uint32_t>(sa, 3, (uint32_t)DX);
    setScalar<uint32_t>(sa, 4, (uint32_t)DY);
    setScalar<uint32_t>(sa, 5, (uint32_t)DZ);
    auto in = [&](uint64_t x, uint64_t y, uint64_t z, Hull &h) {
      if (x >= DX || y >= DY || z >= DZ) return;
      uint64_t i = z * SXY + y * DX + x;
      bool edge = x < R || x >= DX - R || y < R || y >= DY - R || z < R || z >= DZ - R;
      if (edge) h.add(4 * i, 4 * i + 4);
      else h.add(4 * (i - R * SXY), 4 * (i + R * SXY) + 4);
    };
    auto out = [&](uint64_t x, uint64_t y, uint64_t z, Hull &h) {
      if (x < DX && y < DY && z < DZ) h.add(4 * (z * SXY + y * DX + x), 4 * (z * SXY + y * DX + x) + 4);
    };
    uint64_t total = nd.totalGroups(), P1 = nd.numGroups(0) * nd.numGroups(1);
    std::vector<std::pair<uint64_t, uint64_t>> ranges = {
        {0, 1}, {0, 8}, {P1 + nd.numGroups(0) + 1, 1}, {total / 2, 1}, {total / 2 - 3, 8},
        {total - 1, 1}, {total - 8, 8}, {P1, P1}};
    for (auto [f, c] : ranges) {
      checkRange("in", *k, 0, AccessMode::Read, nd, sa, f, c, exactHull(nd, f, c, in), 4 * SXY * DZ,
                 0);
      checkRange("out", *k, 1, AccessMode::Write, nd, sa, f, c, exactHull(nd, f, c, out), 4 * SXY * DZ, 0);
    }
  }
}

// mersenneTwister: item gid writes out[k * items + gid] for k < perItem.
void testMersenneTwister() {
  std::printf("MersenneTwister/mersenneTwister\n");
  CompileResult cr;
  const KernelInfo *k = compileKernel(cr, "MersenneTwister", "mersenneTwister");
  if (!k) return;
  const uint64_t I = 1024, P = 256;
  NDRange nd;
  nd.work_dim = 1;
  nd.local_size[0] = 256;
  nd.global_size[0] = I;
  ScalarArgs sa;
  setScalar<uint32_t>(sa, 2, (uint32_t)P);
  setScalar<uint32_t>(sa, 3, (uint32_t)I);
  auto seeds = [&](uint64_t x, uint64_t, uint64_t, Hull &h) { if (x < I) h.add(4 * x, 4 * x + 4); };
  auto out = [&](uint64_t x, uint64_t, uint64_t, Hull &h) {
    if (x < I) h.add(4 * x, 4 * ((P - 1) * I + x) + 4);
  };
  for (auto [f, c] : std::vector<std::pair<uint64_t, uint64_t>>{{0, 1}, {1, 2}, {3, 1}}) {
    checkRange("seeds", *k, 0, AccessMode::Read, nd, sa, f, c, exactHull(nd, f, c, seeds), 4 * I, 0);
    checkRange("out", *k, 1, AccessMode::Write, nd, sa, f, c, exactHull(nd, f, c, out), 4 * I * P, 0);
  }
}

// blackScholesPer / blackScholesPackedPer (VAST's big runs: 3.7e9 options, 88.8 GB, two
// per work-item): item x < n / 2 reads options 2x and 2x + 1 (4 or 16 bytes each) and
// writes call[2x], call[2x + 1]. Byte offsets pass 2^32 while the launch keeps under the
// 2^31 work-items the analysis assumes (AssumeNDRange): the ranges must stay known and
// exact (the one-option kernels at 3.7e9 items are unknown by that design).
void testBlackScholesPer() {
  for (bool packed : {false, true}) {
    const char *name = packed ? "blackScholesPackedPer" : "blackScholesPer";
    std::printf("BlackScholes/%s at 3.7e9 options, 2 per item\n", name);
    CompileResult cr;
    const KernelInfo *k = compileKernel(cr, "BlackScholes", name);
    if (!k) return;
    const uint64_t n = 3700000000ull, P = 2, L = 256;
    NDRange nd;
    nd.work_dim = 1;
    nd.local_size[0] = L;
    nd.global_size[0] = ((n + P - 1) / P + L - 1) / L * L;
    ScalarArgs sa;
    const unsigned nArg = packed ? 5 : 7, outArg = packed ? 1 : 3;
    setScalar<uint64_t>(sa, nArg, n);
    setScalar<uint32_t>(sa, nArg + 1, (uint32_t)P);
    const uint64_t in = packed ? 16 : 4;
    // The packed kernel loads x, y, z of each float4, not w: 12 bytes of the last one.
    auto reads = [&](uint64_t x, uint64_t, uint64_t, Hull &h) {
      if (P * x < n) h.add(in * P * x, in * std::min(n, P * x + P) - (packed ? 4 : 0));
    };
    auto writes = [&](uint64_t x, uint64_t, uint64_t, Hull &h) {
      if (P * x < n) h.add(4 * P * x, 4 * std::min(n, P * x + P));
    };
    const uint64_t G = nd.totalGroups(), wide = (uint64_t(1) << 32) / (P * L);  // first group past 2^32 options
    for (auto [f, c] : std::vector<std::pair<uint64_t, uint64_t>>{{0, 1}, {wide - 1, 2}, {wide, 1000}, {G - 3, 3}, {0, G}}) {
      Hull r = exactHullLinear(nd, f, c, reads), w = exactHullLinear(nd, f, c, writes);
      checkRange("in", *k, 0, AccessMode::Read, nd, sa, f, c, r, in * n, 0);
      checkRange("call", *k, outArg, AccessMode::Write, nd, sa, f, c, w, 4 * n, 0);
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "-v")) verbose = true;
  testImage3x3("MedianFilter", "median3x3");
  testImage3x3("SobelFilter", "sobel");
  testFdtd3d();
  testMersenneTwister();
  testBlackScholesPer();
  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}
