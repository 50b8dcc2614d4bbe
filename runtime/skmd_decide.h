// skmd_decide.h - how many work-groups of a launch each backing device gets.
#pragma once
#include <cstdint>
#include <vector>

#include <tutti/compiler.h>

#include "command.h"

namespace tutti {

struct Decision {
  std::vector<uint64_t> groups;  // per context slot; one non-zero entry = run whole there
};

// Applies TUTTI_PARTITION to a launch over the `usable` slots (runtime lock held).
Decision decideSplit(Command *cmd, const compiler::KernelInfo &info,
                     const compiler::NDRange &nd, const compiler::ScalarArgs &scalars,
                     const std::vector<int> &usable);


}  // namespace tutti
