// mkmd_plan.h - TUTTI_MODE=mkmd: the held commands scheduled as one kernel graph.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>

#include "command.h"

namespace tutti {

// Schedules the kernels among `held` (enqueue order) over the context's devices and sets
// each one's forcedGroups; planning then carries the schedule out (plan.cpp). Kernels the
// compiler could not analyse keep none and are placed as in whole mode. True when the
// schedule ran every kernel whole on one and the same device: holding the commands back
// gained nothing over streaming them (see _cl_command_queue::mkmdStream). `held` is put in
// the order the schedule starts its kernels, the order to issue them in.
bool mkmdScheduleHeld(std::deque<Command *> &held);

// Whether `held` (one queue's, enqueue order) is a window to schedule now: TUTTI_MKMD_WINDOW
// commands, or TUTTI_MKMD_SHORT_WINDOW of them that form one chain or whose kernels are
// predicted short.
bool mkmdWindowFull(const std::deque<Command *> &held);

// A scheduled graph as it runs: from its schedule to the end of its last kernel (the
// kernels' own end times where the devices report them, else when Tutti learns of it).
struct MkmdRun {
  uint64_t t0 = 0, end = 0;  // ns
  size_t pending = 0;        // its kernels not yet finished
  size_t kernels = 0;
  double predictedMs = 0;    // the schedule's makespan less the backlog it started behind
};
// Called as each kernel command that carries a run finishes (Runtime::finish).
void mkmdCommandDone(Command *cmd);

// TUTTI_STATS: graphs scheduled, their kernels, kernels split, the sum of predicted
// makespans (ms), and the time the graphs' runs covered (ms, their union).
struct MkmdCounters {
  uint64_t graphs = 0, kernels = 0, split = 0;
  uint64_t reused = 0;  // graphs that repeated one scheduled before: its schedule kept
  uint64_t pushes = 0;  // outputs sent on to the device of their next reader (Command::pushTo)
  uint64_t streamed = 0;  // commands not held because the queue's graphs stayed on one device
  uint64_t chains = 0;  // windows scheduled early because they were one chain (mkmdWindowFull)
  uint64_t unknown = 0;  // kernels scheduled with no time model on any device
  uint64_t eager = 0;  // commands that went at once, unscheduled (TUTTI_MKMD_EAGER)
  double predictedMs = 0, scheduleUs = 0;
  double measuredMs = 0;  // union of the graphs' runs (MkmdRun), once each is over
  uint64_t measured = 0;  // graphs whose runs are over
};
MkmdCounters mkmdCounters();
void mkmdStreamed(uint64_t commands);
// Commands that went at once, unscheduled (TUTTI_MKMD_EAGER; counted as eager).
void mkmdWentAtOnce(uint64_t commands);
// A kernel predicted to take less than TUTTI_MKMD_TINY_US on its fastest device.
bool mkmdTiny(Command *cmd);

}  // namespace tutti
