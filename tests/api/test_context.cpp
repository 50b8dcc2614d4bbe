// test_context.cpp - contexts: creation, properties, from-type, callbacks, info.
#include "fixture.h"

#include <atomic>
#include <chrono>
#include <thread>

using namespace api;

namespace {

cl_uint ctxRefCount(cl_context c) {
  cl_uint n = 0;
  clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, nullptr);
  return n;
}


void CL_CALLBACK notifyCb(const char *, const void *, size_t, void *user) {
  static_cast<std::atomic<int> *>(user)->fetch_add(1);
}

struct DtorLog {
  std::atomic<int> calls{0};
  int order[8] = {0};
  std::atomic<int> n{0};
};
struct DtorArg {
  DtorLog *log;
  int id;
};
void CL_CALLBACK ctxDtorCb(cl_context, void *user) {
  auto *a = static_cast<DtorArg *>(user);
  int i = a->log->n.fetch_add(1);
  if (i < 8) a->log->order[i] = a->id;
  a->log->calls.fetch_add(1);
}

}  // namespace

TEST(Context, CreateWithDeviceAndInfo) {
  cl_device_id d = env().device;
  cl_int err = 1;
  cl_context c = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_NE(c, nullptr);
  cl_uint nd = 0;
  ASSERT_CL_OK(clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof nd, &nd, nullptr));
  EXPECT_EQ(nd, 1u);
  cl_device_id got = nullptr;
  size_t sz = 0;
  ASSERT_CL_OK(clGetContextInfo(c, CL_CONTEXT_DEVICES, 0, nullptr, &sz));
  EXPECT_EQ(sz, sizeof(cl_device_id));
  ASSERT_CL_OK(clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof got, &got, nullptr));
  EXPECT_EQ(got, d);
  EXPECT_EQ(ctxRefCount(c), 1u);
  // No properties given -> empty properties query.
  ASSERT_CL_OK(clGetContextInfo(c, CL_CONTEXT_PROPERTIES, 0, nullptr, &sz));
  EXPECT_EQ(sz, 0u);
  EXPECT_CL_OK(clReleaseContext(c));
}

TEST(Context, ErrcodeRetMayBeNull) {
  cl_device_id d = env().device;
  cl_context c = clCreateContext(nullptr, 1, &d, nullptr, nullptr, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_CL_OK(clReleaseContext(c));
  EXPECT_EQ(clCreateContext(nullptr, 0, &d, nullptr, nullptr, nullptr), nullptr);
}

TEST(Context, PlatformPropertyEchoedBack) {
  cl_device_id d = env().device;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env().platform,
                                   0};
  cl_int err;
  cl_context c = clCreateContext(props, 1, &d, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  size_t sz = 0;
  ASSERT_CL_OK(clGetContextInfo(c, CL_CONTEXT_PROPERTIES, 0, nullptr, &sz));
  ASSERT_EQ(sz, sizeof props);
  cl_context_properties got[3] = {0, 0, 0};
  ASSERT_CL_OK(clGetContextInfo(c, CL_CONTEXT_PROPERTIES, sz, got, nullptr));
  EXPECT_EQ(got[0], props[0]);
  EXPECT_EQ(got[1], props[1]);
  EXPECT_EQ(got[2], 0);
  clReleaseContext(c);
}

TEST(Context, InteropUserSyncProperty) {
  cl_device_id d = env().device;
  for (cl_context_properties v : std::initializer_list<cl_context_properties>{CL_TRUE, CL_FALSE}) {
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env().platform,
                                     CL_CONTEXT_INTEROP_USER_SYNC, v, 0};
    cl_int err;
    cl_context c = clCreateContext(props, 1, &d, nullptr, nullptr, &err);
    EXPECT_CL_OK(err);
    if (c) clReleaseContext(c);
  }
}

