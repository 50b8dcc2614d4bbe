// tally_icd.c - an ICD vendor library that wraps a real driver and times its calls.
//
// Issue 17 asks where a launch's time goes under Tutti. Tutti reaches the drivers through
// their dispatch tables, not through symbols, so no LD_PRELOAD shim sees those calls and
// the GPU machine has no perf. Registered as the only vendor (OCL_ICD_VENDORS), this
// library loads the real driver, wraps the entries of its dispatch table in place (every
// object a driver makes points at that table) and, at exit, prints per entry point the
// calls and the time spent in them, split into the process's main thread and the others.
// The same run natively and under Tutti then shows which driver calls Tutti adds per
// launch, what the driver call itself costs there, and what is Tutti's own code.
//
// TALLY_ICD_REAL  the driver to wrap (default libpocl.so.2), e.g.
//                 /usr/local/nvidia/lib64/libnvidia-opencl.so.1
// TALLY_ICD_OUT   file to append the tally to (default stderr)
// TALLY_ICD_NOOP_LAUNCH=1  launches do nothing (see noopNDRange)
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl_icd.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../../tests/faults/icd_shim.h"

static pid_t g_mainTid;

static unsigned long long nowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static _Thread_local int t_tid;
static int onMain(void) {
  if (!t_tid) t_tid = (int)syscall(SYS_gettid);
  return t_tid == g_mainTid;
}

// Entry points timed: name, return type, parameters, arguments.
#define TALLY_ENTRIES(X)                                                                            \
  X(clEnqueueNDRangeKernel, cl_int,                                                                 \
    (cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o, const size_t *g, const size_t *l, \
     cl_uint n, const cl_event *w, cl_event *e),                                                    \
    (q, k, d, o, g, l, n, w, e))                                                                    \
  X(clSetKernelArg, cl_int, (cl_kernel k, cl_uint i, size_t s, const void *v), (k, i, s, v))        \
  X(clFlush, cl_int, (cl_command_queue q), (q))                                                     \
  X(clFinish, cl_int, (cl_command_queue q), (q))                                                    \
  X(clWaitForEvents, cl_int, (cl_uint n, const cl_event *l), (n, l))                                \
  X(clGetEventInfo, cl_int, (cl_event e, cl_event_info p, size_t s, void *v, size_t *r),            \
    (e, p, s, v, r))                                                                                \
  X(clGetEventProfilingInfo, cl_int, (cl_event e, cl_profiling_info p, size_t s, void *v, size_t *r), \
    (e, p, s, v, r))                                                                                \
  X(clRetainEvent, cl_int, (cl_event e), (e))                                                       \
  X(clReleaseEvent, cl_int, (cl_event e), (e))                                                      \
  X(clSetEventCallback, cl_int,                                                                     \
    (cl_event e, cl_int t, void(CL_CALLBACK *f)(cl_event, cl_int, void *), void *u), (e, t, f, u))  \
  X(clEnqueueMarkerWithWaitList, cl_int, (cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e), \
    (q, n, w, e))                                                                                   \
  X(clEnqueueBarrierWithWaitList, cl_int, (cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e), \
    (q, n, w, e))                                                                                   \
  X(clEnqueueWriteBuffer, cl_int,                                                                   \
    (cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, const void *p, cl_uint n,        \
     const cl_event *w, cl_event *e),                                                               \
    (q, b, bl, o, s, p, n, w, e))                                                                   \
  X(clEnqueueReadBuffer, cl_int,                                                                    \
    (cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, void *p, cl_uint n,              \
     const cl_event *w, cl_event *e),                                                               \
    (q, b, bl, o, s, p, n, w, e))                                                                   \
  X(clEnqueueCopyBuffer, cl_int,                                                                    \
    (cl_command_queue q, cl_mem a, cl_mem b, size_t so, size_t d, size_t s, cl_uint n,              \
     const cl_event *w, cl_event *e),                                                               \
    (q, a, b, so, d, s, n, w, e))                                                                   \
  X(clEnqueueFillBuffer, cl_int,                                                                    \
    (cl_command_queue q, cl_mem b, const void *p, size_t ps, size_t o, size_t s, cl_uint n,         \
     const cl_event *w, cl_event *e),                                                               \
    (q, b, p, ps, o, s, n, w, e))                                                                   \
  X(clEnqueueMapBuffer, void *,                                                                     \
    (cl_command_queue q, cl_mem b, cl_bool bl, cl_map_flags f, size_t o, size_t s, cl_uint n,       \
     const cl_event *w, cl_event *e, cl_int *r),                                                    \
    (q, b, bl, f, o, s, n, w, e, r))                                                                \
  X(clEnqueueUnmapMemObject, cl_int,                                                                \
    (cl_command_queue q, cl_mem m, void *p, cl_uint n, const cl_event *w, cl_event *e),             \
    (q, m, p, n, w, e))                                                                             \
  X(clGetCommandQueueInfo, cl_int, (cl_command_queue q, cl_command_queue_info p, size_t s, void *v, size_t *r), \
    (q, p, s, v, r))                                                                                \
  X(clGetKernelWorkGroupInfo, cl_int,                                                               \
    (cl_kernel k, cl_device_id d, cl_kernel_work_group_info p, size_t s, void *v, size_t *r),       \
    (k, d, p, s, v, r))                                                                             \
  X(clCreateBuffer, cl_mem, (cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *r),           \
    (c, f, s, h, r))                                                                                \
  X(clReleaseMemObject, cl_int, (cl_mem m), (m))

