// test_handles.cpp - released, never-created (garbage), NULL and wrong-type handles on
// every object type. The spec calls use of a released handle undefined; Tutti promises
// to answer with the documented CL_INVALID_* code instead of crashing, so these tests
// are Tutti-only (native implementations may crash, which is allowed).
#include "fixture.h"

using namespace api;

namespace {

class Handles : public ClTest {
 protected:
  void SetUp() override {
    if (!isTutti()) GTEST_SKIP() << "Tutti-specific: platform is '" << env().platformName << "'";
    ClTest::SetUp();
  }
};

}  // namespace

// ---------------------------------------------------------------------------
// Released handles
// ---------------------------------------------------------------------------
TEST_F(Handles, ReleasedContext) {
  cl_int err;
  cl_context c = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clReleaseContext(c));
  cl_uint v;
  EXPECT_CL(CL_INVALID_CONTEXT, clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof v, &v, nullptr));
  EXPECT_CL(CL_INVALID_CONTEXT, clRetainContext(c));
  EXPECT_CL(CL_INVALID_CONTEXT, clReleaseContext(c));
  err = CL_SUCCESS;
  EXPECT_EQ(clCreateBuffer(c, CL_MEM_READ_WRITE, 64, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  EXPECT_EQ(clCreateCommandQueueWithProperties(c, device, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  const char *src = "__kernel void k() {}";
  EXPECT_EQ(clCreateProgramWithSource(c, 1, &src, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  EXPECT_EQ(clCreateUserEvent(c, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
}

TEST_F(Handles, ReleasedQueue) {
  // Everything the test needs is created before the release, so that no new
  // object can reuse the released handle's address.
  cl_int err;
  cl_mem m = makeBuffer(64);
  cl_kernel k = commonKernel("write_gid");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clReleaseCommandQueue(q));
  char host[64];
  cl_uint v;
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE,
            clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof v, &v, nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clRetainCommandQueue(q));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(q));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clFlush(q));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clFinish(q));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE,
            clEnqueueReadBuffer(q, m, CL_TRUE, 0, 16, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE,
            clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 16, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clEnqueueMarkerWithWaitList(q, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clEnqueueBarrierWithWaitList(q, 0, nullptr, nullptr));
  size_t g = 4;
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE,
            clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
}

TEST_F(Handles, ReleasedBuffer) {
  cl_int err;
  cl_mem live = makeBuffer(64);  // created first: it must not reuse m's address
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clReleaseMemObject(m));
  char host[64];
  cl_uint v;
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof v, &v, nullptr));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clRetainMemObject(m));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clReleaseMemObject(m));
  EXPECT_CL(CL_INVALID_MEM_OBJECT,
            clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 16, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_MEM_OBJECT,
            clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 16, host, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueCopyBuffer(queue, m, live, 0, 0, 16, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueCopyBuffer(queue, live, m, 0, 0, 16, 0, nullptr, nullptr));
  int pat = 0;
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueFillBuffer(queue, m, &pat, 4, 0, 16, 0, nullptr, nullptr));
  err = CL_SUCCESS;
  EXPECT_EQ(clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_MEM_OBJECT, err);
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueMigrateMemObjects(queue, 1, &m, 0, 0, nullptr, nullptr));
  cl_buffer_region r{0, 16};
  EXPECT_EQ(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err), nullptr);
  EXPECT_CL(CL_INVALID_MEM_OBJECT, err);
  EXPECT_CL(CL_INVALID_MEM_OBJECT,
            clSetMemObjectDestructorCallback(m, [](cl_mem, void *) {}, nullptr));
}

