// trace.h - the TUTTI_TRACE timeline: transfers, kernel pieces and merges per device.
#pragma once
#include <CL/cl.h>

#include <cstdint>
#include <string>

#include "clock.h"
#include "real_event.h"
#include "settings.h"

namespace tutti {

// Every API call asks (ApiLock): inline, from the parsed settings.
inline bool tracing() { return !settings().trace.empty(); }
// s as the inside of a JSON string (quotes and backslashes escaped, control characters
// dropped); also used by TUTTI_PROFILE=validate's records.
std::string jsonEscape(const std::string &s);
// One span on device `device` (backing-device index; -1: the host), host-clock ns.
void traceSpan(int device, const char *category, const char *name, uint64_t t0, uint64_t t1,
               uint64_t amount);
// A host span ("tutti") over a scope, when tracing. next() ends the current span and
// starts another, so a function's parts are timed in turn.
// Inline where not tracing: skmdPlan opens one per launch.
class HostSpan {
 public:
  explicit HostSpan(const char *name) : name_(name), t0_(tracing() ? nowNs() : 0) {}
  ~HostSpan() { next(nullptr); }
  HostSpan(const HostSpan &) = delete;
  HostSpan &operator=(const HostSpan &) = delete;
  void next(const char *name) {
    if (t0_) emit(name);
  }

 private:
  void emit(const char *next);
  const char *name_;
  uint64_t t0_;
};
// Records a real command's span when it completes, mapped to host time with the
// device's clock offset as estimated now (INT64_MIN: estimate it at completion).
void traceRealEvent(const RealEvent &e, int device, const char *category, const char *name,
                    uint64_t amount, int64_t clockOffsetNs);

}  // namespace tutti
