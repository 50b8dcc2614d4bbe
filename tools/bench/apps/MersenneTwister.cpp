// MersenneTwister + BoxMuller (SDK style, two kernels in one app).
//   mersenneTwister: every work-item owns a full MT19937 state (624 words,
//     private memory), seeded by init_genrand(seeds[gid]), and writes
//     perItem tempered 32-bit numbers, interleaved (number k of item g at
//     k*items + g) so that consecutive work-items write consecutive words.
//   boxMuller: turns consecutive pairs of those uints into two N(0,1) floats.
// Thesis Table 3.2: 192 million numbers; 512 KB of seeds = 131,072 items
// x 1,536 numbers.  Reference: std::mt19937 (the same MT19937) on the host.
#include "common/app.h"

#include <random>

static const char* kSource = R"CLC(
#define MT_N 624
#define MT_M 397

__kernel void mersenneTwister(__global const uint* seeds, __global uint* out,
                              const uint perItem, const uint items) {
  const uint gid = get_global_id(0);
  if (gid >= items) return;
  uint mt[MT_N];
  mt[0] = seeds[gid];
  for (uint i = 1; i < MT_N; ++i)
    mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i;
  uint idx = MT_N;
  for (uint k = 0; k < perItem; ++k) {
    if (idx >= MT_N) {
      for (uint i = 0; i < MT_N; ++i) {
        uint y = (mt[i] & 0x80000000u) | (mt[i + 1 < MT_N ? i + 1 : 0] & 0x7fffffffu);
        uint j = i + MT_M < MT_N ? i + MT_M : i + MT_M - MT_N;
        mt[i] = mt[j] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
      }
      idx = 0;
    }
    uint y = mt[idx++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    out[k * items + gid] = y;
  }
}

__kernel void boxMuller(__global const uint* in, __global float* out, const uint pairs) {
  const uint i = get_global_id(0);
  if (i >= pairs) return;
  float u1 = ((float)in[2 * i] + 1.0f) * 2.3283064365386963e-10f;  // (0, 1]
  float u2 = (float)in[2 * i + 1] * 2.3283064365386963e-10f;        // [0, 1]
  float r = sqrt(-2.0f * log(u1));
  float th = 6.283185307179586f * u2;
  out[2 * i] = r * cos(th);
  out[2 * i + 1] = r * sin(th);
}
)CLC";

int main(int argc, char** argv) {
  app::App a("MersenneTwister");
  long long items = 0, per = 0;
  a.param("items", &items, "generators (seeds, work-items)", 1024, 16384, 131072);
  a.param("per-item", &per, "numbers per generator (even)", 256, 256, 1536);
  a.parse(argc, argv);
  if (per % 2) ++per;
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel kmt = a.kernel(prog, "mersenneTwister");
  cl_kernel kbm = a.kernel(prog, "boxMuller");
  const size_t lmt = a.pickLocal1D(kmt, 256), lbm = a.pickLocal1D(kbm, 256);

  const size_t I = (size_t)items, P = (size_t)per, total = I * P, pairs = total / 2;
  std::vector<cl_uint> seeds(I), hu(total);
  std::vector<float> hg(total);
  app::Rng rng(61);
  for (auto& s : seeds) s = rng.next32();

  a.startWall();
  cl_mem dseed = a.buffer(CL_MEM_READ_ONLY, I * sizeof(cl_uint));
  cl_mem du = a.buffer(CL_MEM_READ_WRITE, total * sizeof(cl_uint));
  cl_mem dg = a.buffer(CL_MEM_WRITE_ONLY, total * sizeof(float));
  a.write(dseed, I * sizeof(cl_uint), seeds.data());
  a.setArgs(kmt, dseed, du, (cl_uint)P, (cl_uint)I);
  a.setArgs(kbm, du, dg, (cl_uint)pairs);
  for (int r = 0; r < a.repeat(); ++r) {
    a.run1D(kmt, app::roundUp(I, lmt), lmt);
    a.run1D(kbm, app::roundUp(pairs, lbm), lbm);
  }
  a.read(du, total * sizeof(cl_uint), hu.data());
  a.read(dg, total * sizeof(float), hg.data());
  a.stopWall();

  // MT output: exact against std::mt19937, streamed per generator.
  bool ok = true;
  for (size_t g = 0; g < I && ok; ++g) {
    std::mt19937 mt(seeds[g]);
    for (size_t k = 0; k < P; ++k) {
      cl_uint want = (cl_uint)mt(), got = hu[k * I + g];
      if (got != want) {
        std::printf("FAIL mt: first mismatch at index %zu (item %zu, number %zu): got %u expected %u\n",
                    k * I + g, g, k, got, want);
        ok = false;
        break;
      }
    }
  }
  if (ok) a.log("mt: %zu numbers match\n", total);
  // BoxMuller: float kernel vs double math on the same float-converted inputs.
  // Tolerance: r <= 6.7, float log/sqrt/cos/sin within a few ulp and the
  // angle rounded to float: |got - ref| <= 1e-4 + 1e-4 * |ref|.
  const double rtol = 1e-4, atol = 1e-4;
  double maxErr = 0;
  for (size_t i = 0; i < pairs && ok; ++i) {
    float u1 = ((float)hu[2 * i] + 1.0f) * 2.3283064365386963e-10f;
    float u2 = (float)hu[2 * i + 1] * 2.3283064365386963e-10f;
    double r = std::sqrt(-2.0 * std::log((double)u1)), th = 6.283185307179586 * (double)u2;
    double ref[2] = {r * std::cos(th), r * std::sin(th)};
    for (int c = 0; c < 2; ++c) {
      double e = std::fabs(hg[2 * i + c] - ref[c]);
      maxErr = std::max(maxErr, e);
      if (!(e <= atol + rtol * std::fabs(ref[c]))) {
        std::printf("FAIL gauss: first mismatch at index %zu: got %.9g expected %.9g\n", 2 * i + c,
                    (double)hg[2 * i + c], ref[c]);
        ok = false;
        break;
      }
    }
  }
  if (ok) a.log("gauss: %zu values match (max abs err %.3g)\n", total, maxErr);
  return a.finish(ok);
}
