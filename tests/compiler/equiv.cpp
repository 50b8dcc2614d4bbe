// Runtime equivalence test for the Tutti compiler (links only OpenCL and
// tutti_compiler). With POCL_DEVICES="pthread basic" it loads the transformed
// spir64 bitcode on both PoCL devices, splits every corpus kernel into random
// flattened group ranges across the two devices, merges the partial results
// (concatenation of the analysed write ranges, the merge kernel, or the atomic
// combine rule) and compares every buffer bit-for-bit with a whole native run
// of the original source (or, for non-uniform NDRanges that PoCL 3.1 cannot
// launch natively, a host emulation). It also runs the instrumented (trace)
// kernels and checks that the index-range analysis covers every address
// actually touched, and reports how tight it is.
//
//   tutti_compiler_equiv [--corpus DIR] [--seed N] [--trials N] [--bench] [--only NAME]
//
// Exit codes: 0 pass, 1 failure, 77 skipped (fewer than two OpenCL devices).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tutti/compiler.h"

using namespace tutti::compiler;

namespace {

int g_fail = 0;
#define EXPECT(c, ...)                                   \
  do {                                                   \
    if (!(c)) {                                          \
      std::printf("  FAIL %s:%d: ", __FILE__, __LINE__); \
      std::printf(__VA_ARGS__);                          \
      std::printf("\n");                                 \
      ++g_fail;                                          \
    }                                                    \
  } while (0)

#define CLCHECK(e)                                                        \
  do {                                                                    \
    cl_int _e = (e);                                                      \
    if (_e != CL_SUCCESS) {                                               \
      std::printf("  FAIL %s:%d: %s -> %d\n", __FILE__, __LINE__, #e, _e); \
      ++g_fail;                                                           \
      return false;                                                       \
    }                                                                     \
  } while (0)

struct CL {
  cl_device_id dev[2] = {nullptr, nullptr};
  cl_context ctx[2] = {nullptr, nullptr};
  cl_command_queue q[2] = {nullptr, nullptr};
  Target target[2] = {Target::Spir64, Target::Spir64};
  bool gpu[2] = {false, false};
  std::string name[2];

  static std::string info(cl_device_id d, cl_device_info what) {
    char buf[512] = {0};
    clGetDeviceInfo(d, what, sizeof buf, buf, nullptr);
    return buf;
  }
  // mode "pocl": two devices of one platform (POCL_DEVICES="pthread basic");
  // "gpu+cpu": first GPU and first CPU device of any platforms;
  // "gpu": the first GPU twice (two queues).
  bool init(const std::string &mode) {
    cl_uint np = 0;
    if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || !np) return false;
    std::vector<cl_platform_id> ps(np);
    clGetPlatformIDs(np, ps.data(), nullptr);
    std::vector<std::pair<cl_platform_id, cl_device_id>> all;
    for (auto p : ps) {
      cl_uint nd = 0;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || !nd) continue;
      std::vector<cl_device_id> ds(nd);
      clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
      for (auto d : ds) all.push_back({p, d});
    }
    auto type = [](cl_device_id d) {
      cl_device_type t = 0;
      clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, nullptr);
      return t;
    };
    cl_platform_id plat[2] = {nullptr, nullptr};
    if (mode == "pocl") {
      for (auto p : ps) {
        int n = 0;
        for (auto &[pp, d] : all)
          if (pp == p && n < 2) { plat[n] = p; dev[n++] = d; }
        if (n == 2) break;
        dev[0] = dev[1] = nullptr;
      }
    } else {
      for (auto &[p, d] : all)
        if ((type(d) & CL_DEVICE_TYPE_GPU) && !dev[0]) { plat[0] = p; dev[0] = d; }
      if (mode == "cpu") {
        dev[0] = nullptr;
        for (auto &[p, d] : all)
          if ((type(d) & CL_DEVICE_TYPE_CPU) && !dev[0]) { plat[0] = p; dev[0] = d; }
      }
      if (mode == "gpu" || mode == "cpu") { plat[1] = plat[0]; dev[1] = dev[0]; }
      else
        for (auto &[p, d] : all)
          if ((type(d) & CL_DEVICE_TYPE_CPU) && !dev[1]) { plat[1] = p; dev[1] = d; }
    }
    if (!dev[0] || !dev[1]) return false;
    cl_int err;
    if (plat[0] == plat[1]) {
      cl_device_id ds[2] = {dev[0], dev[1]};
      cl_uint n = dev[0] == dev[1] ? 1 : 2;
      ctx[0] = ctx[1] = clCreateContext(nullptr, n, ds, nullptr, nullptr, &err);
      if (err != CL_SUCCESS) return false;
    } else {
      for (int i = 0; i < 2; ++i) {
        ctx[i] = clCreateContext(nullptr, 1, &dev[i], nullptr, nullptr, &err);
        if (err != CL_SUCCESS) return false;
      }
    }
    for (int i = 0; i < 2; ++i) {
      q[i] = clCreateCommandQueueWithProperties(ctx[i], dev[i], nullptr, &err);
      if (err != CL_SUCCESS) return false;
      name[i] = info(dev[i], CL_DEVICE_NAME);
      gpu[i] = type(dev[i]) & CL_DEVICE_TYPE_GPU;
      std::string vendor = info(dev[i], CL_DEVICE_VENDOR);
      target[i] = vendor.find("NVIDIA") != std::string::npos ? Target::Nvptx64 : Target::Spir64;
    }
    return true;
  }
};

// ---------------------------------------------------------------------------
// Test cases
// ---------------------------------------------------------------------------
enum class AK { Buf, I32, U32, F32, Local };
enum class Init { RandF, RandU, Zero, Perm, RandI, Const };

struct ArgS {
  AK kind;
  size_t bytes = 0;
  Init init = Init::Zero;
  uint32_t mod = 0;
  int32_t i = 0;
  float f = 0;
  static ArgS buf(size_t bytes, Init in, uint32_t mod = 0) { ArgS a{AK::Buf}; a.bytes = bytes; a.init = in; a.mod = mod; return a; }
  static ArgS i32(int32_t v) { ArgS a{AK::I32}; a.i = v; return a; }
  static ArgS u32(uint32_t v) { ArgS a{AK::U32}; a.i = (int32_t)v; return a; }
  static ArgS f32(float v) { ArgS a{AK::F32}; a.f = v; return a; }
  static ArgS local(size_t bytes) { ArgS a{AK::Local}; a.bytes = bytes; return a; }
};