TEST(Context, InvalidArguments) {
  cl_device_id d = env().device;
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateContext(nullptr, 1, nullptr, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateContext(nullptr, 0, &d, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  int dummy;
  EXPECT_EQ(clCreateContext(nullptr, 1, &d, nullptr, &dummy, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
}

TEST(Context, InvalidProperties) {
  TUTTI_ONLY();
  cl_device_id d = env().device;
  cl_int err = CL_SUCCESS;
  cl_context_properties unknown[] = {0x7777, 1, 0};
  EXPECT_EQ(clCreateContext(unknown, 1, &d, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_PROPERTY, err);
  cl_context_properties twice[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env().platform,
                                   CL_CONTEXT_PLATFORM, (cl_context_properties)env().platform, 0};
  EXPECT_EQ(clCreateContext(twice, 1, &d, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_PROPERTY, err);
  Garbage g;
  cl_context_properties badPlat[] = {CL_CONTEXT_PLATFORM,
                                     (cl_context_properties)g.as<cl_platform_id>(), 0};
  EXPECT_EQ(clCreateContext(badPlat, 1, &d, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_PLATFORM, err);
  EXPECT_EQ(clCreateContextFromType(badPlat, CL_DEVICE_TYPE_ALL, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_PLATFORM, err);
  cl_context_properties nullPlat[] = {CL_CONTEXT_PLATFORM, 0, 0};
  EXPECT_EQ(clCreateContext(nullPlat, 1, &d, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_PLATFORM, err);
}

TEST(Context, InvalidDevices) {
  TUTTI_ONLY();
  cl_int err = CL_SUCCESS;
  Garbage g;
  cl_device_id bad[] = {g.as<cl_device_id>()};
  EXPECT_EQ(clCreateContext(nullptr, 1, bad, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_DEVICE, err);
  cl_device_id withNull[] = {env().device, nullptr};
  EXPECT_EQ(clCreateContext(nullptr, 2, withNull, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_DEVICE, err);
}

TEST(Context, DuplicateDevicesIgnored) {
  TUTTI_ONLY();
  cl_device_id two[] = {env().device, env().device};
  cl_int err;
  cl_context c = clCreateContext(nullptr, 2, two, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  cl_uint nd = 0;
  ASSERT_CL_OK(clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof nd, &nd, nullptr));
  EXPECT_EQ(nd, 1u);
  clReleaseContext(c);
}

TEST(Context, CreateFromTypeAll) {
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env().platform,
                                   0};
  cl_int err;
  cl_context c = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  cl_uint nd = 0;
  ASSERT_CL_OK(clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof nd, &nd, nullptr));
  EXPECT_GE(nd, 1u);
  clReleaseContext(c);
}

TEST(Context, TuttiCreateFromTypes) {
  TUTTI_ONLY();
  cl_device_type own = env().deviceType;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env().platform,
                                   0};
  for (cl_device_type t : std::initializer_list<cl_device_type>{CL_DEVICE_TYPE_DEFAULT, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU,
                           CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_CUSTOM}) {
    SCOPED_TRACE(t);
    for (cl_context_properties *pp : {props, (cl_context_properties *)nullptr}) {
      cl_int err = 1;
      cl_context c = clCreateContextFromType(pp, t, nullptr, nullptr, &err);
      bool match = t == CL_DEVICE_TYPE_DEFAULT || t == CL_DEVICE_TYPE_ALL || (own & t);
      if (match) {
        ASSERT_CL_OK(err);
        cl_uint nd = 0;
        cl_device_id dev = nullptr;
        ASSERT_CL_OK(clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof nd, &nd, nullptr));
        ASSERT_CL_OK(clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof dev, &dev, nullptr));
        EXPECT_EQ(nd, 1u);
        EXPECT_EQ(dev, env().device);
        // A queue on that device works in a from-type context.
        cl_command_queue q = clCreateCommandQueueWithProperties(c, dev, nullptr, &err);
        EXPECT_CL_OK(err);
        if (q) clReleaseCommandQueue(q);
        clReleaseContext(c);
      } else {
        EXPECT_EQ(c, nullptr);
        EXPECT_CL(CL_DEVICE_NOT_FOUND, err);
      }
    }
  }
}

TEST(Context, CreateFromTypeInvalidType) {
  TUTTI_ONLY();
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env().platform,
                                   0};
  EXPECT_EQ(clCreateContextFromType(props, (cl_device_type)1 << 40, nullptr, nullptr, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_DEVICE_TYPE, err);
  int dummy;
  EXPECT_EQ(clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, nullptr, &dummy, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
}

TEST(Context, NotifyCallbackAccepted) {
  std::atomic<int> calls{0};
  cl_device_id d = env().device;
  cl_int err;
  cl_context c = clCreateContext(nullptr, 1, &d, notifyCb, &calls, &err);
  ASSERT_CL_OK(err);
  // Normal use does not report errors through the callback.
  cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_CL_OK(err);
  clReleaseMemObject(m);
  EXPECT_EQ(calls.load(), 0);
  EXPECT_CL_OK(clReleaseContext(c));
}

TEST(Context, RetainRelease) {
  cl_device_id d = env().device;
  cl_int err;
  cl_context c = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  EXPECT_CL_OK(clRetainContext(c));
  EXPECT_EQ(ctxRefCount(c), 2u);
  EXPECT_CL_OK(clRetainContext(c));
  EXPECT_EQ(ctxRefCount(c), 3u);
  EXPECT_CL_OK(clReleaseContext(c));
  EXPECT_CL_OK(clReleaseContext(c));
  EXPECT_EQ(ctxRefCount(c), 1u);
  EXPECT_CL_OK(clReleaseContext(c));
}

TEST(Context, DestructorCallbacksReverseOrder) {
  cl_device_id d = env().device;
  cl_int err;
  cl_context c = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  DtorLog log;
  DtorArg a1{&log, 1}, a2{&log, 2}, a3{&log, 3};
  ASSERT_CL_OK(clSetContextDestructorCallback(c, ctxDtorCb, &a1));
  ASSERT_CL_OK(clSetContextDestructorCallback(c, ctxDtorCb, &a2));
  ASSERT_CL_OK(clSetContextDestructorCallback(c, ctxDtorCb, &a3));
  EXPECT_CL(CL_INVALID_VALUE, clSetContextDestructorCallback(c, nullptr, nullptr));
  EXPECT_EQ(log.calls.load(), 0);
  EXPECT_CL_OK(clReleaseContext(c));
  // Tutti runs them as clReleaseContext returns: all three, once each, right now (no wait
  // would tell more). Other implementations may call them later, but not more often.
  if (!isTutti()) ASSERT_TRUE(waitFor([&] { return log.calls.load() >= 3; }));
  EXPECT_EQ(log.calls.load(), 3);
  EXPECT_EQ(log.order[0], 3);
  EXPECT_EQ(log.order[1], 2);
  EXPECT_EQ(log.order[2], 1);
}

TEST(Context, DestructorWaitsForChildObjects) {
  cl_device_id d = env().device;
  cl_int err;
  cl_context c = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, 256, nullptr, &err);
  ASSERT_CL_OK(err);
  cl_command_queue q = clCreateCommandQueueWithProperties(c, d, nullptr, &err);
  ASSERT_CL_OK(err);
  DtorLog log;
  DtorArg a{&log, 1};
  ASSERT_CL_OK(clSetContextDestructorCallback(c, ctxDtorCb, &a));
  EXPECT_CL_OK(clReleaseContext(c));
  // Determined now: nothing is in flight, so a release that destroyed the context would
  // have run the callback before returning.
  EXPECT_EQ(log.calls.load(), 0) << "context destroyed while a buffer and a queue still use it";
  // The child objects still work.
  int v = 5;
  EXPECT_CL_OK(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof v, &v, 0, nullptr, nullptr));
  cl_context got = nullptr;
  EXPECT_CL_OK(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof got, &got, nullptr));
  EXPECT_EQ(got, c);
  EXPECT_CL_OK(clReleaseMemObject(m));
  EXPECT_EQ(log.calls.load(), 0) << "context destroyed while a queue still uses it";
  EXPECT_CL_OK(clReleaseCommandQueue(q));
  EXPECT_TRUE(waitFor([&] { return log.calls.load() == 1; }));
}

TEST(Context, GetInfoInvalid) {
  cl_device_id d = env().device;
  cl_int err;
  cl_context c = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  cl_uint v;
  EXPECT_CL(CL_INVALID_VALUE, clGetContextInfo(c, 0x7777, sizeof v, &v, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, 1, &v, nullptr));
  cl_device_id dev;
  EXPECT_CL(CL_INVALID_VALUE, clGetContextInfo(c, CL_CONTEXT_DEVICES, 1, &dev, nullptr));
  size_t sz = 0;
  EXPECT_CL_OK(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, 0, nullptr, &sz));
  EXPECT_EQ(sz, sizeof(cl_uint));
  clReleaseContext(c);
}

TEST(Context, InvalidContextHandle) {
  TUTTI_ONLY();
  Garbage g;
  cl_uint v;
  EXPECT_CL(CL_INVALID_CONTEXT, clGetContextInfo(g.as<cl_context>(), CL_CONTEXT_REFERENCE_COUNT,
                                                 sizeof v, &v, nullptr));
  EXPECT_CL(CL_INVALID_CONTEXT, clRetainContext(g.as<cl_context>()));
  EXPECT_CL(CL_INVALID_CONTEXT, clReleaseContext(g.as<cl_context>()));
  EXPECT_CL(CL_INVALID_CONTEXT,
            clSetContextDestructorCallback(g.as<cl_context>(), ctxDtorCb, nullptr));
  EXPECT_CL(CL_INVALID_CONTEXT, clRetainContext(nullptr));
  EXPECT_CL(CL_INVALID_CONTEXT, clReleaseContext(nullptr));
}

TEST(ContextMulti, TwoContextsAreIsolatedAndConcurrent) {
  cl_device_id d = env().device;
  const char *src = "__kernel void k(__global int *o, int v) { o[get_global_id(0)] = v; }";
  struct Side {
    cl_context c;
    cl_command_queue q;
    cl_program p;
    cl_kernel k;
    cl_mem m;
  } s[2];
  cl_int err;
  for (int i = 0; i < 2; ++i) {
    s[i].c = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
    ASSERT_CL_OK(err);
    s[i].q = clCreateCommandQueueWithProperties(s[i].c, d, nullptr, &err);
    ASSERT_CL_OK(err);
    s[i].p = clCreateProgramWithSource(s[i].c, 1, &src, nullptr, &err);
    ASSERT_CL_OK(clBuildProgram(s[i].p, 0, nullptr, nullptr, nullptr, nullptr));
    s[i].k = clCreateKernel(s[i].p, "k", &err);
    ASSERT_CL_OK(err);
    s[i].m = clCreateBuffer(s[i].c, CL_MEM_READ_WRITE, 4096 * sizeof(int), nullptr, &err);
    ASSERT_CL_OK(err);
  }
  // Objects of one context are rejected by the other.
  EXPECT_CL(CL_INVALID_CONTEXT, clEnqueueWriteBuffer(s[0].q, s[1].m, CL_TRUE, 0, 4, &err, 0,
                                                     nullptr, nullptr));
  size_t n = 4096;
  for (int i = 0; i < 2; ++i) {
    int v = 10 + i;
    ASSERT_CL_OK(clSetKernelArg(s[i].k, 0, sizeof s[i].m, &s[i].m));
    ASSERT_CL_OK(clSetKernelArg(s[i].k, 1, sizeof v, &v));
    ASSERT_CL_OK(clEnqueueNDRangeKernel(s[i].q, s[i].k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  }
  for (int i = 0; i < 2; ++i) {
    std::vector<int> out(n);
    ASSERT_CL_OK(clEnqueueReadBuffer(s[i].q, s[i].m, CL_TRUE, 0, n * sizeof(int), out.data(), 0,
                                     nullptr, nullptr));
    EXPECT_EQ(out, std::vector<int>(n, 10 + i));
  }
  for (auto &x : s) {
    clReleaseMemObject(x.m);
    clReleaseKernel(x.k);
    clReleaseProgram(x.p);
    clReleaseCommandQueue(x.q);
    clReleaseContext(x.c);
  }
}
