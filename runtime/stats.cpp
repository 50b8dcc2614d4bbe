// stats.cpp - per-device counters summarised for people and for the bench harness.
#include "stats.h"

#include <cstdio>
#include <sstream>

#include "backend.h"
#include "failover.h"
#include "log.h"
#include "mkmd_plan.h"
#include "settings.h"
#include "skmd.h"
#include "skmd_exec.h"
#include "vast_exec.h"

namespace tutti {

std::string statsReport() {
  std::ostringstream o;
  for (BackingDevice *d : backend().devices()) {
    const Counters &c = d->counters;
    o << "TUTTI device=" << d->index << " name=\"" << d->name << "\" platform=\"" << d->platformName
      << "\" kernels=" << c.kernels << " kernel_ms=" << double(c.kernelNs) / 1e6
      << " h2d_bytes=" << c.h2dBytes << " h2d_transfers=" << c.h2dTransfers
      << " d2h_bytes=" << c.d2hBytes << " d2h_transfers=" << c.d2hTransfers
      << " device_copies=" << c.deviceCopies << " split_pieces=" << c.splitPieces
      << " work_items=" << c.workItems << " staged_bytes=" << c.stagedBytes
      << " writes_aside=" << c.writesAside
      << " failures=" << c.failures << " retired=" << (d->retired ? 1 : 0) << "\n";
  }
  if (uint64_t f = failovers()) o << "TUTTI failovers=" << f << "\n";
  VastCounters v = vastCounters();
  if (v.launches)
    o << "TUTTI vast_launches=" << v.launches << " vast_slices=" << v.slices << " vast_in_bytes=" << v.bytesIn
      << " vast_out_bytes=" << v.bytesOut << " vast_ms=" << double(v.ns) / 1e6
      << " vast_inspected=" << v.inspected << " vast_forwarded_bytes=" << v.forwarded
      << " vast_kernel_ms=" << double(v.kernelNs) / 1e6 << " vast_rebased=" << v.rebased
      << " vast_resident_bytes=" << v.resident << " vast_replica_bytes=" << v.fromReplica << "\n";
  if (settings().mode != KernelMode::Whole) o << "TUTTI split_launches=" << skmdSplitLaunches()
                                    << " merged_launches=" << skmdMergedLaunches()
                                    << " model_decisions=" << skmdModelDecisions()
                                    << " probes=" << skmdProbes()
                                    << " kept_decisions=" << skmdKeptDecisions()
                                    << " hull_shapes=" << skmdHullShapes()
                                    << " predicted_launches=" << skmdPredictedLaunches()
                                    << " predicted_ms=" << skmdPredictedMs() << "\n";
  if (settings().mode == KernelMode::Mkmd) {
    MkmdCounters m = mkmdCounters();
    o << "TUTTI mkmd_graphs=" << m.graphs << " mkmd_kernels=" << m.kernels << " mkmd_split=" << m.split
      << " mkmd_predicted_ms=" << m.predictedMs << " mkmd_schedule_us=" << m.scheduleUs
      << " mkmd_pushes=" << m.pushes << " mkmd_streamed=" << m.streamed << " mkmd_reused=" << m.reused
      << " mkmd_chains=" << m.chains << " mkmd_unknown=" << m.unknown << " mkmd_eager=" << m.eager << " mkmd_measured_ms=" << m.measuredMs
      << " mkmd_measured_graphs=" << m.measured << "\n";
  }
  return o.str();
}

void printStatsAtExit() {
  if (!settingsOk() || !settings().stats) return;
  std::string s = statsReport();
  if (!s.empty()) {
    s.pop_back();
    logRaw("%s", s.c_str());
  }
}

}  // namespace tutti
