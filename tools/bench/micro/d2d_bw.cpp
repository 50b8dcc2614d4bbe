// d2d_bw - how fast can bytes go from one GPU to another through the host, as Tutti
// holds them (one real context per device)? Measures whether one context's pinned
// memory is pinned for the other's copies too, and pipelined bounces through either
// side's pinned regions.
//   d2d_bw [MiB [PLATFORM-SUBSTRING]]   (default: 256 MiB, the first platform with two devices)
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Side {
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_mem buf;
  std::vector<cl_mem> pinBuf;
  std::vector<char *> pin;  // mapped pinned regions of this context
};

static void check(cl_int e, const char *what) {
  if (e != CL_SUCCESS) {
    std::fprintf(stderr, "%s failed: %d\n", what, e);
    std::exit(1);
  }
}

static Side makeSide(cl_device_id d, size_t n, size_t region, int regions) {
  Side s{};
  cl_int e;
  s.dev = d;
  s.ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &e);
  check(e, "clCreateContext");
  s.q = clCreateCommandQueue(s.ctx, d, 0, &e);
  check(e, "clCreateCommandQueue");
  s.buf = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE, n, nullptr, &e);
  check(e, "clCreateBuffer");
  for (int i = 0; i < regions; ++i) {
    cl_mem b = clCreateBuffer(s.ctx, CL_MEM_ALLOC_HOST_PTR, region, nullptr, &e);
    check(e, "clCreateBuffer(pinned)");
    char *p = (char *)clEnqueueMapBuffer(s.q, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, region, 0,
                                         nullptr, nullptr, &e);
    check(e, "clEnqueueMapBuffer");
    std::memset(p, 0, region);
    s.pinBuf.push_back(b);
    s.pin.push_back(p);
  }
  return s;
}

// One blocking copy of `len` bytes per chunk from/to host pointer p, repeated over n.
static double oneWay(Side &s, char *p, size_t chunk, size_t n, bool write) {
  double t0 = now();
  for (size_t off = 0; off < n; off += chunk) {
    size_t len = std::min(chunk, n - off);
    if (write) check(clEnqueueWriteBuffer(s.q, s.buf, CL_TRUE, off, len, p, 0, nullptr, nullptr), "write");
    else check(clEnqueueReadBuffer(s.q, s.buf, CL_TRUE, off, len, p, 0, nullptr, nullptr), "read");
  }
  return n / (now() - t0) / 1e9;
}

// X -> region k -> Y in rounds: read round k while round k-1 is written. `regs`: the
// host regions used (either side's pinned memory, or pageable memory).
static double bounce(Side &x, Side &y, std::vector<char *> regs, size_t chunk, size_t n) {
  size_t nreg = regs.size(), rounds = (n + chunk - 1) / chunk;
  std::vector<cl_event> rd(nreg, nullptr), wr(nreg, nullptr);
  double t0 = now();
  auto issueRead = [&](size_t k) {
    size_t r = k % nreg, len = std::min(chunk, n - k * chunk);
    if (wr[r]) clWaitForEvents(1, &wr[r]), clReleaseEvent(wr[r]), wr[r] = nullptr;
    check(clEnqueueReadBuffer(x.q, x.buf, CL_FALSE, k * chunk, len, regs[r], 0, nullptr, &rd[r]), "read");
    clFlush(x.q);
  };
  size_t issued = 0;
  for (; issued < std::min(rounds, nreg); ++issued) issueRead(issued);
  for (size_t k = 0; k < rounds; ++k) {
    size_t r = k % nreg, len = std::min(chunk, n - k * chunk);
    clWaitForEvents(1, &rd[r]);
    clReleaseEvent(rd[r]);
    rd[r] = nullptr;
    check(clEnqueueWriteBuffer(y.q, y.buf, CL_FALSE, k * chunk, len, regs[r], 0, nullptr, &wr[r]), "write");
    clFlush(y.q);
    if (k >= 1 && issued < rounds) issueRead(issued++);
  }
  while (issued < rounds) issueRead(issued++);
  clFinish(y.q);
  for (auto &e : wr)
    if (e) clReleaseEvent(e);
  return n / (now() - t0) / 1e9;
}

