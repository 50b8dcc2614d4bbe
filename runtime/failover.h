// failover.h - a command that a backing device failed runs on another one.
#pragma once
#include "command.h"

namespace tutti {

// cmd's issue on cmd->slot failed with err (the device's answer, before anything of it
// ran). Records the failure against the device, retiring it after TUTTI_RETIRE_AFTER in
// a row, and, where another device may run cmd, resets cmd's placement to avoid this one
// and returns true: the caller plans and issues it again. False: err is the command's.
bool failOver(Command *cmd, cl_int err) REQUIRES(apiMutex);
// Whether slot may get new work from cmd (not retired, not failed for cmd).
bool mayRunOn(const Command *cmd, int slot);
// Commands re-placed after a device failure, for TUTTI_STATS and tests.
uint64_t failovers();

}  // namespace tutti