struct LaunchS {
  unsigned dim;
  size_t g[3], l[3], off[3];
};

struct Case {
  std::string file, kernel, opts;
  std::function<std::vector<ArgS>(const LaunchS &)> args;
  std::vector<LaunchS> launches;
  bool partitionable = true;
  // host reference (for launches PoCL cannot run natively); fills outputs
  std::function<void(const LaunchS &, std::vector<std::vector<uint8_t>> &)> hostRef;
};

NDRange toND(const LaunchS &l) {
  NDRange r;
  r.work_dim = l.dim;
  for (unsigned d = 0; d < 3; ++d) {
    r.global_size[d] = d < l.dim ? l.g[d] : 1;
    r.local_size[d] = d < l.dim ? l.l[d] : 1;
    r.global_offset[d] = d < l.dim ? l.off[d] : 0;
  }
  return r;
}

void workitemRef(const LaunchS &L, std::vector<std::vector<uint8_t>> &bufs) {
  uint32_t *out = (uint32_t *)bufs[0].data();
  const uint32_t *in = (const uint32_t *)bufs[1].data();
  size_t G[3] = {L.g[0], L.dim > 1 ? L.g[1] : 1, L.dim > 2 ? L.g[2] : 1};
  size_t Ls[3] = {L.l[0], L.dim > 1 ? L.l[1] : 1, L.dim > 2 ? L.l[2] : 1};
  size_t O[3] = {L.off[0], L.dim > 1 ? L.off[1] : 0, L.dim > 2 ? L.off[2] : 0};
  size_t N[3];
  for (int d = 0; d < 3; ++d) N[d] = (G[d] + Ls[d] - 1) / Ls[d];
  for (size_t z = 0; z < G[2]; ++z)
    for (size_t y = 0; y < G[1]; ++y)
      for (size_t x = 0; x < G[0]; ++x) {
        size_t r[3] = {x, y, z};
        size_t grp[3], lid[3], lsz[3];
        for (int d = 0; d < 3; ++d) {
          grp[d] = r[d] / Ls[d];
          lid[d] = r[d] % Ls[d];
          lsz[d] = (grp[d] == N[d] - 1 && G[d] % Ls[d]) ? G[d] % Ls[d] : Ls[d];
        }
        size_t g = x + G[0] * (y + G[1] * z);
        uint32_t v[16];
        v[0] = (uint32_t)(x + O[0]); v[1] = (uint32_t)(L.dim > 1 ? y + O[1] : 0);
        v[2] = (uint32_t)lid[0]; v[3] = (uint32_t)lid[1];
        v[4] = (uint32_t)grp[0]; v[5] = (uint32_t)grp[1];
        v[6] = (uint32_t)G[0]; v[7] = (uint32_t)G[1];
        v[8] = (uint32_t)lsz[0]; v[9] = (uint32_t)lsz[1];
        v[10] = (uint32_t)N[0]; v[11] = (uint32_t)N[1];
        v[12] = (uint32_t)(O[0] + 100 * O[1]);
        v[13] = (uint32_t)(L.dim + 10 * Ls[0] + 1000 * Ls[1]);
        v[14] = (uint32_t)(lid[0] + lsz[0] * (lid[1] + lsz[1] * lid[2]));
        v[15] = in[g] ^ (uint32_t)(L.dim > 2 ? z + O[2] : 0) ^ (uint32_t)grp[2];
        for (int k = 0; k < 16; ++k) out[g * 16 + k] = v[k];
      }
}

