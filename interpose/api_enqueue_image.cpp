// api_enqueue_image.cpp - image commands, run on the device the image lives on.
#include <cstdlib>
#include <cstring>

#include "api.h"
#include "backend_image.h"

using namespace tutti;

namespace {


cl_int checkImage(cl_command_queue q, cl_mem m) {
  if (!validMem(m) || !m->isImage()) return CL_INVALID_MEM_OBJECT;
  if (m->ctx != q->ctx) return CL_INVALID_CONTEXT;
  return CL_SUCCESS;
}

// The extent of an image in each region dimension (fields its type ignores count as 1).
void extent(cl_mem m, size_t dims[3]) {
  const cl_image_desc &d = m->desc;
  dims[0] = d.image_width, dims[1] = dims[2] = 1;
  switch (m->memType) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: dims[1] = d.image_array_size; break;
    case CL_MEM_OBJECT_IMAGE2D: dims[1] = d.image_height; break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: dims[1] = d.image_height, dims[2] = d.image_array_size; break;
    case CL_MEM_OBJECT_IMAGE3D: dims[1] = d.image_height, dims[2] = d.image_depth; break;
    default: break;
  }
}

cl_int checkRegion(cl_mem m, const size_t *origin, const size_t *region) {
  if (!origin || !region) return CL_INVALID_VALUE;
  size_t dims[3];
  extent(m, dims);
  for (int i = 0; i < 3; ++i)
    if (!region[i] || origin[i] > dims[i] || region[i] > dims[i] - origin[i]) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

bool boxesOverlap(const size_t *a, const size_t *b, const size_t *region) {
  for (int i = 0; i < 3; ++i)
    if (a[i] >= b[i] + region[i] || b[i] >= a[i] + region[i]) return false;
  return true;
}

}  // namespace

TUTTI_API cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue q, cl_mem img, cl_bool blocking,
                                                const size_t *origin, const size_t *region,
                                                size_t row, size_t slice, void *ptr, cl_uint n,
                                                const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkImage(q, img)) return err;
  if (e.err) return e.err;
  if (!ptr) return CL_INVALID_VALUE;
  if (cl_int err = checkRegion(img, origin, region)) return err;
  if (img->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)) return CL_INVALID_OPERATION;
  Command *c = e.command(q, CmdKind::ImageRead, CL_COMMAND_READ_IMAGE);
  c->src = img;
  e.hold(c, img);
  for (int i = 0; i < 3; ++i) c->srcOrigin[i] = origin[i], c->region[i] = region[i];
  c->srcRow = row, c->srcSlice = slice, c->ptr = ptr;
  return submit(e.lock, c, e.waits, event, blocking);
}

TUTTI_API cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue q, cl_mem img, cl_bool blocking,
                                                 const size_t *origin, const size_t *region,
                                                 size_t row, size_t slice, const void *ptr,
                                                 cl_uint n, const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkImage(q, img)) return err;
  if (e.err) return e.err;
  if (!ptr) return CL_INVALID_VALUE;
  if (cl_int err = checkRegion(img, origin, region)) return err;
  if (img->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)) return CL_INVALID_OPERATION;
  Command *c = e.command(q, CmdKind::ImageWrite, CL_COMMAND_WRITE_IMAGE);
  c->dst = img;
  e.hold(c, img);
  for (int i = 0; i < 3; ++i) c->dstOrigin[i] = origin[i], c->region[i] = region[i];
  c->dstRow = row, c->dstSlice = slice, c->ptr = const_cast<void *>(ptr);
  return submit(e.lock, c, e.waits, event, blocking);
}

TUTTI_API cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue q, cl_mem src, cl_mem dst,
                                                const size_t *so, const size_t *dO,
                                                const size_t *region, cl_uint n,
                                                const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkImage(q, src)) return err;
  if (cl_int err = checkImage(q, dst)) return err;
  if (e.err) return e.err;
  if (src->format.image_channel_order != dst->format.image_channel_order ||
      src->format.image_channel_data_type != dst->format.image_channel_data_type)
    return CL_IMAGE_FORMAT_MISMATCH;
  if (cl_int err = checkRegion(src, so, region)) return err;
  if (cl_int err = checkRegion(dst, dO, region)) return err;
  if ((src == dst || (src->parent && src->parent == dst->parent)) && boxesOverlap(so, dO, region))
    return CL_MEM_COPY_OVERLAP;
  Command *c = e.command(q, CmdKind::ImageCopy, CL_COMMAND_COPY_IMAGE);
  c->src = src, c->dst = dst;
  e.hold(c, src);
  e.hold(c, dst);
  for (int i = 0; i < 3; ++i) c->srcOrigin[i] = so[i], c->dstOrigin[i] = dO[i], c->region[i] = region[i];
  return submit(e.lock, c, e.waits, event, false);
}

TUTTI_API cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue q, cl_mem img, const void *color,
                                                const size_t *origin, const size_t *region,
                                                cl_uint n, const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkImage(q, img)) return err;
  if (e.err) return e.err;
  if (!color) return CL_INVALID_VALUE;
  if (cl_int err = checkRegion(img, origin, region)) return err;
  Command *c = e.command(q, CmdKind::ImageFill, CL_COMMAND_FILL_IMAGE);
  c->dst = img;
  e.hold(c, img);
  c->pattern.assign(static_cast<const unsigned char *>(color), static_cast<const unsigned char *>(color) + 16);
  for (int i = 0; i < 3; ++i) c->dstOrigin[i] = origin[i], c->region[i] = region[i];
  return submit(e.lock, c, e.waits, event, false);
}

