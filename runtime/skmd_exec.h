// skmd_exec.h - running a planned split launch: staging each piece's bytes, launching the
// pieces, merging and completing them.
#pragma once
#include "issue.h"

namespace tutti {

// Issues cmd's planned split (cmd->skmd).
IssueResult issueSplit(Command *cmd);
// Completion of a split launch: timing and counters; host merges are left to run without
// the API lock (cmd->hostWork). Returns the status.
cl_int collectSkmd(Command *cmd);
// Launches run split so far (for TUTTI_STATS and tests), and of those the ones whose
// partial outputs were merged on the host (not concatenated).
uint64_t skmdSplitLaunches();
uint64_t skmdMergedLaunches();
// A split launch whose issue failed before any piece was enqueued: the slot that failed
// it (failover.cpp then runs the launch without that device), else -1.
int skmdFailedBeforeStart(const Command *cmd);

}  // namespace tutti
