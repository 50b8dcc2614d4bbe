// trace.cpp - collects spans in memory and writes Chrome trace-event JSON at exit.
#include "trace.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "backend.h"
#include "icd.h"
#include "clock.h"
#include "real_event.h"
#include "settings.h"

namespace tutti {

namespace {

struct Span {
  int device;
  std::string category, name;
  uint64_t t0, t1, amount;
};

struct Trace {
  std::mutex mu;
  std::vector<Span> spans;
  uint64_t origin = 0;
  bool registered = false;
};

Trace &trace() {
  static Trace *t = new Trace();  // outlives every static destructor
  return *t;
}

void writeTrace() {
  Trace &t = trace();
  std::lock_guard<std::mutex> g(t.mu);
  FILE *f = std::fopen(settings().trace.c_str(), "w");
  if (!f) return;
  std::fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  std::fprintf(f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"host\"}}");
  for (BackingDevice *d : backend().devices())
    std::fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
                 d->index + 1, jsonEscape(d->label()).c_str());
  for (const Span &s : t.spans) {
    double ts = double(s.t0 - std::min(s.t0, t.origin)) / 1e3;
    double dur = double(s.t1 > s.t0 ? s.t1 - s.t0 : 0) / 1e3;
    std::fprintf(f,
                 ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"cat\":\"%s\",\"name\":\"%s\",\"ts\":%.3f,"
                 "\"dur\":%.3f,\"args\":{\"amount\":%llu}}",
                 s.device + 1, jsonEscape(s.category).c_str(), jsonEscape(s.name).c_str(), ts, dur,
                 static_cast<unsigned long long>(s.amount));
  }
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
}

struct Pending {
  int device;
  std::string category, name;
  uint64_t amount;
  int64_t offset;
  RealEvent ev;  // kept until the callback has read its times
};

void CL_CALLBACK onTraced(cl_event e, cl_int, void *user) {
  auto *p = static_cast<Pending *>(user);
  cl_ulong s = 0, en = 0;
  const cl_icd_dispatch &d = icd(e);
  if (d.clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof s, &s, nullptr) == CL_SUCCESS &&
      d.clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof en, &en, nullptr) == CL_SUCCESS) {
    int64_t off = p->offset;
    if (off == INT64_MIN) off = int64_t(nowNs()) - int64_t(en);
    traceSpan(p->device, p->category.c_str(), p->name.c_str(), uint64_t(int64_t(s) + off),
              uint64_t(int64_t(en) + off), p->amount);
  }
  delete p;
}

}  // namespace

std::string jsonEscape(const std::string &s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}

void HostSpan::emit(const char *next) {
  const uint64_t t = nowNs();
  traceSpan(-1, "tutti", name_, t0_, t, 0);
  name_ = next;
  t0_ = next ? t : 0;
}

// Every API call asks (ApiLock), and settings never change: decided once.
void traceSpan(int device, const char *category, const char *name, uint64_t t0, uint64_t t1,
               uint64_t amount) {
  if (!tracing()) return;
  Trace &t = trace();
  std::lock_guard<std::mutex> g(t.mu);
  if (!t.registered) {
    t.registered = true;
    t.origin = t0;
    std::atexit(writeTrace);
  }
  t.origin = std::min(t.origin, t0);
  t.spans.push_back({device, category, name ? name : "", t0, t1, amount});
}

void traceRealEvent(const RealEvent &e, int device, const char *category, const char *name,
                    uint64_t amount, int64_t clockOffsetNs) {
  if (!tracing() || !e) return;
  auto *p = new Pending{device, category, name ? name : "", amount, clockOffsetNs, e.share()};
  if (icd(e.get()).clSetEventCallback(e.get(), CL_COMPLETE, onTraced, p) != CL_SUCCESS) delete p;
}

}  // namespace tutti