TEST_F(Handles, ReleasedProgramAndKernel) {
  cl_int err;
  cl_mem m = makeBuffer(64);
  const char *src = "__kernel void k(__global int *o) { o[0] = 1; }";
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  cl_kernel k = clCreateKernel(p, "k", &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clReleaseKernel(k));
  ASSERT_CL_OK(clReleaseProgram(p));
  cl_uint v;
  EXPECT_CL(CL_INVALID_PROGRAM, clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof v, &v, nullptr));
  EXPECT_CL(CL_INVALID_PROGRAM, clRetainProgram(p));
  EXPECT_CL(CL_INVALID_PROGRAM, clReleaseProgram(p));
  EXPECT_CL(CL_INVALID_PROGRAM, clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(clCreateKernel(p, "k", &err), nullptr);
  EXPECT_CL(CL_INVALID_PROGRAM, err);
  EXPECT_CL(CL_INVALID_KERNEL, clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof v, &v, nullptr));
  EXPECT_CL(CL_INVALID_KERNEL, clRetainKernel(k));
  EXPECT_CL(CL_INVALID_KERNEL, clReleaseKernel(k));
  EXPECT_CL(CL_INVALID_KERNEL, clSetKernelArg(k, 0, sizeof m, &m));
  size_t g = 1;
  EXPECT_CL(CL_INVALID_KERNEL,
            clEnqueueNDRangeKernel(queue, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_KERNEL, clEnqueueTask(queue, k, 0, nullptr, nullptr));
}

TEST_F(Handles, ReleasedEvent) {
  cl_int err;
  cl_mem m = makeBuffer(64);
  cl_event u = clCreateUserEvent(ctx, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clSetUserEventStatus(u, CL_COMPLETE));
  ASSERT_CL_OK(clReleaseEvent(u));
  cl_int st;
  EXPECT_CL(CL_INVALID_EVENT, clGetEventInfo(u, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
  EXPECT_CL(CL_INVALID_EVENT, clRetainEvent(u));
  EXPECT_CL(CL_INVALID_EVENT, clReleaseEvent(u));
  EXPECT_CL(CL_INVALID_EVENT, clWaitForEvents(1, &u));
  EXPECT_CL(CL_INVALID_EVENT, clSetUserEventStatus(u, CL_COMPLETE));
  char host[64];
  EXPECT_CL(CL_INVALID_EVENT_WAIT_LIST,
            clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 16, host, 1, &u, nullptr));
  // A released command event.
  cl_event e;
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 16, host, 0, nullptr, &e));
  ASSERT_CL_OK(clReleaseEvent(e));
  EXPECT_CL(CL_INVALID_EVENT, clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
}

TEST_F(Handles, ReleasedSampler) {
  if (!deviceInfo<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT)) GTEST_SKIP() << "no images";
  cl_int err;
  cl_sampler s = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clReleaseSampler(s));
  cl_uint v;
  EXPECT_CL(CL_INVALID_SAMPLER, clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof v, &v, nullptr));
  EXPECT_CL(CL_INVALID_SAMPLER, clRetainSampler(s));
  EXPECT_CL(CL_INVALID_SAMPLER, clReleaseSampler(s));
}

TEST_F(Handles, ReleasedImage) {
  if (!deviceInfo<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT)) GTEST_SKIP() << "no images";
  cl_image_format fmt{CL_RGBA, CL_UNSIGNED_INT8};
  cl_int err;
  cl_mem img = clCreateImage2D(ctx, CL_MEM_READ_WRITE, &fmt, 4, 4, 0, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clReleaseMemObject(img));
  size_t w;
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clGetImageInfo(img, CL_IMAGE_WIDTH, sizeof w, &w, nullptr));
  char buf[64];
  size_t o[3] = {0, 0, 0}, r[3] = {4, 4, 1};
  EXPECT_CL(CL_INVALID_MEM_OBJECT,
            clEnqueueReadImage(queue, img, CL_TRUE, o, r, 0, 0, buf, 0, nullptr, nullptr));
}

