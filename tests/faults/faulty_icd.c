// faulty_icd.c - an ICD vendor library that wraps PoCL and makes chosen calls fail.
//
// Issue 21's device-fault tests register this library instead of PoCL (OCL_ICD_VENDORS),
// so that Tutti sees PoCL's devices but a build, an allocation, an enqueue or a whole
// device fails mid-run, as a real driver's would. Every object PoCL makes points at one
// dispatch table; wrapping the calls in that table (in place) reaches every object without
// wrapping handles.
//
// FAULTY_ICD: comma list of faults, each WHAT:DEVICE:N[+]
//   WHAT   build   clBuildProgram / clCompileProgram for DEVICE
//          alloc   clCreateBuffer in a context of DEVICE
//          kernel  clEnqueueNDRangeKernel on a queue of DEVICE
//          write   clEnqueueWriteBuffer / clEnqueueFillBuffer / clEnqueueCopyBuffer there
//          copy    clEnqueueFillBuffer / clEnqueueCopyBuffer there (they count as writes too)
//          read    clEnqueueReadBuffer / clEnqueueMapBuffer there
//          device  every call above: the device is gone (its memory too)
//          work    every call above but reads: it takes no new work, but what it holds
//                  can still be read back
//   DEVICE index in PoCL's device list (POCL_DEVICES order)
//   N      the N-th such call fails (1 = the first); with '+', it and every later one
// FAULTY_ICD_LOG: file that gets one line per injected fault ("kernel 1 3 -5"), so that a
// test can tell that its fault really happened.
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl_icd.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "icd_shim.h"

enum What { kBuild, kAlloc, kKernel, kWrite, kRead, kCopy, kWhatCount };
static const char *const kNames[] = {"build", "alloc", "kernel", "write", "read", "copy"};

#define kMaxDevices 8
#define kMaxFaults 16
struct Fault {
  int what;  // What, or -1: the whole device, -2: all but reads
  int device;
  long nth;
  int onward;
};
static struct Fault g_faults[kMaxFaults];
static int g_nFaults;
static long g_calls[kMaxDevices][kWhatCount];
static long g_all[kMaxDevices];  // calls of any kind, for 'device' faults
static cl_device_id g_devices[kMaxDevices];
static cl_uint g_nDevices;
static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

static void parseFaults(void) {
  const char *spec = getenv("FAULTY_ICD");
  if (!spec) return;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && g_nFaults < kMaxFaults;
       tok = strtok_r(NULL, ",", &save)) {
    char what[16];
    int dev = 0;
    long n = 0;
    int used = 0;
    if (sscanf(tok, "%15[a-z]:%d:%ld%n", what, &dev, &n, &used) != 3 || dev < 0 ||
        dev >= kMaxDevices || n < 1) {
      fprintf(stderr, "faulty_icd: bad fault '%s' (WHAT:DEVICE:N[+])\n", tok);
      continue;
    }
    struct Fault f = {-1, dev, n, tok[used] == '+'};
    for (int w = 0; w < kWhatCount; ++w)
      if (!strcmp(what, kNames[w])) f.what = w;
    if (!strcmp(what, "work")) f.what = -2;
    if (f.what == -1 && strcmp(what, "device")) {
      fprintf(stderr, "faulty_icd: unknown fault kind '%s'\n", what);
      continue;
    }
    g_faults[g_nFaults++] = f;
  }
}

static int deviceIndex(cl_device_id d) {
  for (cl_uint i = 0; i < g_nDevices; ++i)
    if (g_devices[i] == d) return (int)i;
  return -1;
}

static void logFault(int what, int dev, long n, cl_int err) {
  const char *path = getenv("FAULTY_ICD_LOG");
  FILE *f = path ? fopen(path, "a") : NULL;
  if (!f) return;
  fprintf(f, "%s %d %ld %d\n", what < 0 ? "device" : kNames[what], dev, n, err);
  fclose(f);
}

// Counts a call of kind `what` (and `also`, unless -1) on device `dev`; returns the error
// to inject, or 0.
static cl_int injectAs(int what, int also, int dev, cl_int err) {
  if (dev < 0) return 0;
  pthread_mutex_lock(&g_mutex);
  long n = ++g_calls[dev][what];
  long nAlso = also >= 0 ? ++g_calls[dev][also] : 0;
  long all = ++g_all[dev];
  cl_int out = 0;
  int kind = what;
  for (int i = 0; i < g_nFaults && !out; ++i) {
    const struct Fault *f = &g_faults[i];
    if (f->device != dev) continue;
    if (f->what == -2 && what == kRead) continue;
    if (f->what < 0) {
      // A dead device answers nothing; reads count toward 'device' faults like the rest.
      if (all >= f->nth) out = what == kBuild ? CL_BUILD_PROGRAM_FAILURE
                             : what == kAlloc ? CL_MEM_OBJECT_ALLOCATION_FAILURE
                                              : CL_OUT_OF_RESOURCES, kind = -1, n = all;
    } else if (f->what == what && (n == f->nth || (f->onward && n > f->nth))) {
      out = err;
    } else if (f->what == also && (nAlso == f->nth || (f->onward && nAlso > f->nth))) {
      out = err, kind = also, n = nAlso;
    }
  }
  pthread_mutex_unlock(&g_mutex);
  if (out) logFault(kind, dev, n, out);
  return out;
}

static cl_int inject(int what, int dev, cl_int err) { return injectAs(what, -1, dev, err); }

static int queueDevice(cl_command_queue q) {
  cl_device_id d = NULL;
  if (g_real.clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof d, &d, NULL) != CL_SUCCESS) return -1;
  return deviceIndex(d);
}