std::vector<Case> makeCases() {
  std::vector<Case> cs;
  {
    Case c{"vecadd.cl", "vecadd", ""};
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(4096 * 4, Init::RandF), ArgS::buf(4096 * 4, Init::RandF),
                               ArgS::buf(4096 * 4, Init::Zero), ArgS::i32(2600)};
    };
    c.launches = {{1, {3008}, {64}, {0}}, {1, {2048}, {128}, {512}}, {1, {4000}, {1}, {0}}};
    cs.push_back(c);
  }
  {
    Case c{"matmul.cl", "matmul", "-DTILE=8"};
    c.args = [](const LaunchS &l) {
      int M = (int)l.g[1], N = (int)l.g[0], K = 24;
      return std::vector<ArgS>{ArgS::buf(M * K * 4, Init::RandF), ArgS::buf(K * N * 4, Init::RandF),
                               ArgS::buf(M * N * 4, Init::Zero), ArgS::i32(M), ArgS::i32(N), ArgS::i32(K)};
    };
    c.launches = {{2, {48, 40}, {8, 8}, {0, 0}}, {2, {32, 56}, {8, 8}, {0, 0}}};
    cs.push_back(c);
  }
  {
    Case c{"transpose.cl", "transpose", ""};
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(40 * 28 * 4, Init::RandF), ArgS::buf(40 * 28 * 4, Init::Zero),
                               ArgS::i32(40), ArgS::i32(28)};
    };
    c.launches = {{2, {40, 32}, {8, 8}, {0, 0}}};
    cs.push_back(c);
  }
  {
    Case c{"stencil2d.cl", "stencil2d", ""};
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(50 * 30 * 4, Init::RandF), ArgS::buf(50 * 30 * 4, Init::Zero),
                               ArgS::i32(50), ArgS::i32(30), ArgS::f32(0.5f), ArgS::f32(0.125f)};
    };
    c.launches = {{2, {56, 32}, {8, 8}, {0, 0}}, {2, {64, 32}, {16, 4}, {0, 0}}};
    cs.push_back(c);
  }
  {
    Case c{"stencil3d.cl", "stencil3d", ""};
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(20 * 12 * 10 * 4, Init::RandF),
                               ArgS::buf(20 * 12 * 10 * 4, Init::Zero), ArgS::i32(20), ArgS::i32(12),
                               ArgS::i32(10)};
    };
    c.launches = {{3, {24, 12, 10}, {8, 4, 2}, {0, 0, 0}}, {3, {20, 12, 10}, {4, 6, 5}, {0, 0, 0}}};
    cs.push_back(c);
  }
  {
    Case c{"histogram.cl", "histogram", ""};
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(5120 * 4, Init::RandU, 1000), ArgS::buf(64 * 4, Init::RandU, 50),
                               ArgS::i32(5000)};
    };
    c.launches = {{1, {5120}, {128}, {0}}, {1, {5056}, {64}, {0}}};
    cs.push_back(c);
  }
  {
    Case c{"reduction.cl", "reduce", ""};
    c.args = [](const LaunchS &l) {
      size_t groups = l.g[0] / l.l[0];
      return std::vector<ArgS>{ArgS::buf(l.g[0] * 4, Init::RandF), ArgS::buf(groups * 4, Init::Zero),
                               ArgS::local(l.l[0] * 4), ArgS::i32((int)l.g[0] - 37)};
    };
    c.launches = {{1, {4352}, {256}, {0}}, {1, {1024}, {32}, {0}}};
    cs.push_back(c);
  }
  {
    Case c{"workitem.cl", "workitem", "-cl-std=CL2.0"};
    c.args = [](const LaunchS &l) {
      size_t n = l.g[0] * (l.dim > 1 ? l.g[1] : 1) * (l.dim > 2 ? l.g[2] : 1);
      return std::vector<ArgS>{ArgS::buf(n * 64, Init::Zero), ArgS::buf(n * 4, Init::RandU, 0)};
    };
    c.launches = {{2, {37, 23}, {8, 5}, {3, 2}},
                  {3, {9, 7, 5}, {4, 3, 2}, {1, 0, 2}},
                  {1, {100}, {16}, {0}},
                  {3, {8, 6, 4}, {4, 3, 2}, {0, 0, 0}}};
    c.hostRef = workitemRef;
    cs.push_back(c);
  }
  {
    Case c{"gridstride.cl", "gridstride", ""};
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(5000 * 4, Init::RandF), ArgS::buf(5000 * 4, Init::Zero),
                               ArgS::i32(5000), ArgS::f32(1.5f)};
    };
    c.launches = {{1, {1024}, {64}, {0}}};
    cs.push_back(c);
  }
  {
    Case c{"helpers.cl", "helpers", ""};
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(1024 * 16, Init::RandF), ArgS::buf(1024 * 16, Init::RandF),
                               ArgS::buf(1024 * 16, Init::Zero), ArgS::f32(0.75f)};
    };
    c.launches = {{1, {1024}, {32}, {0}}};
    cs.push_back(c);
  }
  {
    Case c{"scatter.cl", "scatter", ""};
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(2048 * 4, Init::Perm), ArgS::buf(2048 * 4, Init::RandF),
                               ArgS::buf(2048 * 4, Init::Zero)};
    };
    c.launches = {{1, {2048}, {64}, {0}}};
    cs.push_back(c);
  }
  {
    Case c{"minmax.cl", "minmax", ""};
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(3072 * 4, Init::RandI), ArgS::buf(4 * 4, Init::RandI),
                               ArgS::buf(4 * 4, Init::RandU, 1000), ArgS::buf(8 * 4, Init::Zero),
                               ArgS::i32(3000)};
    };
    c.launches = {{1, {3072}, {64}, {0}}};
    cs.push_back(c);
  }
  {
    // Work-item 0 of a group often has keep == 0: the groups PoCL lost (issue 20).
    Case c{"early_return_barrier.cl", "early_return_barrier", ""};
    c.args = [](const LaunchS &l) {
      size_t groups = l.g[0] / l.l[0];
      return std::vector<ArgS>{ArgS::buf(groups * 4, Init::RandU, 3), ArgS::buf(l.g[0] * 4, Init::RandU, 4),
                               ArgS::buf(l.g[0] * 4, Init::Zero)};
    };
    c.launches = {{1, {2048}, {64}, {0}}, {1, {1024}, {128}, {0}}};
    cs.push_back(c);
  }
  {
    // clamped neighbours (min/max builtins, ternaries) and global-id guards,
    // also with global offsets: the traced hulls check the analysed ranges
    Case c{"clamp.cl", "builtins", ""};
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(50 * 30 * 4, Init::RandF), ArgS::buf(50 * 30 * 4, Init::Zero),
                               ArgS::i32(50), ArgS::i32(30), ArgS::i32(50)};
    };
    c.launches = {{2, {56, 32}, {8, 8}, {0, 0}}, {2, {48, 32}, {16, 4}, {5, 3}}};
    cs.push_back(c);
    c.kernel = "ternary";
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(50 * 30 * 4, Init::RandF), ArgS::buf(50 * 30 * 4, Init::Zero),
                               ArgS::i32(50), ArgS::i32(30)};
    };
    cs.push_back(c);
    c.kernel = "boxblur";
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(50 * 30 * 4, Init::RandF), ArgS::buf(50 * 30 * 4, Init::Zero),
                               ArgS::i32(50), ArgS::i32(30), ArgS::i32(2)};
    };
    cs.push_back(c);
    c.kernel = "nested";
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(50 * 4, Init::RandF), ArgS::buf(50 * 4, Init::Zero), ArgS::i32(50),
                               ArgS::i32(3)};
    };
    c.launches = {{1, {56}, {8}, {0}}, {1, {48}, {16}, {5}}};
    cs.push_back(c);
    c.kernel = "interior";
    c.args = [](const LaunchS &) {
      return std::vector<ArgS>{ArgS::buf(20 * 12 * 10 * 4, Init::RandF),
                               ArgS::buf(20 * 12 * 10 * 4, Init::Zero), ArgS::i32(20), ArgS::i32(12),
                               ArgS::i32(10), ArgS::i32(2)};
    };
    c.launches = {{3, {24, 12, 10}, {8, 4, 2}, {0, 0, 0}}, {3, {20, 12, 10}, {4, 6, 5}, {1, 0, 2}}};
    cs.push_back(c);
  }
  {
    Case c{"xchg.cl", "compact", ""};
    c.partitionable = false;
    cs.push_back(c);
    c.kernel = "swap";
    cs.push_back(c);
  }
  return cs;
}

// ---------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------
struct Runner {
  CL &cl;
  std::string corpus;
  std::string resultsDir;   // light build: load precompiled results from here
  bool refOurs = false;     // reference = our untransformed kernel, not the driver's
  bool approx = false;      // float outputs compared with a tolerance
  std::mt19937_64 rng;
  int trials = 3;
  std::string cacheDir;
  std::map<std::string, std::pair<double, double>> compileMs;  // file -> cold, cached
  int covered = 0, tight = 0, loose = 0, rangeChecks = 0;

