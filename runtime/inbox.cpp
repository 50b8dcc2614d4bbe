// inbox.cpp - the completion inbox between driver callbacks and the dispatcher.
#include "inbox.h"

namespace tutti {

Inbox &inbox() {
  static Inbox *i = new Inbox();  // never destroyed: drivers may call back at exit
  return *i;
}

void Inbox::postCompletion(Command *cmd) {
  MutexLock g(mu_);
  done_.push_back(cmd);
  cv_.notify_one();
}

void Inbox::postRetry() {
  MutexLock g(mu_);
  retry_ = true;
  cv_.notify_one();
}

void Inbox::take(std::vector<Command *> &done, bool &retry) {
  MutexLock g(mu_);
  while (done_.empty() && !retry_) cv_.wait(g);
  done.swap(done_);
  retry = retry_;
  retry_ = false;
}

}  // namespace tutti
