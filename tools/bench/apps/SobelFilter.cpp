// SobelFilter (AMD APP SDK style): 3x3 Sobel gradient magnitude of an RGBA
// (uchar4) image, per channel, 2-D NDRange, clamp-to-edge borders.
// out = min(255, floor(sqrt(Gx^2 + Gy^2)) / 2).  The integer square root is
// made exact (float sqrt, then corrected), so the output is compared exactly.
// Thesis Table 3.2: 7680 x 4320 image.  Any width/height (guarded).
#include "common/app.h"

static const char* kSource = R"CLC(
int isqrt(int v) {
  int m = (int)sqrt((float)v);
  while (m * m > v) --m;
  while ((m + 1) * (m + 1) <= v) ++m;
  return m;
}

__kernel void sobel(__global const uchar4* in, __global uchar4* out,
                    const uint width, const uint height) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  const int w = (int)width, h = (int)height;
  if (x >= w || y >= h) return;
  const int xm = max(x - 1, 0), xp = min(x + 1, w - 1);
  const int ym = max(y - 1, 0), yp = min(y + 1, h - 1);
  int4 p00 = convert_int4(in[ym * w + xm]), p01 = convert_int4(in[ym * w + x]), p02 = convert_int4(in[ym * w + xp]);
  int4 p10 = convert_int4(in[y * w + xm]),                                       p12 = convert_int4(in[y * w + xp]);
  int4 p20 = convert_int4(in[yp * w + xm]), p21 = convert_int4(in[yp * w + x]), p22 = convert_int4(in[yp * w + xp]);
  int4 gx = (p02 + 2 * p12 + p22) - (p00 + 2 * p10 + p20);
  int4 gy = (p20 + 2 * p21 + p22) - (p00 + 2 * p01 + p02);
  int4 g2 = gx * gx + gy * gy;
  int4 m = (int4)(isqrt(g2.x), isqrt(g2.y), isqrt(g2.z), isqrt(g2.w)) / 2;
  out[y * w + x] = convert_uchar4_sat(m);
}
)CLC";

int main(int argc, char** argv) {
  app::App a("SobelFilter");
  long long w = 0, h = 0;
  a.param("width", &w, "image width", 257, 1920, 7680);
  a.param("height", &h, "image height", 131, 1080, 4320);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "sobel");
  size_t lx, ly;
  a.pickLocal2D(k, 16, 16, lx, ly);

  const size_t W = (size_t)w, H = (size_t)h, px = W * H, bytes = px * 4;
  std::vector<cl_uchar> hin(bytes), hout(bytes), ref(bytes);
  app::Rng rng(31);
  // Smooth gradient plus noise, so that edges are neither all 0 nor all 255.
  for (size_t y = 0; y < H; ++y)
    for (size_t x = 0; x < W; ++x)
      for (int c = 0; c < 4; ++c)
        hin[(y * W + x) * 4 + c] = (cl_uchar)((x * (c + 1) + y * 3 + (rng.next32() & 63)) & 0xFF);
  for (long y = 0; y < (long)H; ++y)
    for (long x = 0; x < (long)W; ++x) {
      auto P = [&](long yy, long xx, int c) -> int {
        yy = std::min(std::max(yy, 0L), (long)H - 1);
        xx = std::min(std::max(xx, 0L), (long)W - 1);
        return hin[(yy * W + xx) * 4 + c];
      };
      for (int c = 0; c < 4; ++c) {
        int gx = (P(y - 1, x + 1, c) + 2 * P(y, x + 1, c) + P(y + 1, x + 1, c)) -
                 (P(y - 1, x - 1, c) + 2 * P(y, x - 1, c) + P(y + 1, x - 1, c));
        int gy = (P(y + 1, x - 1, c) + 2 * P(y + 1, x, c) + P(y + 1, x + 1, c)) -
                 (P(y - 1, x - 1, c) + 2 * P(y - 1, x, c) + P(y - 1, x + 1, c));
        long g2 = (long)gx * gx + (long)gy * gy;
        long m = (long)std::sqrt((double)g2);
        while (m * m > g2) --m;
        while ((m + 1) * (m + 1) <= g2) ++m;
        ref[(y * W + x) * 4 + c] = (cl_uchar)std::min(255L, m / 2);
      }
    }

  a.startWall();
  cl_mem din = a.buffer(CL_MEM_READ_ONLY, bytes);
  cl_mem dout = a.buffer(CL_MEM_WRITE_ONLY, bytes);
  a.write(din, bytes, hin.data());
  a.setArgs(k, din, dout, (cl_uint)W, (cl_uint)H);
  for (int i = 0; i < a.repeat(); ++i) a.run2D(k, app::roundUp(W, lx), app::roundUp(H, ly), lx, ly);
  a.read(dout, bytes, hout.data());
  a.stopWall();

  bool ok = a.compareExact("pixel bytes", hout.data(), ref.data(), bytes);
  return a.finish(ok);
}
