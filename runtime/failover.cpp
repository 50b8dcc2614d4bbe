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
#include "settings.h"

namespace tutti {

namespace {

std::atomic<uint64_t> g_failovers{0};

// Errors that name the launch itself rather than the device: another device may still
// accept it (a smaller work-group limit), but they say nothing about the device's health.
bool aboutTheCommand(cl_int err) { return err <= CL_INVALID_VALUE && err >= CL_INVALID_DEVICE_QUEUE; }

void noteFailure(BackingDevice *d, cl_int err) {
  ++d->counters.failures;
  if (aboutTheCommand(err)) return;
  unsigned inARow = ++d->failuresInARow;
  uint64_t limit = settings().retire_after;
  if (limit && inARow >= limit && !d->retired.exchange(true))
    TUTTI_LOG(Warn, "%s failed %u times in a row (last: %s): it gets no new work", d->label().c_str(),
              inARow, clErrorName(err));
}

}  // namespace

bool mayRunOn(const Command *cmd, int slot) {
  if (slot < 0 || slot >= 32) return slot >= 0;
  return !(cmd->avoid >> slot & 1u) && !slotOf(cmd, slot).dev->retired;
}

bool failOver(Command *cmd, cl_int err) {
  // Split launches may have pieces running already; host-side commands have no device.
  if (cmd->kind != CmdKind::Kernel || cmd->slot < 0 || cmd->skmd || cmd->slot >= 32) return false;
  BackingDevice *d = slotOf(cmd, cmd->slot).dev;
  noteFailure(d, err);
  cmd->avoid |= 1u << cmd->slot;
  int failed = cmd->slot;
  cmd->slot = -1;
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
