// plan.h - planning: where each command runs, decided one stage before it is issued.
//
// Policy lives here and only here: whole placement (placement.h), the SKMD split
// (skmd_plan.h), and profiling mode's measurements, all fed by the one store of
// measured times (measured.h) and the profile models. Issue (issue.h) then carries out
// what the plan says and decides nothing.
#pragma once
#include "command.h"

namespace tutti {

// Plans cmd: cmd->slot for a command that runs whole on a device, cmd->skmd for a split
// launch, neither for a host-side command. final=false while cmd still waits for other
// commands: only the device it would run on whole (so it may chain behind same-device
// work); final: the full plan, taken when it can start. False: cmd must first wait for
// device->host copies (profiling needs its buffers on the host; cmd->staging lists them).
bool planCommand(Command *cmd, bool final);

}  // namespace tutti
