// inbox.h - where driver callbacks leave finished work for the dispatcher.
//
// Driver callbacks run on driver threads and must never take the API lock (a driver may
// call back from inside an enqueue made under it). They post here instead; the runtime's
// dispatcher drains the inbox under the lock. Execution code below the runtime posts
// through this without knowing the runtime.
#pragma once
#include <condition_variable>
#include <mutex>
#include <vector>

#include "thread_annotations.h"

namespace tutti {

struct Command;

class Inbox {
 public:
  void postCompletion(Command *cmd) EXCLUDES(mu_);  // cmd's real work finished
  void postRetry() EXCLUDES(mu_);  // a device->host copy landed: retry waiting commands
  // Blocks until something was posted; hands it over.
  void take(std::vector<Command *> &done, bool &retry) EXCLUDES(mu_);

 private:
  Mutex mu_;
  std::condition_variable_any cv_;
  std::vector<Command *> done_ GUARDED_BY(mu_);
  bool retry_ GUARDED_BY(mu_) = false;
};

Inbox &inbox();

}  // namespace tutti
