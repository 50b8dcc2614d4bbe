// enqueue_rate - launches of an empty kernel per second (the interposition overhead
// benchmark): N non-blocking enqueues, then clFinish. Links only libOpenCL.
//   enqueue_rate [N [PLATFORM-SUBSTRING]]   (default: 20000 on the first platform)
#include "first_device.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const char *want = argc > 2 ? argv[2] : "";
  char name[256];
  cl_device_id d = firstDevice(want, name);
  if (!d) return 2;
  char dev[256] = "";
  clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof dev, dev, nullptr);
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, d, 0, &err);
  const char *src = "kernel void empty(global int *a) { }";
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  if (clBuildProgram(prog, 1, &d, "", nullptr, nullptr) != CL_SUCCESS) return 2;
  cl_kernel k = clCreateKernel(prog, "empty", &err);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1024, nullptr, &err);
  clSetKernelArg(k, 0, sizeof buf, &buf);
  size_t g = 256, l = 64;
  for (int i = 0; i < 100; ++i) clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  clFinish(q);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i)
    if (clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr) != CL_SUCCESS) return 1;
  auto t1 = std::chrono::steady_clock::now();
  clFinish(q);
  auto t2 = std::chrono::steady_clock::now();
  double enq = std::chrono::duration<double>(t1 - t0).count();
  double all = std::chrono::duration<double>(t2 - t0).count();
  std::printf("RESULT platform=\"%s\" device=\"%s\" enqueues=%d enqueue_us=%.2f per_launch_us=%.2f "
              "launches_per_s=%.0f\n", name, dev, n, enq / n * 1e6, all / n * 1e6, n / all);
  clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
