// fuzz_api.cpp - libFuzzer target: OpenCL call sequences with hostile arguments (issue 21).
//
// Linked straight against libtutti (its entry points are the OpenCL API). Each input is a
// sequence of calls, one per few bytes, on a small pool of live objects, released ones,
// null and garbage handles: buffers and sub-buffers of odd sizes and flags, reads, writes,
// copies, fills, maps and unmaps at out-of-range offsets, kernel arguments of wrong sizes
// and launches of odd shapes, wait lists with bad entries, releases. Tutti must answer
// each with a CL status (which one the API tests check), never crash, hang or corrupt the
// host memory it was handed (ASan watches). Everything is finished and released at the end
// of each input, so inputs do not leak into one another.
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// Each work-item touches byte 0 only, and only of buffers that were set (a NULL buffer
// argument is allowed), so that no launch shape or argument the input picks makes the
// kernel itself fault: a kernel's own bad access is the app's bug on every driver (on a
// CPU device, host heap corruption or a crash), not something Tutti could answer.
const char *kSource = R"CLC(
__kernel void add(__global char *a, __global const char *b, int k) {
  if (get_global_id(0) == 0 && a && b) a[0] += b[0] + (char)k;
}
__kernel void scale(__global char *a, float s, __local char *tmp) {
  if (get_local_id(0) == 0) tmp[0] = a ? a[0] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_global_id(0) == 0 && a) a[0] = (char)(tmp[0] * s);
}
)CLC";

struct World {
  cl_context ctx = nullptr;
  cl_command_queue q[2] = {};
  cl_program prog = nullptr;
  cl_kernel k[2] = {};
  bool ok = false;
};

World &world() {
  static World w = [] {
    World w;
    cl_platform_id p;
    cl_device_id d;
    cl_int err;
    if (clGetPlatformIDs(1, &p, nullptr) != CL_SUCCESS) return w;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, nullptr) != CL_SUCCESS) return w;
    w.ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
    w.q[0] = clCreateCommandQueue(w.ctx, d, 0, &err);
    w.q[1] = clCreateCommandQueue(w.ctx, d, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (!w.q[1]) w.q[1] = clCreateCommandQueue(w.ctx, d, 0, &err);
    w.prog = clCreateProgramWithSource(w.ctx, 1, &kSource, nullptr, &err);
    if (clBuildProgram(w.prog, 0, nullptr, nullptr, nullptr, nullptr) != CL_SUCCESS) return w;
    w.k[0] = clCreateKernel(w.prog, "add", &err);
    w.k[1] = clCreateKernel(w.prog, "scale", &err);
    w.ok = w.ctx && w.q[0] && w.q[1] && w.k[0] && w.k[1];
    return w;
  }();
  return w;
}

struct Bytes {
  const uint8_t *p;
  size_t n;
  uint8_t u8() { return n ? (--n, *p++) : 0; }
  size_t size() {  // small sizes mostly, now and then huge or unaligned ones
    uint8_t c = u8();
    switch (c & 3) {
      case 0: return c >> 2;
      case 1: return size_t(u8()) * 16;
      case 2: return size_t(u8()) << 8 | u8();
      default: return u8() & 1 ? SIZE_MAX - u8() : (size_t(1) << (u8() % 64));
    }
  }
};

