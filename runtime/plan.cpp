// plan.cpp - the planning stage: profiling, split or whole placement, in that order.
#include "plan.h"

#include "clock.h"
#include "placement.h"
#include "profile_mode.h"
#include "settings.h"
#include "skmd_plan.h"
#include "trace.h"

namespace tutti {

bool planCommand(Command *cmd, bool final) {
  if (cmd->kind != CmdKind::Kernel || !final || cmd->skmd) {
    if (!cmd->skmd) chooseSlot(cmd);
    return true;
  }
  if (profileLaunch(cmd)) return false;
  if (settings().mode == KernelMode::Skmd) {
    uint64_t t0 = tracing() ? nowNs() : 0;
    bool split = skmdPlan(cmd);
    if (t0) traceSpan(-1, "tutti", "skmd plan", t0, nowNs(), 0);
    if (split) return true;
  }
  chooseSlot(cmd);
  return true;
}

}  // namespace tutti
