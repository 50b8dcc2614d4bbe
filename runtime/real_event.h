// real_event.h - RealEvent: owns one reference to a real (driver) event.
//
// Driver events were retained and released by hand at every use, and each early return
// was a chance to leak one or release it twice. RealEvent releases its reference when
// it dies; moving it hands the reference on.
#pragma once
#include <CL/cl.h>

#include <vector>

#include "icd.h"

namespace tutti {

class RealEvent {
 public:
  RealEvent() = default;
  explicit RealEvent(cl_event e) : e_(e) {}  // adopts a reference the caller holds
  RealEvent(RealEvent &&o) noexcept : e_(o.release()) {}
  RealEvent &operator=(RealEvent &&o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  RealEvent(const RealEvent &) = delete;
  RealEvent &operator=(const RealEvent &) = delete;
  ~RealEvent() { reset(); }

  cl_event get() const { return e_; }
  explicit operator bool() const { return e_ != nullptr; }
  // Gives the reference up without releasing it (as std::unique_ptr::release).
  cl_event release() {
    cl_event e = e_;
    e_ = nullptr;
    return e;
  }
  // Releases the reference held, if any, and adopts e.
  void reset(cl_event e = nullptr) {
    if (e_) icd(e_).clReleaseEvent(e_);
    e_ = e;
  }
  // For a driver call's cl_event* out-parameter: the event it returns is adopted.
  cl_event *out() {
    reset();
    return &e_;
  }
  // A second owner of the same event (a list of copies in flight and a command waiting
  // for one of them each release theirs).
  RealEvent share() const {
    if (e_) icd(e_).clRetainEvent(e_);
    return RealEvent(e_);
  }
  cl_int wait() const { return icd(e_).clWaitForEvents(1, &e_); }

 private:
  cl_event e_ = nullptr;
};

// Waits for every event of evs (all from one driver), as one clWaitForEvents.
inline cl_int waitAll(const std::vector<RealEvent> &evs) {
  std::vector<cl_event> raw;
  for (const RealEvent &e : evs) raw.push_back(e.get());
  return raw.empty() ? CL_SUCCESS : icd(raw[0]).clWaitForEvents(cl_uint(raw.size()), raw.data());
}

}  // namespace tutti
