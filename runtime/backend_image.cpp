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

ImageMapLayout imageMapLayout(const _cl_mem *img, const size_t origin[3], const size_t region[3]) {
  const cl_mem_object_type t = img->memType;
  const bool layersAreRows = t == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  const bool sliced = layersAreRows || t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D;
  // The spec derives a CL_MEM_USE_HOST_PTR image's map pointer from host_ptr, laid out
  // with the pitches the image was created with; otherwise the region is packed.
  const bool inApp = mapsIntoHostPtr(img);
  const size_t width = inApp ? img->desc.image_width : region[0];
  const size_t height = inApp ? img->desc.image_height : region[1];
  ImageMapLayout l;
  l.row = inApp && img->desc.image_row_pitch ? img->desc.image_row_pitch : width * img->elementSize;
  if (sliced) {
    // Each layer of a 1-D array is one row: its slice pitch is the row pitch.
    l.slice = inApp && img->desc.image_slice_pitch ? img->desc.image_slice_pitch
              : layersAreRows                       ? l.row
                                                    : l.row * height;
  }
  // A 1-D array's second coordinate is its layer.
  const size_t yPitch = layersAreRows ? l.slice : l.row;
  auto offset = [&](size_t x, size_t y, size_t z) {
    return x * img->elementSize + y * yPitch + z * l.slice;
  };
  if (inApp) {
    l.appPtr = static_cast<char *>(img->hostPtr) + offset(origin[0], origin[1], origin[2]);
  } else {
    l.bytes = offset(region[0] - 1, region[1] - 1, region[2] - 1) + img->elementSize;
  }
  return l;
}

}  // namespace tutti
