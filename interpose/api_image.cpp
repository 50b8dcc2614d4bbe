// api_image.cpp - images and samplers. Images live on one backing device (the
// strongest with image support); kernels that use them run there.
#include <cstring>

#include "api.h"
#include "backend_image.h"

using namespace tutti;

namespace tutti {
cl_int checkMemFlags(cl_mem_flags flags, void *hostPtr);
cl_int checkMemProperties(const cl_mem_properties *props, std::vector<cl_mem_properties> &out);
cl_int inheritMemFlags(cl_mem_flags parentFlags, cl_mem_flags &flags);
}  // namespace tutti

namespace {

size_t channelCount(cl_channel_order o) {
  switch (o) {
    case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE: case CL_DEPTH: return 1;
    case CL_RG: case CL_RA: case CL_Rx: return 2;
    case CL_RGB: case CL_RGx: return 3;
    case CL_RGBA: case CL_BGRA: case CL_ARGB: case CL_RGBx: case CL_sRGBA: case CL_sBGRA:
    case CL_ABGR: return 4;
    default: return 0;
  }
}

size_t elementSize(const cl_image_format &f) {
  size_t c = channelCount(f.image_channel_order);
  switch (f.image_channel_data_type) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return c;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT: return 2 * c;
    case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT: return 4 * c;
    case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555: return 2;
    case CL_UNORM_INT_101010: return 4;
    default: return 0;
  }
}

size_t maxDim(cl_device_info p) {
  size_t v = 0;
  virtualDeviceInfo(p, sizeof v, &v, nullptr);
  return v;
}

// The spec's rules for an image descriptor (CL_INVALID_IMAGE_DESCRIPTOR for values that
// are not valid, CL_INVALID_IMAGE_SIZE for sizes past the device's limits).
cl_int checkImageDesc(const cl_image_desc &d, size_t elem, bool hostPtr) {
  cl_mem_object_type t = d.image_type;
  bool is1D = t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
              t == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  bool array = t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  bool is3D = t == CL_MEM_OBJECT_IMAGE3D;
  switch (t) {
    case CL_MEM_OBJECT_IMAGE1D: case CL_MEM_OBJECT_IMAGE1D_BUFFER: case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    case CL_MEM_OBJECT_IMAGE2D: case CL_MEM_OBJECT_IMAGE2D_ARRAY: case CL_MEM_OBJECT_IMAGE3D: break;
    default: return CL_INVALID_IMAGE_DESCRIPTOR;
  }
  if (!d.image_width || (!is1D && !d.image_height) || (is3D && !d.image_depth) ||
      (array && !d.image_array_size))
    return CL_INVALID_IMAGE_DESCRIPTOR;
  if (d.num_mip_levels || d.num_samples) return CL_INVALID_IMAGE_DESCRIPTOR;
  bool fromBuffer = d.mem_object != nullptr;
  if (fromBuffer && t != CL_MEM_OBJECT_IMAGE1D_BUFFER && t != CL_MEM_OBJECT_IMAGE2D)
    return CL_INVALID_IMAGE_DESCRIPTOR;
  if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER && !fromBuffer) return CL_INVALID_IMAGE_DESCRIPTOR;
  // Pitches describe host memory (or the buffer of a 2-D image made from one).
  size_t row = d.image_row_pitch, slice = d.image_slice_pitch;
  if (!hostPtr && !fromBuffer && (row || slice)) return CL_INVALID_IMAGE_DESCRIPTOR;
  if (row && (row < d.image_width * elem || row % elem)) return CL_INVALID_IMAGE_DESCRIPTOR;
  if (!row) row = d.image_width * elem;
  if ((is3D || array) && slice) {
    size_t least = t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? row : row * d.image_height;
    if (slice < least || slice % row) return CL_INVALID_IMAGE_DESCRIPTOR;
  }
  size_t w = d.image_width, h = d.image_height;
  if (t == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    if (w > maxDim(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE)) return CL_INVALID_IMAGE_SIZE;
  } else if (is3D) {
    if (w > maxDim(CL_DEVICE_IMAGE3D_MAX_WIDTH) || h > maxDim(CL_DEVICE_IMAGE3D_MAX_HEIGHT) ||
        d.image_depth > maxDim(CL_DEVICE_IMAGE3D_MAX_DEPTH))
      return CL_INVALID_IMAGE_SIZE;
  } else if (w > maxDim(CL_DEVICE_IMAGE2D_MAX_WIDTH) ||
             (!is1D && h > maxDim(CL_DEVICE_IMAGE2D_MAX_HEIGHT))) {
    return CL_INVALID_IMAGE_SIZE;
  }
  if (array && d.image_array_size > maxDim(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE)) return CL_INVALID_IMAGE_SIZE;
  return CL_SUCCESS;
}

