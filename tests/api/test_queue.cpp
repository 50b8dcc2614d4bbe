// test_queue.cpp - command-queues: creation variants, properties, info, flush/finish.
#include "fixture.h"

using namespace api;

namespace {

class Queue : public ClTest {};

cl_command_queue_properties queueProps(cl_command_queue q) {
  cl_command_queue_properties p = 0;
  clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof p, &p, nullptr);
  return p;
}

}  // namespace

TEST_F(Queue, LegacyCreateVariants) {
  cl_command_queue_properties sup =
      deviceInfo<cl_command_queue_properties>(device, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
  for (cl_command_queue_properties p :
       {(cl_command_queue_properties)0, (cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE,
        (cl_command_queue_properties)CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        (cl_command_queue_properties)(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                      CL_QUEUE_PROFILING_ENABLE)}) {
    SCOPED_TRACE(p);
    cl_int err = 1;
    cl_command_queue q = clCreateCommandQueue(ctx, device, p, &err);
    if ((p & sup) != p) {
      EXPECT_CL(CL_INVALID_QUEUE_PROPERTIES, err);
      continue;
    }
    ASSERT_CL_OK(err);
    EXPECT_EQ(queueProps(q), p);
    EXPECT_CL_OK(clFinish(q));
    EXPECT_CL_OK(clReleaseCommandQueue(q));
  }
}

TEST_F(Queue, WithPropertiesVariants) {
  cl_int err;
  // NULL and empty property lists -> in-order, no profiling.
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  ASSERT_CL_OK(err);
  EXPECT_EQ(queueProps(q), 0u);
  size_t sz = 99;
  ASSERT_CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, nullptr, &sz));
  EXPECT_EQ(sz, 0u);
  clReleaseCommandQueue(q);
  cl_queue_properties empty[] = {0};
  q = clCreateCommandQueueWithProperties(ctx, device, empty, &err);
  ASSERT_CL_OK(err);
  EXPECT_EQ(queueProps(q), 0u);
  clReleaseCommandQueue(q);

  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                 CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                 0};
  q = clCreateCommandQueueWithProperties(ctx, device, props, &err);
  ASSERT_CL_OK(err);
  EXPECT_EQ(queueProps(q),
            (cl_command_queue_properties)(CL_QUEUE_PROFILING_ENABLE |
                                          CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));
  ASSERT_CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, nullptr, &sz));
  ASSERT_EQ(sz, sizeof props);
  cl_queue_properties got[3] = {1, 1, 1};
  ASSERT_CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sz, got, nullptr));
  EXPECT_EQ(got[0], props[0]);
  EXPECT_EQ(got[1], props[1]);
  EXPECT_EQ(got[2], 0u);
  clReleaseCommandQueue(q);
}

TEST_F(Queue, Info) {
  cl_context c = nullptr;
  cl_device_id d = nullptr;
  cl_uint rc = 0;
  ASSERT_CL_OK(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof c, &c, nullptr));
  ASSERT_CL_OK(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof d, &d, nullptr));
  ASSERT_CL_OK(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof rc, &rc, nullptr));
  EXPECT_EQ(c, ctx);
  EXPECT_EQ(d, device);
  EXPECT_EQ(rc, 1u);
  size_t sz = 0;
  ASSERT_CL_OK(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, 0, nullptr, &sz));
  EXPECT_EQ(sz, sizeof(cl_command_queue_properties));
  EXPECT_CL(CL_INVALID_VALUE, clGetCommandQueueInfo(queue, 0x7777, sizeof rc, &rc, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, 1, &rc, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, 4, &c, nullptr));
  // Retain/release are reflected in the count.
  ASSERT_CL_OK(clRetainCommandQueue(queue));
  ASSERT_CL_OK(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof rc, &rc, nullptr));
  EXPECT_EQ(rc, 2u);
  ASSERT_CL_OK(clReleaseCommandQueue(queue));
}

