// completion.h - learning that a command's real work finished, and what it cost.
//
// Kernels complete lazily: most launches get no driver callback of their own, and finish
// when a later armed command on the same in-order device queue does. Whatever needs a
// particular completion sooner arms it (armCompletion).
#pragma once
#include "command.h"

namespace tutti {

// Whether cmd's launch, about to be issued on cmd->slot, needs a real event (it will be
// armed, or its times are wanted).
bool launchNeedsEvent(Command *cmd) REQUIRES(apiMutex);
// After a successful real enqueue of cmd: arm its completion or keep it lazy.
void trackIssued(Command *cmd) REQUIRES(apiMutex);
// Asks the driver to report a command's completion, now if it is issued, else as soon as
// it is.
void armCompletion(Command *cmd) REQUIRES(apiMutex);
// Lazily completing kernels issued on cmd's slot before cmd: complete once cmd is.
std::vector<Command *> completedBefore(Command *cmd) REQUIRES(apiMutex);
// Reads status, timing and counters of a finished real command; releases its event.
cl_int collectRealCompletion(Command *cmd);
// Maps a real command's device-clock span to host ns (refining slot's clock offset).
void deviceSpanToHost(DeviceSlot &ds, cl_ulong start, cl_ulong end, uint64_t &hs, uint64_t &he);

}  // namespace tutti
