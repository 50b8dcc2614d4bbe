// issue.h - running a planned command: real enqueues on its device, or host copies.
#pragma once
#include "command.h"

namespace tutti {

struct IssueResult {
  enum Kind { Issued, Staging, Done } kind;
  cl_int status = CL_SUCCESS;
};

// Issues cmd as planned (cmd->slot, or cmd->skmd for a split launch) on its device or runs
// it on the host. Staging: it waits for device->host copies in flight (cmd->staging).
IssueResult issueCommand(Command *cmd);

// Sets every argument of cmd's launch on a real kernel of `slot`.
cl_int setKernelArgs(Command *cmd, cl_kernel rk, int slot);

}  // namespace tutti
