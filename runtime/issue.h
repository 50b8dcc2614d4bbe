// issue.h - running a planned command: real enqueues on its device, or host copies.
#pragma once
#include <functional>

#include "command.h"

namespace tutti {

struct IssueResult {
  // Outside: what is left of the command is a blocking transfer or a wait on the driver;
  // `job` does it once the API lock is released (by the thread that issued it) and
  // returns the command's status. Only commands the app blocks on take this path.
  enum Kind { Issued, Staging, Done, Outside } kind;
  cl_int status = CL_SUCCESS;
  std::function<cl_int()> job;
  // Outside: the slots whose in-order queues the job's transfers go through. Once it is
  // done, whatever was issued there before it is done too (Runtime::finishIssuedBefore).
  std::vector<int> through;
  IssueResult(Kind k, cl_int s = CL_SUCCESS, std::function<cl_int()> j = {})
      : kind(k), status(s), job(std::move(j)) {}
};

// Issues cmd as planned (cmd->slot, or cmd->skmd for a split launch) on its device or runs
// it on the host. Staging: it waits for device->host copies in flight (cmd->staging).
IssueResult issueCommand(Command *cmd) REQUIRES(apiMutex);

// Sets every argument of cmd's launch on a real kernel of `slot`.
cl_int setKernelArgs(Command *cmd, cl_kernel rk, int slot);

}  // namespace tutti
