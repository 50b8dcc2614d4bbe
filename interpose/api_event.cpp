// api_event.cpp - events, user events, callbacks, profiling, markers and barriers.
#include "api.h"

using namespace tutti;

namespace tutti {

cl_int checkWaitList(cl_context ctx, cl_uint n, const cl_event *list, std::vector<_cl_event *> &out) {
  if ((n == 0) != (list == nullptr)) return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < n; ++i) {
    if (!validEvent(list[i])) return CL_INVALID_EVENT_WAIT_LIST;
    if (ctx && list[i]->ctx != ctx) return CL_INVALID_CONTEXT;
    out.push_back(list[i]);
  }
  return CL_SUCCESS;
}

_cl_event *commandEvent(_cl_command_queue *q, cl_command_type type, bool handle) {
  return runtime().newEvent(q->ctx, q, type, handle);
}

cl_int submit(ApiLock &lock, Command *cmd, const std::vector<_cl_event *> &waits, cl_event *event,
              bool blocking) REQUIRES(apiMutex) {
  Runtime &rt = runtime();
  _cl_event *ev = cmd->ev;
  // The app's handle (if asked for) is the command's event with the app's reference.
  bool appHolds = event != nullptr;
  if (appHolds) *event = ev;
  cmd->appEvent = appHolds;
  cmd->blocking = blocking;
  rt.enqueue(cmd, waits);
  cl_int st = CL_SUCCESS;
  if (blocking) {
    rt.retain(ev);
    st = runtime().wait(lock.lk, {ev});
    if (st == CL_SUCCESS && ev->status < 0) st = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    rt.release(ev);
  }
  if (!appHolds) rt.releaseApp(ev);
  return st;
}

}  // namespace tutti

TUTTI_API cl_int CL_API_CALL clWaitForEvents(cl_uint n, const cl_event *list) {
  ApiLock lock;
  if (n == 0 || !list) return CL_INVALID_VALUE;
  std::vector<_cl_event *> evs;
  for (cl_uint i = 0; i < n; ++i) {
    if (!validEvent(list[i])) return CL_INVALID_EVENT;
    if (list[i]->ctx != list[0]->ctx) return CL_INVALID_CONTEXT;
    evs.push_back(list[i]);
  }
  return runtime().wait(lock.lk, evs);
}

namespace {

// A finished event's status, without the API lock: apps poll it (call_cost: 37 ns locked
// against PoCL's 32). A final status never changes again; anything else, or an event the
// registry cannot vouch for, goes to the locked path.
bool finishedStatusUnlocked(cl_event e, size_t size, void *value, size_t *ret, cl_int *err) {
  if (tracing() || runtime().validUnlocked(e, ObjType::Event) != 1) return false;
  cl_int st = e->finalStatus.load(std::memory_order_acquire);
  if (st > CL_COMPLETE) return false;
  *err = answer(st, size, value, ret);
  return true;
}

}  // namespace

