// profile_mode.h - TUTTI_PROFILE=1: time each new launch shape on every backing device;
// TUTTI_PROFILE=validate: compare the stored models with measurements there.
//
// Before the app's launch runs (normally), its partition-ready kernel runs on every
// device over the profiling ladder of work-group counts, on scratch copies of its
// buffers, and each device's copy bandwidth is measured once; the samples go to the
// profile database that TUTTI_PARTITION=auto reads. In validation mode the kernel runs
// instead for TUTTI_VALIDATE_RUNS random work-group counts per device, and each measured
// time is written next to the stored model's prediction (JSON lines, TUTTI_VALIDATE_OUT);
// nothing is stored.
#pragma once
#include "command.h"

namespace tutti {

// Profiles (or validates) cmd's launch shape if that mode is on and the shape is new. True when cmd
// must first wait for its buffers to reach the host (cmd->staging lists the copies); false: go on.
bool profileLaunch(Command *cmd);

}  // namespace tutti
