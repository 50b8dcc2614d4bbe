/* An app that loads libOpenCL with dlopen (as Python bindings and plugins do) and
 * prints the platforms it sees: name per line. */
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>

typedef cl_int (*GetIDs)(cl_uint, cl_platform_id *, cl_uint *);
typedef cl_int (*GetInfo)(cl_platform_id, cl_platform_info, size_t, void *, size_t *);

int main(void) {
  void *h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 2; }
  GetIDs ids = (GetIDs)dlsym(h, "clGetPlatformIDs");
  GetInfo info = (GetInfo)dlsym(h, "clGetPlatformInfo");
  cl_platform_id p[16];
  cl_uint n = 0;
  if (ids(16, p, &n) != CL_SUCCESS) { fprintf(stderr, "no platforms\n"); return 1; }
  for (cl_uint i = 0; i < n && i < 16; ++i) {
    char name[256] = {0};
    info(p[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    printf("%s\n", name);
  }
  return 0;
}
