// VAST equivalence on PoCL, without the runtime: for every case the test host
// plays the runtime's part of thesis §4.3-4.4 itself.
//  1. reference: the original kernel K (same bitcode) over the whole NDRange;
//  2. paged, all pages: every buffer's pages in a random order in its frame
//     buffer + the matching LPT, K__tutti_paged over the whole NDRange
//     (planPartialLaunch), unpermuted and compared bit for bit;
//  3. inspector + slices: K__tutti_insp fills the PASs (sets of wg_per_pas
//     groups); then set after set, a frame buffer holding only the pages that
//     set marked (random order; every other LPT entry points at a trap frame of
//     garbage), K__tutti_paged over that set's groups, written pages copied
//     back. A page the inspector missed reads garbage or loses its writes, so
//     bit-identical results show the marks cover what the kernel touches.
//     Where the case knows its pages, the marks must also be exact.
//  4. rebased slices: per set, each buffer's window (its lowest to its highest
//     marked page) in a frame buffer between two pages of garbage,
//     K__tutti_rb over that set's groups with the matching rebases; written
//     pages copied back; bit-identical to the reference.
// Usage: tutti_compiler_vast [--seed N] [--only NAME]
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tutti/compiler.h"

using namespace tutti::compiler;

namespace {

constexpr int kLocal = -1000;

struct BufSpec {
  size_t bytes;
  // fills the initial content
  std::function<void(std::vector<uint8_t> &, std::mt19937 &)> init;
};

struct Case {
  std::string name, source, kernel;
  std::string app;  // tools/bench/apps/<app>.cpp holds the source (its R"CLC(...)CLC" string)
  NDRange nd;
  // argument i: buffer index (>= 0) into bufs, -1 - scalar index, or kLocal
  std::vector<int> args;
  size_t local_bytes = 0;  // size of every __local argument
  std::vector<BufSpec> bufs;
  std::vector<std::vector<uint8_t>> scalars;
  bool expect_inspector = true;
  std::string options;
  // exact pages per (buffer arg, rw) over all groups, if the case knows them
  std::function<std::set<uint64_t>(unsigned arg, unsigned rw, unsigned shift,
                                   const std::vector<std::vector<uint8_t>> &init)>
      exact;
};

int failures = 0;
#define CHECK(c, ...)                              \
  do {                                             \
    if (!(c)) {                                    \
      std::printf("  FAIL %s: ", #c);              \
      std::printf(__VA_ARGS__);                    \
      std::printf("\n");                           \
      ++failures;                                  \
    }                                              \
  } while (0)

struct CLEnv {
  cl_device_id dev = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
  Target target = Target::Spir64;
  bool init() {
    cl_uint np = 0;
    if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || !np) return false;
    std::vector<cl_platform_id> ps(np);
    clGetPlatformIDs(np, ps.data(), nullptr);
    for (auto p : ps)
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, nullptr) == CL_SUCCESS && dev) break;
    if (!dev) return false;
    char vendor[256] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof vendor, vendor, nullptr);
    if (std::strstr(vendor, "NVIDIA")) target = Target::Nvptx64;
    cl_int err;
    ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    if (err) return false;
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    return err == CL_SUCCESS;
  }
};

CLEnv cl;

cl_mem buffer(const void *data, size_t bytes) {
  cl_int err;
  size_t n = std::max<size_t>(bytes, 4);
  cl_mem m = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, n, nullptr, &err);
  if (err) std::printf("  clCreateBuffer(%zu): %d\n", n, err);
  if (data && bytes) clEnqueueWriteBuffer(cl.q, m, CL_TRUE, 0, bytes, data, 0, nullptr, nullptr);
  return m;
}

void readBack(cl_mem m, void *data, size_t bytes) {
  if (bytes) clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, bytes, data, 0, nullptr, nullptr);
}

// Runs kernel k over the flattened groups [first, first+count) of nd with the
// partition-ready ABI after `nargs` arguments already set, then `tail`.
bool launchRange(cl_kernel k, unsigned nargs, const NDRange &nd, uint64_t first, uint64_t count,
                 const std::function<void(unsigned)> &tail) {
  for (const SubLaunch &s : planPartialLaunch(nd, first, count)) {
    for (unsigned i = 0; i < kAbiArgs; ++i) clSetKernelArg(k, nargs + i, 8, &s.abi[i]);
    tail(nargs + kAbiArgs);
    size_t g[3], l[3];
    for (int d = 0; d < 3; ++d) g[d] = s.global_size[d], l[d] = s.local_size[d];
    cl_int err = clEnqueueNDRangeKernel(cl.q, k, s.work_dim, nullptr, g, l, 0, nullptr, nullptr);
    if (err) {
      std::printf("  clEnqueueNDRangeKernel: %d\n", err);
      return false;
    }
  }
  return clFinish(cl.q) == CL_SUCCESS;
}

struct Run {
  const Case &c;
  const KernelInfo &ki;
  cl_program prog;
  std::mt19937 &rng;
  std::vector<std::vector<uint8_t>> init;

  void setScalars(cl_kernel k) {
    for (unsigned i = 0; i < c.args.size(); ++i)
      if (c.args[i] == kLocal) clSetKernelArg(k, i, c.local_bytes, nullptr);
      else if (c.args[i] < 0) {
        auto &s = c.scalars[-1 - c.args[i]];
        clSetKernelArg(k, i, s.size(), s.data());
      }
  }

