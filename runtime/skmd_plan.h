// skmd_plan.h - deciding whether and how one launch is split across devices.
#pragma once
#include "command.h"

namespace tutti {

// Plans cmd's launch as a split (sets cmd->skmd and returns true) when the partitioner
// predicts that faster; false: run it whole (cmd->slot may then name the device).
bool skmdPlan(Command *cmd);

}  // namespace tutti
