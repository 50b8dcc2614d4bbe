// icd_shim.h - the ICD entry points of a vendor library that wraps another driver.
//
// Included once by such a library (tests/faults/faulty_icd.c, tools/bench/micro/tally_icd.c),
// which defines `static void init(void)`: it calls shimOpen and wraps entries of the table
// that returns. The ICD loader finds the library through the two exports below; init runs
// once, on the first of them.
#pragma once
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *g_lib;                     // the real driver
static cl_platform_id g_platform;       // its platform
static struct _cl_icd_dispatch g_real;  // its entries before wrapping
static void init(void);

typedef cl_int(CL_API_CALL *GetPlatformsFn)(cl_uint, cl_platform_id *, cl_uint *);

// Loads the driver at `path`, finds its first platform and returns its dispatch table made
// writable (every object the driver makes points at it), with g_real a copy; NULL on failure.
static struct _cl_icd_dispatch *shimOpen(const char *path, const char *who) {
  g_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!g_lib) {
    fprintf(stderr, "%s: %s\n", who, dlerror());
    return NULL;
  }
  GetPlatformsFn get = (GetPlatformsFn)dlsym(g_lib, "clIcdGetPlatformIDsKHR");
  if (!get) {  // PoCL exports its ICD entry only through its extension lookup
    void *(*ext)(const char *) = (void *(*)(const char *))dlsym(g_lib, "clGetExtensionFunctionAddress");
    get = ext ? (GetPlatformsFn)ext("clIcdGetPlatformIDsKHR") : NULL;
  }
  // Asked for the count first, as the ICD loader does (NVIDIA's answers nothing otherwise).
  cl_uint n = 0;
  cl_int err = get ? get(0, NULL, &n) : CL_PLATFORM_NOT_FOUND_KHR;
  if (err == CL_SUCCESS && n) err = get(1, &g_platform, NULL);
  if (err != CL_SUCCESS || !n || !g_platform) {
    fprintf(stderr, "%s: %s has no platform (%s, error %d, %u platforms)\n", who, path,
            get ? "clIcdGetPlatformIDsKHR" : "no clIcdGetPlatformIDsKHR", err, n);
    g_platform = NULL;
    return NULL;
  }
  struct _cl_icd_dispatch *table = *(struct _cl_icd_dispatch **)g_platform;
  g_real = *table;
  long page = sysconf(_SC_PAGESIZE);
  char *begin = (char *)((size_t)table & ~(size_t)(page - 1));
  char *end = (char *)table + sizeof *table;
  if (mprotect(begin, (size_t)(end - begin), PROT_READ | PROT_WRITE) != 0) {
    perror(who);
    return NULL;
  }
  return table;
}

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

// Static, and handed out by address: under LD_PRELOAD=libtutti.so a call by name from here
// would bind to Tutti's exported entry of the same name.
static cl_int CL_API_CALL icdGetPlatforms(cl_uint num, cl_platform_id *platforms, cl_uint *count) {
  pthread_once(&g_once, init);
  if (!g_platform) return CL_PLATFORM_NOT_FOUND_KHR;
  if (count) *count = 1;
  if (platforms && num) platforms[0] = g_platform;
  return CL_SUCCESS;
}

__attribute__((visibility("default"))) void *CL_API_CALL
clGetExtensionFunctionAddress(const char *name) {
  pthread_once(&g_once, init);
  if (!strcmp(name, "clIcdGetPlatformIDsKHR")) return (void *)icdGetPlatforms;
  void *(*real)(const char *) =
      g_lib ? (void *(*)(const char *))dlsym(g_lib, "clGetExtensionFunctionAddress") : NULL;
  return real ? real(name) : NULL;
}

__attribute__((visibility("default"))) cl_int CL_API_CALL
clIcdGetPlatformIDsKHR(cl_uint num, cl_platform_id *platforms, cl_uint *count) {
  return icdGetPlatforms(num, platforms, count);
}
