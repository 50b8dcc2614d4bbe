// plan.cpp - the planning stage: profiling, split or whole placement, in that order.
#include "plan.h"

#include <algorithm>

#include "clock.h"
#include "placement.h"
#include "profile_mode.h"
#include "settings.h"
#include "skmd_plan.h"
#include "trace.h"
#include "vast_plan.h"

namespace tutti {

namespace {

// The one device MKMD's schedule gave a whole launch (-1: none, or a split).
int mkmdWholeSlot(const Command *cmd) {
  if (settings().mode != KernelMode::Mkmd || cmd->kind != CmdKind::Kernel) return -1;
  int slot = -1;
  for (size_t s = 0; s < cmd->forcedGroups.size(); ++s)
    if (cmd->forcedGroups[s]) {
      if (slot >= 0) return -1;
      slot = int(s);
    }
  return slot >= 0 && cmd->kernel->real[size_t(slot)] ? slot : -1;
}

}  // namespace

bool planCommand(Command *cmd, bool final) {
  if (cmd->vast) return true;  // planned, and issued again once its slices ran
  const int mkmdWhole = mkmdWholeSlot(cmd);
  // Before chaining decides which queue it may follow on.
  if (cmd->slot < 0 && !cmd->skmd && mkmdWhole >= 0) cmd->slot = mkmdWhole;
  if (cmd->kind != CmdKind::Kernel || !final || cmd->skmd) {
    if (!cmd->skmd) chooseSlot(cmd);
    return true;
  }
  if (profileLaunch(cmd)) return false;
  if (settings().mode == KernelMode::Mkmd && !cmd->forcedGroups.empty()) {
    // The graph's schedule: a split goes through SKMD's execution; a split SKMD cannot
    // run goes whole where most of its groups were.
    if (mkmdWhole < 0) {
      uint64_t t0 = tracing() ? nowNs() : 0;
      bool split = skmdPlan(cmd);
      if (t0) traceSpan(-1, "tutti", "mkmd split plan", t0, nowNs(), 0);
      if (split) return true;
      size_t most = size_t(std::max_element(cmd->forcedGroups.begin(), cmd->forcedGroups.end()) -
                           cmd->forcedGroups.begin());
      if (cmd->kernel->real[most]) cmd->slot = int(most);
    }
  } else if (settings().mode == KernelMode::Skmd) {
    uint64_t t0 = tracing() ? nowNs() : 0;
    bool split = skmdPlan(cmd);
    if (t0) traceSpan(-1, "tutti", "skmd plan", t0, nowNs(), 0);
    if (split) return true;
  }
  uint64_t t0 = tracing() && !cmd->vast ? nowNs() : 0;
  bool paged = vastPlan(cmd);
  if (t0) traceSpan(-1, "tutti", paged ? "vast plan" : "vast plan (not paged)", t0, nowNs(), 0);
  if (paged) return true;
  chooseSlot(cmd);
  return true;
}

}  // namespace tutti
