// backend_kernel.h - real kernels on the backing devices: create, set, query.
//
// interpose/api_kernel.cpp and api_enqueue.cpp validate the app's kernel calls against
// what these report; the driver calls themselves are here (issue 16).
#pragma once
#include <CL/cl.h>

#include <string>

#include "objects.h"

namespace tutti {

// The first real kernel of k (the device it was built for first), or nullptr.
cl_kernel firstReal(const _cl_kernel *k);

cl_kernel realCreateKernel(cl_program rp, const char *name, cl_int *err);
cl_uint realKernelNumArgs(cl_kernel rk);
std::string realKernelAttributes(cl_kernel rk);
// Argument i's info; "" type name when the driver keeps none (see clSetKernelArg).
ArgInfo realKernelArgInfo(cl_kernel rk, cl_uint i);
std::string realKernelArgTypeName(cl_kernel rk, cl_uint i);
cl_int realSetKernelArg(cl_kernel rk, cl_uint i, size_t size, const void *value);
cl_int realWorkGroupInfo(cl_kernel rk, cl_device_id d, cl_kernel_work_group_info param, size_t size,
                         void *value);

// reqd_work_group_size of k's first real kernel ({0,0,0} when none is required).
void compileWorkGroupSize(_cl_kernel *k, size_t out[3]);
// The largest work-group every backing device can run k with.
size_t maxWorkGroupSize(_cl_kernel *k);

// sizeof(type) as the compiler for ds's device sees it after source with options, or 0
// when it cannot be learned: a probe kernel's required work-group size encodes it.
size_t probeTypeSize(const DeviceSlot &ds, const std::string &source, const std::string &options,
                     const std::string &type);

}  // namespace tutti
