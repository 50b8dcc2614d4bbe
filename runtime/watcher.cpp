// watcher.cpp - a thread per device queue that waits for its events (see watcher.h).
#include "watcher.h"

#include <condition_variable>
#include <deque>
#include <thread>

#include "backend.h"
#include "icd.h"
#include "log.h"
#include "objects.h"
#include "settings.h"
#include "thread_annotations.h"

namespace tutti {

class Watcher {
 public:
  Watcher() : thread_([this] { loop(); }) {}
  ~Watcher() {
    {
      MutexLock g(mu_);
      stop_ = true;
      cv_.notify_one();
    }
    thread_.join();
  }

  void add(cl_event e, CompletionFn fn, void *user) EXCLUDES(mu_) {
    icd(e).clRetainEvent(e);
    MutexLock g(mu_);
    items_.push_back({e, fn, user});
    cv_.notify_one();
  }

 private:
  struct Item {
    cl_event e;
    CompletionFn fn;
    void *user;
  };

  // In the order handed over. The queue is in order, so waiting for the oldest first
  // costs nothing but for an event handed over after a later one (a launch armed late):
  // it is reported when that later one is.
  void loop() EXCLUDES(mu_) {
    for (;;) {
      Item it;
      {
        MutexLock g(mu_);
        while (items_.empty() && !stop_) cv_.wait(g);
        if (items_.empty()) return;  // stopping, and everything was reported
        it = items_.front();
        items_.pop_front();
      }
      const cl_icd_dispatch &d = icd(it.e);
      d.clWaitForEvents(1, &it.e);  // an error shows in the status below
      cl_int st = CL_COMPLETE;
      if (d.clGetEventInfo(it.e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr) != CL_SUCCESS)
        st = CL_OUT_OF_RESOURCES;
      it.fn(it.e, st > CL_COMPLETE ? CL_OUT_OF_RESOURCES : st, it.user);
      d.clReleaseEvent(it.e);
    }
  }

  Mutex mu_;
  std::condition_variable_any cv_;
  std::deque<Item> items_ GUARDED_BY(mu_);
  bool stop_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: started once the members above exist
};

void startWatcher(DeviceSlot &s) {
  CompletionMode m = settings().completion;
  if (m == CompletionMode::Callback || (m == CompletionMode::Auto && !s.dev->callsOutsideLock)) return;
  s.watcher = std::make_shared<Watcher>();
}

void stopWatcher(DeviceSlot &s) { s.watcher.reset(); }

cl_int whenComplete(DeviceSlot &s, cl_event e, CompletionFn fn, void *user) {
  if (!s.watcher) return icd(e).clSetEventCallback(e, CL_COMPLETE, fn, user);
  s.watcher->add(e, fn, user);
  return CL_SUCCESS;
}

cl_int whenComplete(_cl_context *ctx, cl_event e, CompletionFn fn, void *user) {
  cl_command_queue q = nullptr;
  icd(e).clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, nullptr);
  for (DeviceSlot &s : ctx->slots)
    if (s.rawQueue() == q) return whenComplete(s, e, fn, user);
  return icd(e).clSetEventCallback(e, CL_COMPLETE, fn, user);
}

}  // namespace tutti
