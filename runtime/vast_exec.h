// vast_exec.h - running a VAST launch's slices (issue 18).
#pragma once
#include "issue.h"

namespace tutti {

// Issues cmd's planned VAST launch (cmd->vast): makes its buffers valid in their homes,
// runs the slices as host work (or here, where the driver must be called under the
// lock), then, issued again, records what the slices wrote.
IssueResult issueVast(Command *cmd) REQUIRES(apiMutex);

// Whether a VAST launch that failed had not started a slice yet (its inspector found a
// work-group too big for the device, say): nothing of it ran, so it may run elsewhere.
bool vastUnstarted(const Command *cmd);

struct VastCounters {
  uint64_t launches = 0, slices = 0, bytesIn = 0, bytesOut = 0, ns = 0;
  uint64_t inspected = 0;  // launches whose slices came from the inspector
  uint64_t forwarded = 0;  // bytes copied from one slice's frames to the next one's
  uint64_t kernelNs = 0;   // the paged kernels' own time (Fig. 4.12 against the original)
};
VastCounters vastCounters();  // for TUTTI_STATS and tests

}  // namespace tutti