  std::vector<std::vector<uint8_t>> reference() {
    cl_kernel k = clCreateKernel(prog, c.kernel.c_str(), nullptr);
    std::vector<cl_mem> mems;
    for (auto &b : init) mems.push_back(buffer(b.data(), b.size()));
    for (unsigned i = 0; i < c.args.size(); ++i)
      if (c.args[i] >= 0) clSetKernelArg(k, i, sizeof(cl_mem), &mems[c.args[i]]);
    setScalars(k);
    size_t g[3], l[3], o[3];
    for (int d = 0; d < 3; ++d) g[d] = c.nd.global_size[d], l[d] = c.nd.local_size[d], o[d] = c.nd.global_offset[d];
    cl_int err = clEnqueueNDRangeKernel(cl.q, k, c.nd.work_dim, o, g, l, 0, nullptr, nullptr);
    CHECK(err == CL_SUCCESS, "reference launch: %d", err);
    clFinish(cl.q);
    std::vector<std::vector<uint8_t>> out = init;
    for (unsigned b = 0; b < mems.size(); ++b) {
      readBack(mems[b], out[b].data(), out[b].size());
      clReleaseMemObject(mems[b]);
    }
    clReleaseKernel(k);
    return out;
  }

  // One paged launch over [first, first+count) on host state `st`: for buffer
  // b, pages[b] are the pages present in its frame buffer (in random order);
  // every other page maps to a trap frame. Written pages (wpages) come back.
  bool pagedSlice(cl_kernel k, unsigned shift, std::vector<std::vector<uint8_t>> &st,
                  const std::vector<std::vector<uint64_t>> &pages,
                  const std::vector<std::set<uint64_t>> &wpages, uint64_t first, uint64_t count) {
    const size_t P = size_t(1) << shift;
    std::vector<cl_mem> frames(st.size()), lpts(st.size());
    std::vector<std::vector<uint64_t>> order(st.size());
    for (unsigned b = 0; b < st.size(); ++b) {
      size_t npages = (st[b].size() + P - 1) / P;
      order[b] = pages[b];
      std::shuffle(order[b].begin(), order[b].end(), rng);
      uint32_t trap = (uint32_t)order[b].size();
      std::vector<uint32_t> lpt(npages + 1, trap);
      std::vector<uint8_t> fb((order[b].size() + 1) * P);
      for (size_t f = 0; f < fb.size(); ++f) fb[f] = (uint8_t)rng();  // trap: garbage
      for (uint32_t f = 0; f < order[b].size(); ++f) {
        uint64_t pg = order[b][f];
        lpt[pg] = f;
        size_t n = std::min(P, st[b].size() - pg * P);
        std::memcpy(&fb[f * P], &st[b][pg * P], n);
      }
      frames[b] = buffer(fb.data(), fb.size());
      lpts[b] = buffer(lpt.data(), lpt.size() * 4);
    }
    for (unsigned i = 0; i < c.args.size(); ++i)
      if (c.args[i] >= 0) clSetKernelArg(k, i, sizeof(cl_mem), &frames[c.args[i]]);
    setScalars(k);
    bool ok = launchRange(k, ki.num_args, c.nd, first, count, [&](unsigned at) {
      cl_uint sh = shift;
      clSetKernelArg(k, at, 4, &sh);
      for (unsigned j = 0; j < ki.vast_buffer_args.size(); ++j)
        clSetKernelArg(k, at + 1 + j, sizeof(cl_mem), &lpts[c.args[ki.vast_buffer_args[j]]]);
    });
    for (unsigned b = 0; b < st.size(); ++b) {
      std::vector<uint8_t> fb((order[b].size() + 1) * P);
      readBack(frames[b], fb.data(), fb.size());
      for (uint32_t f = 0; f < order[b].size(); ++f) {
        uint64_t pg = order[b][f];
        if (!wpages[b].count(pg)) continue;
        size_t n = std::min(P, st[b].size() - pg * P);
        std::memcpy(&st[b][pg * P], &fb[f * P], n);
      }
      clReleaseMemObject(frames[b]);
      clReleaseMemObject(lpts[b]);
    }
    return ok;
  }

  // One rebased launch over [first, first+count): buffer b's pages [lo[b], hi[b]) sit in a
  // frame buffer after a page of garbage (unless lo[b] is 0) and before another, bound with
  // rebase = the logical offset of the frame buffer's first byte. Written pages come back.
  bool rebasedSlice(cl_kernel k, unsigned shift, std::vector<std::vector<uint8_t>> &st,
                    const std::vector<uint64_t> &lo, const std::vector<uint64_t> &hi,
                    const std::vector<std::set<uint64_t>> &wpages, uint64_t first, uint64_t count) {
    const size_t P = size_t(1) << shift;
    std::vector<cl_mem> frames(st.size());
    std::vector<uint64_t> lead(st.size());  // garbage pages before the window: 0 or 1
    for (unsigned b = 0; b < st.size(); ++b) {
      lead[b] = lo[b] > 0 ? 1 : 0;
      std::vector<uint8_t> fb((lead[b] + (hi[b] - lo[b]) + 1) * P);
      for (auto &x : fb) x = (uint8_t)rng();
      for (uint64_t pg = lo[b]; pg < hi[b]; ++pg) {
        size_t n = std::min(P, st[b].size() - pg * P);
        std::memcpy(&fb[(lead[b] + pg - lo[b]) * P], &st[b][pg * P], n);
      }
      frames[b] = buffer(fb.data(), fb.size());
    }
    for (unsigned i = 0; i < c.args.size(); ++i)
      if (c.args[i] >= 0) clSetKernelArg(k, i, sizeof(cl_mem), &frames[c.args[i]]);
    setScalars(k);
    bool ok = launchRange(k, ki.num_args, c.nd, first, count, [&](unsigned at) {
      for (unsigned j = 0; j < ki.vast_buffer_args.size(); ++j) {
        int b = c.args[ki.vast_buffer_args[j]];
        cl_ulong rebase = (lo[b] - lead[b]) * P;
        clSetKernelArg(k, at + j, sizeof rebase, &rebase);
      }
    });
    for (unsigned b = 0; b < st.size(); ++b) {
      std::vector<uint8_t> fb((lead[b] + (hi[b] - lo[b]) + 1) * P);
      readBack(frames[b], fb.data(), fb.size());
      for (uint64_t pg = lo[b]; pg < hi[b]; ++pg) {
        if (!wpages[b].count(pg)) continue;
        size_t n = std::min(P, st[b].size() - pg * P);
        std::memcpy(&st[b][pg * P], &fb[(lead[b] + pg - lo[b]) * P], n);
      }
      clReleaseMemObject(frames[b]);
    }
    return ok;
  }