  std::string readFile(const std::string &f) {
    std::ifstream in(corpus + "/" + f);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::vector<std::vector<uint8_t>> initData(const std::vector<ArgS> &args, uint64_t seed) {
    std::mt19937_64 r(seed);
    std::vector<std::vector<uint8_t>> out(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const ArgS &a = args[i];
      if (a.kind != AK::Buf) continue;
      out[i].resize(a.bytes);
      size_t n = a.bytes / 4;
      uint32_t *u = (uint32_t *)out[i].data();
      float *f = (float *)out[i].data();
      switch (a.init) {
        case Init::Zero: break;
        case Init::RandF: for (size_t k = 0; k < n; ++k) f[k] = std::uniform_real_distribution<float>(0.f, 1.f)(r); break;
        case Init::RandU: for (size_t k = 0; k < n; ++k) u[k] = a.mod ? (uint32_t)(r() % a.mod) : (uint32_t)r(); break;
        case Init::RandI: for (size_t k = 0; k < n; ++k) u[k] = (uint32_t)(int32_t)((int64_t)(r() % 2001) - 1000); break;
        case Init::Perm: {
          for (size_t k = 0; k < n; ++k) u[k] = (uint32_t)k;
          std::shuffle(u, u + n, r);
          break;
        }
        case Init::Const: break;
      }
    }
    return out;
  }

  bool getResult(const Case &c, const std::string &src, Target t, bool trace, CompileResult &r) {
    if (!resultsDir.empty()) {
      std::string path = resultsDir + "/" + c.file + "." + targetName(t) + ".tres";
      std::ifstream in(path, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      std::string blob = ss.str();
      if (!in || !loadResult(blob.data(), blob.size(), r)) {
        EXPECT(false, "cannot load %s", path.c_str());
        return false;
      }
      return r.ok;
    }
#ifdef TUTTI_EQUIV_LIGHT
    (void)src; (void)trace;
    EXPECT(false, "light build needs --results DIR");
    return false;
#else
    CompileRequest req;
    req.source = src;
    req.options = c.opts;
    req.target = t;
    req.emit_trace_variants = trace;
    req.cache_dir = cacheDir;
    r = compile(req);
    EXPECT(r.ok, "compile failed: %s", r.error.c_str());
    if (r.ok && !cacheDir.empty() && t == Target::Spir64) {
      CompileResult r2 = compile(req);
      EXPECT(r2.from_cache, "second compile did not hit the cache");
      EXPECT(r2.binary == r.binary && r2.kernels.size() == r.kernels.size(), "cached result differs");
      compileMs[c.file] = {r.from_cache ? -1 : r.compile_ms, r2.compile_ms};
    }
    return r.ok;
#endif
  }

  // Creates buffers on device d's context from data; sets original args of kernel k.
  int curDev = 0;
  bool setArgs(cl_kernel k, const std::vector<ArgS> &args, const std::vector<std::vector<uint8_t>> &data,
               std::vector<cl_mem> &mems) {
    cl_int err;
    mems.assign(args.size(), nullptr);
    for (size_t i = 0; i < args.size(); ++i) {
      const ArgS &a = args[i];
      switch (a.kind) {
        case AK::Buf:
          mems[i] = clCreateBuffer(cl.ctx[curDev], CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a.bytes,
                                   (void *)data[i].data(), &err);
          CLCHECK(err);
          CLCHECK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &mems[i]));
          break;
        case AK::I32: case AK::U32: CLCHECK(clSetKernelArg(k, (cl_uint)i, 4, &a.i)); break;
        case AK::F32: CLCHECK(clSetKernelArg(k, (cl_uint)i, 4, &a.f)); break;
        case AK::Local: CLCHECK(clSetKernelArg(k, (cl_uint)i, a.bytes, nullptr)); break;
      }
    }
    return true;
  }

