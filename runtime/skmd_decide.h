// skmd_decide.h - how many work-groups of a launch each backing device gets.
#pragma once
#include <cstdint>
#include <vector>

#include <tutti/compiler.h>

#include "command.h"

namespace tutti {

struct Decision {
  std::vector<uint64_t> groups;  // per context slot; one non-zero entry = run whole there
  double predictedSeconds = -1;  // Algorithm 1's time of these groups, -1 unknown
};

// Applies TUTTI_PARTITION to a launch over the `usable` slots (runtime lock held).
Decision decideSplit(Command *cmd, const compiler::KernelInfo &info,
                     const compiler::NDRange &nd, const compiler::ScalarArgs &scalars,
                     const std::vector<int> &usable);

// What planning knows of one launch, for MKMD's graph: per argument how it is accessed,
// per slot its predicted time as fixed + per-group seconds (linear through the model at one
// group and at the whole launch).
struct LaunchModel {
  struct Arg {
    bool mem = false, read = false, written = false;
    bool partial = false;  // read ranges follow the groups
    bool merged = false;   // pieces' outputs would need a host merge
  };
  std::vector<Arg> args;
  std::vector<bool> known;  // per slot
  std::vector<double> fixedSeconds, perGroupSeconds;
};
void modelLaunch(Command *cmd, const compiler::KernelInfo &info, const compiler::NDRange &nd,
                 const compiler::ScalarArgs &scalars, const std::vector<int> &usable, LaunchModel &out,
                 bool withArgs = true);

}  // namespace tutti