static int contextDevice(cl_context c) {
  cl_device_id d[kMaxDevices];
  size_t size = 0;
  if (g_real.clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof d, d, &size) != CL_SUCCESS ||
      size != sizeof(cl_device_id))
    return -1;  // several devices: an allocation is not any one device's
  return deviceIndex(d[0]);
}

static int programDevice(cl_program p, cl_uint n, const cl_device_id *list) {
  if (n == 1 && list) return deviceIndex(list[0]);
  cl_device_id d[kMaxDevices];
  size_t size = 0;
  if (g_real.clGetProgramInfo(p, CL_PROGRAM_DEVICES, sizeof d, d, &size) != CL_SUCCESS ||
      size != sizeof(cl_device_id))
    return -1;
  return deviceIndex(d[0]);
}

static cl_int CL_API_CALL wBuildProgram(cl_program p, cl_uint n, const cl_device_id *l,
                                        const char *o, void(CL_CALLBACK *cb)(cl_program, void *),
                                        void *u) {
  cl_int e = inject(kBuild, programDevice(p, n, l), CL_BUILD_PROGRAM_FAILURE);
  return e ? e : g_real.clBuildProgram(p, n, l, o, cb, u);
}

static cl_int CL_API_CALL wCompileProgram(cl_program p, cl_uint n, const cl_device_id *l,
                                          const char *o, cl_uint nh, const cl_program *h,
                                          const char **hn,
                                          void(CL_CALLBACK *cb)(cl_program, void *), void *u) {
  cl_int e = inject(kBuild, programDevice(p, n, l), CL_COMPILE_PROGRAM_FAILURE);
  return e ? e : g_real.clCompileProgram(p, n, l, o, nh, h, hn, cb, u);
}

static cl_mem CL_API_CALL wCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *h,
                                        cl_int *err) {
  cl_int e = inject(kAlloc, contextDevice(c), CL_MEM_OBJECT_ALLOCATION_FAILURE);
  if (e) {
    if (err) *err = e;
    return NULL;
  }
  return g_real.clCreateBuffer(c, f, s, h, err);
}

static cl_int CL_API_CALL wNDRange(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *o,
                                   const size_t *g, const size_t *l, cl_uint n,
                                   const cl_event *w, cl_event *ev) {
  cl_int e = inject(kKernel, queueDevice(q), CL_OUT_OF_RESOURCES);
  return e ? e : g_real.clEnqueueNDRangeKernel(q, k, dim, o, g, l, n, w, ev);
}

static cl_int CL_API_CALL wWrite(cl_command_queue q, cl_mem b, cl_bool bl, size_t off, size_t s,
                                 const void *p, cl_uint n, const cl_event *w, cl_event *ev) {
  cl_int e = inject(kWrite, queueDevice(q), CL_OUT_OF_RESOURCES);
  return e ? e : g_real.clEnqueueWriteBuffer(q, b, bl, off, s, p, n, w, ev);
}

static cl_int CL_API_CALL wFill(cl_command_queue q, cl_mem b, const void *pat, size_t ps,
                                size_t off, size_t s, cl_uint n, const cl_event *w, cl_event *ev) {
  cl_int e = injectAs(kCopy, kWrite, queueDevice(q), CL_OUT_OF_RESOURCES);
  return e ? e : g_real.clEnqueueFillBuffer(q, b, pat, ps, off, s, n, w, ev);
}

static cl_int CL_API_CALL wCopy(cl_command_queue q, cl_mem a, cl_mem b, size_t so, size_t d,
                                size_t s, cl_uint n, const cl_event *w, cl_event *ev) {
  cl_int e = injectAs(kCopy, kWrite, queueDevice(q), CL_OUT_OF_RESOURCES);
  return e ? e : g_real.clEnqueueCopyBuffer(q, a, b, so, d, s, n, w, ev);
}

static cl_int CL_API_CALL wRead(cl_command_queue q, cl_mem b, cl_bool bl, size_t off, size_t s,
                                void *p, cl_uint n, const cl_event *w, cl_event *ev) {
  cl_int e = inject(kRead, queueDevice(q), CL_OUT_OF_RESOURCES);
  return e ? e : g_real.clEnqueueReadBuffer(q, b, bl, off, s, p, n, w, ev);
}

static void *CL_API_CALL wMap(cl_command_queue q, cl_mem b, cl_bool bl, cl_map_flags f,
                              size_t off, size_t s, cl_uint n, const cl_event *w, cl_event *ev,
                              cl_int *err) {
  cl_int e = inject(kRead, queueDevice(q), CL_OUT_OF_RESOURCES);
  if (e) {
    if (err) *err = e;
    return NULL;
  }
  return g_real.clEnqueueMapBuffer(q, b, bl, f, off, s, n, w, ev, err);
}


static void init(void) {
  struct _cl_icd_dispatch *table = shimOpen("libpocl.so.2", "faulty_icd");
  if (!table) return;
  g_real.clGetDeviceIDs(g_platform, CL_DEVICE_TYPE_ALL, kMaxDevices, g_devices, &g_nDevices);
  parseFaults();
  table->clBuildProgram = wBuildProgram;
  table->clCompileProgram = wCompileProgram;
  table->clCreateBuffer = wCreateBuffer;
  table->clEnqueueNDRangeKernel = wNDRange;
  table->clEnqueueWriteBuffer = wWrite;
  table->clEnqueueFillBuffer = wFill;
  table->clEnqueueCopyBuffer = wCopy;
  table->clEnqueueReadBuffer = wRead;
  table->clEnqueueMapBuffer = wMap;
}

