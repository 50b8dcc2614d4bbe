// skmd_plan.h - deciding whether and how one launch is split across devices.
#pragma once
#include <cstdint>
#include <vector>

#include "command.h"

namespace tutti {

// Plans cmd's launch as a split (sets cmd->skmd and returns true) when the partitioner
// predicts that faster; false: run it whole (cmd->slot may then name the device).
bool skmdPlan(Command *cmd);

// g's shares (work-groups per slot) rounded to multiples of unit with the same total,
// largest remainders first; g itself where unit <= 1 or does not divide the total.
std::vector<uint64_t> toWholeUnits(const std::vector<uint64_t> &g, uint64_t unit);

}  // namespace tutti
