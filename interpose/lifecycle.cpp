// lifecycle.cpp - load and unload hooks. Loading does nothing (Tutti is preloaded into
// every child process, linkers included); at exit the stats are printed if asked for.
#include "api.h"
#include "stats.h"

namespace {
__attribute__((destructor)) void tuttiAtExit() {
  // Only a process that used OpenCL has devices to report.
  if (!tutti::backend().devices().empty()) tutti::printStatsAtExit();
}
}  // namespace