// ---------------------------------------------------------------------------
// Never-created (garbage) and NULL handles
// ---------------------------------------------------------------------------
TEST_F(Handles, GarbageAndNullOnEveryInfoQuery) {
  Garbage g;
  char buf[64];
  for (void *h : {static_cast<void *>(g.bytes), static_cast<void *>(nullptr)}) {
    SCOPED_TRACE(h ? "garbage" : "NULL");
    EXPECT_CL(CL_INVALID_PLATFORM,
              clGetPlatformInfo((cl_platform_id)h, CL_PLATFORM_NAME, sizeof buf, buf, nullptr));
    if (h) EXPECT_CL(CL_INVALID_DEVICE, clGetDeviceInfo((cl_device_id)h, CL_DEVICE_NAME, sizeof buf, buf, nullptr));
    EXPECT_CL(CL_INVALID_CONTEXT, clGetContextInfo((cl_context)h, CL_CONTEXT_NUM_DEVICES,
                                                   sizeof buf, buf, nullptr));
    EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clGetCommandQueueInfo((cl_command_queue)h, CL_QUEUE_CONTEXT,
                                                              sizeof buf, buf, nullptr));
    EXPECT_CL(CL_INVALID_MEM_OBJECT,
              clGetMemObjectInfo((cl_mem)h, CL_MEM_SIZE, sizeof buf, buf, nullptr));
    EXPECT_CL(CL_INVALID_MEM_OBJECT, clGetImageInfo((cl_mem)h, CL_IMAGE_WIDTH, sizeof buf, buf, nullptr));
    EXPECT_CL(CL_INVALID_SAMPLER, clGetSamplerInfo((cl_sampler)h, CL_SAMPLER_CONTEXT, sizeof buf,
                                                   buf, nullptr));
    EXPECT_CL(CL_INVALID_PROGRAM, clGetProgramInfo((cl_program)h, CL_PROGRAM_CONTEXT, sizeof buf,
                                                   buf, nullptr));
    EXPECT_CL(CL_INVALID_PROGRAM, clGetProgramBuildInfo((cl_program)h, device,
                                                        CL_PROGRAM_BUILD_STATUS, sizeof buf, buf,
                                                        nullptr));
    EXPECT_CL(CL_INVALID_KERNEL,
              clGetKernelInfo((cl_kernel)h, CL_KERNEL_NUM_ARGS, sizeof buf, buf, nullptr));
    EXPECT_CL(CL_INVALID_KERNEL, clGetKernelWorkGroupInfo((cl_kernel)h, device,
                                                          CL_KERNEL_WORK_GROUP_SIZE, sizeof buf,
                                                          buf, nullptr));
    EXPECT_CL(CL_INVALID_KERNEL, clGetKernelArgInfo((cl_kernel)h, 0, CL_KERNEL_ARG_NAME,
                                                    sizeof buf, buf, nullptr));
    EXPECT_CL(CL_INVALID_EVENT, clGetEventInfo((cl_event)h, CL_EVENT_COMMAND_TYPE, sizeof buf, buf,
                                               nullptr));
    EXPECT_CL(CL_INVALID_EVENT, clGetEventProfilingInfo((cl_event)h, CL_PROFILING_COMMAND_END,
                                                        sizeof buf, buf, nullptr));
  }
}

TEST_F(Handles, GarbageOnRetainRelease) {
  Garbage g;
  EXPECT_CL(CL_INVALID_CONTEXT, clRetainContext(g.as<cl_context>()));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clRetainCommandQueue(g.as<cl_command_queue>()));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clReleaseCommandQueue(g.as<cl_command_queue>()));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clRetainMemObject(g.as<cl_mem>()));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clReleaseMemObject(g.as<cl_mem>()));
  EXPECT_CL(CL_INVALID_PROGRAM, clRetainProgram(g.as<cl_program>()));
  EXPECT_CL(CL_INVALID_KERNEL, clRetainKernel(g.as<cl_kernel>()));
  EXPECT_CL(CL_INVALID_EVENT, clRetainEvent(g.as<cl_event>()));
  EXPECT_CL(CL_INVALID_SAMPLER, clRetainSampler(g.as<cl_sampler>()));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clRetainCommandQueue(nullptr));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clRetainMemObject(nullptr));
  EXPECT_CL(CL_INVALID_PROGRAM, clRetainProgram(nullptr));
  EXPECT_CL(CL_INVALID_KERNEL, clRetainKernel(nullptr));
  EXPECT_CL(CL_INVALID_EVENT, clRetainEvent(nullptr));
  EXPECT_CL(CL_INVALID_SAMPLER, clReleaseSampler(nullptr));
}

