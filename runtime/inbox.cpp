// inbox.cpp - the completion inbox between driver callbacks and the dispatcher.
#include "inbox.h"

namespace tutti {

Inbox &inbox() {
  static Inbox *i = new Inbox();  // never destroyed: drivers may call back at exit
  return *i;
}

void Inbox::postCompletion(Command *cmd) {
  std::lock_guard<std::mutex> g(mu_);
  done_.push_back(cmd);
  cv_.notify_one();
}

void Inbox::postRetry() {
  std::lock_guard<std::mutex> g(mu_);
  retry_ = true;
  cv_.notify_one();
}

void Inbox::take(std::vector<Command *> &done, bool &retry) {
  std::unique_lock<std::mutex> g(mu_);
  cv_.wait(g, [&] { return !done_.empty() || retry_; });
  done.swap(done_);
  retry = retry_;
  retry_ = false;
}

}  // namespace tutti
