// FDTD3d (NVIDIA SDK style): 3-D finite-difference stencil of radius R
// (out = c0*in + sum_r c_r * (6 neighbours at distance r)) for several time
// steps, ping-ponging two buffers; 3-D NDRange, one point per work-item.
// Points closer than R to a face are boundary points and keep their value.
// Thesis Table 3.2: dim 256^3, radius 2 (tiny/small use radius 4, the SDK
// default), 5 time steps.  Any dimensions (guarded).
#include "common/app.h"

static const char* kSource = R"CLC(
#ifndef RADIUS
#define RADIUS 4
#endif
__kernel void fdtd3d(__global const float* in, __global float* out,
                     __constant float* coeff, const uint dx, const uint dy,
                     const uint dz) {
  const uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= dx || y >= dy || z >= dz) return;
  const uint sxy = dx * dy;
  const uint idx = z * sxy + y * dx + x;
  if (x < RADIUS || x >= dx - RADIUS || y < RADIUS || y >= dy - RADIUS ||
      z < RADIUS || z >= dz - RADIUS) {
    out[idx] = in[idx];
    return;
  }
  float v = coeff[0] * in[idx];
  for (uint r = 1; r <= RADIUS; ++r)
    v += coeff[r] * (in[idx - r] + in[idx + r] + in[idx - r * dx] + in[idx + r * dx] +
                     in[idx - r * sxy] + in[idx + r * sxy]);
  out[idx] = v;
}
)CLC";

int main(int argc, char** argv) {
  app::App a("FDTD3d");
  long long dxp = 0, dyp = 0, dzp = 0, rp = 0, sp = 0;
  a.param("dimx", &dxp, "volume size x", 41, 128, 256);
  a.param("dimy", &dyp, "volume size y", 37, 128, 256);
  a.param("dimz", &dzp, "volume size z", 33, 128, 256);
  a.param("radius", &rp, "stencil radius (1..8)", 4, 4, 2);
  a.param("steps", &sp, "time steps", 3, 5, 5);
  a.parse(argc, argv);
  if (rp > 8) rp = 8;
  a.init();

  const int R = (int)rp, steps = (int)sp;
  std::string opts = "-DRADIUS=" + std::to_string(R);
  cl_program prog = a.build(kSource, opts.c_str());
  cl_kernel k = a.kernel(prog, "fdtd3d");
  size_t lx, ly, lz;
  a.pickLocal3D(k, 16, 4, 4, lx, ly, lz);

  const size_t DX = (size_t)dxp, DY = (size_t)dyp, DZ = (size_t)dzp, P = DX * DY * DZ;
  const size_t bytes = P * sizeof(float);
  // Coefficients sum to 1 (a stable averaging stencil).
  std::vector<float> coeff(R + 1);
  coeff[0] = 0.5f;
  for (int r = 1; r <= R; ++r) coeff[r] = 0.5f / (6.0f * R) * (float)(R + 1 - r) * 2.0f / (float)(R + 1);
  std::vector<float> h0(P), hout(P);
  app::Rng rng(41);
  for (auto& v : h0) v = (float)rng.unit();

  // Reference: double accumulation per point, state stored as float per step.
  std::vector<float> ra = h0, rb(P);
  for (int s = 0; s < steps; ++s) {
    const size_t sxy = DX * DY;
    for (size_t z = 0; z < DZ; ++z)
      for (size_t y = 0; y < DY; ++y)
        for (size_t x = 0; x < DX; ++x) {
          size_t i = z * sxy + y * DX + x;
          if (x < (size_t)R || x >= DX - R || y < (size_t)R || y >= DY - R || z < (size_t)R || z >= DZ - R) {
            rb[i] = ra[i];
            continue;
          }
          double v = (double)coeff[0] * ra[i];
          for (int r = 1; r <= R; ++r)
            v += (double)coeff[r] * ((double)ra[i - r] + ra[i + r] + ra[i - r * DX] + ra[i + r * DX] +
                                     ra[i - r * sxy] + ra[i + r * sxy]);
          rb[i] = (float)v;
        }
    std::swap(ra, rb);
  }

  a.startWall();
  cl_mem buf[2] = {a.buffer(CL_MEM_READ_WRITE, bytes), a.buffer(CL_MEM_READ_WRITE, bytes)};
  cl_mem dco = a.buffer(CL_MEM_READ_ONLY, coeff.size() * sizeof(float));
  a.write(dco, coeff.size() * sizeof(float), coeff.data());
  int cur = 0;
  for (int r = 0; r < a.repeat(); ++r) {
    a.write(buf[0], bytes, h0.data());
    cur = 0;
    for (int s = 0; s < steps; ++s) {
      a.setArgs(k, buf[cur], buf[1 - cur], dco, (cl_uint)DX, (cl_uint)DY, (cl_uint)DZ);
      a.run3D(k, app::roundUp(DX, lx), app::roundUp(DY, ly), app::roundUp(DZ, lz), lx, ly, lz);
      cur = 1 - cur;
    }
  }
  a.read(buf[cur], bytes, hout.data());
  a.stopWall();

  // Tolerance: values stay in [0,1); per step 6R+1 float products summed
  // (possibly fused) vs double accumulation: |got - ref| <= 2e-5 + 2e-5*|ref|.
  bool ok = a.compareFloat("volume", hout.data(), ra.data(), P, 2e-5, 2e-5);
  return a.finish(ok);
}
