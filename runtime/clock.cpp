// clock.cpp - CLOCK_MONOTONIC in nanoseconds.
#include "clock.h"

#include <time.h>

namespace tutti {

uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

}  // namespace tutti
