// MedianFilter (AMD APP SDK style): 3x3 median of an RGBA (uchar4) image, per
// channel, with the 19 compare-exchange median-of-9 network on uint4 vectors,
// 2-D NDRange, clamp-to-edge borders.  Exact integer output.
// Thesis Table 3.2: 7680 x 4320 image.  Any width/height (guarded).
#include "common/app.h"

static const char* kSource = R"CLC(
#define OP(a, b) { uint4 t_ = min(a, b); b = max(a, b); a = t_; }

__kernel void median3x3(__global const uchar4* in, __global uchar4* out,
                        const uint width, const uint height) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  const int w = (int)width, h = (int)height;
  if (x >= w || y >= h) return;
  const int xm = max(x - 1, 0), xp = min(x + 1, w - 1);
  const int ym = max(y - 1, 0), yp = min(y + 1, h - 1);
  uint4 p0 = convert_uint4(in[ym * w + xm]), p1 = convert_uint4(in[ym * w + x]), p2 = convert_uint4(in[ym * w + xp]);
  uint4 p3 = convert_uint4(in[y * w + xm]),  p4 = convert_uint4(in[y * w + x]),  p5 = convert_uint4(in[y * w + xp]);
  uint4 p6 = convert_uint4(in[yp * w + xm]), p7 = convert_uint4(in[yp * w + x]), p8 = convert_uint4(in[yp * w + xp]);
  OP(p1, p2); OP(p4, p5); OP(p7, p8); OP(p0, p1); OP(p3, p4); OP(p6, p7);
  OP(p1, p2); OP(p4, p5); OP(p7, p8); OP(p0, p3); OP(p5, p8); OP(p4, p7);
  OP(p3, p6); OP(p1, p4); OP(p2, p5); OP(p4, p7); OP(p4, p2); OP(p6, p4);
  OP(p4, p2);
  out[y * w + x] = convert_uchar4(p4);
}
)CLC";

int main(int argc, char** argv) {
  app::App a("MedianFilter");
  long long w = 0, h = 0;
  a.param("width", &w, "image width", 257, 1920, 7680);
  a.param("height", &h, "image height", 131, 1080, 4320);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "median3x3");
  size_t lx, ly;
  a.pickLocal2D(k, 16, 16, lx, ly);

  const size_t W = (size_t)w, H = (size_t)h, bytes = W * H * 4;
  std::vector<cl_uchar> hin(bytes), hout(bytes), ref(bytes);
  app::Rng rng(37);
  for (auto& b : hin) b = (cl_uchar)rng.next32();
  // The reference, rows split over the cores (17 s on one core at thesis size).
  auto rows = [&](long y0, long y1) {
  for (long y = y0; y < y1; ++y)
    for (long x = 0; x < (long)W; ++x)
      for (int c = 0; c < 4; ++c) {
        cl_uchar v[9];
        int t = 0;
        for (long dy = -1; dy <= 1; ++dy)
          for (long dx = -1; dx <= 1; ++dx) {
            long yy = std::min(std::max(y + dy, 0L), (long)H - 1);
            long xx = std::min(std::max(x + dx, 0L), (long)W - 1);
            v[t++] = hin[(yy * W + xx) * 4 + c];
          }
        std::nth_element(v, v + 4, v + 9);
        ref[(y * W + x) * 4 + c] = v[4];
      }
  };
  app::parallelFor(H, [&](size_t y0, size_t y1) { rows((long)y0, (long)y1); });

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
