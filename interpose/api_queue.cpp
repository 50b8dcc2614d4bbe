// api_queue.cpp - command queues, flush and finish.
#include "api.h"

using namespace tutti;

namespace {

// deviceQueues: the 2.0+ entry point, where device-queue properties are valid values
// (merely unsupported); clCreateCommandQueue never knew them.
cl_command_queue makeQueue(cl_context ctx, cl_device_id dev, cl_command_queue_properties props,
                           std::vector<cl_queue_properties> propArray, bool deviceQueues,
                           bool hasSize, cl_int *errcode,
                           const char *caller = __builtin_FUNCTION()) {
  ApiLock lock(caller);
  if (!validContext(ctx)) return setErr(errcode, CL_INVALID_CONTEXT), nullptr;
  if (!validDevice(dev)) return setErr(errcode, CL_INVALID_DEVICE), nullptr;
  cl_command_queue_properties known = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
  if (deviceQueues) known |= CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT;
  if (props & ~known) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  // A device queue must be out of order; its default flag and size need ON_DEVICE.
  bool onDevice = props & CL_QUEUE_ON_DEVICE;
  if ((onDevice && !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) ||
      (!onDevice && ((props & CL_QUEUE_ON_DEVICE_DEFAULT) || hasSize)))
    return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if (onDevice) return setErr(errcode, CL_INVALID_QUEUE_PROPERTIES), nullptr;  // no device-side enqueue
  auto *q = new _cl_command_queue();
  q->ctx = ctx;
  q->props = props;
  q->propArray = std::move(propArray);
  runtime().retain(ctx);
  runtime().add(q, ObjType::Queue);
  setErr(errcode, CL_SUCCESS);
  return q;
}

}  // namespace

TUTTI_API cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context ctx, cl_device_id dev,
                                                            cl_command_queue_properties props,
                                                            cl_int *errcode) {
  return makeQueue(ctx, dev, props, {}, false, false, errcode);
}

TUTTI_API cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(
    cl_context ctx, cl_device_id dev, const cl_queue_properties *props, cl_int *errcode) {
  cl_command_queue_properties p = 0;
  std::vector<cl_queue_properties> arr;
  bool seenProps = false, seenSize = false;
  if (props) {
    for (const cl_queue_properties *x = props; *x; x += 2) {
      switch (x[0]) {
        case CL_QUEUE_PROPERTIES:
          if (seenProps) return setErr(errcode, CL_INVALID_VALUE), nullptr;
          seenProps = true;
          p = cl_command_queue_properties(x[1]);
          break;
        case CL_QUEUE_SIZE:
          if (seenSize) return setErr(errcode, CL_INVALID_VALUE), nullptr;
          seenSize = true;
          break;
        default: return setErr(errcode, CL_INVALID_VALUE), nullptr;
      }
      arr.push_back(x[0]);
      arr.push_back(x[1]);
    }
    arr.push_back(0);
  }
  return makeQueue(ctx, dev, p, std::move(arr), true, seenSize, errcode);
}

TUTTI_API cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue q) {
  ApiLock lock;
  if (!validQueue(q)) return CL_INVALID_COMMAND_QUEUE;
  ++q->refs;
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue q) {
  ApiLock lock;
  if (!validQueue(q)) return CL_INVALID_COMMAND_QUEUE;
  // Releasing a queue flushes it (the spec's implicit flush).
  if (q->refs == 1) {
    runtime().flush(q);
    if (!q->inFlight.empty()) runtime().needCompletion(q->inFlight.back());
  }
  runtime().releaseApp(q);
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param,
                                                   size_t size, void *value, size_t *ret) {
  ApiLock lock;
  if (!validQueue(q)) return CL_INVALID_COMMAND_QUEUE;
  switch (param) {
    case CL_QUEUE_CONTEXT: return answer(static_cast<cl_context>(q->ctx), size, value, ret);
    case CL_QUEUE_DEVICE: return answer(static_cast<cl_device_id>(&g_device), size, value, ret);
    case CL_QUEUE_REFERENCE_COUNT: return answer(q->refs, size, value, ret);
    case CL_QUEUE_PROPERTIES: return answer(q->props, size, value, ret);
    case CL_QUEUE_PROPERTIES_ARRAY: return answer(q->propArray, size, value, ret);
    case CL_QUEUE_SIZE: return CL_INVALID_COMMAND_QUEUE;  // host queue
    case CL_QUEUE_DEVICE_DEFAULT: return answer(static_cast<cl_command_queue>(nullptr), size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

TUTTI_API cl_int CL_API_CALL clSetCommandQueueProperty(cl_command_queue q,
                                                       cl_command_queue_properties props,
                                                       cl_bool enable,
                                                       cl_command_queue_properties *old) {
  ApiLock lock;
  if (!validQueue(q)) return CL_INVALID_COMMAND_QUEUE;
  if (props & ~(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE))
    return CL_INVALID_VALUE;
  if (old) *old = q->props;
  q->props = enable ? (q->props | props) : (q->props & ~props);
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clSetDefaultDeviceCommandQueue(cl_context ctx, cl_device_id dev,
                                                            cl_command_queue q) {
  ApiLock lock;
  if (!validContext(ctx)) return CL_INVALID_CONTEXT;
  if (!validDevice(dev)) return CL_INVALID_DEVICE;
  (void)q;  // no device-side enqueue, so no queue could be valid (3.0 appendix, CTS)
  return CL_INVALID_OPERATION;
}

TUTTI_API cl_int CL_API_CALL clFlush(cl_command_queue q) {
  ApiLock lock;
  if (!validQueue(q)) return CL_INVALID_COMMAND_QUEUE;
  runtime().flush(q);
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clFinish(cl_command_queue q) {
  // An idle queue has nothing to flush or wait for: answered without the API lock
  // (call_cost: 92 ns locked against PoCL's 28). Every command enters inFlight when it is
  // enqueued and leaves it when reported complete, so a count of 0 read with acquire means
  // all this thread enqueued has completed and its effects are visible.
  if (!tracing() && runtime().validCached(q, ObjType::Queue) == 1 &&
      q->inFlightCount.load(std::memory_order_acquire) == 0)
    return CL_SUCCESS;
  ApiLock lock;
  if (!validQueue(q)) return CL_INVALID_COMMAND_QUEUE;
  // Flushing may complete (and free) commands, so collect what is left afterwards.
  runtime().flush(q);
  std::vector<_cl_event *> evs(q->inFlight.begin(), q->inFlight.end());
  runtime().wait(lock.lk, evs);
  // Work enqueued meanwhile by other threads is not ours to wait for.
  return CL_SUCCESS;
}
