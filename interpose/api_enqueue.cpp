// api_enqueue.cpp - kernel launches and buffer commands.
#include <cstdint>
#include <cstring>

#include "api.h"
#include "backend_kernel.h"

using namespace tutti;

namespace {


cl_int checkBuffer(cl_command_queue q, cl_mem m) {
  if (!validMem(m) || m->isImage()) return CL_INVALID_MEM_OBJECT;
  if (m->ctx != q->ctx) return CL_INVALID_CONTEXT;
  return CL_SUCCESS;
}

bool inBounds(cl_mem m, size_t off, size_t size) { return off <= m->size && size <= m->size - off; }

bool hostCannotRead(cl_mem m) { return m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS); }
bool hostCannotWrite(cl_mem m) { return m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS); }

// Non-uniform work-groups are an OpenCL C 2.0+ feature the program must opt into.
bool allowsNonUniform(_cl_kernel *k) {
  const std::string &o = k->program->options;
  if (o.find("-cl-uniform-work-group-size") != std::string::npos) return false;
  bool std2 = o.find("-cl-std=CL2.0") != std::string::npos || o.find("-cl-std=CL3.0") != std::string::npos;
  if (!std2) return false;
  cl_bool dev = CL_FALSE;
  virtualDeviceInfo(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof dev, &dev, nullptr);
  return dev == CL_TRUE;
}

cl_int checkRect(cl_mem m, const size_t origin[3], const size_t region[3], size_t &row, size_t &slice) {
  if (!origin || !region) return CL_INVALID_VALUE;
  if (!region[0] || !region[1] || !region[2]) return CL_INVALID_VALUE;
  if (row == 0) row = region[0];
  else if (row < region[0]) return CL_INVALID_VALUE;
  if (slice == 0) slice = region[1] * row;
  else if (slice < region[1] * row || slice % row) return CL_INVALID_VALUE;
  if (m) {
    size_t last = (origin[2] + region[2] - 1) * slice + (origin[1] + region[1] - 1) * row +
                  origin[0] + region[0];
    if (last > m->size) return CL_INVALID_VALUE;
  }
  return CL_SUCCESS;
}

}  // namespace