TEST_F(Queue, HostQueueDeviceOnlyInfo) {
  TUTTI_ONLY();
  // CL_QUEUE_SIZE is only valid for device queues.
  cl_uint qs = 0;
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE,
            clGetCommandQueueInfo(queue, CL_QUEUE_SIZE, sizeof qs, &qs, nullptr));
  // No device-side enqueue: the default device queue is NULL (if the query answers).
  cl_command_queue dq = (cl_command_queue)&qs;
  cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE_DEFAULT, sizeof dq, &dq, nullptr);
  if (err == CL_SUCCESS)
    EXPECT_EQ(dq, nullptr);
  else
    EXPECT_CL_ANY(({CL_INVALID_VALUE, CL_INVALID_COMMAND_QUEUE}), err);
}

TEST_F(Queue, BadProperties) {
  cl_int err = CL_SUCCESS;
  cl_queue_properties unknownKey[] = {0x7777, 0, 0};
  EXPECT_EQ(clCreateCommandQueueWithProperties(ctx, device, unknownKey, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  cl_queue_properties unknownBit[] = {CL_QUEUE_PROPERTIES, (cl_queue_properties)1 << 20, 0};
  EXPECT_EQ(clCreateCommandQueueWithProperties(ctx, device, unknownBit, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateCommandQueue(ctx, device, (cl_command_queue_properties)1 << 20, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
}

TEST_F(Queue, DeviceQueuePropertiesRejected) {
  TUTTI_ONLY();
  cl_int err = CL_SUCCESS;
  // ON_DEVICE without OUT_OF_ORDER is not valid at all.
  cl_queue_properties onDevInOrder[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0};
  EXPECT_EQ(clCreateCommandQueueWithProperties(ctx, device, onDevInOrder, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  // Valid, but unsupported by the device (no device-side enqueue).
  cl_queue_properties onDev[] = {CL_QUEUE_PROPERTIES,
                                 CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  EXPECT_EQ(clCreateCommandQueueWithProperties(ctx, device, onDev, &err), nullptr);
  EXPECT_CL(CL_INVALID_QUEUE_PROPERTIES, err);
  // CL_QUEUE_SIZE only with ON_DEVICE.
  cl_queue_properties sizeOnly[] = {CL_QUEUE_SIZE, 1024, 0};
  EXPECT_EQ(clCreateCommandQueueWithProperties(ctx, device, sizeOnly, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  // ON_DEVICE_DEFAULT only with ON_DEVICE.
  cl_queue_properties defOnly[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE_DEFAULT, 0};
  EXPECT_EQ(clCreateCommandQueueWithProperties(ctx, device, defOnly, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  // clCreateCommandQueue never accepts ON_DEVICE.
  EXPECT_EQ(clCreateCommandQueue(ctx, device,
                                 CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
}

TEST_F(Queue, SetDefaultDeviceQueueUnsupported) {
  TUTTI_ONLY();
  EXPECT_CL(CL_INVALID_OPERATION, clSetDefaultDeviceCommandQueue(ctx, device, queue));
  // The conformance suite passes no queue and expects the same answer.
  EXPECT_CL(CL_INVALID_OPERATION, clSetDefaultDeviceCommandQueue(ctx, device, nullptr));
}

TEST_F(Queue, InvalidContextOrDevice) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateCommandQueueWithProperties(nullptr, device, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  EXPECT_EQ(clCreateCommandQueueWithProperties(ctx, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_DEVICE, err);
  EXPECT_EQ(clCreateCommandQueue(nullptr, device, 0, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  EXPECT_EQ(clCreateCommandQueue(ctx, nullptr, 0, &err), nullptr);
  EXPECT_CL(CL_INVALID_DEVICE, err);
}

TEST_F(Queue, InvalidContextOrDeviceGarbage) {
  TUTTI_ONLY();
  cl_int err = CL_SUCCESS;
  Garbage g;
  EXPECT_EQ(clCreateCommandQueueWithProperties(g.as<cl_context>(), device, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  EXPECT_EQ(clCreateCommandQueueWithProperties(ctx, g.as<cl_device_id>(), nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_DEVICE, err);
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clFlush(g.as<cl_command_queue>()));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clFinish(g.as<cl_command_queue>()));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clFlush(nullptr));
  EXPECT_CL(CL_INVALID_COMMAND_QUEUE, clFinish(nullptr));
}

TEST_F(Queue, FlushFinishEmptyAndBusy) {
  EXPECT_CL_OK(clFlush(queue));
  EXPECT_CL_OK(clFinish(queue));
  cl_kernel k = commonKernel("add_one");
  ASSERT_NE(k, nullptr);
  const size_t n = 1024;
  std::vector<int> host(n, 3);
  cl_mem m = makeBuffer(n * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.data());
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  cl_event ev;
  for (int i = 0; i < 5; ++i)
    ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &ev));
  track(ev);
  EXPECT_CL_OK(clFlush(queue));
  EXPECT_CL_OK(clFinish(queue));
  cl_int st = -1;
  ASSERT_CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
  EXPECT_EQ(st, CL_COMPLETE);
  std::vector<int> out(n);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, n * sizeof(int), out.data(), 0, nullptr,
                                   nullptr));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 8) << i;
}

TEST_F(Queue, OutOfOrderQueueWithEventsAndBarrier) {
  cl_command_queue q = makeQueue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  ASSERT_NE(q, nullptr);
  if (!(queueProps(q) & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) GTEST_SKIP();
  cl_kernel fill = commonKernel("fill_val");
  cl_kernel add = commonKernel("add_one");
  ASSERT_NE(add, nullptr);
  const size_t n = 4096;
  cl_mem a = makeBuffer(n * sizeof(int));
  cl_mem b = makeBuffer(n * sizeof(int));
  int v = 10;
  // a: fill 10 -> add_one (dependent via event); b: fill 20 independent; barrier; read.
  cl_event e1;
  ASSERT_CL_OK(clSetKernelArg(fill, 0, sizeof a, &a));
  ASSERT_CL_OK(clSetKernelArg(fill, 1, sizeof v, &v));
  ASSERT_CL_OK(clEnqueueNDRangeKernel(q, fill, 1, nullptr, &n, nullptr, 0, nullptr, &e1));
  track(e1);
  ASSERT_CL_OK(clSetKernelArg(add, 0, sizeof a, &a));
  ASSERT_CL_OK(clEnqueueNDRangeKernel(q, add, 1, nullptr, &n, nullptr, 1, &e1, nullptr));
  int pattern = 20;
  ASSERT_CL_OK(clEnqueueFillBuffer(q, b, &pattern, sizeof pattern, 0, n * sizeof(int), 0, nullptr,
                                   nullptr));
  ASSERT_CL_OK(clEnqueueBarrierWithWaitList(q, 0, nullptr, nullptr));
  std::vector<int> ra(n), rb(n);
  ASSERT_CL_OK(clEnqueueReadBuffer(q, a, CL_FALSE, 0, n * sizeof(int), ra.data(), 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(q, b, CL_FALSE, 0, n * sizeof(int), rb.data(), 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(q));
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(ra[i], 11) << i;
    ASSERT_EQ(rb[i], 20) << i;
  }
}

TEST_F(Queue, ReleaseFlushesPendingWork) {
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  ASSERT_CL_OK(err);
  cl_mem m = makeBuffer(256);
  std::vector<int> src(64, 9);
  cl_event ev;
  ASSERT_CL_OK(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, 256, src.data(), 0, nullptr, &ev));
  track(ev);
  EXPECT_CL_OK(clReleaseCommandQueue(q));
  ASSERT_CL_OK(clWaitForEvents(1, &ev));
  std::vector<int> out(64);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 256, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, src);
}

TEST_F(Queue, ReleasedQueueStillRunsGatedWork) {
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  ASSERT_CL_OK(err);
  cl_event gate = makeUserEvent();
  cl_kernel k = commonKernel("fill_val");
  cl_mem m = makeBuffer(256 * sizeof(int));
  int v = 77;
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof v, &v));
  size_t n = 256;
  cl_event e;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 1, &gate, &e));
  track(e);
  ASSERT_CL_OK(clReleaseCommandQueue(q));  // queue goes away only after its commands finish
  ASSERT_CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  ASSERT_CL_OK(clWaitForEvents(1, &e));
  std::vector<int> out(256);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 1024, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, std::vector<int>(256, 77));
  cl_command_queue back = nullptr;
  ASSERT_CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof back, &back, nullptr));
  EXPECT_EQ(back, q);  // the event still names its queue
}
