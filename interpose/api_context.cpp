// api_context.cpp - contexts: one virtual context holds a real context per device.
#include "api.h"
#include "slots.h"

using namespace tutti;

namespace tutti {

cl_int checkDeviceList(cl_uint n, const cl_device_id *list) {
  if ((n == 0) != (list == nullptr)) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; ++i)
    if (!validDevice(list[i])) return CL_INVALID_DEVICE;
  return CL_SUCCESS;
}

}  // namespace tutti

namespace {

cl_int checkProperties(const cl_context_properties *props, std::vector<cl_context_properties> &out) {
  if (!props) return CL_SUCCESS;
  bool seenPlatform = false, seenSync = false;
  for (const cl_context_properties *p = props; *p; p += 2) {
    switch (p[0]) {
      case CL_CONTEXT_PLATFORM:
        if (seenPlatform) return CL_INVALID_PROPERTY;
        seenPlatform = true;
        if (!validPlatform(reinterpret_cast<cl_platform_id>(p[1]))) return CL_INVALID_PLATFORM;
        break;
      case CL_CONTEXT_INTEROP_USER_SYNC:
        if (seenSync) return CL_INVALID_PROPERTY;
        seenSync = true;
        break;
      default: return CL_INVALID_PROPERTY;
    }
    out.push_back(p[0]);
    out.push_back(p[1]);
  }
  out.push_back(0);
  return CL_SUCCESS;
}

cl_context makeContext(const cl_context_properties *props,
                       void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
                       void *user, cl_int *errcode, const char *caller = __builtin_FUNCTION()) {
  std::vector<cl_context_properties> p;
  cl_int err = checkProperties(props, p);
  if (err != CL_SUCCESS) return setErr(errcode, err), nullptr;
  if (!notify && user) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if (!ready()) return setErr(errcode, CL_DEVICE_NOT_AVAILABLE), nullptr;
  ApiLock lock(caller);
  runtime().startThreads();
  auto *ctx = new _cl_context();
  ctx->props = p;
  ctx->notify = notify;
  ctx->notifyData = user;
  err = createSlots(ctx);
  if (err != CL_SUCCESS) {
    delete ctx;
    return setErr(errcode, err), nullptr;
  }
  runtime().add(ctx, ObjType::Context);
  setErr(errcode, CL_SUCCESS);
  return ctx;
}

}  // namespace

TUTTI_API cl_context CL_API_CALL clCreateContext(
    const cl_context_properties *props, cl_uint n, const cl_device_id *devices,
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *user,
    cl_int *errcode) {
  if (n == 0 || !devices) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  cl_int err = checkDeviceList(n, devices);
  if (err != CL_SUCCESS) return setErr(errcode, err), nullptr;
  return makeContext(props, notify, user, errcode);
}

TUTTI_API cl_context CL_API_CALL clCreateContextFromType(
    const cl_context_properties *props, cl_device_type type,
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *user,
    cl_int *errcode) {
  cl_uint num = 0;
  cl_int err = clGetDeviceIDs(nullptr, type, 0, nullptr, &num);
  if (err != CL_SUCCESS) return setErr(errcode, err), nullptr;
  return makeContext(props, notify, user, errcode);
}

TUTTI_API cl_int CL_API_CALL clRetainContext(cl_context c) {
  ApiLock lock;
  if (!validContext(c)) return CL_INVALID_CONTEXT;
  ++c->refs;
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clReleaseContext(cl_context c) {
  ApiLock lock;
  if (!validContext(c)) return CL_INVALID_CONTEXT;
  runtime().releaseApp(c);
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clGetContextInfo(cl_context c, cl_context_info param, size_t size,
                                              void *value, size_t *ret) {
  ApiLock lock;
  if (!validContext(c)) return CL_INVALID_CONTEXT;
  switch (param) {
    case CL_CONTEXT_REFERENCE_COUNT: return answer(c->refs, size, value, ret);
    case CL_CONTEXT_NUM_DEVICES: return answer(cl_uint(1), size, value, ret);
    case CL_CONTEXT_DEVICES: return answer(static_cast<cl_device_id>(&g_device), size, value, ret);
    case CL_CONTEXT_PROPERTIES:
      return answer(c->props, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

TUTTI_API cl_int CL_API_CALL clSetContextDestructorCallback(
    cl_context c, void(CL_CALLBACK *fn)(cl_context, void *), void *user) {
  ApiLock lock;
  if (!validContext(c)) return CL_INVALID_CONTEXT;
  if (!fn) return CL_INVALID_VALUE;
  c->destructorCallbacks.push_back({reinterpret_cast<void(CL_CALLBACK *)(void *)>(fn), user, 0});
  return CL_SUCCESS;
}
