// BinomialOption (AMD APP SDK style): European call option pricing on a
// binomial lattice.  One work-group prices one float4 "option sample" (four
// option variants in the vector lanes, as in the SDK) with numSteps+1
// work-items; the lattice lives in local memory, one barrier per step.
// Thesis Table 3.2: 524,288 options (float4 each: 8 MB in, 8 MB out),
// 524,288 work-groups, numSteps = 254.
#include "common/app.h"

static const char* kSource = R"CLC(
#define RISKFREE 0.02f
#define VOLATILITY 0.30f

__kernel void binomialOptions(const int numSteps, __global const float4* randArray,
                              __global float4* output, __local float4* callA,
                              __local float4* callB) {
  const int tid = (int)get_local_id(0);
  const int bid = (int)get_group_id(0);
  float4 inRand = randArray[bid];
  float4 s = (1.0f - inRand) * 5.0f + inRand * 30.0f;
  float4 x = (1.0f - inRand) * 1.0f + inRand * 100.0f;
  float4 optionYears = (1.0f - inRand) * 0.25f + inRand * 10.0f;
  float4 dt = optionYears * (1.0f / (float)numSteps);
  float4 vsdt = VOLATILITY * sqrt(dt);
  float4 rdt = RISKFREE * dt;
  float4 r = exp(rdt);
  float4 rInv = 1.0f / r;
  float4 u = exp(vsdt);
  float4 d = 1.0f / u;
  float4 pu = (r - d) / (u - d);
  float4 pd = 1.0f - pu;
  float4 puByr = pu * rInv;
  float4 pdByr = pd * rInv;

  float4 profit = s * exp(vsdt * (2.0f * (float)tid - (float)numSteps)) - x;
  callA[tid] = fmax(profit, (float4)(0.0f));
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int j = numSteps; j > 0; j -= 2) {
    if (tid < j) callB[tid] = puByr * callA[tid + 1] + pdByr * callA[tid];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < j - 1) callA[tid] = puByr * callB[tid + 1] + pdByr * callB[tid];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) output[bid] = callA[0];
}
)CLC";

static double priceRef(float rnd, int steps) {
  const double R = 0.02, V = 0.30;
  double in = rnd;
  double s = (1.0 - in) * 5.0 + in * 30.0;
  double x = (1.0 - in) * 1.0 + in * 100.0;
  double T = (1.0 - in) * 0.25 + in * 10.0;
  double dt = T / steps, vsdt = V * std::sqrt(dt), rr = std::exp(R * dt);
  double u = std::exp(vsdt), d = 1.0 / u;
  double pu = (rr - d) / (u - d), pd = 1.0 - pu;
  double puByr = pu / rr, pdByr = pd / rr;
  std::vector<double> c(steps + 1);
  for (int j = 0; j <= steps; ++j) c[j] = std::max(0.0, s * std::exp(vsdt * (2.0 * j - steps)) - x);
  for (int i = steps; i > 0; --i)
    for (int j = 0; j < i; ++j) c[j] = puByr * c[j + 1] + pdByr * c[j];
  return c[0];
}

int main(int argc, char** argv) {
  app::App a("BinomialOption");
  long long n = 0, stepsParam = 0;
  a.param("options", &n, "number of float4 option samples (= work-groups)", 64, 4096, 524288);
  a.param("steps", &stepsParam, "lattice steps (even; work-group size = steps+1)", 254, 254, 254);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "binomialOptions");

  // Work-group size is steps+1; shrink steps if the device/kernel cannot run
  // that many work-items or the two float4 lattices do not fit local memory.
  int steps = (int)stepsParam;
  if (steps % 2) --steps;
  size_t maxWg = a.maxWorkGroupSize(k);
  maxWg = std::min(maxWg, a.deviceMaxWorkItemSize(0));
  maxWg = std::min<size_t>(maxWg, (size_t)(a.localMemSize() - 1024) / (2 * 4 * sizeof(float)));
  if ((size_t)steps + 1 > maxWg) {
    steps = (int)(maxWg - 1) & ~1;
    a.log("reducing steps to %d (work-group limit %zu)\n", steps, maxWg);
  }
  if (steps < 2) {
    std::printf("FAIL device cannot run a lattice of >= 2 steps\n");
    return a.finish(false);
  }
  const size_t lws = (size_t)steps + 1;

  const size_t N = (size_t)n;
  std::vector<cl_float> hin(4 * N), hout(4 * N);
  app::Rng rng(99);
  for (auto& f : hin) f = (float)rng.unit();

  const size_t bytes = 4 * N * sizeof(float);
  a.startWall();
  cl_mem din = a.buffer(CL_MEM_READ_ONLY, bytes);
  cl_mem dout = a.buffer(CL_MEM_WRITE_ONLY, bytes);
  a.write(din, bytes, hin.data());
  a.setArgs(k, (cl_int)steps, din, dout, app::Local(lws * 4 * sizeof(float)),
            app::Local(lws * 4 * sizeof(float)));
  for (int i = 0; i < a.repeat(); ++i) a.run1D(k, N * lws, lws);
  a.read(dout, bytes, hout.data());
  a.stopWall();

  // Reference in double.  For large runs (the full host lattice would take
  // minutes) a deterministic sample of 16384 options spread over the whole
  // output is checked instead of all of them.
  std::vector<size_t> idx;
  const size_t total = 4 * N, maxCheck = 16384;
  if (total <= maxCheck) {
    for (size_t i = 0; i < total; ++i) idx.push_back(i);
  } else {
    for (size_t i = 0; i < maxCheck; ++i) idx.push_back(i * (total - 1) / (maxCheck - 1));
  }
  std::vector<float> got(idx.size()), ref(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    got[i] = hout[idx[i]];
    ref[i] = (float)priceRef(hin[idx[i]], steps);
  }
  if (idx.size() < total) a.log("checking %zu sampled options of %zu\n", idx.size(), total);
  // Tolerance: float lattice of 254 steps vs double; pu = (r-d)/(u-d) loses
  // ~3 digits to cancellation.  |got - ref| <= 2e-3 + 1e-3 * |ref|.
  bool ok = a.compareFloat("price", got.data(), ref.data(), got.size(), 1e-3, 2e-3);
  return a.finish(ok);
}