// Flags of an image made from a buffer: inherited from the buffer, never widening it.
cl_int inheritMemFlagsOf(cl_mem buf, cl_context ctx, cl_mem_flags &flags) {
  if (!validMem(buf) || buf->isImage() || buf->ctx != ctx) return CL_INVALID_IMAGE_DESCRIPTOR;
  return inheritMemFlags(buf->flags, flags);
}

cl_mem makeImage(cl_context ctx, const cl_mem_properties *props, cl_mem_flags flags,
                 const cl_image_format *fmt, const cl_image_desc *desc, void *hostPtr,
                 cl_int *errcode,
                       const char *caller = __builtin_FUNCTION()) {
  ApiLock lock(caller);
  if (!validContext(ctx)) return setErr(errcode, CL_INVALID_CONTEXT), nullptr;
  std::vector<cl_mem_properties> p;
  cl_int err = checkMemProperties(props, p);
  cl_mem buf = desc ? desc->mem_object : nullptr;
  if (err == CL_SUCCESS) err = buf ? inheritMemFlagsOf(buf, ctx, flags) : checkMemFlags(flags, hostPtr);
  if (err == CL_SUCCESS && buf && hostPtr) err = CL_INVALID_HOST_PTR;
  if (err != CL_SUCCESS) return setErr(errcode, err), nullptr;
  size_t elem = fmt ? elementSize(*fmt) : 0;
  if (!elem) return setErr(errcode, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), nullptr;
  if (!desc) return setErr(errcode, CL_INVALID_IMAGE_DESCRIPTOR), nullptr;
  if (cl_int e = checkImageDesc(*desc, elem, hostPtr != nullptr)) return setErr(errcode, e), nullptr;
  // Bytes of the buffer the image covers.
  size_t span = 0;
  if (buf) {
    size_t row = desc->image_row_pitch ? desc->image_row_pitch : desc->image_width * elem;
    span = desc->image_type == CL_MEM_OBJECT_IMAGE2D ? row * desc->image_height : desc->image_width * elem;
    if (span > buf->size) return setErr(errcode, CL_INVALID_IMAGE_SIZE), nullptr;
  }
  int slot = imageSlot(ctx);
  if (slot < 0) return setErr(errcode, CL_INVALID_OPERATION), nullptr;
  if (!(flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY))) flags |= CL_MEM_READ_WRITE;
  DeviceSlot &s = ctx->slots[slot];
  cl_image_desc rd = *desc;
  // Tutti checks the app's host access itself, and must read a CL_MEM_HOST_WRITE_ONLY
  // image to fill a CL_MAP_WRITE mapping with its content: drivers refuse such reads.
  cl_mem_flags realFlags =
      flags & ~cl_mem_flags(CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS);
  if (buf) {
    rd.mem_object = realBuffer(buf, slot, &err);
    if (!rd.mem_object) return setErr(errcode, err), nullptr;
    realFlags &= ~cl_mem_flags(CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  }
  cl_mem real = realCreateImage(s, realFlags, fmt, &rd, hostPtr, &err);
  if (err != CL_SUCCESS) return setErr(errcode, err), nullptr;
  auto *m = new _cl_mem();
  m->ctx = ctx;
  m->memType = desc->image_type;
  m->flags = flags;
  m->format = *fmt;
  m->desc = *desc;
  m->elementSize = elem;
  m->hostPtr = (flags & CL_MEM_USE_HOST_PTR) ? hostPtr : nullptr;
  m->imageSlot = slot;
  m->realImage = real;
  m->props = p;
  if (buf) {
    _cl_mem *root = buf->parent ? buf->parent : buf;
    m->parent = root;
    m->origin = buf->origin;
    m->size = span;
    m->hostPtr = buf->hostPtr;
    runtime().retain(root);
    runtime().retain(buf);  // CL_MEM_ASSOCIATED_MEMOBJECT stays valid while the image lives
  } else {
    m->size = realMemSize(real);
  }
  runtime().retain(ctx);
  runtime().add(m, ObjType::Mem);
  setErr(errcode, CL_SUCCESS);
  return m;
}

}  // namespace

