// backend_image.cpp - real images: created on the one device images live on, and queried.
//
// Named wrappers over the driver's image calls, so that interpose/ only validates and
// translates (issue 16).
#include "backend_image.h"

#include "icd.h"

namespace tutti {

cl_mem realCreateImage(const DeviceSlot &s, cl_mem_flags flags, const cl_image_format *fmt,
                       const cl_image_desc *desc, void *hostPtr, cl_int *err) {
  cl_mem real = icd(s.ctx).clCreateImage(s.ctx, flags, fmt, desc, hostPtr, err);
  return *err == CL_SUCCESS ? real : nullptr;
}

size_t realMemSize(cl_mem real) {
  size_t size = 0;
  icd(real).clGetMemObjectInfo(real, CL_MEM_SIZE, sizeof size, &size, nullptr);
  return size;
}

cl_int realSupportedImageFormats(const DeviceSlot &s, cl_mem_flags flags, cl_mem_object_type type,
                                 cl_uint n, cl_image_format *formats, cl_uint *num) {
  return icd(s.ctx).clGetSupportedImageFormats(s.ctx, flags, type, n, formats, num);
}

cl_int realImageInfo(cl_mem real, cl_image_info param, size_t size, void *value, size_t *ret) {
  return icd(real).clGetImageInfo(real, param, size, value, ret);
}

}  // namespace tutti