namespace {
cl_int enqueueKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *offset,
                     const size_t *global, const size_t *local, cl_uint n, const cl_event *list,
                     cl_event *event, cl_command_type type,
                     const char *caller = __builtin_FUNCTION()) {
  Enqueue e(q, n, list, caller);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (!validKernel(k)) return CL_INVALID_KERNEL;
  if (k->program->ctx != q->ctx) return CL_INVALID_CONTEXT;
  if (e.err != CL_SUCCESS) return e.err;
  if (dim < 1 || dim > 3) return CL_INVALID_WORK_DIMENSION;
  for (cl_uint i = 0; i < dim; ++i)
    if (global && offset && global[i] + offset[i] < global[i]) return CL_INVALID_GLOBAL_OFFSET;
  // What every backing driver can launch: NVIDIA's grids stop at 2^31 - 1 blocks per
  // dimension, and PoCL's pthread device aborts the process past about 2^31 work-groups
  // (an assertion in its scheduler, natively too; found by tests/fuzz/fuzz_api). Work-items
  // per dimension are held to 2^32 for the same reason. OpenCL lets a device refuse global
  // sizes it cannot run with CL_INVALID_GLOBAL_WORK_SIZE.
  for (cl_uint i = 0; i < dim && global; ++i) {
    size_t l = local && local[i] ? local[i] : 1;
    if (global[i] > (size_t(1) << 32) || global[i] / l > size_t(INT32_MAX))
      return CL_INVALID_GLOBAL_WORK_SIZE;
  }
  for (size_t i = 0; i < k->args.size(); ++i) {
    const ArgValue &a = k->args[i];
    if (a.kind == ArgValue::Unset) return CL_INVALID_KERNEL_ARGS;
    // An argument set to an object the app has since released for good (found by
    // tests/fuzz/fuzz_api): refused, not used after its memory went.
    if ((a.kind == ArgValue::Mem && a.mem && !validMem(a.mem)) ||
        (a.kind == ArgValue::Sampler && !validSampler(a.sampler)))
      return CL_INVALID_KERNEL_ARGS;
  }
  size_t reqd[3];
  compileWorkGroupSize(k, reqd);
  // Since OpenCL 2.0 a NULL local size with reqd_work_group_size means that size; some
  // drivers still reject NULL there, so Tutti passes it explicitly.
  if (reqd[0] && !local) local = reqd;
  if (local) {
    // The virtual device's limits do not change once the backend is up: asked once
    // (the query combines every device's answer and allocates).
    struct Items { size_t v[3] = {0, 0, 0}; Items() { virtualDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof v, v, nullptr); } };
    static const Items itemSizes;
    size_t wg = maxWorkGroupSize(k);
    const size_t *items = itemSizes.v;
    size_t total = 1;
    bool uniform = true;
    for (cl_uint i = 0; i < dim; ++i) {
      if (local[i] == 0) return CL_INVALID_WORK_GROUP_SIZE;
      if (local[i] > items[i]) return CL_INVALID_WORK_ITEM_SIZE;
      if (reqd[0] && local[i] != reqd[i]) return CL_INVALID_WORK_GROUP_SIZE;
      total *= local[i];
      if (global && global[i] % local[i]) uniform = false;
    }
    if (total > wg) return CL_INVALID_WORK_GROUP_SIZE;
    if (!uniform && !allowsNonUniform(k)) return CL_INVALID_WORK_GROUP_SIZE;
  }
  // OpenCL 2.1+: a NULL global size or a 0 in any dimension is a no-op that completes
  // once its dependencies have (OpenCL-Docs #1302, CTS api/zero_sized_enqueue).
  bool empty = !global;
  for (cl_uint i = 0; i < dim && global; ++i) empty |= global[i] == 0;
  std::string why;
  cl_int perr = empty ? CL_SUCCESS : placementError(k, k->args, why);
  if (perr != CL_SUCCESS) {
    TUTTI_LOG(Error, "clEnqueueNDRangeKernel: %s", why.c_str());
    return perr;
  }
  Command *c = e.command(q, empty ? CmdKind::Marker : CmdKind::Kernel, type, event != nullptr);
  if (!empty) {
    c->kernel = k;
    runtime().retain(k);
    c->args = k->args;
    for (auto &a : c->args) {
      if (a.kind == ArgValue::Mem) e.hold(c, a.mem);
      if (a.kind == ArgValue::Sampler) runtime().retain(a.sampler);
    }
    c->dim = dim;
    for (cl_uint i = 0; i < dim; ++i) {
      c->global[i] = global[i];
      c->offset[i] = offset ? offset[i] : 0;
      if (local) c->local[i] = local[i];
    }
    c->hasLocal = local != nullptr;
  }
  return submit(e.lock, c, e.waits, event, false);
}

}  // namespace

TUTTI_API cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                                                    const size_t *offset, const size_t *global,
                                                    const size_t *local, cl_uint n,
                                                    const cl_event *list, cl_event *event) {
  return enqueueKernel(q, k, dim, offset, global, local, n, list, event, CL_COMMAND_NDRANGE_KERNEL);
}

TUTTI_API cl_int CL_API_CALL clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint n,
                                           const cl_event *list, cl_event *event) {
  size_t one = 1;
  return enqueueKernel(q, k, 1, nullptr, &one, &one, n, list, event, CL_COMMAND_TASK);
}

TUTTI_API cl_int CL_API_CALL clEnqueueNativeKernel(cl_command_queue q, void(CL_CALLBACK *)(void *),
                                                   void *, size_t, cl_uint, const cl_mem *,
                                                   const void **, cl_uint, const cl_event *, cl_event *) {
  ApiLock lock;
  if (!validQueue(q)) return CL_INVALID_COMMAND_QUEUE;
  return CL_INVALID_OPERATION;  // CL_DEVICE_EXECUTION_CAPABILITIES lacks CL_EXEC_NATIVE_KERNEL
}