TUTTI_API cl_int CL_API_CALL clGetEventInfo(cl_event e, cl_event_info param, size_t size,
                                            void *value, size_t *ret) {
  cl_int err;
  if (param == CL_EVENT_COMMAND_EXECUTION_STATUS && finishedStatusUnlocked(e, size, value, ret, &err))
    return err;
  ApiLock lock;
  if (!validEvent(e)) return CL_INVALID_EVENT;
  switch (param) {
    case CL_EVENT_COMMAND_QUEUE: return answer(static_cast<cl_command_queue>(e->queue), size, value, ret);
    case CL_EVENT_CONTEXT: return answer(static_cast<cl_context>(e->ctx), size, value, ret);
    case CL_EVENT_COMMAND_TYPE: return answer(e->cmdType, size, value, ret);
    case CL_EVENT_COMMAND_EXECUTION_STATUS:
      if (e->status > CL_COMPLETE) runtime().needCompletion(e);  // the app may poll
      return answer(e->status, size, value, ret);
    case CL_EVENT_REFERENCE_COUNT: return answer(e->refs, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

TUTTI_API cl_int CL_API_CALL clRetainEvent(cl_event e) {
  ApiLock lock;
  if (!validEvent(e)) return CL_INVALID_EVENT;
  ++e->refs;
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clReleaseEvent(cl_event e) {
  ApiLock lock;
  if (!validEvent(e)) return CL_INVALID_EVENT;
  runtime().releaseApp(e);
  return CL_SUCCESS;
}

TUTTI_API cl_event CL_API_CALL clCreateUserEvent(cl_context ctx, cl_int *errcode) {
  ApiLock lock;
  if (!validContext(ctx)) return setErr(errcode, CL_INVALID_CONTEXT), nullptr;
  _cl_event *e = runtime().newEvent(ctx, nullptr, CL_COMMAND_USER);
  e->status = CL_SUBMITTED;
  setErr(errcode, CL_SUCCESS);
  return e;
}

TUTTI_API cl_int CL_API_CALL clSetUserEventStatus(cl_event e, cl_int status) {
  ApiLock lock;
  if (!validEvent(e) || e->cmdType != CL_COMMAND_USER || e->queue) return CL_INVALID_EVENT;
  if (status > CL_COMPLETE) return CL_INVALID_VALUE;
  if (e->done) return CL_INVALID_OPERATION;  // status may be set once
  runtime().setUserEventStatus(e, status);
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clSetEventCallback(cl_event e, cl_int type,
                                                void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
                                                void *user) {
  ApiLock lock;
  if (!validEvent(e)) return CL_INVALID_EVENT;
  if (!fn || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE))
    return CL_INVALID_VALUE;
  auto raw = reinterpret_cast<void(CL_CALLBACK *)(void *)>(fn);
  if (e->status <= type) {
    // Already there: the callback runs now (on the notifier thread).
    cl_int reported = e->status < 0 ? e->status : type;
    runtime().retain(e);
    runtime().notify([fn, e, reported, user] {
      fn(e, reported, user);
      ApiLock l;
      runtime().release(e);
    });
    (void)raw;
    return CL_SUCCESS;
  }
  e->callbacks.push_back({raw, user, type});
  if (type == CL_COMPLETE) runtime().needCompletion(e);
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clGetEventProfilingInfo(cl_event e, cl_profiling_info param,
                                                     size_t size, void *value, size_t *ret) {
  ApiLock lock;
  if (!validEvent(e)) return CL_INVALID_EVENT;
  if (!e->queue || !e->queue->profiling() || e->status != CL_COMPLETE)
    return CL_PROFILING_INFO_NOT_AVAILABLE;
  switch (param) {
    case CL_PROFILING_COMMAND_QUEUED: return answer(e->tQueued, size, value, ret);
    case CL_PROFILING_COMMAND_SUBMIT: return answer(std::max(e->tSubmit, e->tQueued), size, value, ret);
    case CL_PROFILING_COMMAND_START:
      return answer(std::max(e->tStart, std::max(e->tSubmit, e->tQueued)), size, value, ret);
    case CL_PROFILING_COMMAND_END:
      return answer(std::max(e->tEnd, std::max(e->tStart, std::max(e->tSubmit, e->tQueued))), size, value, ret);
    case CL_PROFILING_COMMAND_COMPLETE:
      return answer(std::max(e->tComplete, std::max(e->tEnd, e->tStart)), size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

namespace {

cl_int markerOrBarrier(cl_command_queue q, cl_uint n, const cl_event *list, cl_event *event,
                       cl_command_type type,
                       const char *caller = __builtin_FUNCTION()) {
  ApiLock lock(caller);
  if (!validQueue(q)) return CL_INVALID_COMMAND_QUEUE;
  std::vector<_cl_event *> waits;
  cl_int err = checkWaitList(q->ctx, n, list, waits);
  if (err != CL_SUCCESS) return err;
  auto *cmd = runtime().newCommand();
  cmd->kind = CmdKind::Marker;
  cmd->q = q;
  cmd->ev = commandEvent(q, type);
  // In an in-order queue a marker or barrier comes after every earlier command, wait list or not.
  cmd->waitsAll = waits.empty() || q->inOrder();
  cmd->blocksLater = type == CL_COMMAND_BARRIER || q->inOrder();
  return submit(lock, cmd, waits, event, false);
}

}  // namespace

TUTTI_API cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n,
                                                         const cl_event *list, cl_event *event) {
  return markerOrBarrier(q, n, list, event, CL_COMMAND_MARKER);
}

TUTTI_API cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n,
                                                          const cl_event *list, cl_event *event) {
  return markerOrBarrier(q, n, list, event, CL_COMMAND_BARRIER);
}

TUTTI_API cl_int CL_API_CALL clEnqueueMarker(cl_command_queue q, cl_event *event) {
  if (!event) return CL_INVALID_VALUE;
  return markerOrBarrier(q, 0, nullptr, event, CL_COMMAND_MARKER);
}

TUTTI_API cl_int CL_API_CALL clEnqueueBarrier(cl_command_queue q) {
  return markerOrBarrier(q, 0, nullptr, nullptr, CL_COMMAND_BARRIER);
}

TUTTI_API cl_int CL_API_CALL clEnqueueWaitForEvents(cl_command_queue q, cl_uint n, const cl_event *list) {
  if (n == 0 || !list) return CL_INVALID_VALUE;
  {
    ApiLock lock;
    if (!validQueue(q)) return CL_INVALID_COMMAND_QUEUE;
    for (cl_uint i = 0; i < n; ++i) {
      if (!validEvent(list[i])) return CL_INVALID_EVENT;
      if (list[i]->ctx != q->ctx) return CL_INVALID_CONTEXT;
    }
  }
  return markerOrBarrier(q, n, list, nullptr, CL_COMMAND_BARRIER);
}
