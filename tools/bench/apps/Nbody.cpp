// Nbody (AMD/NVIDIA SDK style): all-pairs gravitational N-body with softening,
// float4 positions (w = mass) and velocities, one body per work-item; the
// positions are streamed through local memory in tiles of one work-group
// (barrier before and after each tile).  Several steps ping-pong two pairs of
// buffers.  Thesis Table 3.2: 524,288 particles.  Any N (padding bodies get
// mass 0 and exert no force).
#include "common/app.h"

static const char* kSource = R"CLC(
__kernel void nbody(__global const float4* pos, __global const float4* vel,
                    __global float4* newPos, __global float4* newVel,
                    const uint n, const float dt, const float eps2,
                    __local float4* tile) {
  const uint gid = get_global_id(0), lid = get_local_id(0), lsz = get_local_size(0);
  float4 p = gid < n ? pos[gid] : (float4)(0.0f);
  float4 acc = (float4)(0.0f);
  for (uint t = 0; t < n; t += lsz) {
    uint j = t + lid;
    tile[lid] = j < n ? pos[j] : (float4)(0.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < lsz; ++k) {
      float4 q = tile[k];
      float4 r = (float4)(q.xyz - p.xyz, 0.0f);
      float d2 = dot(r, r) + eps2;
      float inv = rsqrt(d2);
      acc += (q.w * inv * inv * inv) * r;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (gid < n) {
    float4 v = vel[gid];
    v.xyz += acc.xyz * dt;
    p.xyz += v.xyz * dt;
    newPos[gid] = p;
    newVel[gid] = v;
  }
}
)CLC";

static const float kDt = 0.005f, kEps2 = 50.0f;

// Relative accuracy assumed for a float acceleration sum, as a fraction of
// sum_j |term_j| (<= sum_j m_j/d2_j).  A float sum of N terms in a different
// order than the double reference is off by about sqrt(N)*eps of that sum
// (4e-5 at N = 2^19); 2e-4 leaves a margin and is still far below the net
// force of one step (a wrong or missing interaction is caught).
static const double kAccRel = 2e-4;

// One step of body i from state (pos, vel), in double.  Returns
// sum_j m_j/d2_j, the magnitude scale of body i's acceleration terms.
static double stepRef(const std::vector<cl_float4>& pos, const std::vector<cl_float4>& vel, size_t i,
                      cl_float4& np, cl_float4& nv) {
  double ax = 0, ay = 0, az = 0, aabs = 0;
  const double px = pos[i].s[0], py = pos[i].s[1], pz = pos[i].s[2];
  for (size_t j = 0; j < pos.size(); ++j) {
    double rx = pos[j].s[0] - px, ry = pos[j].s[1] - py, rz = pos[j].s[2] - pz;
    double d2 = rx * rx + ry * ry + rz * rz + kEps2;
    double s = pos[j].s[3] / (d2 * std::sqrt(d2));
    ax += s * rx;
    ay += s * ry;
    az += s * rz;
    aabs += pos[j].s[3] / d2;
  }
  double vx = vel[i].s[0] + ax * kDt, vy = vel[i].s[1] + ay * kDt, vz = vel[i].s[2] + az * kDt;
  nv = vel[i];
  nv.s[0] = (float)vx;
  nv.s[1] = (float)vy;
  nv.s[2] = (float)vz;
  np = pos[i];
  np.s[0] = (float)(px + (double)nv.s[0] * kDt);
  np.s[1] = (float)(py + (double)nv.s[1] * kDt);
  np.s[2] = (float)(pz + (double)nv.s[2] * kDt);
  return aabs;
}

// Per-body tolerance: |got - ref| <= tol[i] + 1e-6 * |ref| for x, y, z.
static bool compareBodies(app::App& a, const char* what, const std::vector<cl_float4>& got,
                          const std::vector<cl_float4>& ref, const std::vector<double>& tol) {
  size_t bad = 0, first = 0;
  double maxErr = 0;
  for (size_t i = 0; i < got.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      double e = std::fabs((double)got[i].s[c] - ref[i].s[c]);
      maxErr = std::max(maxErr, e);
      if (!(e <= tol[i] + 1e-6 * std::fabs(ref[i].s[c]))) {
        if (!bad++) first = 3 * i + c;
      }
    }
  if (bad) {
    size_t i = first / 3;
    int c = (int)(first % 3);
    std::printf("FAIL %s: %zu of %zu mismatch; first at index %zu (body %zu, component %d): got %.9g "
                "expected %.9g (tolerance %.3g)\n",
                what, bad, 3 * got.size(), first, i, c, (double)got[i].s[c], (double)ref[i].s[c],
                tol[i] + 1e-6 * std::fabs(ref[i].s[c]));
    return false;
  }
  a.log("%s: %zu values match (max abs err %.3g)\n", what, 3 * got.size(), maxErr);
  return true;
}

int main(int argc, char** argv) {
  app::App a("Nbody");
  long long n = 0, sp = 0;
  a.param("n", &n, "number of particles", 1000, 8192, 524288);
  a.param("steps", &sp, "time steps", 2, 2, 1);
  a.parse(argc, argv);
  a.init();

  cl_program prog = a.build(kSource);
  cl_kernel k = a.kernel(prog, "nbody");
  size_t lws = a.pickLocal1D(k, 256);
  while (lws > 1 && lws * 16 > a.localMemSize() / 2) lws /= 2;

  const size_t N = (size_t)n, bytes = N * sizeof(cl_float4);
  const int steps = (int)sp;
  std::vector<cl_float4> p0(N), v0(N), hp(N), hv(N), pp(N), pv(N);
  app::Rng rng(53);
  for (size_t i = 0; i < N; ++i) {
    for (int c = 0; c < 3; ++c) p0[i].s[c] = rng.uniform(-50.f, 50.f);
    p0[i].s[3] = rng.uniform(1.f, 10.f);  // mass
    for (int c = 0; c < 3; ++c) v0[i].s[c] = rng.uniform(-1.f, 1.f);
    v0[i].s[3] = 0.f;
  }

  a.startWall();
  cl_mem dp[2] = {a.buffer(CL_MEM_READ_WRITE, bytes), a.buffer(CL_MEM_READ_WRITE, bytes)};
  cl_mem dv[2] = {a.buffer(CL_MEM_READ_WRITE, bytes), a.buffer(CL_MEM_READ_WRITE, bytes)};
  int cur = 0;
  for (int r = 0; r < a.repeat(); ++r) {
    a.write(dp[0], bytes, p0.data());
    a.write(dv[0], bytes, v0.data());
    cur = 0;
    for (int s = 0; s < steps; ++s) {
      a.setArgs(k, dp[cur], dv[cur], dp[1 - cur], dv[1 - cur], (cl_uint)N, kDt, kEps2,
                app::Local(lws * sizeof(cl_float4)));
      a.run1D(k, app::roundUp(N, lws), lws);
      cur = 1 - cur;
    }
  }
  a.read(dp[cur], bytes, hp.data());
  a.read(dv[cur], bytes, hv.data());
  a.stopWall();

  bool ok;
  if ((double)N * N * steps <= 4e8) {
    // Full host simulation of every step.  Tolerances grow per step: velocity
    // by dt * kAccRel * sum|terms|, position by dt * (velocity tolerance);
    // plus 1e-6 of the largest coordinate for float rounding of positions.
    std::vector<cl_float4> rp = p0, rv = v0, np(N), nv(N);
    std::vector<double> vtol(N, 1e-6), ptol(N, 0.0);
    for (int s = 0; s < steps; ++s) {
      for (size_t i = 0; i < N; ++i) {
        double aabs = stepRef(rp, rv, i, np[i], nv[i]);
        vtol[i] += kDt * kAccRel * aabs;
        ptol[i] += kDt * vtol[i];
      }
      std::swap(rp, np);
      std::swap(rv, nv);
    }
    double pscale = 0;
    for (auto& p : rp)
      for (int c = 0; c < 3; ++c) pscale = std::max(pscale, (double)std::fabs(p.s[c]));
    for (auto& t : ptol) t += 1e-6 * pscale;
    ok = compareBodies(a, "pos", hp, rp, ptol);
    ok = compareBodies(a, "vel", hv, rv, vtol) && ok;
  } else {
    // Large run: check the last step for 1024 sampled bodies, starting from
    // the device's own previous state (still in the other buffer pair).
    a.read(dp[1 - cur], bytes, pp.data());
    a.read(dv[1 - cur], bytes, pv.data());
    if (steps == 1)  // previous state = initial state, untouched: exact
      ok = a.compareExact("prev pos", (const float*)pp.data(), (const float*)p0.data(), 4 * N) &&
           a.compareExact("prev vel", (const float*)pv.data(), (const float*)v0.data(), 4 * N);
    else
      ok = true;
    const size_t samples = std::min<size_t>(1024, N);
    std::vector<cl_float4> gp(samples), gv(samples), rp(samples), rv(samples);
    std::vector<double> vtol(samples), ptol(samples);
    double pscale = 0;
    for (size_t s = 0; s < samples; ++s) {
      size_t i = s * (N - 1) / std::max<size_t>(1, samples - 1);
      double aabs = stepRef(pp, pv, i, rp[s], rv[s]);
      vtol[s] = 1e-6 + kDt * kAccRel * aabs;
      ptol[s] = kDt * vtol[s];
      for (int c = 0; c < 3; ++c) pscale = std::max(pscale, (double)std::fabs(rp[s].s[c]));
      gp[s] = hp[i];
      gv[s] = hv[i];
    }
    for (auto& t : ptol) t += 1e-6 * pscale;
    a.log("checking last step of %zu sampled bodies\n", samples);
    ok = compareBodies(a, "pos(sampled)", gp, rp, ptol) && ok;
    ok = compareBodies(a, "vel(sampled)", gv, rv, vtol) && ok;
  }
  return a.finish(ok);
}
