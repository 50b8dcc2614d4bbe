// atomic_add - does the software atomic add of Elteir's thesis (Ch. 3; seed 001) pay on
// today's devices? A memory-bound stream compaction reserves its output with one of:
//   hw_item   the device's atomic_add, once per work-item (the thesis' "system atomic");
//   hw_group  local atomics within the work-group, then one device atomic_add per group;
//   sw_group  the same local step, then the software atomic add: work-group 0 is the
//             coordinator, the others post (variable, increment) and spin until it
//             answers with their old value (§3.3-3.4, per work-group instead of per
//             wavefront, which OpenCL does not expose).
// All three run the same persistent work-groups, so only the reservation differs.
// The software add needs every work-group resident at once; a spin that outlasts its
// bound reports NOT_RESIDENT instead of hanging. Exit status 1: a wrong count or value.
//   atomic_add [MiB [PLATFORM-SUBSTRING [GROUPS-PER-CU...]]]   (default: 64 MiB, first platform, 1 2 4)
#include "first_device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static const char *kSource = R"CLC(
// The input's values with (v & 3) == 0 go to out, in any order; counters[0] counts them.
#define CHUNK (WG * ITEMS)
#define MAX_REQ 2048
// Work-groups talk through global memory. OpenCL 1.2's mem_fence orders a work-item's
// accesses only as its own work-group sees them; OpenCL C 3.0 can ask for device scope.
#if defined(__opencl_c_atomic_scope_device) && defined(__opencl_c_atomic_order_seq_cst)
#define DEVICE_FENCE() atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device)
#else
#define DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void compact(__global const uint* in, uint n, __global uint* out, __global uint* counters,
             __global volatile uint* addr, __global volatile uint* sums,
             __global volatile uint* prefix, __global volatile uint* finished,
             __global uint* err, uint spinCap) {
  __local uint lsum, lbase;
  const uint lid = get_local_id(0), g = get_group_id(0), G = get_num_groups(0);
#if SW_GROUP
  __local uint laddr[MAX_REQ], lreq[MAX_REQ], lprefix[MAX_REQ];
  __local uint lvar[1], lacc[1], lalive, lidle;
  if (g == 0) {  // the coordinator: serves groups 1 .. G-1 until all have finished
    const uint R = G - 1;
    if (lid == 0) lvar[0] = 0, lidle = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (;;) {
      if (lid == 0) lalive = 0, lacc[0] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      // 1: the requests. A group's finished flag is set after its last request was
      // answered, so finished and no request means it will ask no more.
      for (uint w = lid; w < R; w += WG) {
        uint done = finished[w + 1];
        DEVICE_FENCE();
        uint a = addr[w + 1];
        DEVICE_FENCE();
        laddr[w] = a;
        lreq[w] = a ? sums[w + 1] : 0;
        if (!done || a) atomic_inc(&lalive);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      // 2: each request's old value, by local atomics on the variable's increment.
      for (uint w = lid; w < R; w += WG)
        if (laddr[w]) lprefix[w] = lvar[laddr[w] - 1] + atomic_add(&lacc[laddr[w] - 1], lreq[w]);
      barrier(CLK_LOCAL_MEM_FENCE);
      // 3: answer and release.
      uint served = 0;
      for (uint w = lid; w < R; w += WG)
        if (laddr[w]) {
          prefix[w + 1] = lprefix[w];
          DEVICE_FENCE();
          addr[w + 1] = 0;
          served = 1;
        }
      if (served) atomic_inc(&lalive);  // progress: not an idle round
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint alive = lalive, any = lacc[0];
      if (lid == 0) {
        lvar[0] += any;
        lidle = any ? 0 : lidle + 1;
        if (lidle > spinCap) err[0] = 1;  // requesters that never came: not resident
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      if (alive == 0 || lidle > spinCap) break;
    }
    if (lid == 0) counters[0] = lvar[0];
    return;
  }
#else
  if (g == 0) return;  // the same compute groups as sw_group
#endif
  for (uint c = g - 1; c * CHUNK < n; c += G - 1) {
    uint v[ITEMS], mine = 0;
    for (uint i = 0; i < ITEMS; ++i) {
      uint k = c * CHUNK + i * WG + lid;
      v[i] = k < n ? in[k] : 1;
      mine += (v[i] & 3) == 0;
    }
#if HW_ITEM
    uint base = mine ? atomic_add(&counters[0], mine) : 0;
#else
    if (lid == 0) lsum = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint off = mine ? atomic_add(&lsum, mine) : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0 && lsum) {
#if HW_GROUP
      lbase = atomic_add(&counters[0], lsum);
#else
      sums[g] = lsum;
      DEVICE_FENCE();
      addr[g] = 1;  // variable 0, plus one
      uint spins = 0;
      while (addr[g] != 0)
        if (++spins > spinCap) {
          err[0] = 2;  // the coordinator never answered: not resident
          break;
        }
      DEVICE_FENCE();
      lbase = prefix[g];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint base = lbase + off;
#endif
    for (uint i = 0; i < ITEMS; ++i)
      if ((v[i] & 3) == 0) out[base++] = v[i];
  }
#if SW_GROUP
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (lid == 0) {
    DEVICE_FENCE();
    finished[g] = 1;
  }
#endif
}
)CLC";

static void check(cl_int e, const char *what) {
  if (e != CL_SUCCESS) {
    std::fprintf(stderr, "atomic_add: %s failed: %d\n", what, e);
    std::exit(1);
  }
}

struct Run {
  double ms = 0;
  bool ok = true, resident = true;
  std::string why;
};

int main(int argc, char **argv) {
  const size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  char plat[256] = {};
  cl_device_id dev = firstDevice(argc > 2 ? argv[2] : "", plat);
  if (!dev) return std::fprintf(stderr, "atomic_add: no such platform\n"), 1;
  std::vector<unsigned> perCu;
  for (int i = 3; i < argc; ++i) perCu.push_back((unsigned)std::strtoul(argv[i], nullptr, 10));
  if (perCu.empty()) perCu = {1, 2, 4};

  char name[256] = {};
  cl_uint cus = 1;
  cl_device_type type = 0;
  size_t maxWg = 1;
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, nullptr);
  clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxWg, &maxWg, nullptr);
  const unsigned wg = (unsigned)std::min<size_t>(256, maxWg), items = 4;
  char clc[128] = {};
  clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_VERSION, sizeof clc, clc, nullptr);
  const bool clc3 = std::strstr(clc, "OpenCL C 3.") != nullptr;
  // A resident group's spin ends within microseconds; a stuck one gives up within seconds
  // (a spinning load costs 1-20 ns on PoCL's threads, about a microsecond on a GPU).
  const cl_uint spinCap = (type & CL_DEVICE_TYPE_GPU) ? (1u << 22) : (1u << 24);
  std::printf("device=\"%s\" platform=\"%s\" opencl_c=\"%s\" compute_units=%u wg=%u items=%u MiB=%zu\n", name,
              plat, clc, cus, wg, items, mib);

  cl_int e;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &e);
  check(e, "clCreateContext");
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e);
  check(e, "clCreateCommandQueue");

  const cl_uint n = (cl_uint)(mib * 1024 * 1024 / 4);
  std::vector<cl_uint> in(n), want;
  cl_uint s = 12345;
  for (auto &x : in) x = (s = s * 1664525u + 1013904223u) >> 3;
  for (cl_uint x : in)
    if ((x & 3) == 0) want.push_back(x);
  std::sort(want.begin(), want.end());

  const unsigned maxReq = 2048;
  cl_mem dIn = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4ull, in.data(), &e);
  check(e, "clCreateBuffer(in)");
  cl_mem dOut = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4ull, nullptr, &e);
  check(e, "clCreateBuffer(out)");
  cl_mem ctl[6];
  for (auto &m : ctl) {
    m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (maxReq + 1) * 4, nullptr, &e);
    check(e, "clCreateBuffer(control)");
  }

  const char *variants[] = {"hw_item", "hw_group", "sw_group"};
  std::vector<cl_uint> got(n);
  int failures = 0;
  for (unsigned k : perCu) {
    // Work-group 0 coordinates (sw_group) or idles, so that all variants compute alike.
    const cl_uint groups = std::max<cl_uint>(2, std::min<cl_uint>(cus * k, maxReq + 1));
    for (int vi = 0; vi < 3; ++vi) {
      std::string opts = std::string(clc3 ? "-cl-std=CL3.0 " : "") + "-DWG=" + std::to_string(wg) + " -DITEMS=" + std::to_string(items) +
                         " -DHW_ITEM=" + std::to_string(vi == 0) + " -DHW_GROUP=" + std::to_string(vi == 1) +
                         " -DSW_GROUP=" + std::to_string(vi == 2);
      cl_program p = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &e);
      check(e, "clCreateProgramWithSource");
      if (clBuildProgram(p, 1, &dev, opts.c_str(), nullptr, nullptr) != CL_SUCCESS) {
        char log[8192] = {};
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, nullptr);
        std::fprintf(stderr, "atomic_add: build of %s failed:\n%s\n", variants[vi], log);
        return 1;
      }
      cl_kernel kr = clCreateKernel(p, "compact", &e);
      check(e, "clCreateKernel");
      std::vector<double> times;
      Run r;
      for (int rep = 0; rep < 5 && r.ok && r.resident; ++rep) {
        const cl_uint zero = 0;
        for (auto &m : ctl) check(clEnqueueFillBuffer(q, m, &zero, 4, 0, (maxReq + 1) * 4, 0, nullptr, nullptr), "fill");
        cl_mem args[] = {dIn, nullptr, dOut, ctl[0], ctl[1], ctl[2], ctl[3], ctl[4], ctl[5]};
        check(clSetKernelArg(kr, 0, sizeof(cl_mem), &args[0]), "arg");
        check(clSetKernelArg(kr, 1, sizeof n, &n), "arg");
        for (int a = 2; a < 9; ++a) check(clSetKernelArg(kr, a, sizeof(cl_mem), &args[a]), "arg");
        check(clSetKernelArg(kr, 9, sizeof spinCap, &spinCap), "arg");
        size_t global = (size_t)groups * wg, local = wg;
        cl_event ev;
        check(clEnqueueNDRangeKernel(q, kr, 1, nullptr, &global, &local, 0, nullptr, &ev), "launch");
        check(clWaitForEvents(1, &ev), "wait");
        cl_ulong t0 = 0, t1 = 0;
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr);
        clReleaseEvent(ev);
        times.push_back((t1 - t0) / 1e6);
        cl_uint count = 0, err = 0;
        check(clEnqueueReadBuffer(q, ctl[0], CL_TRUE, 0, 4, &count, 0, nullptr, nullptr), "read");
        check(clEnqueueReadBuffer(q, ctl[5], CL_TRUE, 0, 4, &err, 0, nullptr, nullptr), "read");
        if (err) {  // not a wrong answer: the device did not run every group at once
          r.resident = false;
          r.why = err == 1 ? "coordinator_gave_up" : "requester_gave_up";
          break;
        }
        if (count != want.size()) {
          r.ok = false;
          r.why = "count_" + std::to_string(count) + "_want_" + std::to_string(want.size());
          break;
        }
        check(clEnqueueReadBuffer(q, dOut, CL_TRUE, 0, count * 4ull, got.data(), 0, nullptr, nullptr), "read");
        std::sort(got.begin(), got.begin() + count);
        if (!std::equal(want.begin(), want.end(), got.begin())) r.ok = false, r.why = "wrong_values";
      }
      std::sort(times.begin(), times.end());
      r.ms = times.empty() ? 0 : times[times.size() / 2];
      std::printf("variant=%s groups_per_cu=%u groups=%u kernel_ms=%.3f gbps=%.1f status=%s%s%s\n", variants[vi],
                  k, groups - 1, r.ms, r.ms > 0 ? n * 4.0 / r.ms / 1e6 : 0.0,
                  !r.ok ? "FAIL" : r.resident ? "PASS" : "NOT_RESIDENT",
                  r.why.empty() ? "" : " why=", r.why.c_str());
      std::fflush(stdout);
      failures += !r.ok;
      clReleaseKernel(kr);
      clReleaseProgram(p);
    }
  }
  for (auto &m : ctl) clReleaseMemObject(m);
  clReleaseMemObject(dIn);
  clReleaseMemObject(dOut);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return failures ? 1 : 0;
}
