// clock.h - the one time base of every timestamp Tutti reports.
#pragma once
#include <cstdint>

namespace tutti {

uint64_t nowNs();  // CLOCK_MONOTONIC in ns

}  // namespace tutti