TUTTI_API cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                                                 size_t off, size_t size, void *ptr, cl_uint n,
                                                 const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkBuffer(q, m)) return err;
  if (e.err != CL_SUCCESS) return e.err;
  if (!ptr || !inBounds(m, off, size) || size == 0) return CL_INVALID_VALUE;
  if (hostCannotRead(m)) return CL_INVALID_OPERATION;
  Command *c = e.command(q, CmdKind::Read, CL_COMMAND_READ_BUFFER);
  c->src = m;
  e.hold(c, m);
  c->srcOff = off;
  c->size = size;
  c->ptr = ptr;
  return submit(e.lock, c, e.waits, event, blocking);
}

TUTTI_API cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                                                  size_t off, size_t size, const void *ptr,
                                                  cl_uint n, const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkBuffer(q, m)) return err;
  if (e.err != CL_SUCCESS) return e.err;
  if (!ptr || !inBounds(m, off, size) || size == 0) return CL_INVALID_VALUE;
  if (hostCannotWrite(m)) return CL_INVALID_OPERATION;
  Command *c = e.command(q, CmdKind::Write, CL_COMMAND_WRITE_BUFFER);
  c->dst = m;
  e.hold(c, m);
  c->dstOff = off;
  c->size = size;
  c->ptr = const_cast<void *>(ptr);
  return submit(e.lock, c, e.waits, event, blocking);
}

TUTTI_API cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
                                                 size_t so, size_t dO, size_t size, cl_uint n,
                                                 const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkBuffer(q, src)) return err;
  if (cl_int err = checkBuffer(q, dst)) return err;
  if (e.err != CL_SUCCESS) return e.err;
  if (size == 0 || !inBounds(src, so, size) || !inBounds(dst, dO, size)) return CL_INVALID_VALUE;
  _cl_mem *rs = src->parent ? src->parent : src, *rd = dst->parent ? dst->parent : dst;
  size_t as = src->origin + so, ad = dst->origin + dO;
  if (rs == rd && as < ad + size && ad < as + size) return CL_MEM_COPY_OVERLAP;
  Command *c = e.command(q, CmdKind::Copy, CL_COMMAND_COPY_BUFFER);
  c->src = src;
  c->dst = dst;
  e.hold(c, src);
  e.hold(c, dst);
  c->srcOff = so;
  c->dstOff = dO;
  c->size = size;
  return submit(e.lock, c, e.waits, event, false);
}

TUTTI_API cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pattern,
                                                 size_t psize, size_t off, size_t size, cl_uint n,
                                                 const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkBuffer(q, m)) return err;
  if (e.err != CL_SUCCESS) return e.err;
  if (!pattern || psize == 0 || psize > 128 || (psize & (psize - 1))) return CL_INVALID_VALUE;
  if (off % psize || size % psize || !inBounds(m, off, size)) return CL_INVALID_VALUE;
  Command *c = e.command(q, CmdKind::Fill, CL_COMMAND_FILL_BUFFER);
  c->dst = m;
  e.hold(c, m);
  c->dstOff = off;
  c->size = size;
  c->pattern.assign(static_cast<const unsigned char *>(pattern),
                    static_cast<const unsigned char *>(pattern) + psize);
  return submit(e.lock, c, e.waits, event, false);
}

TUTTI_API cl_int CL_API_CALL clEnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                                     const size_t *bo, const size_t *ho,
                                                     const size_t *region, size_t brow, size_t bslice,
                                                     size_t hrow, size_t hslice, void *ptr, cl_uint n,
                                                     const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkBuffer(q, m)) return err;
  if (e.err != CL_SUCCESS) return e.err;
  if (!ptr) return CL_INVALID_VALUE;
  if (cl_int err = checkRect(m, bo, region, brow, bslice)) return err;
  if (cl_int err = checkRect(nullptr, ho, region, hrow, hslice)) return err;
  if (hostCannotRead(m)) return CL_INVALID_OPERATION;
  Command *c = e.command(q, CmdKind::ReadRect, CL_COMMAND_READ_BUFFER_RECT);
  c->src = m;
  e.hold(c, m);
  c->ptr = ptr;
  for (int i = 0; i < 3; ++i) c->srcOrigin[i] = bo[i], c->dstOrigin[i] = ho[i], c->region[i] = region[i];
  c->srcRow = brow, c->srcSlice = bslice, c->dstRow = hrow, c->dstSlice = hslice;
  return submit(e.lock, c, e.waits, event, blocking);
}

