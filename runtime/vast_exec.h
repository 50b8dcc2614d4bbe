// vast_exec.h - running a VAST launch's slices (issue 18).
#pragma once
#include <functional>
#include <memory>

#include "issue.h"

namespace tutti {

// Issues cmd's planned VAST launch (cmd->vast): makes its buffers valid in their homes,
// runs the slices as host work (or here, where the driver must be called under the
// lock), then, issued again, records what the slices wrote.
IssueResult issueVast(Command *cmd) REQUIRES(apiMutex);

// Whether a VAST launch that failed had not started a slice yet (its inspector found a
// work-group too big for the device, say): nothing of it ran, so it may run elsewhere.
bool vastUnstarted(const Command *cmd);

// A split launch's paged piece (Piece::vast, skmd_exec.cpp): its buffers made valid in
// their homes (false: wait for cmd->staging; err: no home memory), then the run of its
// slices on slot, captured under the lock and run by any thread (or, for a driver that
// must be called under the lock, by the caller), then its counters once it finished.
// slot >= 0 (a whole launch on slot): a buffer the launch only reads and whose replica on
// slot is valid is copied to the frames from that replica, on the device, not staged home.
bool vastPieceStaged(Command *cmd, const VastLaunch &L, cl_int &err, int slot = -1) REQUIRES(apiMutex);
std::function<cl_int()> vastPieceRun(Command *cmd, const std::shared_ptr<VastLaunch> &L, int slot)
    REQUIRES(apiMutex);
void vastPieceLanded(Command *cmd, const VastLaunch &L, int slot) REQUIRES(apiMutex);

struct VastCounters {
  uint64_t launches = 0, slices = 0, bytesIn = 0, bytesOut = 0, ns = 0;
  uint64_t inspected = 0;  // launches whose slices came from the inspector
  uint64_t forwarded = 0;  // bytes copied from one slice's frames to the next one's
  uint64_t kernelNs = 0;   // the paged kernels' own time (Fig. 4.12 against the original)
  uint64_t rebased = 0;    // launches run by the rebased kernel (no page tables)
  uint64_t fromReplica = 0;  // bytes copied in from replicas on the device (not homes)
  uint64_t resident = 0;     // bytes of resident windows that later slices did not copy again
};
VastCounters vastCounters();  // for TUTTI_STATS and tests

}  // namespace tutti
