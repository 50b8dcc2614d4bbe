// backend_image.h - real images: created on the one device images live on, and queried.
//
// interpose/api_image.cpp validates the app's image calls and picks the slot; the
// driver calls are here (issue 16).
#pragma once
#include <CL/cl.h>

#include "objects.h"

namespace tutti {

// A real image on slot s (desc's mem_object already real), or nullptr with *err set.
cl_mem realCreateImage(const DeviceSlot &s, cl_mem_flags flags, const cl_image_format *fmt,
                       const cl_image_desc *desc, void *hostPtr, cl_int *err);
size_t realMemSize(cl_mem real);
cl_int realSupportedImageFormats(const DeviceSlot &s, cl_mem_flags flags, cl_mem_object_type type,
                                 cl_uint n, cl_image_format *formats, cl_uint *num);
cl_int realImageInfo(cl_mem real, cl_image_info param, size_t size, void *value, size_t *ret);

// Where the host bytes of a map of an image's region lie, and their pitches (what
// clEnqueueMapImage hands out and what the real read and write-back use).
struct ImageMapLayout {
  char *appPtr = nullptr;  // in the app's host_ptr (CL_MEM_USE_HOST_PTR), else nullptr
  size_t bytes = 0;        // without appPtr: the size of the block Tutti allocates
  size_t row = 0, slice = 0;  // slice is 0 for images without slices, as drivers demand
};
ImageMapLayout imageMapLayout(const _cl_mem *img, const size_t origin[3], const size_t region[3]);
// Whether maps of img point into the app's memory (Tutti neither allocates nor frees them).
inline bool mapsIntoHostPtr(const _cl_mem *img) { return img->hostPtr != nullptr; }

}  // namespace tutti
