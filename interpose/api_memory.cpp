// api_memory.cpp - buffers, sub-buffers and memory-object queries.
#include <cstring>

#include "api.h"

using namespace tutti;

namespace {

const cl_mem_flags kAccess = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const cl_mem_flags kHostAccess = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
const cl_mem_flags kHostPtr = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

bool oneOf(cl_mem_flags f, cl_mem_flags group) {
  cl_mem_flags g = f & group;
  return (g & (g - 1)) == 0;  // at most one bit of the group
}

}  // namespace

namespace tutti {

// Flag rules shared by buffers and images.
cl_int checkMemFlags(cl_mem_flags flags, void *hostPtr) {
  const cl_mem_flags known = kAccess | kHostAccess | kHostPtr | CL_MEM_KERNEL_READ_AND_WRITE;
  if (flags & ~known) return CL_INVALID_VALUE;
  if (!oneOf(flags, kAccess) || !oneOf(flags, kHostAccess)) return CL_INVALID_VALUE;
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return CL_INVALID_VALUE;
  bool wantsPtr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (wantsPtr != (hostPtr != nullptr)) return CL_INVALID_HOST_PTR;
  return CL_SUCCESS;
}

// Flags of a memory object made from another (sub-buffers, images from buffers): they
// may not widen its access nor name a host pointer; what they leave out is inherited.
cl_int inheritMemFlags(cl_mem_flags pf, cl_mem_flags &flags) {
  const cl_mem_flags known = kAccess | kHostAccess;
  if ((flags & ~(known | kHostPtr)) || !oneOf(flags, kAccess) || !oneOf(flags, kHostAccess) ||
      (flags & kHostPtr))
    return CL_INVALID_VALUE;
  if (((pf & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
      ((pf & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))) ||
      ((pf & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY)) ||
      ((pf & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY)) ||
      ((pf & CL_MEM_HOST_NO_ACCESS) && (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))))
    return CL_INVALID_VALUE;
  flags = (flags & kAccess ? flags & kAccess : pf & kAccess) |
          (flags & kHostAccess ? flags & kHostAccess : pf & kHostAccess) | (pf & kHostPtr);
  return CL_SUCCESS;
}

cl_int checkMemProperties(const cl_mem_properties *props, std::vector<cl_mem_properties> &out) {
  if (!props) return CL_SUCCESS;
  // No memory properties are defined by the core specification.
  if (props[0] != 0) return CL_INVALID_PROPERTY;
  out.push_back(0);
  return CL_SUCCESS;
}

}  // namespace tutti

namespace {

// A new buffer's initial upload (InitialUpload) runs with the lock released where its
// device allows, so other threads' calls do not wait for a large one. Nothing else can
// reach the buffer yet (it is registered after), and the reference the caller took on
// the context keeps the slot the upload uses.
cl_int uploadInitialUnlocked(ApiLock &lock, _cl_mem *m, const InitialUpload &up)
    REQUIRES(apiMutex) {
  cl_int err;
  if (up.ds->dev->callsOutsideLock) {
    lock.unlock();
    err = uploadInitial(up);
    lock.lock();
  } else {
    err = uploadInitial(up);
  }
  return initialLanded(m, up, err);
}

cl_mem makeBuffer(cl_context ctx, const cl_mem_properties *props, cl_mem_flags flags, size_t size,
                  void *hostPtr, cl_int *errcode, const char *caller = __builtin_FUNCTION()) {
  ApiLock lock(caller);
  if (!validContext(ctx)) return setErr(errcode, CL_INVALID_CONTEXT), nullptr;
  std::vector<cl_mem_properties> p;
  cl_int err = checkMemProperties(props, p);
  if (err == CL_SUCCESS) err = checkMemFlags(flags, hostPtr);
  if (err != CL_SUCCESS) return setErr(errcode, err), nullptr;
  cl_ulong maxAlloc = 0;
  virtualDeviceInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxAlloc, &maxAlloc, nullptr);
  if (size == 0 || size > maxAlloc) return setErr(errcode, CL_INVALID_BUFFER_SIZE), nullptr;
  if (!(flags & kAccess)) flags |= CL_MEM_READ_WRITE;
  auto *m = new _cl_mem();
  m->ctx = ctx;
  m->flags = flags;
  m->size = size;
  m->hostPtr = (flags & CL_MEM_USE_HOST_PTR) ? hostPtr : nullptr;
  m->props = p;
  runtime().retain(ctx);  // the buffer's; taken before the upload may release the lock
  stagingForBuffer(ctx, size);
  InitialUpload up;
  err = createStore(m, hostPtr, &up);
  if (err == CL_SUCCESS && up) err = uploadInitialUnlocked(lock, m, up);
  if (err != CL_SUCCESS) {
    runtime().release(ctx);
    delete m;
    return setErr(errcode, err), nullptr;
  }
  runtime().add(m, ObjType::Mem);
  setErr(errcode, CL_SUCCESS);
  return m;
}

}  // namespace

TUTTI_API cl_mem CL_API_CALL clCreateBuffer(cl_context ctx, cl_mem_flags flags, size_t size,
                                            void *hostPtr, cl_int *errcode) {
  return makeBuffer(ctx, nullptr, flags, size, hostPtr, errcode);
}

