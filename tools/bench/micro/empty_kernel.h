// empty_kernel.h - the launch micro benchmarks' setup: a context, an in-order queue, and an
// empty kernel with one buffer argument, on the first device of a matching platform. A
// chain's kernel instead adds one to the buffer's first int, so each launch reads what the
// one before it wrote (TUTTI_MODE=mkmd's graph sees a chain, not independent launches).
#pragma once
#include "first_device.h"

struct EmptyKernel {
  char platform[256] = "";
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;
  cl_program prog = nullptr;
  cl_kernel kernel = nullptr;
  cl_mem buf = nullptr;

  // False when no platform matches or the kernel does not build.
  bool open(const char *want, cl_command_queue_properties props = 0, bool chain = false) {
    device = firstDevice(want, platform);
    if (!device) return false;
    cl_int err;
    ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    queue = clCreateCommandQueue(ctx, device, props, &err);
    const char *src = chain ? "kernel void empty(global int *a) { if (get_global_id(0) == 0) a[0] += 1; }"
                            : "kernel void empty(global int *a) { }";
    prog = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
    if (clBuildProgram(prog, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) return false;
    kernel = clCreateKernel(prog, "empty", &err);
    buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1024, nullptr, &err);
    return clSetKernelArg(kernel, 0, sizeof buf, &buf) == CL_SUCCESS;
  }

  ~EmptyKernel() {
    if (buf) clReleaseMemObject(buf);
    if (kernel) clReleaseKernel(kernel);
    if (prog) clReleaseProgram(prog);
    if (queue) clReleaseCommandQueue(queue);
    if (ctx) clReleaseContext(ctx);
  }
};