alignas(64) unsigned char g_garbage[256];

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  World &w = world();
  if (!w.ok) return 0;
  std::memset(g_garbage, 0xA5, sizeof g_garbage);
  Bytes in{data, size};
  std::vector<cl_mem> mems;      // live, ours to release
  std::vector<cl_mem> dead;      // released handles (stay invalid: Tutti's registry)
  std::vector<cl_event> events;  // live, ours to release
  std::vector<std::vector<unsigned char>> host(4, std::vector<unsigned char>(4096));
  struct Mapped { cl_mem m; void *p; int q; };
  std::vector<Mapped> maps;
  auto pickMem = [&]() -> cl_mem {
    uint8_t c = in.u8();
    if (c < 200 && !mems.empty()) return mems[c % mems.size()];
    if (c < 220 && !dead.empty()) return dead[c % dead.size()];
    if (c < 240) return nullptr;
    return reinterpret_cast<cl_mem>(g_garbage);
  };
  auto waitList = [&](std::vector<cl_event> &out) -> const cl_event * {
    out.clear();
    for (int i = in.u8() % 4; i > 0; --i) {
      uint8_t c = in.u8();
      if (c < 230 && !events.empty()) out.push_back(events[c % events.size()]);
      else out.push_back(c & 1 ? nullptr : reinterpret_cast<cl_event>(g_garbage));
    }
    return out.empty() ? (in.u8() & 1 ? nullptr : reinterpret_cast<const cl_event *>(g_garbage)) : out.data();
  };
  auto keep = [&](cl_int err, cl_event e) {
    if (err == CL_SUCCESS && e) events.push_back(e);
  };
  std::vector<cl_event> wl;
  for (int steps = 0; in.n && steps < 64; ++steps) {
    cl_int err = CL_SUCCESS;
    cl_event ev = nullptr;
    cl_command_queue q = w.q[in.u8() & 1];
    unsigned char *h = host[in.u8() % host.size()].data();
    switch (in.u8() % 14) {
      case 0: {  // create a buffer
        static const cl_mem_flags flags[] = {CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY,
                                             CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                             CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR,
                                             CL_MEM_HOST_NO_ACCESS, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                                             ~cl_mem_flags(0)};
        cl_mem_flags f = flags[in.u8() % 9];
        size_t sz = in.size();
        bool withPtr = f & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR);
        if (withPtr && sz > 4096) sz = 4096;  // the host memory we have
        // Buffers the device accepts are kept small (an app may ask for gigabytes, which
        // Tutti then allocates: not a fault); sizes past any limit still come through.
        if (sz > (size_t(64) << 20) && sz < (size_t(1) << 62)) sz = size_t(64) << 20;
        cl_mem m = clCreateBuffer(w.ctx, f, sz, withPtr || (in.u8() & 1) ? h : nullptr, &err);
        if (m && mems.size() < 8 && !(f & CL_MEM_USE_HOST_PTR)) mems.push_back(m);
        else if (m) clReleaseMemObject(m);
        break;
      }
      case 1: {  // sub-buffer
        cl_buffer_region r{in.size(), in.size()};
        cl_mem m = clCreateSubBuffer(pickMem(), in.u8() & 1 ? CL_MEM_READ_WRITE : 0,
                                     CL_BUFFER_CREATE_TYPE_REGION, in.u8() & 1 ? &r : nullptr, &err);
        if (m && mems.size() < 8) mems.push_back(m);
        else if (m) clReleaseMemObject(m);
        break;
      }
      case 2: case 3: {  // read or write, blocking or not; never past our 4 KiB of host memory
        size_t off = in.size(), len = in.size() % 4097;
        const cl_event *l = waitList(wl);
        bool read = in.u8() & 1, blocking = true;  // non-blocking would outlive `host` on error paths
        err = read ? clEnqueueReadBuffer(q, pickMem(), blocking, off, len, h, cl_uint(wl.size()), l, &ev)
                   : clEnqueueWriteBuffer(q, pickMem(), blocking, off, len, h, cl_uint(wl.size()), l, &ev);
        keep(err, ev);
        break;
      }
      case 4: {  // copy
        const cl_event *l = waitList(wl);
        err = clEnqueueCopyBuffer(q, pickMem(), pickMem(), in.size(), in.size(), in.size(),
                                  cl_uint(wl.size()), l, &ev);
        keep(err, ev);
        break;
      }
      case 5: {  // fill, with pattern sizes right and wrong
        unsigned char pat[256];
        std::memset(pat, in.u8(), sizeof pat);
        size_t ps = size_t(1) << (in.u8() % 9);
        if (in.u8() % 8 == 0) ps = in.u8();
        const cl_event *l = waitList(wl);
        err = clEnqueueFillBuffer(q, pickMem(), in.u8() & 1 ? pat : nullptr, ps, in.size(), in.size(),
                                  cl_uint(wl.size()), l, &ev);
        keep(err, ev);
        break;
      }
      case 6: {  // map, touch what was mapped, keep it for an unmap
        const cl_event *l = waitList(wl);
        cl_mem m = pickMem();
        size_t off = in.size(), len = in.size();
        static const cl_map_flags mf[] = {CL_MAP_READ, CL_MAP_WRITE, CL_MAP_WRITE_INVALIDATE_REGION,
                                          CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0x80};
        void *p = clEnqueueMapBuffer(q, m, CL_TRUE, mf[in.u8() % 5], off, len, cl_uint(wl.size()), l,
                                     &ev, &err);
        keep(err, ev);
        if (p && err == CL_SUCCESS) {
          std::memset(p, 0x5A, len);  // the whole mapped range must be host memory
          maps.push_back({m, p, int(q == w.q[1])});
        }
        break;
      }
      case 7: {  // unmap: a real mapping, or a pointer that never was one
        size_t i = in.u8();
        if (!maps.empty() && i < 200) {
          Mapped mp = maps[i % maps.size()];
          maps.erase(maps.begin() + long(i % maps.size()));
          err = clEnqueueUnmapMemObject(w.q[mp.q], mp.m, mp.p, 0, nullptr, &ev);
        } else {
          err = clEnqueueUnmapMemObject(q, pickMem(), h + in.u8(), 0, nullptr, &ev);
        }
        keep(err, ev);
        break;
      }
      case 8: {  // kernel arguments, right and wrong
        cl_kernel k = in.u8() % 8 == 0 ? reinterpret_cast<cl_kernel>(g_garbage) : w.k[in.u8() & 1];
        cl_uint idx = in.u8() % 5;
        size_t as = in.u8() % 4 == 0 ? in.size() % 64 : sizeof(cl_mem);
        cl_mem m = pickMem();
        unsigned char val[64];
        std::memcpy(val, &m, sizeof m);
        err = clSetKernelArg(k, idx, as, in.u8() % 4 ? val : nullptr);
        break;
      }
      case 9: {  // launch, with odd shapes
        cl_uint dims = in.u8() % 5;
        // Work the devices can finish quickly, or sizes past every limit (refused).
        size_t g0 = in.size();
        if (g0 > 4096 && g0 < (size_t(1) << 33)) g0 %= 4097;
        size_t g[3] = {g0, in.size() % 64 + 1, 1}, l[3] = {in.size() % 65, 1, 1}, o[3] = {in.size(), 0, 0};
        const cl_event *lst = waitList(wl);
        err = clEnqueueNDRangeKernel(q, w.k[in.u8() & 1], dims, in.u8() & 1 ? o : nullptr, g,
                                     in.u8() & 1 ? l : nullptr, cl_uint(wl.size()), lst, &ev);
        keep(err, ev);
        break;
      }
      case 10: {  // markers, barriers, waits
        const cl_event *l = waitList(wl);
        switch (in.u8() % 4) {
          case 0: err = clEnqueueMarkerWithWaitList(q, cl_uint(wl.size()), l, &ev); break;
          case 1: err = clEnqueueBarrierWithWaitList(q, cl_uint(wl.size()), l, &ev); break;
          case 2: err = clWaitForEvents(cl_uint(wl.size()), l); break;
          default: err = clFinish(q);
        }
        keep(err, ev);
        break;
      }
      case 11: {  // release one of ours; its handle becomes a dead one
        if (!mems.empty() && (in.u8() & 1)) {
          size_t i = in.u8() % mems.size();
          for (auto it = maps.begin(); it != maps.end();)  // unmapped first, as an app must
            if (it->m == mems[i]) {
              clEnqueueUnmapMemObject(w.q[it->q], it->m, it->p, 0, nullptr, nullptr);
              it = maps.erase(it);
            } else {
              ++it;
            }
          clReleaseMemObject(mems[i]);
          dead.push_back(mems[i]);
          mems.erase(mems.begin() + long(i));
        } else if (!events.empty()) {
          size_t i = in.u8() % events.size();
          clReleaseEvent(events[i]);
          events.erase(events.begin() + long(i));
        }
        break;
      }
      case 12: {  // queries with odd sizes
        size_t ret = 0;
        unsigned char buf[64];
        cl_mem m = pickMem();
        clGetMemObjectInfo(m, CL_MEM_TYPE + in.u8() % 12, in.u8() % 16, in.u8() & 1 ? buf : nullptr, &ret);
        if (!events.empty())
          clGetEventInfo(events[in.u8() % events.size()], CL_EVENT_COMMAND_QUEUE + in.u8() % 6,
                         in.u8() % 16, buf, &ret);
        break;
      }
      default: {  // a user event set from here, then waited on by a command
        cl_event u = clCreateUserEvent(w.ctx, &err);
        if (!u) break;
        cl_event list[1] = {u};
        err = clEnqueueMarkerWithWaitList(q, 1, list, &ev);
        keep(err, ev);
        clSetUserEventStatus(u, in.u8() & 1 ? CL_COMPLETE : -1);
        clReleaseEvent(u);
      }
    }
    (void)err;
  }
  for (const Mapped &mp : maps) clEnqueueUnmapMemObject(w.q[mp.q], mp.m, mp.p, 0, nullptr, nullptr);
  clFinish(w.q[0]);
  clFinish(w.q[1]);
  for (cl_event e : events) clReleaseEvent(e);
  for (cl_mem m : mems) clReleaseMemObject(m);
  return 0;
}
