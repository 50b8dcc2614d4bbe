// log.cpp - the log sink; opened lazily so that loading Tutti costs nothing.
#include "log.h"

#include <CL/cl.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>

#include "clock.h"
#include "settings.h"

namespace tutti {
namespace {

struct Sink {
  std::mutex mu;
  FILE *out = stderr;
  LogLevel level = LogLevel::Warn;
  bool time = false;  // TUTTI_LOG_TIME
  uint64_t t0 = 0;    // the first line's time
  Sink() {
    const Settings &s = settings();
    level = s.log;
    time = s.log_time;
    if (!s.log_file.empty()) {
      if (FILE *f = std::fopen(s.log_file.c_str(), "a")) {
        out = f;
        setvbuf(f, nullptr, _IOLBF, 0);
      } else {
        std::fprintf(stderr, "tutti: cannot open TUTTI_LOG_FILE '%s'; logging to stderr\n",
                     s.log_file.c_str());
      }
    }
  }
};

Sink &sink() {
  static Sink *s = new Sink();  // never destroyed: logging works from atexit handlers
  return *s;
}

const char *levelName(LogLevel l) {
  switch (l) {
    case LogLevel::Error: return "error";
    case LogLevel::Warn: return "warning";
    case LogLevel::Info: return "info";
    case LogLevel::Debug: return "debug";
  }
  return "";
}

}  // namespace

bool logEnabled(LogLevel level) { return level <= sink().level; }

void logf(LogLevel level, const char *fmt, ...) {
  Sink &s = sink();
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.time) {
    const uint64_t now = nowNs();
    if (!s.t0) s.t0 = now;
    std::fprintf(s.out, "tutti: %10.1f %5ld %s: %s\n", double(now - s.t0) / 1e3, long(syscall(SYS_gettid)) % 100000,
                 levelName(level), buf);
    return;
  }
  std::fprintf(s.out, "tutti: %s: %s\n", levelName(level), buf);
}

void logRaw(const char *fmt, ...) {
  Sink &s = sink();
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::lock_guard<std::mutex> lock(s.mu);
  std::fprintf(s.out, "%s\n", buf);
}

const char *clErrorName(int code) {
  switch (code) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH)
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
    E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE)
    E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
    E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE)
    E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION)
    E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT)
    E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE)
    E(CL_INVALID_PROPERTY) E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS)
    E(CL_INVALID_LINKER_OPTIONS) E(CL_INVALID_DEVICE_PARTITION_COUNT)
    E(CL_INVALID_PIPE_SIZE) E(CL_INVALID_DEVICE_QUEUE) E(CL_INVALID_SPEC_ID)
    E(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
#undef E
    default: return "CL_UNKNOWN_ERROR";
  }
}

}  // namespace tutti
