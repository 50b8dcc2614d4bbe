// skmd_decide.h - how many work-groups of a launch each backing device gets.
#pragma once
#include <cstdint>
#include <vector>

#include <tutti/compiler.h>

#include "runtime.h"

namespace tutti {

struct Decision {
  std::vector<uint64_t> groups;  // per context slot; one non-zero entry = run whole there
};

// Applies TUTTI_PARTITION to a launch over the `usable` slots (runtime lock held).
Decision decideSplit(Runtime &rt, Command *cmd, const compiler::KernelInfo &info,
                     const compiler::NDRange &nd, const compiler::ScalarArgs &scalars,
                     const std::vector<int> &usable);

// Online calibration: `workItems` work-items of cmd's kernel (a piece or a whole
// launch) took `seconds` on `slot`.
void recordPiece(Command *cmd, int slot, double workItems, double seconds);

}  // namespace tutti