TUTTI_API cl_mem CL_API_CALL clCreateBufferWithProperties(cl_context ctx,
                                                          const cl_mem_properties *props,
                                                          cl_mem_flags flags, size_t size,
                                                          void *hostPtr, cl_int *errcode) {
  return makeBuffer(ctx, props, flags, size, hostPtr, errcode);
}

TUTTI_API cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buf, cl_mem_flags flags,
                                               cl_buffer_create_type type, const void *info,
                                               cl_int *errcode) {
  ApiLock lock;
  if (!validMem(buf) || buf->isImage() || buf->parent)
    return setErr(errcode, CL_INVALID_MEM_OBJECT), nullptr;
  cl_mem_flags pf = buf->flags;
  if (cl_int err = inheritMemFlags(pf, flags)) return setErr(errcode, err), nullptr;
  if (type != CL_BUFFER_CREATE_TYPE_REGION || !info) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  auto *reg = static_cast<const cl_buffer_region *>(info);
  if (reg->size == 0) return setErr(errcode, CL_INVALID_BUFFER_SIZE), nullptr;
  if (reg->origin > buf->size || reg->size > buf->size - reg->origin)
    return setErr(errcode, CL_INVALID_VALUE), nullptr;
  cl_uint alignBits = 0;
  virtualDeviceInfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof alignBits, &alignBits, nullptr);
  size_t align = alignBits / 8 ? alignBits / 8 : 1;
  if (reg->origin % align) return setErr(errcode, CL_MISALIGNED_SUB_BUFFER_OFFSET), nullptr;
  auto *m = new _cl_mem();
  m->ctx = buf->ctx;
  m->flags = flags;
  m->size = reg->size;
  m->parent = buf;
  m->origin = reg->origin;
  m->hostPtr = buf->hostPtr ? static_cast<char *>(buf->hostPtr) + reg->origin : nullptr;
  runtime().retain(buf);
  runtime().retain(buf->ctx);
  runtime().add(m, ObjType::Mem);
  setErr(errcode, CL_SUCCESS);
  return m;
}

TUTTI_API cl_int CL_API_CALL clRetainMemObject(cl_mem m) {
  ApiLock lock;
  if (!validMem(m)) return CL_INVALID_MEM_OBJECT;
  ++m->refs;
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clReleaseMemObject(cl_mem m) {
  ApiLock lock;
  if (!validMem(m)) return CL_INVALID_MEM_OBJECT;
  runtime().releaseApp(m);
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clSetMemObjectDestructorCallback(cl_mem m,
                                                              void(CL_CALLBACK *fn)(cl_mem, void *),
                                                              void *user) {
  ApiLock lock;
  if (!validMem(m)) return CL_INVALID_MEM_OBJECT;
  if (!fn) return CL_INVALID_VALUE;
  m->destructorCallbacks.push_back({reinterpret_cast<void(CL_CALLBACK *)(void *)>(fn), user, 0});
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clGetMemObjectInfo(cl_mem m, cl_mem_info param, size_t size,
                                                void *value, size_t *ret) {
  ApiLock lock;
  if (!validMem(m)) return CL_INVALID_MEM_OBJECT;
  auto A = [&](auto v) { return answer(v, size, value, ret); };
  switch (param) {
    case CL_MEM_TYPE: return A(m->memType);
    case CL_MEM_FLAGS: return A(m->flags);
    case CL_MEM_SIZE: return A(m->size);
    case CL_MEM_HOST_PTR: return A(m->hostPtr);
    case CL_MEM_MAP_COUNT: return A(cl_uint(m->maps.size()));
    case CL_MEM_REFERENCE_COUNT: return A(m->refs);
    case CL_MEM_CONTEXT: return A(static_cast<cl_context>(m->ctx));
    case CL_MEM_ASSOCIATED_MEMOBJECT:
      return A(m->isImage() ? m->desc.mem_object : static_cast<cl_mem>(m->parent));
    case CL_MEM_OFFSET: return A(m->isImage() ? size_t(0) : m->origin);
    case CL_MEM_USES_SVM_POINTER: return A(cl_bool(CL_FALSE));
    case CL_MEM_PROPERTIES: return A(m->props);
    default: return CL_INVALID_VALUE;
  }
}

// ---------------------------------------------------------------- optional features

TUTTI_API cl_mem CL_API_CALL clCreatePipe(cl_context ctx, cl_mem_flags, cl_uint, cl_uint,
                                          const cl_pipe_properties *, cl_int *errcode) {
  ApiLock lock;
  // CL_DEVICE_PIPE_SUPPORT is CL_FALSE: the spec's answer is CL_INVALID_OPERATION.
  setErr(errcode, validContext(ctx) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT);
  return nullptr;
}

TUTTI_API cl_int CL_API_CALL clGetPipeInfo(cl_mem m, cl_pipe_info, size_t, void *, size_t *) {
  ApiLock lock;
  return validMem(m) ? CL_INVALID_MEM_OBJECT : CL_INVALID_MEM_OBJECT;  // no pipe exists
}

TUTTI_API void *CL_API_CALL clSVMAlloc(cl_context, cl_svm_mem_flags, size_t, cl_uint) {
  return nullptr;  // CL_DEVICE_SVM_CAPABILITIES is 0
}

TUTTI_API void CL_API_CALL clSVMFree(cl_context, void *) {}