  bool same(const std::vector<std::vector<uint8_t>> &a, const std::vector<std::vector<uint8_t>> &b,
            const char *what) {
    bool ok = true;
    for (unsigned i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) {
        size_t at = 0;
        while (at < a[i].size() && a[i][at] == b[i][at]) ++at;
        CHECK(false, "%s: buffer %u differs from the reference at byte %zu", what, i, at);
        ok = false;
      }
    return ok;
  }

  void go(unsigned shift) {
    const size_t P = size_t(1) << shift;
    auto ref = reference();
    // 2. paged, every page present, random order
    {
      cl_kernel k = clCreateKernel(prog, ki.paged_kernel.c_str(), nullptr);
      auto st = init;
      std::vector<std::vector<uint64_t>> pages(st.size());
      std::vector<std::set<uint64_t>> w(st.size());
      for (unsigned b = 0; b < st.size(); ++b)
        for (uint64_t p = 0; p * P < st[b].size(); ++p) pages[b].push_back(p), w[b].insert(p);
      bool ok = pagedSlice(k, shift, st, pages, w, 0, c.nd.totalGroups());
      CHECK(ok, "paged launch");
      if (ok && same(ref, st, "paged (all pages, permuted)"))
        std::printf("  shift %u: paged kernel, all pages permuted: bit-identical\n", shift);
      clReleaseKernel(k);
    }
    if (ki.inspector_kernel.empty()) return;
    // 3. inspector, then one paged slice per PAS set
    cl_kernel insp = clCreateKernel(prog, ki.inspector_kernel.c_str(), nullptr);
    cl_kernel paged = clCreateKernel(prog, ki.paged_kernel.c_str(), nullptr);
    uint64_t total = c.nd.totalGroups();
    uint64_t wpp = std::max<uint64_t>(1, (total + 4) / 5);  // about five sets
    uint64_t sets = (total + wpp - 1) / wpp;
    std::vector<cl_mem> real(init.size()), pas(init.size());
    std::vector<uint64_t> npages(init.size());
    std::set<uint32_t> data(ki.inspector_data_args.begin(), ki.inspector_data_args.end());
    cl_mem dummy = buffer(nullptr, 16);
    for (unsigned b = 0; b < init.size(); ++b) {
      npages[b] = (init[b].size() + P - 1) / P;
      std::vector<uint8_t> z(sets * 2 * npages[b], 0);
      pas[b] = buffer(z.data(), z.size());
      real[b] = buffer(init[b].data(), init[b].size());
    }
    for (unsigned i = 0; i < c.args.size(); ++i)
      if (c.args[i] >= 0)  // only the buffers it needs hold data
        clSetKernelArg(insp, i, sizeof(cl_mem), data.count(i) ? &real[c.args[i]] : &dummy);
    setScalars(insp);
    bool ok = launchRange(insp, ki.num_args, c.nd, 0, total, [&](unsigned at) {
      cl_uint sh = shift;
      uint64_t first = 0;
      clSetKernelArg(insp, at, 4, &sh);
      clSetKernelArg(insp, at + 1, 8, &wpp);
      clSetKernelArg(insp, at + 2, 8, &first);
      for (unsigned j = 0; j < ki.vast_buffer_args.size(); ++j) {
        int b = c.args[ki.vast_buffer_args[j]];
        clSetKernelArg(insp, at + 3 + 2 * j, sizeof(cl_mem), &pas[b]);
        clSetKernelArg(insp, at + 4 + 2 * j, 8, &npages[b]);
      }
    });
    CHECK(ok, "inspector launch");
    std::vector<std::vector<uint8_t>> marks(init.size());
    for (unsigned b = 0; b < init.size(); ++b) {
      marks[b].resize(sets * 2 * npages[b]);
      readBack(pas[b], marks[b].data(), marks[b].size());
      clReleaseMemObject(pas[b]);
      clReleaseMemObject(real[b]);
    }
    clReleaseMemObject(dummy);
    // exactness where the case knows its pages (over all sets)
    if (c.exact)
      for (unsigned i = 0; i < c.args.size(); ++i) {
        if (c.args[i] < 0) continue;
        int b = c.args[i];
        for (unsigned rw = 0; rw < 2; ++rw) {
          std::set<uint64_t> got;
          for (uint64_t s = 0; s < sets; ++s)
            for (uint64_t p = 0; p < npages[b]; ++p)
              if (marks[b][(s * 2 + rw) * npages[b] + p]) got.insert(p);
          std::set<uint64_t> want = c.exact(i, rw, shift, init);
          CHECK(got == want, "arg %u %s: inspector marked %zu pages, the kernel touches %zu", i,
                rw ? "write" : "read", got.size(), want.size());
        }
      }
    auto st = init;
    size_t marked = 0, all = 0;
    for (uint64_t s = 0; s < sets && ok; ++s) {
      std::vector<std::vector<uint64_t>> pages(init.size());
      std::vector<std::set<uint64_t>> w(init.size());
      for (unsigned b = 0; b < init.size(); ++b)
        for (uint64_t p = 0; p < npages[b]; ++p) {
          bool r = marks[b][(s * 2) * npages[b] + p], wr = marks[b][(s * 2 + 1) * npages[b] + p];
          all++;
          // written pages come in with their content too: a kernel need not
          // write every byte of a page it writes
          if (r || wr) pages[b].push_back(p), marked++;
          if (wr) w[b].insert(p);
        }
      uint64_t first = s * wpp, count = std::min(wpp, total - first);
      ok = pagedSlice(paged, shift, st, pages, w, first, count);
      CHECK(ok, "paged slice %llu", (unsigned long long)s);
    }
    if (ok && same(ref, st, "inspector + paged slices"))
      std::printf("  shift %u: inspector + %llu paged slices (%zu of %zu set-pages present): bit-identical\n",
                  shift, (unsigned long long)sets, marked, all);
    // 4. the same sets through the rebased kernel, each window one run of pages
    if (!ki.rebased_kernel.empty() && ok) {
      cl_kernel rb = clCreateKernel(prog, ki.rebased_kernel.c_str(), nullptr);
      auto rs = init;
      for (uint64_t s = 0; s < sets && ok; ++s) {
        std::vector<uint64_t> lo(init.size(), 0), hi(init.size(), 0);
        std::vector<std::set<uint64_t>> w(init.size());
        for (unsigned b = 0; b < init.size(); ++b)
          for (uint64_t p = 0; p < npages[b]; ++p) {
            bool r = marks[b][(s * 2) * npages[b] + p], wr = marks[b][(s * 2 + 1) * npages[b] + p];
            if (!(r || wr)) continue;
            if (lo[b] == hi[b]) lo[b] = p;
            hi[b] = p + 1;
            if (wr) w[b].insert(p);
          }
        uint64_t first = s * wpp, count = std::min(wpp, total - first);
        ok = rebasedSlice(rb, shift, rs, lo, hi, w, first, count);
        CHECK(ok, "rebased slice %llu", (unsigned long long)s);
      }
      if (ok && same(ref, rs, "rebased slices"))
        std::printf("  shift %u: %llu rebased slices: bit-identical\n", shift, (unsigned long long)sets);
      clReleaseKernel(rb);
    }
    clReleaseKernel(insp);
    clReleaseKernel(paged);
  }
};

