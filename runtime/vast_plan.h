// vast_plan.h - whether a launch runs through VAST, and its slices (issue 18).
#pragma once
#include "command.h"

namespace tutti {

// Final planning of a whole launch: where TUTTI_VAST says so and the compiler bounds
// what each group range touches, plans cmd as slices on one device (cmd->slot,
// cmd->vast) and returns true.
bool vastPlan(Command *cmd);  // runtime lock held
// Whether a launch that no device can hold may still be enqueued: VAST may take it.
bool vastMayTake();

}  // namespace tutti
