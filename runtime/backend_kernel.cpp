// backend_kernel.cpp - real kernels on the backing devices: create, set, query.
//
// Named wrappers over the driver's kernel calls, so that interpose/ only validates and
// translates (issue 16).
#include "backend_kernel.h"

#include <algorithm>
#include <cstdint>

#include "backend.h"
#include "backend_program.h"
#include "icd.h"

namespace tutti {

namespace {

template <typename T>
T argInfo(cl_kernel rk, cl_uint i, cl_kernel_arg_info p, T fallback) {
  T v{};
  return icd(rk).clGetKernelArgInfo(rk, i, p, sizeof v, &v, nullptr) == CL_SUCCESS ? v : fallback;
}

std::string argString(cl_kernel rk, cl_uint i, cl_kernel_arg_info p) {
  return driverString([&](size_t n, void *v, size_t *ret) {
    return icd(rk).clGetKernelArgInfo(rk, i, p, n, v, ret);
  });
}

}  // namespace

cl_kernel firstReal(const _cl_kernel *k) {
  for (cl_kernel r : k->real)
    if (r) return r;
  return nullptr;
}

cl_kernel realCreateKernel(cl_program rp, const char *name, cl_int *err) {
  return icd(rp).clCreateKernel(rp, name, err);
}

cl_uint realKernelNumArgs(cl_kernel rk) {
  cl_uint n = 0;
  icd(rk).clGetKernelInfo(rk, CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr);
  return n;
}

std::string realKernelAttributes(cl_kernel rk) {
  return driverString([&](size_t n, void *v, size_t *ret) {
    return icd(rk).clGetKernelInfo(rk, CL_KERNEL_ATTRIBUTES, n, v, ret);
  });
}

ArgInfo realKernelArgInfo(cl_kernel rk, cl_uint i) {
  ArgInfo a;
  a.addr = argInfo<cl_kernel_arg_address_qualifier>(rk, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                                    CL_KERNEL_ARG_ADDRESS_PRIVATE);
  a.access = argInfo<cl_kernel_arg_access_qualifier>(rk, i, CL_KERNEL_ARG_ACCESS_QUALIFIER,
                                                     CL_KERNEL_ARG_ACCESS_NONE);
  a.typeQual = argInfo<cl_kernel_arg_type_qualifier>(rk, i, CL_KERNEL_ARG_TYPE_QUALIFIER, 0);
  a.typeName = argString(rk, i, CL_KERNEL_ARG_TYPE_NAME);
  a.name = argString(rk, i, CL_KERNEL_ARG_NAME);
  if (a.addr == CL_KERNEL_ARG_ADDRESS_LOCAL) a.setPath = ArgInfo::SetPath::Local;
  else if (a.isPointer() && !a.typeName.empty() && !a.isImage() && a.typeName.rfind("pipe", 0) != 0)
    a.setPath = ArgInfo::SetPath::Buffer;
  return a;
}

std::string realKernelArgTypeName(cl_kernel rk, cl_uint i) {
  return argString(rk, i, CL_KERNEL_ARG_TYPE_NAME);
}

cl_int realSetKernelArg(cl_kernel rk, cl_uint i, size_t size, const void *value) {
  return icd(rk).clSetKernelArg(rk, i, size, value);
}

cl_int realWorkGroupInfo(cl_kernel rk, cl_device_id d, cl_kernel_work_group_info param, size_t size,
                         void *value) {
  return icd(rk).clGetKernelWorkGroupInfo(rk, d, param, size, value, nullptr);
}

namespace {

// A kernel's real kernels never change: their group limits are asked once, not on
// every launch (two to three driver calls per clEnqueueNDRangeKernel before).
void learnGroupInfo(_cl_kernel *k) {
  if (k->groupInfoKnown) return;
  k->groupInfoKnown = true;
  bool first = true;
  size_t wg = SIZE_MAX;
  for (size_t s = 0; s < k->real.size(); ++s) {
    if (!k->real[s]) continue;
    cl_device_id dev = k->program->ctx->slots[s].dev->id;
    if (first)
      realWorkGroupInfo(k->real[s], dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, 3 * sizeof(size_t),
                        k->reqdGroup);
    first = false;
    size_t x = 0;
    realWorkGroupInfo(k->real[s], dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof x, &x);
    wg = std::min(wg, x);
  }
  k->maxGroup = wg;
}

}  // namespace

void compileWorkGroupSize(_cl_kernel *k, size_t out[3]) {
  learnGroupInfo(k);
  std::copy(k->reqdGroup, k->reqdGroup + 3, out);
}

size_t maxWorkGroupSize(_cl_kernel *k) {
  learnGroupInfo(k);
  return k->maxGroup;
}

size_t probeTypeSize(const DeviceSlot &ds, const std::string &source, const std::string &options,
                     const std::string &type) {
  std::string sz = "sizeof(" + type + ")";
  std::string src = source + "\n__kernel __attribute__((reqd_work_group_size(1 + " + sz +
                    " % 1024, 1 + " + sz + " / 1024, 1))) void tutti_sizeof_probe(void) {}\n";
  size_t size = 0;
  cl_program probe = realProgramWithSource(ds.ctx, src);
  if (probe && realBuild(probe, ds.dev->id, options) == CL_SUCCESS) {
    cl_int err = CL_SUCCESS;
    cl_kernel pk = realCreateKernel(probe, "tutti_sizeof_probe", &err);
    size_t wg[3] = {0, 0, 0};
    if (pk && realWorkGroupInfo(pk, ds.dev->id, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof wg, wg) ==
                  CL_SUCCESS &&
        wg[0] && wg[1])
      size = (wg[0] - 1) + (wg[1] - 1) * 1024;
    if (pk) icd(pk).clReleaseKernel(pk);
  }
  if (probe) icd(probe).clReleaseProgram(probe);
  return size;
}

}  // namespace tutti