TUTTI_API cl_mem CL_API_CALL clCreateImage(cl_context ctx, cl_mem_flags flags,
                                           const cl_image_format *fmt, const cl_image_desc *desc,
                                           void *hostPtr, cl_int *errcode) {
  return makeImage(ctx, nullptr, flags, fmt, desc, hostPtr, errcode);
}

TUTTI_API cl_mem CL_API_CALL clCreateImageWithProperties(cl_context ctx,
                                                         const cl_mem_properties *props,
                                                         cl_mem_flags flags,
                                                         const cl_image_format *fmt,
                                                         const cl_image_desc *desc, void *hostPtr,
                                                         cl_int *errcode) {
  return makeImage(ctx, props, flags, fmt, desc, hostPtr, errcode);
}

TUTTI_API cl_mem CL_API_CALL clCreateImage2D(cl_context ctx, cl_mem_flags flags,
                                             const cl_image_format *fmt, size_t w, size_t h,
                                             size_t pitch, void *hostPtr, cl_int *errcode) {
  cl_image_desc d{};
  d.image_type = CL_MEM_OBJECT_IMAGE2D;
  d.image_width = w;
  d.image_height = h;
  d.image_row_pitch = pitch;
  return makeImage(ctx, nullptr, flags, fmt, &d, hostPtr, errcode);
}

TUTTI_API cl_mem CL_API_CALL clCreateImage3D(cl_context ctx, cl_mem_flags flags,
                                             const cl_image_format *fmt, size_t w, size_t h,
                                             size_t depth, size_t rowPitch, size_t slicePitch,
                                             void *hostPtr, cl_int *errcode) {
  cl_image_desc d{};
  d.image_type = CL_MEM_OBJECT_IMAGE3D;
  d.image_width = w;
  d.image_height = h;
  d.image_depth = depth;
  d.image_row_pitch = rowPitch;
  d.image_slice_pitch = slicePitch;
  return makeImage(ctx, nullptr, flags, fmt, &d, hostPtr, errcode);
}

TUTTI_API cl_int CL_API_CALL clGetSupportedImageFormats(cl_context ctx, cl_mem_flags flags,
                                                        cl_mem_object_type type, cl_uint n,
                                                        cl_image_format *formats, cl_uint *num) {
  ApiLock lock;
  if (!validContext(ctx)) return CL_INVALID_CONTEXT;
  if (n == 0 && formats) return CL_INVALID_VALUE;
  const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
  const cl_mem_flags hostAccess = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
  const cl_mem_flags known = access | hostAccess | CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR |
                             CL_MEM_COPY_HOST_PTR | CL_MEM_KERNEL_READ_AND_WRITE;
  auto several = [](cl_mem_flags f) { return (f & (f - 1)) != 0; };
  if ((flags & ~known) || several(flags & access) || several(flags & hostAccess) ||
      ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR))))
    return CL_INVALID_VALUE;
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D: case CL_MEM_OBJECT_IMAGE2D: case CL_MEM_OBJECT_IMAGE3D:
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: break;
    default: return CL_INVALID_VALUE;
  }
  int slot = imageSlot(ctx);
  if (slot < 0) {
    if (num) *num = 0;
    return CL_SUCCESS;
  }
  DeviceSlot &s = ctx->slots[slot];
  return realSupportedImageFormats(s, flags, type, n, formats, num);
}

TUTTI_API cl_int CL_API_CALL clGetImageInfo(cl_mem m, cl_image_info param, size_t size, void *value,
                                            size_t *ret) {
  ApiLock lock;
  if (!validMem(m) || !m->isImage()) return CL_INVALID_MEM_OBJECT;
  switch (param) {
    case CL_IMAGE_BUFFER:
      return answer(m->memType == CL_MEM_OBJECT_IMAGE1D_BUFFER ? m->desc.mem_object : nullptr, size,
                    value, ret);
    case CL_IMAGE_FORMAT: return answer(m->format, size, value, ret);
    case CL_IMAGE_ELEMENT_SIZE: return answer(m->elementSize, size, value, ret);
    default: return realImageInfo(m->realImage, param, size, value, ret);
  }
}