  bool readBack(cl_command_queue q, const std::vector<ArgS> &args, const std::vector<cl_mem> &mems,
                std::vector<std::vector<uint8_t>> &out) {
    out.assign(args.size(), {});
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].kind == AK::Buf) {
        out[i].resize(args[i].bytes);
        CLCHECK(clEnqueueReadBuffer(q, mems[i], CL_TRUE, 0, args[i].bytes, out[i].data(), 0, nullptr, nullptr));
      }
    return true;
  }

  static void release(std::vector<cl_mem> &m) {
    for (auto x : m)
      if (x) clReleaseMemObject(x);
    m.clear();
  }

  ScalarArgs scalars(const std::vector<ArgS> &args) {
    ScalarArgs s;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].kind == AK::I32 || args[i].kind == AK::U32) s.set((unsigned)i, &args[i].i, 4);
      else if (args[i].kind == AK::F32) s.set((unsigned)i, &args[i].f, 4);
      else s.set((unsigned)i, nullptr, 0);
    }
    return s;
  }

  bool launchPartial(cl_command_queue q, cl_kernel k, unsigned nOrig, const NDRange &nd,
                     uint64_t first, uint64_t count) {
    for (const SubLaunch &s : planPartialLaunch(nd, first, count)) {
      for (unsigned i = 0; i < kAbiArgs; ++i) CLCHECK(clSetKernelArg(k, nOrig + i, 8, &s.abi[i]));
      size_t g[3] = {s.global_size[0], s.global_size[1], s.global_size[2]};
      size_t l[3] = {s.local_size[0], s.local_size[1], s.local_size[2]};
      CLCHECK(clEnqueueNDRangeKernel(q, k, s.work_dim, nullptr, g, l, 0, nullptr, nullptr));
    }
    return true;
  }

  cl_program buildBinary(const CompileResult &r, int d) {
    const unsigned char *bins[1] = {r.binary.data()};
    size_t lens[1] = {r.binary.size()};
    cl_int st[1], err;
    cl_program p = clCreateProgramWithBinary(cl.ctx[d], 1, &cl.dev[d], lens, bins, st, &err);
    if (err != CL_SUCCESS) { std::printf("  clCreateProgramWithBinary: %d\n", err); return nullptr; }
    err = clBuildProgram(p, 1, &cl.dev[d], r.build_options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      char log[8192] = {0};
      clGetProgramBuildInfo(p, cl.dev[d], CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr);
      std::printf("  build of transformed program failed on device %d: %d\n%s\n", d, err, log);
      clReleaseProgram(p);
      return nullptr;
    }
    return p;
  }

  cl_program buildSource(const std::string &src, const std::string &opts) {
    const char *s = src.c_str();
    cl_int err;
    cl_program p = clCreateProgramWithSource(cl.ctx[0], 1, &s, nullptr, &err);
    if (err != CL_SUCCESS) return nullptr;
    err = clBuildProgram(p, 1, &cl.dev[0], opts.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      char log[8192] = {0};
      clGetProgramBuildInfo(p, cl.dev[0], CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr);
      std::printf("  native build failed: %d\n%s\n", err, log);
      clReleaseProgram(p);
      return nullptr;
    }
    return p;
  }

  // Reference: whole native run of the original source, or host emulation.
  bool reference(const Case &c, cl_program native, const LaunchS &L, const std::vector<ArgS> &args,
                 const std::vector<std::vector<uint8_t>> &init, std::vector<std::vector<uint8_t>> &ref) {
    if (c.hostRef) {
      ref = init;
      c.hostRef(L, ref);
      return true;
    }
    if (!native) return false;
    curDev = 0;
    cl_int err;
    cl_kernel k = clCreateKernel(native, c.kernel.c_str(), &err);
    CLCHECK(err);
    std::vector<cl_mem> mems;
    bool ok = setArgs(k, args, init, mems);
    if (ok) {
      err = clEnqueueNDRangeKernel(cl.q[0], k, L.dim, L.off, L.g, L.l, 0, nullptr, nullptr);
      EXPECT(err == CL_SUCCESS, "native launch failed: %d", err);
      ok = err == CL_SUCCESS && readBack(cl.q[0], args, mems, ref);
    }
    release(mems);
    clReleaseKernel(k);
    return ok;
  }

  const KernelInfo *curKi = nullptr;
  double maxRel = 0;
  bool compare(const char *what, const std::vector<ArgS> &args, const std::vector<std::vector<uint8_t>> &got,
               const std::vector<std::vector<uint8_t>> &ref) {
    bool same = true;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].kind != AK::Buf) continue;
      bool isFloat = curKi && i < curKi->args.size() && curKi->args[i].type_name.find("float") != std::string::npos;
      if (approx && isFloat && got[i].size() == ref[i].size()) {
        const float *a = (const float *)got[i].data(), *b = (const float *)ref[i].data();
        size_t bad = SIZE_MAX;
        for (size_t k = 0; k < got[i].size() / 4; ++k) {
          double d = std::fabs((double)a[k] - (double)b[k]);
          double rel = d / std::max(1e-6, std::fabs((double)b[k]));
          if (d > 1e-6) maxRel = std::max(maxRel, rel);
          if (d > 1e-5 && rel > 1e-4 && bad == SIZE_MAX) bad = k;
        }
        EXPECT(bad == SIZE_MAX, "%s: arg %zu differs beyond tolerance at element %zu", what, i, bad);
        same = same && bad == SIZE_MAX;
        continue;
      }
      if (got[i] != ref[i]) {
        size_t first = 0;
        while (first < got[i].size() && got[i][first] == ref[i][first]) ++first;
        EXPECT(false, "%s: arg %zu differs from the reference (first byte %zu of %zu)", what, i, first,
               got[i].size());
        same = false;
      }
    }
    return same;
  }

  // One partitioned run: random flattened ranges alternately on dev0/dev1.
  // ki[d] / prog[d]: the kernel record and program of device d; the merge
  // (concatenation, merge kernel, atomic combine) happens on device m.
  bool partitioned(const Case &c, const KernelInfo *ki[2], cl_program prog[2], const LaunchS &L,
                   const std::vector<ArgS> &args, const std::vector<std::vector<uint8_t>> &init,
                   const std::vector<std::vector<uint8_t>> &ref, int trial, int m) {
    NDRange nd = toND(L);
    uint64_t total = nd.totalGroups();
    std::vector<uint64_t> cuts{0, total};
    int ncut = (int)(rng() % 4);
    if (trial == 0) ncut = 0;
    for (int i = 0; i < ncut; ++i) cuts.push_back(rng() % (total + 1));
    std::sort(cuts.begin(), cuts.end());
    int owner = trial == 0 ? m : (int)(rng() % 2);
    std::vector<std::pair<uint64_t, uint64_t>> ranges[2];
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      if (cuts[i + 1] > cuts[i]) ranges[owner].push_back({cuts[i], cuts[i + 1] - cuts[i]});
      owner ^= 1;
    }
    std::vector<std::vector<uint8_t>> out[2];
    cl_int err;
    for (int d = 0; d < 2; ++d) {
      curDev = d;
      cl_kernel k = clCreateKernel(prog[d], ki[d]->partition_kernel.c_str(), &err);
      CLCHECK(err);
      std::vector<cl_mem> mems;
      bool ok = setArgs(k, args, init, mems);
      for (auto &r : ranges[d]) ok = ok && launchPartial(cl.q[d], k, ki[d]->num_args, nd, r.first, r.second);
      ok = ok && readBack(cl.q[d], args, mems, out[d]);
      release(mems);
      clReleaseKernel(k);
      if (!ok) return false;
    }
    int o = 1 - m;
    const KernelInfo &km = *ki[m];
    ScalarArgs sa = scalars(args);
    std::vector<std::vector<uint8_t>> fin = out[m];
    bool needMerge = false;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].kind != AK::Buf) continue;
      const ArgInfo &ai = km.args[i];
      if (ai.atomic) {
        combineAtomicPartial(ai.combine, ai.atomic_width, fin[i].data(), out[o][i].data(), init[i].data(),
                             fin[i].size());
        continue;
      }
      if (!ai.written) continue;
      bool contiguous = argWritesContiguous(km, (unsigned)i, nd, sa);
      bool useMerge = !contiguous || (trial % 2 == 1 && !km.merge_kernel.empty());
      if (useMerge) { needMerge = true; continue; }
      for (auto &r : ranges[o]) {
        ByteRange br = accessedRange(km, (unsigned)i, AccessMode::Write, nd, sa, r.first, r.second);
        EXPECT(br.known, "contiguous argument without a known write range");
        size_t e = std::min<size_t>(br.end, fin[i].size());
        if (br.begin < e) std::memcpy(fin[i].data() + br.begin, out[o][i].data() + br.begin, e - br.begin);
      }
    }
    if (needMerge) {
      EXPECT(!km.merge_kernel.empty(), "%s: discontiguous but no merge kernel (%s)", c.kernel.c_str(),
             km.merge_reason.c_str());
      if (km.merge_kernel.empty()) return false;
      curDev = m;
      cl_kernel mk = clCreateKernel(prog[m], km.merge_kernel.c_str(), &err);
      CLCHECK(err);
      std::vector<cl_mem> mems, partial;
      bool ok = setArgs(mk, args, fin, mems);
      for (size_t j = 0; ok && j < km.merge_partial_args.size(); ++j) {
        unsigned a = km.merge_partial_args[j];
        cl_mem mm = clCreateBuffer(cl.ctx[m], CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, args[a].bytes,
                                   out[o][a].data(), &err);
        CLCHECK(err);
        partial.push_back(mm);
        CLCHECK(clSetKernelArg(mk, km.num_args + kAbiArgs + (cl_uint)j, sizeof(cl_mem), &mm));
      }
      for (auto &r : ranges[o]) ok = ok && launchPartial(cl.q[m], mk, km.num_args, nd, r.first, r.second);
      std::vector<std::vector<uint8_t>> merged;
      ok = ok && readBack(cl.q[m], args, mems, merged);
      if (ok)
        for (unsigned a : km.merge_partial_args) fin[a] = merged[a];
      release(mems);
      release(partial);
      clReleaseKernel(mk);
      if (!ok) return false;
    }
    char what[160];
    std::snprintf(what, sizeof what, "%s trial %d (%zu+%zu ranges%s)", c.kernel.c_str(), trial,
                  ranges[0].size(), ranges[1].size(), needMerge ? ", merge kernel" : ", concatenation");
    return compare(what, args, fin, ref);
  }

  // Instrumented run of a random range on device d: the analysis must cover
  // what is touched.
  bool traceCheck(const Case &c, const KernelInfo &ki, cl_program prog, int d, const LaunchS &L,
                  const std::vector<ArgS> &args, const std::vector<std::vector<uint8_t>> &init) {
    if (ki.trace_kernel.empty()) return true;
    NDRange nd = toND(L);
    uint64_t total = nd.totalGroups();
    uint64_t first = rng() % total;
    uint64_t count = 1 + rng() % (total - first);
    cl_int err;
    curDev = d;
    cl_kernel k = clCreateKernel(prog, ki.trace_kernel.c_str(), &err);
    CLCHECK(err);
    std::vector<cl_mem> mems;
    bool ok = setArgs(k, args, init, mems);
    std::vector<int64_t> tr(4 * args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      tr[4 * i] = tr[4 * i + 2] = INT64_MAX;
      tr[4 * i + 1] = tr[4 * i + 3] = INT64_MIN;
    }
    cl_mem tm = clCreateBuffer(cl.ctx[d], CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, tr.size() * 8, tr.data(), &err);
    CLCHECK(err);
    CLCHECK(clSetKernelArg(k, ki.num_args + kAbiArgs, sizeof(cl_mem), &tm));
    ok = ok && launchPartial(cl.q[d], k, ki.num_args, nd, first, count);
    CLCHECK(clEnqueueReadBuffer(cl.q[d], tm, CL_TRUE, 0, tr.size() * 8, tr.data(), 0, nullptr, nullptr));
    ScalarArgs sa = scalars(args);
    for (size_t i = 0; ok && i < args.size(); ++i) {
      if (args[i].kind != AK::Buf) continue;
      for (int w = 0; w < 2; ++w) {
        int64_t lo = tr[4 * i + 2 * w], hi = tr[4 * i + 2 * w + 1];
        if (lo > hi) continue;  // not touched
        ByteRange br = accessedRange(ki, (unsigned)i, w ? AccessMode::Write : AccessMode::Read, nd, sa, first, count);
        ++rangeChecks;
        if (!br.known) continue;  // unknown = whole buffer: trivially covers
        bool cov = (uint64_t)lo >= br.begin && (uint64_t)hi + 1 <= br.end;
        EXPECT(cov, "%s arg %zu %s: touched [%lld,%lld] not within analysed [%llu,%llu) for groups [%llu,+%llu)",
               c.kernel.c_str(), i, w ? "write" : "read", (long long)lo, (long long)hi + 1,
               (unsigned long long)br.begin, (unsigned long long)br.end, (unsigned long long)first,
               (unsigned long long)count);
        if (cov) ++covered;
        if ((uint64_t)lo == br.begin && (uint64_t)hi + 1 == br.end) ++tight;
        else {
          ++loose;
          std::printf("    range %s arg %zu %s: touched [%lld,%lld) analysed [%llu,%llu)\n", c.kernel.c_str(), i,
                      w ? "write" : "read", (long long)lo, (long long)hi + 1, (unsigned long long)br.begin,
                      (unsigned long long)br.end);
        }
      }
    }
    clReleaseMemObject(tm);
    release(mems);
    clReleaseKernel(k);
    return ok;
  }

  void run(const Case &c) {
    std::printf("== %s / %s\n", c.file.c_str(), c.kernel.c_str());
    std::string src = readFile(c.file);
    if (resultsDir.empty()) EXPECT(!src.empty(), "cannot read %s/%s", corpus.c_str(), c.file.c_str());
    CompileResult res[2];
    const KernelInfo *ki[2] = {nullptr, nullptr};
    for (int d = 0; d < 2; ++d) {
      if (d == 1 && cl.target[1] == cl.target[0]) { res[1] = res[0]; }
      else if (!getResult(c, src, cl.target[d], true, res[d])) return;
    }
    for (int d = 0; d < 2; ++d) {
      for (auto &k : res[d].kernels)
        if (k.name == c.kernel) ki[d] = &k;
      EXPECT(ki[d], "kernel %s not found", c.kernel.c_str());
      if (!ki[d]) return;
    }
    curKi = ki[0];
    std::printf("  partitionable=%d contiguity=%s merge=%s\n", ki[0]->partitionable, contiguityName(ki[0]->contiguity),
                ki[0]->merge_kernel.empty() ? ki[0]->merge_reason.c_str() : "yes");
    EXPECT(ki[0]->partitionable == c.partitionable && ki[1]->partitionable == c.partitionable,
           "partitionable: got %d/%d (%s)", ki[0]->partitionable, ki[1]->partitionable, ki[0]->whole_reason.c_str());
    if (!ki[0]->partitionable || !ki[1]->partitionable || !c.partitionable) return;
    cl_program prog[2] = {buildBinary(res[0], 0), buildBinary(res[1], 1)};
    EXPECT(prog[0] && prog[1], "transformed program does not build");
    if (!prog[0] || !prog[1]) return;
    cl_program native = nullptr;
    if (!c.hostRef && !refOurs) {
      native = buildSource(src, c.opts);
      EXPECT(native, "native program does not build");
    }
    int m = (cl.gpu[0] && !cl.gpu[1]) ? 1 : 0;  // merge on the CPU device
    for (size_t li = 0; li < c.launches.size(); ++li) {
      const LaunchS &L = c.launches[li];
      std::vector<ArgS> args = c.args(L);
      auto init = initData(args, rng());
      std::vector<std::vector<uint8_t>> ref;
      if (refOurs && !c.hostRef) {
        // whole run of the partition-ready kernel on device 0, one range
        curDev = 0;
        cl_int err;
        cl_kernel k = clCreateKernel(prog[0], ki[0]->partition_kernel.c_str(), &err);
        std::vector<cl_mem> mems;
        NDRange nd = toND(L);
        bool ok = err == CL_SUCCESS && setArgs(k, args, init, mems) &&
                  launchPartial(cl.q[0], k, ki[0]->num_args, nd, 0, nd.totalGroups()) &&
                  readBack(cl.q[0], args, mems, ref);
        release(mems);
        if (k) clReleaseKernel(k);
        if (!ok) continue;
      } else if (!reference(c, native, L, args, init, ref)) {
        continue;
      }
      int pass = 0;
      for (int t = 0; t < trials; ++t) pass += partitioned(c, ki, prog, L, args, init, ref, t, m);
      traceCheck(c, *ki[1], prog[1], 1, L, args, init);
      std::printf("  launch %zu (dim %u, global %zux%zux%zu, local %zux%zux%zu): %d/%d partitioned runs match\n",
                  li, L.dim, L.g[0], L.dim > 1 ? L.g[1] : 1, L.dim > 2 ? L.g[2] : 1, L.l[0],
                  L.dim > 1 ? L.l[1] : 1, L.dim > 2 ? L.l[2] : 1, pass, trials);
    }
    if (native) clReleaseProgram(native);
    clReleaseProgram(prog[0]);
    clReleaseProgram(prog[1]);
  }

  // -------------------------------------------------------------------------
  // Overhead of the partition-ready kernel on the full range vs the original
  // -------------------------------------------------------------------------
  // Device time (profiling events) of `reps` launches; returns the median.
  double timeKernel(cl_command_queue q, cl_kernel k, unsigned dim, const size_t *g, const size_t *l, int reps) {
    std::vector<double> t;
    for (int i = 0; i < reps + 1; ++i) {
      cl_event ev;
      cl_int err = clEnqueueNDRangeKernel(q, k, dim, nullptr, g, l, 0, nullptr, &ev);
      if (err != CL_SUCCESS) {
        EXPECT(false, "bench launch failed: %d", err);
        return -1;
      }
      clWaitForEvents(1, &ev);
      cl_ulong s0 = 0, s1 = 0;
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s0, &s0, nullptr);
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof s1, &s1, nullptr);
      clReleaseEvent(ev);
      if (i) t.push_back((s1 - s0) * 1e-6);  // first launch: warm-up / JIT
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

  void bench(const Case &c, const LaunchS &L, int reps) {
    std::string src = readFile(c.file);
    CompileResult r;
    if (!getResult(c, src, cl.target[0], false, r)) return;
    const KernelInfo *ki = nullptr;
    for (auto &k : r.kernels)
      if (k.name == c.kernel) ki = &k;
    if (!ki || ki->partition_kernel.empty()) return;
    cl_program prog = buildBinary(r, 0);
    cl_program native = src.empty() ? nullptr : buildSource(src, c.opts);
    if (!prog) return;
    cl_int err;
    cl_command_queue pq = clCreateCommandQueueWithProperties(
        cl.ctx[0], cl.dev[0], std::vector<cl_queue_properties>{CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0}.data(),
        &err);
    if (err != CL_SUCCESS) return;
    std::vector<ArgS> args = c.args(L);
    auto init = initData(args, 1);
    curDev = 0;
    cl_kernel ko = ki->original_in_binary ? clCreateKernel(prog, c.kernel.c_str(), &err) : nullptr;
    cl_kernel kp = clCreateKernel(prog, ki->partition_kernel.c_str(), &err);
    cl_kernel kn = native ? clCreateKernel(native, c.kernel.c_str(), &err) : nullptr;
    // one set of buffers for all variants (same pages, same alignment)
    std::vector<cl_mem> m1, m2, m3;
    setArgs(kp, args, init, m1);
    auto bind = [&](cl_kernel k) {
      for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].kind == AK::Buf) clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &m1[i]);
        else if (args[i].kind == AK::Local) clSetKernelArg(k, (cl_uint)i, args[i].bytes, nullptr);
        else if (args[i].kind == AK::F32) clSetKernelArg(k, (cl_uint)i, 4, &args[i].f);
        else clSetKernelArg(k, (cl_uint)i, 4, &args[i].i);
      }
    };
    if (ko) bind(ko);
    if (kn) bind(kn);
    NDRange nd = toND(L);
    auto subs = planPartialLaunch(nd, 0, nd.totalGroups());
    for (unsigned i = 0; i < kAbiArgs; ++i) clSetKernelArg(kp, ki->num_args + i, 8, &subs[0].abi[i]);
    size_t g[3] = {subs[0].global_size[0], subs[0].global_size[1], subs[0].global_size[2]};
    size_t l[3] = {subs[0].local_size[0], subs[0].local_size[1], subs[0].local_size[2]};
    double to = 1e30, tp = 1e30, tn = 1e30;
    for (int round = 0; round < 7; ++round) {  // interleave to share machine noise
      if (round & 1) tp = std::min(tp, timeKernel(pq, kp, subs[0].work_dim, g, l, reps));
      if (ko) to = std::min(to, timeKernel(pq, ko, L.dim, L.g, L.l, reps));
      if (!(round & 1)) tp = std::min(tp, timeKernel(pq, kp, subs[0].work_dim, g, l, reps));
      if (kn) tn = std::min(tn, timeKernel(pq, kn, L.dim, L.g, L.l, reps));
    }
    std::printf("  %-10s ours: original %9.4f ms, partition-ready (full range) %9.4f ms, overhead %+6.2f%%",
                c.kernel.c_str(), ko ? to : -1.0, tp, ko ? 100.0 * (tp - to) / to : 0.0);
    if (kn) std::printf("   | driver-compiled original %9.4f ms", tn);
    std::printf("\n");
    release(m1);
    release(m2);
    release(m3);
    if (ko) clReleaseKernel(ko);
    clReleaseKernel(kp);
    if (kn) clReleaseKernel(kn);
    if (native) clReleaseProgram(native);
    clReleaseCommandQueue(pq);
    clReleaseProgram(prog);
  }
};

}  // namespace

