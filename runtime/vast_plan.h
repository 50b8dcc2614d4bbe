// vast_plan.h - whether a launch runs through VAST, and its slices (issue 18).
#pragma once
#include <memory>

#include "command.h"

// Builds without the kernel compiler include this header too (placement.cpp): its types
// only by name here.
namespace tutti::compiler {
struct NDRange;
struct ScalarArgs;
}  // namespace tutti::compiler

namespace tutti {

// Final planning of a whole launch: where TUTTI_VAST says so and the compiler bounds
// what each group range touches, plans cmd as slices on one device (cmd->slot,
// cmd->vast) and returns true.
bool vastPlan(Command *cmd);  // runtime lock held
// Whether a launch that no device can hold may still be enqueued: VAST may take it.
bool vastMayTake();
// Whether a split's piece on slot, whose buffers the device cannot hold, may be paged
// there (TUTTI_VAST, and a GPU or a device with a TUTTI_MEM_LIMIT).
bool vastMayPage(const Command *cmd, int slot);
// Slices for groups [first, first + count) of cmd's split launch (shape nd, scalars) on
// slot, from the index ranges (no inspector); nullptr: the piece cannot be paged there.
std::shared_ptr<VastLaunch> vastPlanPiece(Command *cmd, int slot, const compiler::NDRange &nd,
                                          const compiler::ScalarArgs &scalars, uint64_t first,
                                          uint64_t count);

}  // namespace tutti
