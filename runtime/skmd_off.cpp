// skmd_off.cpp - builds without the kernel compiler run every launch whole.
#include "log.h"
#include "profile_mode.h"
#include "settings.h"
#include "mkmd_plan.h"
#include "mkmd_record.h"
#include "skmd.h"
#include "skmd_exec.h"
#include "skmd_plan.h"
#include "vast_exec.h"
#include "vast_plan.h"

namespace tutti {

SkmdProgram::~SkmdProgram() {}

bool skmdPlan(Command *cmd) {
  static bool said = false;
  if (!said) {
    said = true;
    TUTTI_LOG(Warn, "TUTTI_MODE=skmd: this build has no kernel compiler; launches run whole");
  }
  (void)cmd;
  return false;
}

bool profileLaunch(Command *) { return false; }
// VAST needs the compiler's paged-access kernels.
bool vastPlan(Command *) { return false; }
bool vastMayTake() { return false; }
bool kernelCompilerLinked() { return false; }
IssueResult issueVast(Command *) { return {IssueResult::Done, CL_INVALID_OPERATION}; }
VastCounters vastCounters() { return {}; }
bool vastUnstarted(const Command *) { return false; }
IssueResult issueSplit(Command *) { return {IssueResult::Done, CL_INVALID_OPERATION}; }
cl_int collectSkmd(Command *) { return CL_INVALID_OPERATION; }
std::shared_ptr<SkmdProgram> skmdPrepare(_cl_context *, const std::string &, const std::string &,
                                         const std::vector<std::string> &) {
  return nullptr;
}
uint64_t skmdSplitLaunches() { return 0; }
uint64_t skmdMergedLaunches() { return 0; }
int skmdFailedBeforeStart(const Command *) { return -1; }
uint64_t skmdModelDecisions() { return 0; }
uint64_t skmdKeptDecisions() { return 0; }
uint64_t skmdHullShapes() { return 0; }
uint64_t skmdProbes() { return 0; }
double skmdPredictedMs() { return 0; }
uint64_t skmdPredictedLaunches() { return 0; }
// Without the compiler there is no access analysis to record.
void mkmdRecord(Command *) {}
// Nor a graph to schedule: TUTTI_MODE=mkmd streams commands as whole mode does.
bool mkmdScheduleHeld(std::deque<Command *> &) { return true; }
bool mkmdWindowFull(const std::deque<Command *> &held) { return held.size() >= std::max<uint64_t>(settings().mkmd_window, 1); }
void mkmdStreamed(uint64_t) {}
void mkmdWentAtOnce(uint64_t) {}
bool mkmdTiny(Command *) { return false; }
void mkmdCommandDone(Command *) {}
MkmdCounters mkmdCounters() { return {}; }

}  // namespace tutti
