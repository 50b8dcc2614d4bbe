// log.h - leveled logging to stderr or TUTTI_LOG_FILE, with a "tutti: " prefix.
#pragma once
#include <cstdarg>

#include "settings.h"  // LogLevel: TUTTI_LOG's row, Error < Warn < Info < Debug

namespace tutti {

bool logEnabled(LogLevel level);
void logf(LogLevel level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Writes a line that is always shown (stats output), to the log destination.
void logRaw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

const char *clErrorName(int code);

}  // namespace tutti

#define TUTTI_LOG(level, ...)                                                  \
  do {                                                                         \
    if (::tutti::logEnabled(::tutti::LogLevel::level))                         \
      ::tutti::logf(::tutti::LogLevel::level, __VA_ARGS__);                    \
  } while (0)
