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

namespace tutti {

struct Command;

class Inbox {
 public:
  void postCompletion(Command *cmd);  // cmd's real work finished
  void postRetry();                   // a device->host copy landed: retry waiting commands
  // Blocks until something was posted; hands it over.
  void take(std::vector<Command *> &done, bool &retry);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Command *> done_;
  bool retry_ = false;
};

Inbox &inbox();

}  // namespace tutti