TUTTI_API cl_int CL_API_CALL clEnqueueCopyImageToBuffer(cl_command_queue q, cl_mem img, cl_mem buf,
                                                        const size_t *origin, const size_t *region,
                                                        size_t off, cl_uint n, const cl_event *list,
                                                        cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkImage(q, img)) return err;
  if (!validMem(buf) || buf->isImage()) return CL_INVALID_MEM_OBJECT;
  if (buf->ctx != q->ctx) return CL_INVALID_CONTEXT;
  if (e.err) return e.err;
  if (cl_int err = checkRegion(img, origin, region)) return err;
  size_t bytes = img->elementSize * region[0] * region[1] * region[2];
  if (off > buf->size || bytes > buf->size - off) return CL_INVALID_VALUE;
  Command *c = e.command(q, CmdKind::ImageToBuffer, CL_COMMAND_COPY_IMAGE_TO_BUFFER);
  c->src = img, c->dst = buf;
  e.hold(c, img);
  e.hold(c, buf);
  for (int i = 0; i < 3; ++i) c->srcOrigin[i] = origin[i], c->region[i] = region[i];
  c->dstOff = off;
  c->size = bytes;
  return submit(e.lock, c, e.waits, event, false);
}

TUTTI_API cl_int CL_API_CALL clEnqueueCopyBufferToImage(cl_command_queue q, cl_mem buf, cl_mem img,
                                                        size_t off, const size_t *origin,
                                                        const size_t *region, cl_uint n,
                                                        const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkImage(q, img)) return err;
  if (!validMem(buf) || buf->isImage()) return CL_INVALID_MEM_OBJECT;
  if (buf->ctx != q->ctx) return CL_INVALID_CONTEXT;
  if (e.err) return e.err;
  if (cl_int err = checkRegion(img, origin, region)) return err;
  size_t bytes = img->elementSize * region[0] * region[1] * region[2];
  if (off > buf->size || bytes > buf->size - off) return CL_INVALID_VALUE;
  Command *c = e.command(q, CmdKind::BufferToImage, CL_COMMAND_COPY_BUFFER_TO_IMAGE);
  c->src = buf, c->dst = img;
  e.hold(c, img);
  e.hold(c, buf);
  for (int i = 0; i < 3; ++i) c->dstOrigin[i] = origin[i], c->region[i] = region[i];
  c->srcOff = off;
  c->size = bytes;
  return submit(e.lock, c, e.waits, event, false);
}

TUTTI_API void *CL_API_CALL clEnqueueMapImage(cl_command_queue q, cl_mem img, cl_bool blocking,
                                              cl_map_flags flags, const size_t *origin,
                                              const size_t *region, size_t *rowPitch,
                                              size_t *slicePitch, cl_uint n, const cl_event *list,
                                              cl_event *event, cl_int *errcode) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return setErr(errcode, e.err), nullptr;
  if (cl_int err = checkImage(q, img)) return setErr(errcode, err), nullptr;
  if (e.err) return setErr(errcode, e.err), nullptr;
  if (!rowPitch) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if (cl_int err = checkRegion(img, origin, region)) return setErr(errcode, err), nullptr;
  if (flags & ~(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))
    return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE)))
    return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if (!flags) flags = CL_MAP_READ | CL_MAP_WRITE;
  if (((flags & CL_MAP_READ) && (img->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))) ||
      ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
       (img->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS))))
    return setErr(errcode, CL_INVALID_OPERATION), nullptr;
  bool needsSlice = img->memType == CL_MEM_OBJECT_IMAGE3D || img->memType == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                    img->memType == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  if (needsSlice && !slicePitch) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  const ImageMapLayout lay = imageMapLayout(img, origin, region);
  void *ptr = lay.appPtr ? lay.appPtr : std::malloc(lay.bytes);
  if (!ptr) return setErr(errcode, CL_OUT_OF_HOST_MEMORY), nullptr;
  *rowPitch = lay.row;
  if (slicePitch) *slicePitch = lay.slice;
  Command *c = e.command(q, CmdKind::ImageMap, CL_COMMAND_MAP_IMAGE);
  c->src = img;
  e.hold(c, img);
  c->mapFlags = flags;
  c->mapped = ptr;
  for (int i = 0; i < 3; ++i) c->srcOrigin[i] = origin[i], c->region[i] = region[i];
  c->srcRow = lay.row, c->srcSlice = lay.slice;
  Mapping mp;
  mp.ptr = ptr, mp.flags = flags, mp.row = lay.row, mp.slice = lay.slice;
  for (int i = 0; i < 3; ++i) mp.origin[i] = origin[i], mp.region[i] = region[i];
  img->maps.push_back(mp);
  cl_int st = submit(e.lock, c, e.waits, event, blocking);
  if (st != CL_SUCCESS)
    return setErr(errcode, st == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST ? st : CL_MAP_FAILURE), nullptr;
  setErr(errcode, CL_SUCCESS);
  return ptr;
}
