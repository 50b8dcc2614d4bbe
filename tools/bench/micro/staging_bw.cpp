// staging_bw - can a runtime beat the driver's pageable copies? Measures, on one device:
// the driver's own pageable write/read, pinned allocation cost, multithreaded memcpy
// into pinned memory, first-touch rates, and a chunked pipeline (threads copy the app's
// pageable memory into pinned staging while the DMA engine sends the previous chunk).
//   staging_bw [MiB [PLATFORM-SUBSTRING]]   (default: 200 MiB on the first platform)
#include "first_device.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static void parCopy(char *d, const char *s, size_t n, unsigned t) {
  if (t < 2) return (void)std::memcpy(d, s, n);
  size_t c = (n / t + 4095) & ~size_t(4095);
  std::vector<std::thread> pool;
  for (size_t off = c; off < n; off += c)
    pool.emplace_back([=] { std::memcpy(d + off, s + off, std::min(c, n - off)); });
  std::memcpy(d, s, std::min(c, n));
  for (auto &x : pool) x.join();
}

static void parTouch(char *d, size_t n, unsigned t) {
  size_t c = (n / t + 4095) & ~size_t(4095);
  std::vector<std::thread> pool;
  for (size_t off = 0; off < n; off += c)
    pool.emplace_back([=] { std::memset(d + off, 1, std::min(c, n - off)); });
  for (auto &x : pool) x.join();
}

struct Pinned {
  cl_mem buf = nullptr;
  char *p = nullptr;
};

static Pinned pinned(cl_context ctx, cl_command_queue q, size_t n) {
  cl_int err;
  Pinned r;
  r.buf = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, n, nullptr, &err);
  r.p = (char *)clEnqueueMapBuffer(q, r.buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, nullptr,
                                   nullptr, &err);
  return r;
}

// Chunked pipeline through `slots` pinned chunks of `chunk` bytes each.
static double staged(cl_command_queue q, cl_mem dev, char *app, size_t n, std::vector<Pinned> &st,
                     size_t chunk, unsigned threads, bool write) {
  std::vector<cl_event> ev(st.size(), nullptr);
  double t0 = now();
  size_t nch = (n + chunk - 1) / chunk;
  if (write) {
    for (size_t i = 0; i < nch; ++i) {
      size_t s = i % st.size(), off = i * chunk, len = std::min(chunk, n - off);
      if (ev[s]) clWaitForEvents(1, &ev[s]), clReleaseEvent(ev[s]), ev[s] = nullptr;
      parCopy(st[s].p, app + off, len, threads);
      clEnqueueWriteBuffer(q, dev, CL_FALSE, off, len, st[s].p, 0, nullptr, &ev[s]);
      clFlush(q);
    }
    clFinish(q);
  } else {
    size_t issued = 0;
    for (size_t i = 0; i < nch; ++i) {
      while (issued < nch && issued < i + st.size()) {
        size_t s = issued % st.size(), off = issued * chunk, len = std::min(chunk, n - off);
        clEnqueueReadBuffer(q, dev, CL_FALSE, off, len, st[s].p, 0, nullptr, &ev[s]);
        clFlush(q);
        ++issued;
      }
      size_t s = i % st.size(), off = i * chunk, len = std::min(chunk, n - off);
      clWaitForEvents(1, &ev[s]);
      clReleaseEvent(ev[s]);
      ev[s] = nullptr;
      parCopy(app + off, st[s].p, len, threads);
    }
  }
  for (auto e : ev)
    if (e) clReleaseEvent(e);
  return n / (now() - t0) / 1e9;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? std::atoi(argv[1]) : 200;
  const char *want = argc > 2 ? argv[2] : "";
  size_t n = mib << 20;
  char name[256];
  cl_device_id d = firstDevice(want, name);
  if (!d) return 2;
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, d, 0, &err);
  cl_mem dev = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, nullptr, &err);
  unsigned hw = std::thread::hardware_concurrency();
  std::printf("platform=\"%s\" MiB=%zu hw_threads=%u\n", name, mib, hw);

  for (unsigned t : {1u, 2u, 4u, 8u, 16u}) {
    if (t > hw) break;
    char *f = (char *)std::malloc(n);
    double t0 = now();
    parTouch(f, n, t);
    std::printf("first_touch threads=%u GBps=%.2f\n", t, n / (now() - t0) / 1e9);
    std::free(f);
  }
  std::vector<char> app(n, 1), back(n, 0);
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = now();
    clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, n, app.data(), 0, nullptr, nullptr);
    double t1 = now();
    clEnqueueReadBuffer(q, dev, CL_TRUE, 0, n, back.data(), 0, nullptr, nullptr);
    double t2 = now();
    std::printf("driver_pageable rep=%d write_GBps=%.2f read_GBps=%.2f\n", rep, n / (t1 - t0) / 1e9,
                n / (t2 - t1) / 1e9);
  }
  double t0 = now();
  Pinned big = pinned(ctx, q, n);
  std::printf("pinned_alloc_map MiB=%zu ms=%.1f GBps=%.2f\n", mib, (now() - t0) * 1e3,
              n / (now() - t0) / 1e9);
  for (unsigned t : {1u, 2u, 4u, 8u, 16u}) {
    if (t > hw) break;
    double a = now();
    parCopy(big.p, app.data(), n, t);
    double b = now();
    parCopy(back.data(), big.p, n, t);
    double c = now();
    std::printf("memcpy threads=%u to_pinned_GBps=%.2f from_pinned_GBps=%.2f\n", t, n / (b - a) / 1e9,
                n / (c - b) / 1e9);
  }
  for (int rep = 0; rep < 2; ++rep) {
    double a = now();
    clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, n, big.p, 0, nullptr, nullptr);
    double b = now();
    clEnqueueReadBuffer(q, dev, CL_TRUE, 0, n, big.p, 0, nullptr, nullptr);
    double c = now();
    std::printf("dma_pinned rep=%d write_GBps=%.2f read_GBps=%.2f\n", rep, n / (b - a) / 1e9, n / (c - b) / 1e9);
  }
  for (size_t chunkMiB : {2u, 4u, 8u, 16u}) {
    size_t chunk = chunkMiB << 20;
    double a0 = now();
    std::vector<Pinned> st;
    for (int i = 0; i < 3; ++i) st.push_back(pinned(ctx, q, chunk));
    double alloc = (now() - a0) * 1e3;
    for (unsigned t : {2u, 8u, 16u}) {
      if (t > hw) break;
      double w = staged(q, dev, app.data(), n, st, chunk, t, true);
      std::memset(back.data(), 0, n);
      double r = staged(q, dev, back.data(), n, st, chunk, t, false);
      bool ok = std::memcmp(back.data(), app.data(), n) == 0;
      std::printf("staged chunk_MiB=%zu threads=%u write_GBps=%.2f read_GBps=%.2f ok=%d alloc_ms=%.1f\n",
                  chunkMiB, t, w, r, ok, alloc);
    }
    for (auto &s : st) clEnqueueUnmapMemObject(q, s.buf, s.p, 0, nullptr, nullptr), clReleaseMemObject(s.buf);
    clFinish(q);
  }
  return 0;
}