TUTTI_API cl_int CL_API_CALL clEnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                                      const size_t *bo, const size_t *ho,
                                                      const size_t *region, size_t brow,
                                                      size_t bslice, size_t hrow, size_t hslice,
                                                      const void *ptr, cl_uint n,
                                                      const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkBuffer(q, m)) return err;
  if (e.err != CL_SUCCESS) return e.err;
  if (!ptr) return CL_INVALID_VALUE;
  if (cl_int err = checkRect(m, bo, region, brow, bslice)) return err;
  if (cl_int err = checkRect(nullptr, ho, region, hrow, hslice)) return err;
  if (hostCannotWrite(m)) return CL_INVALID_OPERATION;
  Command *c = e.command(q, CmdKind::WriteRect, CL_COMMAND_WRITE_BUFFER_RECT);
  c->dst = m;
  e.hold(c, m);
  c->ptr = const_cast<void *>(ptr);
  for (int i = 0; i < 3; ++i) c->dstOrigin[i] = bo[i], c->srcOrigin[i] = ho[i], c->region[i] = region[i];
  c->dstRow = brow, c->dstSlice = bslice, c->srcRow = hrow, c->srcSlice = hslice;
  return submit(e.lock, c, e.waits, event, blocking);
}

TUTTI_API cl_int CL_API_CALL clEnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst,
                                                     const size_t *so, const size_t *dO,
                                                     const size_t *region, size_t srow, size_t sslice,
                                                     size_t drow, size_t dslice, cl_uint n,
                                                     const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (cl_int err = checkBuffer(q, src)) return err;
  if (cl_int err = checkBuffer(q, dst)) return err;
  if (e.err != CL_SUCCESS) return e.err;
  if (cl_int err = checkRect(src, so, region, srow, sslice)) return err;
  if (cl_int err = checkRect(dst, dO, region, drow, dslice)) return err;
  if (src == dst) {
    if (srow != drow || sslice != dslice) return CL_INVALID_VALUE;
    size_t a = so[2] * sslice + so[1] * srow + so[0], b = dO[2] * dslice + dO[1] * drow + dO[0];
    size_t span = (region[2] - 1) * sslice + (region[1] - 1) * srow + region[0];
    if (a < b + span && b < a + span) return CL_MEM_COPY_OVERLAP;
  }
  Command *c = e.command(q, CmdKind::CopyRect, CL_COMMAND_COPY_BUFFER_RECT);
  c->src = src;
  c->dst = dst;
  e.hold(c, src);
  e.hold(c, dst);
  for (int i = 0; i < 3; ++i) c->srcOrigin[i] = so[i], c->dstOrigin[i] = dO[i], c->region[i] = region[i];
  c->srcRow = srow, c->srcSlice = sslice, c->dstRow = drow, c->dstSlice = dslice;
  return submit(e.lock, c, e.waits, event, false);
}

TUTTI_API void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                                               cl_map_flags flags, size_t off, size_t size,
                                               cl_uint n, const cl_event *list, cl_event *event,
                                               cl_int *errcode) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return setErr(errcode, e.err), nullptr;
  if (cl_int err = checkBuffer(q, m)) return setErr(errcode, err), nullptr;
  if (e.err != CL_SUCCESS) return setErr(errcode, e.err), nullptr;
  if (size == 0 || !inBounds(m, off, size)) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if (flags & ~(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))
    return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE)))
    return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if (((flags & CL_MAP_READ) && hostCannotRead(m)) ||
      ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) && hostCannotWrite(m)))
    return setErr(errcode, CL_INVALID_OPERATION), nullptr;
  if (!flags) flags = CL_MAP_READ | CL_MAP_WRITE;
  _cl_mem *root = m->parent ? m->parent : m;
  char *home = homeOf(root->ctx, *root->store);
  if (!home) return setErr(errcode, CL_OUT_OF_HOST_MEMORY), nullptr;
  void *ptr = home + m->origin + off;
  Command *c = e.command(q, CmdKind::Map, CL_COMMAND_MAP_BUFFER);
  c->src = m;
  e.hold(c, m);
  c->srcOff = off;
  c->size = size;
  c->mapFlags = flags;
  Mapping mp;
  mp.ptr = ptr, mp.offset = off, mp.size = size, mp.flags = flags;
  m->maps.push_back(mp);
  cl_int st = submit(e.lock, c, e.waits, event, blocking);
  if (st != CL_SUCCESS)
    return setErr(errcode, st == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST ? st : CL_MAP_FAILURE), nullptr;
  setErr(errcode, CL_SUCCESS);
  return ptr;
}