enum {
#define X(name, ret, params, args) k_##name,
  TALLY_ENTRIES(X)
#undef X
  kEntries
};
static const char *const kNames[] = {
#define X(name, ret, params, args) #name,
    TALLY_ENTRIES(X)
#undef X
};

// [entry][0: main thread, 1: other threads]
static _Atomic unsigned long long g_calls[kEntries][2], g_ns[kEntries][2];

#define X(name, ret, params, args)                                    \
  static ret CL_API_CALL w_##name params {                            \
    unsigned long long t0 = nowNs();                                  \
    ret ret_ = g_real.name args;                                      \
    unsigned long long t1 = nowNs();                                  \
    int other = !onMain();                                            \
    atomic_fetch_add(&g_calls[k_##name][other], 1);                   \
    atomic_fetch_add(&g_ns[k_##name][other], t1 - t0);                \
    return ret_;                                                      \
  }
TALLY_ENTRIES(X)
#undef X

// TALLY_ICD_NOOP_LAUNCH=1: launches do nothing (a marker stands in where an event is asked
// for), so that what remains of a launch loop's time is the caller's own code.
static int g_noopLaunch;
static cl_int CL_API_CALL noopNDRange(cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o,
                                      const size_t *g, const size_t *l, cl_uint n,
                                      const cl_event *w, cl_event *e) {
  (void)k, (void)d, (void)o, (void)g, (void)l;
  if (!e && !n) return CL_SUCCESS;
  return g_real.clEnqueueMarkerWithWaitList(q, n, w, e);
}

static void report(void) {
  const char *path = getenv("TALLY_ICD_OUT");
  FILE *f = path ? fopen(path, "a") : NULL;
  if (!f) f = stderr;
  // What a timer read costs here: part of every figure below, twice per call.
  unsigned long long t0 = nowNs();
  for (int i = 0; i < 1000; ++i) nowNs();
  double timerNs = (double)(nowNs() - t0) / 1000;
  fprintf(f, "TALLY timer_ns=%.1f\n", timerNs);
  for (int e = 0; e < kEntries; ++e)
    for (int t = 0; t < 2; ++t) {
      unsigned long long n = g_calls[e][t];
      if (!n) continue;
      fprintf(f, "TALLY call=%s thread=%s calls=%llu total_us=%.1f us_per_call=%.3f\n", kNames[e],
              t ? "other" : "main", n, (double)g_ns[e][t] / 1e3, (double)g_ns[e][t] / 1e3 / (double)n);
    }
  if (f != stderr) fclose(f);
}


static void init(void) {
  g_mainTid = getpid();
  const char *real = getenv("TALLY_ICD_REAL");
  struct _cl_icd_dispatch *table = shimOpen(real ? real : "libpocl.so.2", "tally_icd");
  if (!table) return;
#define X(name, ret, params, args) table->name = w_##name;
  TALLY_ENTRIES(X)
#undef X
  const char *noop = getenv("TALLY_ICD_NOOP_LAUNCH");
  if (noop && atoi(noop)) {
    g_real.clEnqueueNDRangeKernel = noopNDRange;  // still timed by its wrapper
    g_noopLaunch = 1;
  }
  atexit(report);
}

