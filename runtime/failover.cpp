// failover.cpp - a command that a backing device failed runs on another one (issue 21).
//
// A driver may refuse an enqueue or an allocation (out of resources, a device gone bad),
// or fail a build for one device only. Such a command has not run anywhere yet, so it is
// placed again without that device, and the app sees an error only when no device is
// left that could run it. A device that keeps failing is retired: it gets no new work,
// while the bytes only it holds are still read back from it when needed.
#include "failover.h"

#include <atomic>

#include "backend.h"
#include "log.h"
#include "placement.h"
#include "skmd_exec.h"
#include "vast_exec.h"

namespace tutti {

namespace {

std::atomic<uint64_t> g_failovers{0};

}  // namespace

bool mayRunOn(const Command *cmd, int slot) {
  return slot >= 0 && slotOf(cmd, slot).dev->takesWork(slot, cmd->avoid);
}

bool failOver(Command *cmd, cl_int err) {
  // Host-side commands have no device to avoid; a split launch fails over only if none of
  // its pieces was enqueued (those running could not be taken back).
  if (cmd->kind != CmdKind::Kernel) return false;
  // Its data could not be fetched (a device that died holding the only copy, or no host
  // memory): that is not its device's fault, and no other device would fare better.
  if (cmd->stagingError != CL_SUCCESS) return false;
  if (cmd->vast) {
    // VAST could not run it there (not the device's fault): unless a slice already
    // wrote into the homes, it runs without VAST on a device that holds it.
    if (!vastUnstarted(cmd) || cmd->slot < 0 || cmd->slot >= 32) return false;
    TUTTI_LOG(Warn, "kernel '%s': VAST failed on %s (%s); placing it again", cmd->kernel->name.c_str(),
              slotOf(cmd, cmd->slot).dev->label().c_str(), clErrorName(err));
    cmd->avoid |= 1u << cmd->slot;
    cmd->vast.reset();
    cmd->slot = -1;
    std::string why;
    return placementError(cmd->kernel, cmd->args, why, cmd->avoid) == CL_SUCCESS;
  }
  int failed = cmd->skmd ? skmdFailedBeforeStart(cmd) : cmd->slot;
  if (failed < 0 || failed >= 32) return false;
  slotOf(cmd, failed).dev->noteFailure(err);
  cmd->avoid |= 1u << failed;
  cmd->skmd.reset();
  cmd->slot = -1;
  cmd->skmdWhole = false;  // planned anew without the failed device
  cmd->forcedGroups.clear();  // MKMD's schedule named the device that failed
  cmd->pushTo.clear();
  cmd->real.reset();
  std::string why;
  if (placementError(cmd->kernel, cmd->args, why, cmd->avoid) != CL_SUCCESS) {
    TUTTI_LOG(Error, "kernel '%s' failed on %s (%s) and no other device can run it",
              cmd->kernel->name.c_str(), slotOf(cmd, failed).dev->label().c_str(), clErrorName(err));
    return false;
  }
  ++g_failovers;
  TUTTI_LOG(Warn, "kernel '%s' failed on %s (%s): running it on another device",
            cmd->kernel->name.c_str(), slotOf(cmd, failed).dev->label().c_str(), clErrorName(err));
  return true;
}

uint64_t failovers() { return g_failovers; }

}  // namespace tutti