// ---------------------------------------------------------------- samplers

namespace {

cl_sampler makeSampler(cl_context ctx, cl_bool norm, cl_addressing_mode addr, cl_filter_mode filter,
                       std::vector<cl_sampler_properties> props, cl_int *errcode,
                       const char *caller = __builtin_FUNCTION()) {
  ApiLock lock(caller);
  if (!validContext(ctx)) return setErr(errcode, CL_INVALID_CONTEXT), nullptr;
  if (norm != CL_TRUE && norm != CL_FALSE) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if (addr < CL_ADDRESS_NONE || addr > CL_ADDRESS_MIRRORED_REPEAT)
    return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if (filter != CL_FILTER_NEAREST && filter != CL_FILTER_LINEAR)
    return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if (imageSlot(ctx) < 0) return setErr(errcode, CL_INVALID_OPERATION), nullptr;
  auto *s = new _cl_sampler();
  s->ctx = ctx;
  s->normalized = norm;
  s->addressing = addr;
  s->filter = filter;
  s->props = std::move(props);
  runtime().retain(ctx);
  runtime().add(s, ObjType::Sampler);
  setErr(errcode, CL_SUCCESS);
  return s;
}

}  // namespace

TUTTI_API cl_sampler CL_API_CALL clCreateSampler(cl_context ctx, cl_bool norm,
                                                 cl_addressing_mode addr, cl_filter_mode filter,
                                                 cl_int *errcode) {
  return makeSampler(ctx, norm, addr, filter, {}, errcode);
}

TUTTI_API cl_sampler CL_API_CALL clCreateSamplerWithProperties(cl_context ctx,
                                                               const cl_sampler_properties *props,
                                                               cl_int *errcode) {
  cl_bool norm = CL_TRUE;
  cl_addressing_mode addr = CL_ADDRESS_CLAMP;
  cl_filter_mode filter = CL_FILTER_NEAREST;
  std::vector<cl_sampler_properties> arr;
  if (props) {
    for (const cl_sampler_properties *p = props; *p; p += 2) {
      for (size_t i = 0; i < arr.size(); i += 2)
        if (arr[i] == p[0]) return setErr(errcode, CL_INVALID_VALUE), nullptr;  // named twice
      switch (p[0]) {
        case CL_SAMPLER_NORMALIZED_COORDS: norm = cl_bool(p[1]); break;
        case CL_SAMPLER_ADDRESSING_MODE: addr = cl_addressing_mode(p[1]); break;
        case CL_SAMPLER_FILTER_MODE: filter = cl_filter_mode(p[1]); break;
        default: return setErr(errcode, CL_INVALID_VALUE), nullptr;
      }
      arr.push_back(p[0]);
      arr.push_back(p[1]);
    }
    arr.push_back(0);
  }
  return makeSampler(ctx, norm, addr, filter, std::move(arr), errcode);
}

TUTTI_API cl_int CL_API_CALL clRetainSampler(cl_sampler s) {
  ApiLock lock;
  if (!validSampler(s)) return CL_INVALID_SAMPLER;
  ++s->refs;
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clReleaseSampler(cl_sampler s) {
  ApiLock lock;
  if (!validSampler(s)) return CL_INVALID_SAMPLER;
  runtime().releaseApp(s);
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clGetSamplerInfo(cl_sampler s, cl_sampler_info param, size_t size,
                                              void *value, size_t *ret) {
  ApiLock lock;
  if (!validSampler(s)) return CL_INVALID_SAMPLER;
  switch (param) {
    case CL_SAMPLER_REFERENCE_COUNT: return answer(s->refs, size, value, ret);
    case CL_SAMPLER_CONTEXT: return answer(static_cast<cl_context>(s->ctx), size, value, ret);
    case CL_SAMPLER_NORMALIZED_COORDS: return answer(s->normalized, size, value, ret);
    case CL_SAMPLER_ADDRESSING_MODE: return answer(s->addressing, size, value, ret);
    case CL_SAMPLER_FILTER_MODE: return answer(s->filter, size, value, ret);
    case CL_SAMPLER_PROPERTIES: return answer(s->props, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}