std::vector<uint8_t> u32(uint32_t v) { return {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)}; }

// n 4-byte elements drawn from dist
template <class Dist>
BufSpec random4(size_t n, Dist dist) {
  return {n * 4, [dist](std::vector<uint8_t> &b, std::mt19937 &r) mutable {
            for (size_t i = 0; i + 4 <= b.size(); i += 4) {
              auto v = dist(r);
              std::memcpy(&b[i], &v, 4);
            }
          }};
}
BufSpec uniform(size_t n, float lo, float hi) { return random4(n, std::uniform_real_distribution<float>(lo, hi)); }
BufSpec floats(size_t n) { return uniform(n, -1, 1); }
BufSpec ints(size_t n, uint32_t lo, uint32_t hi) {
  return random4(n, std::uniform_int_distribution<uint32_t>(lo, hi));
}
BufSpec perm(size_t n) {
  return {n * 4, [n](std::vector<uint8_t> &b, std::mt19937 &r) {
            std::vector<uint32_t> p(n);
            for (size_t i = 0; i < n; ++i) p[i] = (uint32_t)i;
            std::shuffle(p.begin(), p.end(), r);
            std::memcpy(b.data(), p.data(), n * 4);
          }};
}
BufSpec zeros(size_t bytes) {
  return {bytes, [](std::vector<uint8_t> &b, std::mt19937 &) { std::fill(b.begin(), b.end(), 0); }};
}
BufSpec bytes(size_t n) {
  return {n, [](std::vector<uint8_t> &b, std::mt19937 &r) {
            for (auto &x : b) x = (uint8_t)r();
          }};
}
std::vector<uint8_t> f32(float f) {
  std::vector<uint8_t> v(4);
  std::memcpy(v.data(), &f, 4);
  return v;
}

// The inspectors in a module's IR text that write global memory other than a
// PAS mark ("store i8 1, i8 addrspace(1)* ..."), do a global atomic or pass a
// global pointer to a call: names them (empty if none).
std::string inspectorGlobalWrites(const std::string &ir) {
  std::string bad, fn;
  size_t pos = 0;
  while (pos < ir.size()) {
    size_t e = ir.find('\n', pos);
    if (e == std::string::npos) e = ir.size();
    std::string line = ir.substr(pos, e - pos);
    pos = e + 1;
    if (line.rfind("define ", 0) == 0) {
      size_t at = line.find('@'), par = line.find('(', at);
      fn = line.substr(at + 1, par - at - 1);
      const std::string suffix = "__tutti_insp";
      if (fn.size() < suffix.size() || fn.compare(fn.size() - suffix.size(), suffix.size(), suffix) != 0)
        fn.clear();
      continue;
    }
    if (line == "}") fn.clear();
    if (fn.empty()) continue;
    bool global = line.find("addrspace(1)") != std::string::npos;
    bool mark = line.find("store i8 1, i8 addrspace(1)*") != std::string::npos;
    bool write = line.find(" store ") != std::string::npos || line.find("atomicrmw") != std::string::npos ||
                 line.find("cmpxchg") != std::string::npos || line.find("atom") != std::string::npos ||
                 line.find(" call ") != std::string::npos;  // a builtin given a buffer
    if (global && write && !mark) bad += fn + ": " + line + "\n";
  }
  return bad;
}

std::string appSource(const std::string &app) {
  const char *dir = std::getenv("TUTTI_APPS_DIR");  // a copy run elsewhere (GPU machine)
  std::string base = std::string(dir ? dir : TUTTI_APPS_DIR) + "/";
  std::ifstream f(app == "mk_util" ? base + "common/mk_util.h" : base + app + ".cpp");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  size_t b = s.find("R\"CLC("), e = s.find(")CLC\"");
  if (b == std::string::npos || e == std::string::npos) return "";
  return s.substr(b + 6, e - b - 6);
}

NDRange range(unsigned dim, std::array<uint64_t, 3> g, std::array<uint64_t, 3> l) {
  NDRange nd;
  nd.work_dim = dim;
  for (int d = 0; d < 3; ++d) nd.global_size[d] = g[d], nd.local_size[d] = l[d];
  return nd;
}
uint32_t rd32(const std::vector<uint8_t> &b, size_t i) {
  uint32_t v;
  std::memcpy(&v, &b[i * 4], 4);
  return v;
}

