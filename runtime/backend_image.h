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

}  // namespace tutti
