// skmd_off.cpp - builds without the kernel compiler run every launch whole.
#include "log.h"
#include "settings.h"
#include "skmd.h"

namespace tutti {

SkmdProgram::~SkmdProgram() {}

bool issueSkmd(Runtime &, Command *cmd, IssueResult &) {
  static bool said = false;
  if (cmd->kind == CmdKind::Kernel && settings().mode == KernelMode::Skmd && !said) {
    said = true;
    TUTTI_LOG(Warn, "TUTTI_MODE=skmd: this build has no kernel compiler; launches run whole");
  }
  return false;
}

cl_int collectSkmd(Runtime &, Command *) { return CL_INVALID_OPERATION; }
void skmdPrepare(_cl_program *) {}
void skmdRecordWhole(Command *, int, double, double) {}
uint64_t skmdSplitLaunches() { return 0; }
uint64_t skmdMergedLaunches() { return 0; }
uint64_t skmdModelDecisions() { return 0; }
uint64_t skmdKeptDecisions() { return 0; }
uint64_t skmdProbes() { return 0; }

}  // namespace tutti