std::vector<Case> cases() {
  std::vector<Case> v;
  const uint32_t N = 16384;  // 64 KiB of floats: 16 pages of 4 KiB
  {
    Case c;
    c.name = "gather (data-dependent index, helper function)";
    c.source = R"(
      float twice(__global const float *p, int i) { return p[i] * 2.0f; }
      __kernel void gather(__global float *out, __global const float *in,
                           __global const int *idx, int n) {
        int i = get_global_id(0);
        if (i < n) out[i] = twice(in, idx[i]);
      })";
    c.kernel = "gather";
    c.nd = range(1, {N, 1, 1}, {64, 1, 1});
    c.args = {0, 1, 2, -1};
    // idx only reaches a few pages of `in`: exactness is visible
    c.bufs = {zeros(N * 4), floats(4 * N), {N * 4, [](std::vector<uint8_t> &b, std::mt19937 &r) {
                                              std::uniform_int_distribution<uint32_t> pg(0, 3), o(0, 1023);
                                              for (size_t i = 0; i < b.size() / 4; ++i) {
                                                uint32_t v = pg(r) * 4096 + o(r);  // pages 0,4,8,12 of 4 KiB
                                                std::memcpy(&b[i * 4], &v, 4);
                                              }
                                            }}};
    c.scalars = {u32(N - 5)};
    c.exact = [N](unsigned arg, unsigned rw, unsigned shift, const std::vector<std::vector<uint8_t>> &in) {
      std::set<uint64_t> s;
      uint32_t n = N - 5;
      for (uint32_t i = 0; i < n; ++i) {
        if (arg == 0 && rw == 1) s.insert(uint64_t(i) * 4 >> shift);
        if (arg == 1 && rw == 0) s.insert(uint64_t(rd32(in[2], i)) * 4 >> shift);
        if (arg == 2 && rw == 0) s.insert(uint64_t(i) * 4 >> shift);
      }
      return s;
    };
    v.push_back(c);
  }
  {
    Case c;
    c.name = "scatter (permutation)";
    c.source = R"(
      __kernel void scatter(__global float *out, __global const float *in, __global const uint *idx) {
        size_t i = get_global_id(0);
        out[idx[i]] = in[i] + 1.0f;
      })";
    c.kernel = "scatter";
    c.nd = range(1, {N, 1, 1}, {128, 1, 1});
    c.args = {0, 1, 2};
    c.bufs = {zeros(N * 4), floats(N), perm(N)};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "2-D stencil";
    c.source = R"(
      __kernel void stencil(__global float *out, __global const float *in, int w, int h) {
        int x = get_global_id(0), y = get_global_id(1);
        float s = in[y*w + x];
        if (x > 0) s += in[y*w + x - 1];
        if (x < w-1) s += in[y*w + x + 1];
        if (y > 0) s += in[(y-1)*w + x];
        if (y < h-1) s += in[(y+1)*w + x];
        out[y*w + x] = s * 0.2f;
      })";
    c.kernel = "stencil";
    c.nd = range(2, {256, 96, 1}, {16, 8, 1});
    c.args = {0, 1, -1, -2};
    c.bufs = {zeros(256 * 96 * 4), floats(256 * 96)};
    c.scalars = {u32(256), u32(96)};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "2-D range with a global offset";
    c.source = R"(
      __kernel void off2(__global float *out, __global const float *in, int w) {
        int x = get_global_id(0) - 3, y = get_global_id(1) - 2;
        out[y*w + x] = in[(y ^ 1)*w + x] + (float)get_group_id(1);
      })";
    c.kernel = "off2";
    c.nd = range(2, {192, 64, 1}, {16, 4, 1});
    c.nd.global_offset[0] = 3, c.nd.global_offset[1] = 2;
    c.args = {0, 1, -1};
    c.bufs = {zeros(192 * 64 * 4), floats(192 * 64)};
    c.scalars = {u32(192)};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "3-D range";
    c.source = R"(
      __kernel void k3(__global float *out, __global const float *in, int nx, int ny) {
        int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
        int i = (z*ny + y)*nx + x;
        out[i] = in[i] * (float)(z + 1) + in[(z*ny + (ny-1-y))*nx + x];
      })";
    c.kernel = "k3";
    c.nd = range(3, {32, 16, 24}, {8, 4, 2});
    c.args = {0, 1, -1, -2};
    c.bufs = {zeros(32 * 16 * 24 * 4), floats(32 * 16 * 24)};
    c.scalars = {u32(32), u32(16)};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "aliasing pointers, pointer arithmetic, private pointer copies";
    c.source = R"(
      __kernel void alias(__global float *a, __global float *b, int c, int n) {
        int i = get_global_id(0);
        __global float *ptrs[2] = { a, b };
        __global float *p = ptrs[0];                // private copies of the pointers
        if ((i >> 3) & 1) p = ptrs[1];
        __global float *q = (i < c ? a : b) + n;    // select between arguments + arithmetic
        __global float *r = p;
        r += i;
        *r = *r * 3.0f + q[i & 1023];               // reads the halves nobody writes
      })";
    c.kernel = "alias";
    c.nd = range(1, {N, 1, 1}, {64, 1, 1});
    c.args = {0, 1, -1, -2};
    c.bufs = {floats(2 * N), floats(2 * N)};
    c.scalars = {u32(N / 3), u32(N)};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "global atomics (histogram)";
    c.source = R"(
      __kernel void hist(__global const uint *d, __global uint *h, __global int *mx) {
        size_t i = get_global_id(0);
        uint v = d[i];
        atomic_inc(&h[v & 4095]);
        atomic_max(&mx[(v >> 12) & 2047], (int)v);
      })";
    c.kernel = "hist";
    c.nd = range(1, {N * 2, 1, 1}, {64, 1, 1});
    c.args = {0, 1, 2};
    c.bufs = {ints(N * 2, 0, 0x7fffffff), zeros(4096 * 4), zeros(2048 * 4)};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "vector loads/stores (vload4/vstore4 straddling pages, float4 pointers, float3 structs)";
    c.source = R"(
      typedef struct { float x, y, z; } P3;
      __kernel void vec(__global float *out, __global const float *in, __global const float4 *in4,
                        __global P3 *pts) {
        size_t i = get_global_id(0);
        float4 a = vload4(0, in + 3*i + 1);      // element-aligned: crosses pages
        float4 b = in4[i];
        vstore4(a + b, 0, out + 4*i + 1);        // element-aligned, disjoint per work-item
        P3 p = pts[i];
        p.x += a.x; p.y *= b.y; p.z -= 1.0f;
        pts[i] = p;                               // 12-byte elements straddle pages
      })";
    c.kernel = "vec";
    c.nd = range(1, {4096, 1, 1}, {64, 1, 1});
    c.args = {0, 1, 2, 3};
    c.bufs = {zeros(4 * 4096 * 4 + 32), floats(3 * 4096 + 8), floats(4 * 4096), floats(3 * 4096)};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "vload3/vstore3, vload_half4/vstore_half4, vloada_half3 (lowered to element accesses)";
    c.source = R"(
      __kernel void v3(__global float *out, __global const float *in, __global half *h,
                       __global const half *hin) {
        size_t i = get_global_id(0);
        float3 a = vload3(i, in);
        vstore3(a * 2.0f, i, out);
        float4 b = vload_half4(i, hin);
        float3 c = vloada_half3(i, hin);
        vstore_half4(b + c.xyzx, i, h);
      })";
    c.kernel = "v3";
    c.nd = range(1, {4096, 1, 1}, {64, 1, 1});
    c.args = {0, 1, 2, 3};
    // half inputs without NaNs (their payloads may convert differently)
    c.bufs = {zeros(3 * 4096 * 4), floats(3 * 4096), zeros(4 * 4096 * 2),
              {4 * 4096 * 2, [](std::vector<uint8_t> &b, std::mt19937 &r) {
                 for (size_t i = 0; i + 2 <= b.size(); i += 2) {
                   uint16_t v = (uint16_t)(r() & 0xbbff);  // exponent < 31
                   std::memcpy(&b[i], &v, 2);
                 }
               }}};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "math builtins with a __global result pointer (sincos, modf, frexp, remquo)";
    c.source = R"(
      __kernel void res(__global float *s, __global float *co, __global float *ip, __global int *ex,
                        __global const float *in) {
        size_t i = get_global_id(0);
        float x = in[i] * 10.0f;
        s[i] = sincos(x, co + i);
        s[i] += modf(x, ip + i);
        s[i] += frexp(x, ex + 2*i);
        s[i] += remquo(x, 3.0f, ex + 2*i + 1);
      })";
    c.kernel = "res";
    c.nd = range(1, {4096, 1, 1}, {64, 1, 1});
    c.args = {0, 1, 2, 3, 4};
    c.bufs = {zeros(4096 * 4), zeros(4096 * 4), zeros(4096 * 4), zeros(2 * 4096 * 4), floats(4096)};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "local memory + barrier (block reduction), data-dependent branch";
    c.source = R"(
      __kernel void red(__global const float *in, __global float *out, __global float *pos,
                        __local float *tmp) {
        size_t l = get_local_id(0), g = get_group_id(0), n = get_local_size(0);
        float v = in[get_global_id(0)];
        tmp[l] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t s = n / 2; s > 0; s >>= 1) {
          if (l < s) tmp[l] += tmp[l + s];
          barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (l == 0) out[g] = tmp[0];
        if (v > 0.5f) pos[get_global_id(0)] = v;   // written pages depend on data
      })";
    c.kernel = "red";
    c.nd = range(1, {N, 1, 1}, {128, 1, 1});
    c.args = {0, 1, 2, kLocal};
    c.local_bytes = 128 * 4;
    c.bufs = {floats(N), zeros(N / 128 * 4), zeros(N * 4)};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "data-dependent early return";
    c.source = R"(
      __kernel void early(__global const float *in, __global float *out, __global float *hot) {
        int i = get_global_id(0);
        float v = in[i];
        out[i] = v;
        if (v < 0.0f) return;
        out[i] = v * 2.0f;
        if (v > 0.9f) hot[i] = v;
      })";
    c.kernel = "early";
    c.nd = range(1, {N, 1, 1}, {64, 1, 1});
    c.args = {0, 1, 2};
    // few pages of `hot` are written: the marks must follow the branches exactly
    c.bufs = {{N * 4, [](std::vector<uint8_t> &b, std::mt19937 &r) {
                 std::uniform_real_distribution<float> d(-1, 0.85f);
                 for (size_t i = 0; i < b.size() / 4; ++i) {
                   float f = (i / 1024) % 5 == 3 && r() % 8 == 0 ? 0.95f : d(r);
                   std::memcpy(&b[i * 4], &f, 4);
                 }
               }},
              zeros(N * 4), zeros(N * 4)};
    c.exact = [N](unsigned arg, unsigned rw, unsigned shift, const std::vector<std::vector<uint8_t>> &in) {
      std::set<uint64_t> s;
      for (uint32_t i = 0; i < N; ++i) {
        float v;
        std::memcpy(&v, &in[0][i * 4], 4);
        uint64_t pg = uint64_t(i) * 4 >> shift;
        if ((arg == 0 && rw == 0) || (arg == 1 && rw == 1)) s.insert(pg);
        if (arg == 2 && rw == 1 && v >= 0.0f && v > 0.9f) s.insert(pg);
      }
      return s;
    };
    v.push_back(c);
  }
  {
    Case c;
    c.name = "address read from a buffer the kernel writes afterwards";
    c.source = R"(
      __kernel void chase(__global uint *idx, __global float *out) {
        size_t i = get_global_id(0);
        out[idx[i]] = (float)i;
        idx[i] = 0;
      })";
    c.kernel = "chase";
    c.nd = range(1, {N, 1, 1}, {64, 1, 1});
    c.args = {0, 1};
    c.bufs = {perm(N), zeros(N * 4)};
    v.push_back(c);
  }
  {
    Case c;
    c.name = "address read after the work-item may have written that buffer: paged only";
    c.source = R"(
      __kernel void chase2(__global uint *idx, __global float *out, uint n) {
        size_t i = get_global_id(0);
        idx[i + n] = (uint)i;
        out[idx[i]] = (float)i;
      })";
    c.kernel = "chase2";
    c.nd = range(1, {N, 1, 1}, {64, 1, 1});
    c.args = {0, 1, -1};
    c.bufs = {{N * 8, perm(N).init}, zeros(N * 4)};
    c.scalars = {u32(N)};
    c.expect_inspector = false;
    v.push_back(c);
  }
  // bundled apps (tools/bench/apps): the thesis' Fig. 4.9 set and a few more
  auto app = [&](const char *name, const char *kernel, NDRange nd, std::vector<int> args,
                 std::vector<BufSpec> bufs, std::vector<std::vector<uint8_t>> sc, const char *opts = "",
                 size_t local = 0) {
    Case c;
    c.name = std::string("app ") + name + ": " + kernel;
    c.app = name;
    c.kernel = kernel;
    c.nd = nd;
    c.args = args;
    c.bufs = bufs;
    c.scalars = sc;
    c.options = opts;
    c.local_bytes = local;
    v.push_back(c);
  };
  app("VectorAdd", "vectorAdd", range(1, {20480, 1, 1}, {64, 1, 1}), {0, 1, 2, -1},
      {floats(20000), floats(20000), zeros(20000 * 4)}, {u32(20000)});
  app("BlackScholes", "blackScholes", range(1, {16384, 1, 1}, {64, 1, 1}), {0, 1, 2, 3, 4, -1, -2, -3},
      {uniform(16384, 10, 100), uniform(16384, 10, 100), uniform(16384, 0.2f, 2), zeros(16384 * 4),
       zeros(16384 * 4)},
      {f32(0.02f), f32(0.3f), u32(16384)});
  app("MatrixMultiplication", "matrixMul", range(2, {128, 96, 1}, {8, 8, 1}), {0, 1, 2, -1, -2, -3},
      {floats(96 * 80), floats(80 * 128), zeros(96 * 128 * 4)}, {u32(96), u32(128), u32(80)}, "-DTILE=8");
  app("MatrixTranspose", "matrixTranspose", range(2, {128, 96, 1}, {8, 8, 1}), {0, 1, -1, -2, kLocal},
      {zeros(128 * 96 * 4), floats(128 * 96)}, {u32(128), u32(96)}, "", 8 * 9 * 4);
  app("MedianFilter", "median3x3", range(2, {256, 64, 1}, {16, 4, 1}), {0, 1, -1, -2},
      {bytes(256 * 64 * 4), zeros(256 * 64 * 4)}, {u32(250), u32(64)});
  app("SobelFilter", "sobel", range(2, {256, 64, 1}, {16, 4, 1}), {0, 1, -1, -2},
      {bytes(256 * 64 * 4), zeros(256 * 64 * 4)}, {u32(256), u32(61)});
  app("Nbody", "nbody", range(1, {2048, 1, 1}, {64, 1, 1}), {0, 1, 2, 3, -1, -2, -3, kLocal},
      {floats(2048 * 4), floats(2048 * 4), zeros(2048 * 16), zeros(2048 * 16)},
      {u32(2000), f32(0.01f), f32(0.001f)}, "", 64 * 16);
  app("Reduction", "reduce", range(1, {32 * 64, 1, 1}, {64, 1, 1}), {0, 1, -1, -2, kLocal},
      {floats(32768), zeros(32 * 4)}, {u32(32700), u32(1024)}, "", 64 * 4);
  app("MersenneTwister", "mersenneTwister", range(1, {256, 1, 1}, {64, 1, 1}), {0, 1, -1, -2},
      {ints(256, 1, 0xffffffffu), zeros(64 * 256 * 4)}, {u32(64), u32(250)});
  app("MersenneTwister", "boxMuller", range(1, {8192, 1, 1}, {64, 1, 1}), {0, 1, -1},
      {ints(16384, 0, 0xffffffffu), zeros(16384 * 4)}, {u32(8000)});
  app("FDTD3d", "fdtd3d", range(3, {32, 32, 16}, {8, 4, 2}), {0, 1, 2, -1, -2, -3},
      {floats(32 * 32 * 16), zeros(32 * 32 * 16 * 4), uniform(3, 0.1f, 0.3f)}, {u32(32), u32(32), u32(16)},
      "-DRADIUS=2");
  app("HistogramAtomic", "histogramAtomic", range(1, {32768, 1, 1}, {64, 1, 1}), {0, 1, -1},
      {ints(32768, 0, 0xffffffffu), zeros(256 * 4)}, {u32(32000)});
  app("AESEncrypt", "aesEncrypt", range(1, {4096, 1, 1}, {64, 1, 1}), {0, 1, 2, 3, -1, kLocal, kLocal},
      {bytes(4096 * 16), zeros(4096 * 16), bytes(176), bytes(256)}, {u32(4000)}, "", 256);
  return v;
}

}  // namespace