int main(int argc, char **argv) {
  std::string corpus = TUTTI_CORPUS_DIR, only, cache, results, mode = "pocl";
  bool refOurs = false;
  uint64_t seed = 12345;
  int trials = 3;
  bool benchMode = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--corpus" && i + 1 < argc) corpus = argv[++i];
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--trials" && i + 1 < argc) trials = std::atoi(argv[++i]);
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--cache" && i + 1 < argc) cache = argv[++i];
    else if (a == "--bench") benchMode = true;
    else if (a == "--results" && i + 1 < argc) results = argv[++i];
    else if (a == "--devices" && i + 1 < argc) mode = argv[++i];
    else if (a == "--ref-ours") refOurs = true;
    else if (a == "--write-results" && i + 1 < argc) {
#ifndef TUTTI_EQUIV_LIGHT
      // precompile every case for both targets (for the light build elsewhere)
      std::string dir = argv[++i];
      int bad = 0;
      for (auto &c : makeCases()) {
        std::ifstream in(corpus + "/" + c.file);
        std::stringstream ss;
        ss << in.rdbuf();
        for (Target t : {Target::Spir64, Target::Nvptx64}) {
          CompileRequest req;
          req.source = ss.str();
          req.options = c.opts;
          req.target = t;
          req.emit_trace_variants = true;
          CompileResult r = compile(req);
          if (!r.ok) { std::printf("%s: %s\n", c.file.c_str(), r.error.c_str()); ++bad; continue; }
          std::vector<uint8_t> blob = saveResult(r);
          std::ofstream(dir + "/" + c.file + "." + targetName(t) + ".tres", std::ios::binary)
              .write((const char *)blob.data(), (std::streamsize)blob.size());
        }
      }
      return bad ? 1 : 0;
#else
      std::printf("--write-results needs the full build\n");
      return 2;
#endif
    }
  }
  if (const char *s = std::getenv("TUTTI_EQUIV_SEED")) seed = std::strtoull(s, nullptr, 10);
  CL cl;
  if (!cl.init(mode)) {
    std::printf("SKIP: need two OpenCL devices (mode %s; for PoCL: POCL_DEVICES=\"pthread basic\")\n", mode.c_str());
    return 77;
  }
  std::printf("devices: [0] %s (%s)  [1] %s (%s)  seed %llu\n", cl.name[0].c_str(), targetName(cl.target[0]),
              cl.name[1].c_str(), targetName(cl.target[1]), (unsigned long long)seed);
  Runner R{cl, corpus, results, refOurs, cl.target[0] != cl.target[1] || (cl.gpu[0] && !refOurs)};
  R.rng.seed(seed);
  R.trials = trials;
  R.cacheDir = cache;
  auto cases = makeCases();
  if (benchMode) {
    std::printf("partition-ready overhead on device 0 (%s; kernel time from profiling events, median of runs):\n",
                cl.name[0].c_str());
    for (auto &c : cases) {
      if (!only.empty() && c.kernel != only) continue;
      LaunchS L;
      if (c.kernel == "vecadd") {
        c.args = [](const LaunchS &) {
          size_t n = 32u << 20;
          return std::vector<ArgS>{ArgS::buf(n * 4, Init::RandF), ArgS::buf(n * 4, Init::RandF),
                                   ArgS::buf(n * 4, Init::Zero), ArgS::i32((int)n)};
        };
        L = {1, {32u << 20}, {256}, {0}};
      } else if (c.kernel == "matmul") {
        c.args = [](const LaunchS &) {
          int n = 1024;
          return std::vector<ArgS>{ArgS::buf(n * n * 4, Init::RandF), ArgS::buf(n * n * 4, Init::RandF),
                                   ArgS::buf(n * n * 4, Init::Zero), ArgS::i32(n), ArgS::i32(n), ArgS::i32(n)};
        };
        L = {2, {1024, 1024}, {8, 8}, {0, 0}};
      } else if (c.kernel == "stencil2d") {
        c.args = [](const LaunchS &) {
          int n = 4096;
          return std::vector<ArgS>{ArgS::buf((size_t)n * n * 4, Init::RandF), ArgS::buf((size_t)n * n * 4, Init::Zero),
                                   ArgS::i32(n), ArgS::i32(n), ArgS::f32(0.5f), ArgS::f32(0.125f)};
        };
        L = {2, {4096, 4096}, {16, 16}, {0, 0}};
      } else if (c.kernel == "stencil3d") {
        c.args = [](const LaunchS &) {
          int n = 256;
          return std::vector<ArgS>{ArgS::buf((size_t)n * n * n * 4, Init::RandF),
                                   ArgS::buf((size_t)n * n * n * 4, Init::Zero), ArgS::i32(n), ArgS::i32(n),
                                   ArgS::i32(n)};
        };
        L = {3, {256, 256, 256}, {32, 4, 2}, {0, 0, 0}};
      } else if (c.kernel == "reduce") {
        L = {1, {32u << 20}, {256}, {0}};
      } else if (c.kernel == "transpose") {
        c.args = [](const LaunchS &) {
          int n = 4096;
          return std::vector<ArgS>{ArgS::buf((size_t)n * n * 4, Init::RandF), ArgS::buf((size_t)n * n * 4, Init::Zero),
                                   ArgS::i32(n), ArgS::i32(n)};
        };
        L = {2, {4096, 4096}, {8, 8}, {0, 0}};
      } else {
        continue;
      }
      R.bench(c, L, 9);
    }
    return 0;
  }
  for (auto &c : cases)
    if (only.empty() || c.kernel == only) R.run(c);
  std::printf("range check: %d observed ranges, %d covered by the analysis (%d tight, %d over-approximated)\n",
              R.rangeChecks, R.covered, R.tight, R.loose);
  for (auto &[f, t] : R.compileMs) std::printf("compile %-16s cold %.1f ms, cached %.2f ms\n", f.c_str(), t.first, t.second);
  std::printf("%s (%d failures)\n", g_fail ? "FAILED" : "PASSED", g_fail);
  return g_fail ? 1 : 0;
}
