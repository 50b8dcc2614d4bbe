// MatrixTranspose (AMD APP SDK style): out = in^T through a square local-memory
// tile (padded by one column against bank conflicts), 2-D NDRange.
// Thesis Table 3.2: 8192 x 8192 matrices.  Any width/height (guarded).
#include "common/app.h"

static const char* kSource = R"CLC(
// in: height rows x width columns; out: width rows x height columns.
__kernel void matrixTranspose(__global float* out, __global const float* in,
                              const uint width, const uint height,
                              __local float* tile) {
  const uint T = get_local_size(0);  // square work-group T x T
  const uint lx = get_local_id(0), ly = get_local_id(1);
  const uint bx = get_group_id(0) * T, by = get_group_id(1) * T;
  uint x = bx + lx, y = by + ly;
  if (x < width && y < height) tile[ly * (T + 1) + lx] = in[y * width + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint ox = by + lx, oy = bx + ly;  // column / row in the output
  if (ox < height && oy < width) out[oy * height + ox] = tile[lx * (T + 1) + ly];
}
)CLC";

int main(int argc, char** argv) {
  app::App a("MatrixTranspose");
  long long w = 0, h = 0;
  a.param("width", &w, "columns of the input", 200, 2048, 8192);
  a.param("height", &h, "rows of the input", 152, 2048, 8192);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "matrixTranspose");
  size_t t = 16;
  while (t > 1 && (t * t > a.maxWorkGroupSize(k) || t > a.deviceMaxWorkItemSize(1) ||
                   (t + 1) * t * sizeof(float) > a.localMemSize() / 2))
    t /= 2;
  a.log("tile %zux%zu\n", t, t);

  const size_t W = (size_t)w, H = (size_t)h, bytes = W * H * sizeof(float);
  std::vector<float> hin(W * H), hout(W * H), ref(W * H);
  app::Rng rng(3);
  for (auto& x : hin) x = rng.uniform(-1000.f, 1000.f);
  for (size_t y = 0; y < H; ++y)
    for (size_t x = 0; x < W; ++x) ref[x * H + y] = hin[y * W + x];

  a.startWall();
  cl_mem din = a.buffer(CL_MEM_READ_ONLY, bytes);
  cl_mem dout = a.buffer(CL_MEM_WRITE_ONLY, bytes);
  a.write(din, bytes, hin.data());
  a.setArgs(k, dout, din, (cl_uint)W, (cl_uint)H, app::Local((t + 1) * t * sizeof(float)));
  for (int i = 0; i < a.repeat(); ++i) a.run2D(k, app::roundUp(W, t), app::roundUp(H, t), t, t);
  a.read(dout, bytes, hout.data());
  a.stopWall();

  bool ok = a.compareExact("out", hout.data(), ref.data(), W * H);  // pure data movement: exact
  return a.finish(ok);
}