int main(int argc, char **argv) {
  size_t n = size_t(argc > 1 ? std::atoi(argv[1]) : 256) << 20;
  const char *want = argc > 2 ? argv[2] : "";
  cl_platform_id ps[16];
  cl_uint np = 0;
  clGetPlatformIDs(16, ps, &np);
  cl_device_id ds[2];
  char name[256] = "";
  bool found = false;
  for (cl_uint i = 0; i < np && !found; ++i) {
    cl_uint nd = 0;
    clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (!std::strstr(name, want)) continue;
    found = clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 2, ds, &nd) == CL_SUCCESS && nd >= 2;
  }
  if (!found) {
    std::fprintf(stderr, "no platform with two devices\n");
    return 1;
  }
  const int kRegions = 4;
  const size_t region = 64u << 20;
  Side x = makeSide(ds[0], n, region, kRegions), y = makeSide(ds[1], n, region, kRegions);
  std::vector<char> src(n, 7);
  check(clEnqueueWriteBuffer(x.q, x.buf, CL_TRUE, 0, n, src.data(), 0, nullptr, nullptr), "fill");
  std::vector<char *> pageable;
  for (int i = 0; i < kRegions; ++i) {
    pageable.push_back((char *)std::malloc(region));
    std::memset(pageable.back(), 0, region);
  }
  std::printf("platform \"%s\", %zu MiB, regions of %zu MiB\n", name, n >> 20, region >> 20);
  for (size_t chunk : {size_t(16) << 20, size_t(64) << 20}) {
    std::printf("chunk %zu MiB: X d2h into X-pinned %.1f GB/s, into Y-pinned %.1f GB/s\n", chunk >> 20,
                oneWay(x, x.pin[0], chunk, n, false), oneWay(x, y.pin[0], chunk, n, false));
    std::printf("chunk %zu MiB: Y h2d from Y-pinned %.1f GB/s, from X-pinned %.1f GB/s, pageable %.1f GB/s\n",
                chunk >> 20, oneWay(y, y.pin[0], chunk, n, true), oneWay(y, x.pin[0], chunk, n, true),
                oneWay(y, pageable[0], chunk, n, true));
    for (int rep = 0; rep < 2; ++rep)
      std::printf("chunk %zu MiB bounce X->Y: via X-pinned %.1f GB/s, via Y-pinned %.1f GB/s, via pageable %.1f GB/s\n",
                  chunk >> 20, bounce(x, y, x.pin, chunk, n), bounce(x, y, y.pin, chunk, n),
                  bounce(x, y, pageable, chunk, n));
  }
  std::vector<char> back(n, 0);
  check(clEnqueueReadBuffer(y.q, y.buf, CL_TRUE, 0, n, back.data(), 0, nullptr, nullptr), "check");
  std::printf("bytes %s\n", std::memcmp(back.data(), src.data(), n) ? "DIFFER" : "match");
  // One context over both devices: the driver's own copy between them, for reference.
  cl_int e;
  cl_context both = clCreateContext(nullptr, 2, ds, nullptr, nullptr, &e);
  if (e == CL_SUCCESS) {
    cl_command_queue q0 = clCreateCommandQueue(both, ds[0], 0, &e), q1 = clCreateCommandQueue(both, ds[1], 0, &e);
    cl_mem a = clCreateBuffer(both, CL_MEM_READ_WRITE, n, nullptr, &e), b = clCreateBuffer(both, CL_MEM_READ_WRITE, n, nullptr, &e);
    clEnqueueWriteBuffer(q0, a, CL_TRUE, 0, n, src.data(), 0, nullptr, nullptr);
    clEnqueueFillBuffer(q1, b, "\0", 1, 0, n, 0, nullptr, nullptr);
    clFinish(q1);
    for (int rep = 0; rep < 2; ++rep) {
      double t0 = now();
      clEnqueueCopyBuffer(q1, a, b, 0, 0, n, 0, nullptr, nullptr);
      clFinish(q1);
      std::printf("one context, clEnqueueCopyBuffer on device 1: %.1f GB/s\n", n / (now() - t0) / 1e9);
    }
  } else {
    std::printf("one context over both devices: error %d\n", e);
  }
  return 0;
}