TUTTI_API cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *ptr,
                                                     cl_uint n, const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (!validMem(m)) return CL_INVALID_MEM_OBJECT;
  if (m->ctx != q->ctx) return CL_INVALID_CONTEXT;
  if (e.err != CL_SUCCESS) return e.err;
  auto it = std::find_if(m->maps.begin(), m->maps.end(), [&](const Mapping &x) { return x.ptr == ptr; });
  if (!ptr || it == m->maps.end()) return CL_INVALID_VALUE;
  Mapping mp = *it;
  m->maps.erase(it);
  Command *c = e.command(q, CmdKind::Unmap, CL_COMMAND_UNMAP_MEM_OBJECT);
  c->src = m;
  e.hold(c, m);
  c->srcOff = mp.offset;
  c->size = mp.size;
  c->mapFlags = mp.flags;
  c->mapped = mp.ptr;
  if (m->isImage()) {
    c->slot = m->imageSlot;
    for (int i = 0; i < 3; ++i) c->srcOrigin[i] = mp.origin[i], c->region[i] = mp.region[i];
    c->srcRow = mp.row;
    c->srcSlice = mp.slice;
  }
  return submit(e.lock, c, e.waits, event, false);
}

TUTTI_API cl_int CL_API_CALL clEnqueueMigrateMemObjects(cl_command_queue q, cl_uint count,
                                                        const cl_mem *mems,
                                                        cl_mem_migration_flags flags, cl_uint n,
                                                        const cl_event *list, cl_event *event) {
  Enqueue e(q, n, list);
  if (e.err == CL_INVALID_COMMAND_QUEUE) return e.err;
  if (count == 0 || !mems) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < count; ++i) {
    if (!validMem(mems[i])) return CL_INVALID_MEM_OBJECT;
    if (mems[i]->ctx != q->ctx) return CL_INVALID_CONTEXT;
  }
  if (flags & ~(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return CL_INVALID_VALUE;
  if (e.err != CL_SUCCESS) return e.err;
  Command *c = e.command(q, CmdKind::Migrate, CL_COMMAND_MIGRATE_MEM_OBJECTS);
  c->migrateFlags = flags;
  for (cl_uint i = 0; i < count; ++i) {
    c->migrate.push_back(mems[i]);
    e.hold(c, mems[i]);
  }
  return submit(e.lock, c, e.waits, event, false);
}

// ---------------------------------------------------------------- SVM: not supported

TUTTI_API cl_int CL_API_CALL clEnqueueSVMFree(cl_command_queue q, cl_uint, void *[],
                                              void(CL_CALLBACK *)(cl_command_queue, cl_uint, void *[], void *),
                                              void *, cl_uint, const cl_event *, cl_event *) {
  ApiLock lock;
  return validQueue(q) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}
TUTTI_API cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue q, cl_bool, void *, const void *,
                                                size_t, cl_uint, const cl_event *, cl_event *) {
  ApiLock lock;
  return validQueue(q) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}
TUTTI_API cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue q, void *, const void *, size_t,
                                                 size_t, cl_uint, const cl_event *, cl_event *) {
  ApiLock lock;
  return validQueue(q) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}
TUTTI_API cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue q, cl_bool, cl_map_flags, void *,
                                             size_t, cl_uint, const cl_event *, cl_event *) {
  ApiLock lock;
  return validQueue(q) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}
TUTTI_API cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue q, void *, cl_uint, const cl_event *,
                                               cl_event *) {
  ApiLock lock;
  return validQueue(q) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}
TUTTI_API cl_int CL_API_CALL clEnqueueSVMMigrateMem(cl_command_queue q, cl_uint, const void **,
                                                    const size_t *, cl_mem_migration_flags, cl_uint,
                                                    const cl_event *, cl_event *) {
  ApiLock lock;
  return validQueue(q) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}