int main(int argc, char **argv) {
  unsigned seed = 1;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seed" && i + 1 < argc) seed = (unsigned)std::stoul(argv[++i]);
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--verdicts") {
      // which bundled kernels get which VAST variant (for compiler/README.md)
      // further arguments: .cl files (build options from TUTTI_VAST_OPTS)
      std::vector<std::string> files(argv + i + 1, argv + argc);
      for (const std::string &f : files) {
        std::ifstream in(f);
        std::stringstream ss;
        ss << in.rdbuf();
        CompileRequest req;
        req.source = ss.str();
        if (const char *o = std::getenv("TUTTI_VAST_OPTS")) req.options = o;
        if (std::getenv("TUTTI_VAST_NVPTX")) req.target = Target::Nvptx64;
        req.emit_vast_variants = true;
        req.keep_ir = true;
        CompileResult r = compile(req);
        if (!r.ok) std::printf("| %s | compile error: %s |\n", f.c_str(), r.error.c_str());
        std::string w = inspectorGlobalWrites(r.ir_text);
        if (!w.empty()) std::printf("INSPECTOR WRITES GLOBAL MEMORY in %s:\n%s", f.c_str(), w.c_str());
        if (std::getenv("TUTTI_VAST_NVPTX")) std::printf("%s", r.log.c_str());
        for (auto &k : r.kernels)
          std::printf("| %s | %s | %s | %s |\n", f.c_str(), k.name.c_str(),
                      !k.paged_kernel.empty() ? "yes" : ("no: " + k.paged_reason + k.whole_reason).c_str(),
                      !k.inspector_kernel.empty() ? "yes"
                                                  : ("no: " + k.inspector_reason + k.whole_reason).c_str());
      }
      if (!files.empty()) return 0;
      for (const char *app : {"AESEncrypt", "AESDecrypt", "BinomialOption", "BlackScholes", "FDTD3d",
                              "Histogram", "HistogramAtomic", "MatrixMultiplication", "MatrixTranspose",
                              "MedianFilter", "MersenneTwister", "Nbody", "Reduction", "ScanLargeArrays",
                              "SobelFilter", "StreamCompaction", "VectorAdd", "mk_BiCGSTAB", "mk_util"}) {
        CompileRequest req;
        req.source = appSource(app);
        if (req.source.empty()) continue;
        req.emit_vast_variants = true;
        CompileResult r = compile(req);
        for (auto &k : r.kernels) {
          std::string data;
          for (uint32_t d : k.inspector_data_args) data += (data.empty() ? "" : ",") + std::to_string(d);
          std::printf("| %s | %s | %s | %s |\n", app, k.name.c_str(),
                      !k.paged_kernel.empty() ? "yes"
                      : k.partitionable       ? ("no: " + k.paged_reason).c_str()
                                              : ("no: " + k.whole_reason).c_str(),
                      !k.inspector_kernel.empty()
                          ? (data.empty() ? "yes" : ("yes, reads arg " + data).c_str())
                          : ("no: " + (k.partitionable ? k.inspector_reason : k.whole_reason)).c_str());
        }
      }
      return 0;
    }
  }
  if (!cl.init()) {
    std::printf("no OpenCL device: skipped\n");
    return 77;
  }
  std::mt19937 rng(seed);
  // the scan below must see a global store when there is one
  CHECK(!inspectorGlobalWrites("define void @k__tutti_insp(float addrspace(1)* %p) {\n"
                               "  store float 1.0, float addrspace(1)* %p, align 4\n}\n")
             .empty(),
        "global store scan");
  for (Case &c : cases()) {
    if (!only.empty() && c.name.find(only) == std::string::npos) continue;
    std::printf("%s\n", c.name.c_str());
    CompileRequest req;
    req.source = c.app.empty() ? c.source : appSource(c.app);
    req.options = c.options;
    req.emit_vast_variants = true;
    if (cl.target != Target::Nvptx64) {
      // the PTX build must keep both variants too (checked without a GPU)
      CompileRequest px = req;
      px.target = Target::Nvptx64;
      CompileResult rp = compile(px);
      bool both = false;
      for (auto &k : rp.kernels)
        if (k.name == c.kernel) both = !k.paged_kernel.empty() && (k.inspector_kernel.empty() != c.expect_inspector);
      CHECK(rp.ok && both, "nvptx64: %s", rp.ok ? "variant missing" : rp.error.c_str());
    }
    req.target = cl.target;
    req.keep_ir = true;
    CompileResult r = compile(req);
    std::string w = inspectorGlobalWrites(r.ir_text);
    CHECK(w.empty(), "the inspector writes global memory:\n%s", w.c_str());
    CHECK(r.ir_text.find("@" + c.kernel + "__tutti_insp(") != std::string::npos || !c.expect_inspector,
          "inspector missing from the IR");
    CHECK(r.ok, "compile: %s", r.error.c_str());
    if (!r.ok) continue;
    const KernelInfo *ki = nullptr;
    for (auto &k : r.kernels)
      if (k.name == c.kernel) ki = &k;
    CHECK(ki && !ki->paged_kernel.empty(), "no paged kernel: %s",
          !ki ? "?" : !ki->partitionable ? ki->whole_reason.c_str() : ki->paged_reason.c_str());
    if (!ki || ki->paged_kernel.empty()) continue;
    CHECK(ki->inspector_kernel.empty() != c.expect_inspector, "inspector %s (%s)",
          ki->inspector_kernel.empty() ? "missing" : "unexpected", ki->inspector_reason.c_str());
    if (!c.expect_inspector) std::printf("  no inspector, as expected: %s\n", ki->inspector_reason.c_str());
    const unsigned char *bin = r.binary.data();
    size_t len = r.binary.size();
    cl_int err, st;
    cl_program prog = clCreateProgramWithBinary(cl.ctx, 1, &cl.dev, &len, &bin, &st, &err);
    CHECK(err == CL_SUCCESS, "clCreateProgramWithBinary: %d", err);
    err = clBuildProgram(prog, 1, &cl.dev, r.build_options.c_str(), nullptr, nullptr);
    if (err) {
      char log[8192] = {0};
      clGetProgramBuildInfo(prog, cl.dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr);
      CHECK(false, "clBuildProgram: %d %s", err, log);
      continue;
    }
    Run run{c, *ki, prog, rng, {}};
    for (auto &b : c.bufs) {
      std::vector<uint8_t> d(b.bytes);
      b.init(d, rng);
      run.init.push_back(std::move(d));
    }
    for (unsigned shift : {12u, 14u, 21u}) run.go(shift);  // 4 KiB, 16 KiB, 2 MiB pages
    clReleaseProgram(prog);
  }
  std::printf(failures ? "%d FAILURES\n" : "all VAST checks passed\n", failures);
  return failures ? 1 : 0;
}