TEST_F(Handles, GarbageInCreationAndEnqueue) {
  Garbage g;
  cl_int err = CL_SUCCESS;
  const char *src = "__kernel void k() {}";
  EXPECT_EQ(clCreateProgramWithSource(g.as<cl_context>(), 1, &src, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  EXPECT_EQ(clCreateUserEvent(g.as<cl_context>(), &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  cl_image_format fmt{CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = desc.image_height = 4;
  EXPECT_EQ(clCreateImage(g.as<cl_context>(), CL_MEM_READ_WRITE, &fmt, &desc, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  EXPECT_EQ(clCreateSampler(g.as<cl_context>(), CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  cl_uint n;
  EXPECT_CL(CL_INVALID_CONTEXT, clGetSupportedImageFormats(g.as<cl_context>(), CL_MEM_READ_ONLY,
                                                           CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &n));
  cl_mem m = makeBuffer(64);
  cl_mem bad = g.as<cl_mem>();
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueMigrateMemObjects(queue, 1, &bad, 0, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueCopyBuffer(queue, m, bad, 0, 0, 4, 0, nullptr, nullptr));
  int x;
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueUnmapMemObject(queue, bad, &x, 0, nullptr, nullptr));
  cl_command_queue gq = g.as<cl_command_queue>();
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clEnqueueMarkerWithWaitList(gq, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clEnqueueBarrierWithWaitList(gq, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clEnqueueFillBuffer(gq, m, &x, 4, 0, 4, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clEnqueueMigrateMemObjects(gq, 1, &m, 0, 0, nullptr, nullptr));
}

// ---------------------------------------------------------------------------
// Valid objects of the wrong type
// ---------------------------------------------------------------------------
TEST_F(Handles, WrongObjectTypes) {
  cl_mem m = makeBuffer(64);
  cl_event u = makeUserEvent();
  char buf[64];
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE,
            clGetCommandQueueInfo((cl_command_queue)m, CL_QUEUE_CONTEXT, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clFinish((cl_command_queue)ctx));
  EXPECT_CL(CL_INVALID_MEM_OBJECT,
            clGetMemObjectInfo((cl_mem)queue, CL_MEM_SIZE, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_CONTEXT,
            clGetContextInfo((cl_context)m, CL_CONTEXT_NUM_DEVICES, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_EVENT,
            clGetEventInfo((cl_event)m, CL_EVENT_COMMAND_TYPE, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_KERNEL, clGetKernelInfo((cl_kernel)u, CL_KERNEL_NUM_ARGS, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_PROGRAM,
            clGetProgramInfo((cl_program)ctx, CL_PROGRAM_CONTEXT, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_SAMPLER,
            clGetSamplerInfo((cl_sampler)m, CL_SAMPLER_CONTEXT, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_DEVICE, clGetDeviceInfo((cl_device_id)ctx, CL_DEVICE_NAME, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_PLATFORM,
            clGetPlatformInfo((cl_platform_id)device, CL_PLATFORM_NAME, sizeof buf, buf, nullptr));
  cl_event asEvent = (cl_event)m;
  EXPECT_CL(CL_INVALID_EVENT_WAIT_LIST, clEnqueueMarkerWithWaitList(queue, 1, &asEvent, nullptr));
  EXPECT_CL(CL_INVALID_EVENT, clWaitForEvents(1, &asEvent));
  ASSERT_CL_OK(clSetUserEventStatus(u, CL_COMPLETE));
}
