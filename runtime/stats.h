// stats.h - the end-of-run summary (TUTTI_STATS=1): what ran where, bytes moved.
#pragma once
#include <string>

namespace tutti {
std::string statsReport();  // lines starting with "TUTTI "
void printStatsAtExit();
}  // namespace tutti
