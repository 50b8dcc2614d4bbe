// measured.cpp - recent kernel runs per kernel and device, and their throughput.
#include "measured.h"

#include <map>
#include <mutex>
#include <string>

#include "thread_annotations.h"

namespace tutti {

namespace {

struct PerSlot {
  std::vector<KernelRun> runs;  // newest last
  double items = 0, seconds = 0;  // sums over runs
  uint64_t recorded = 0;          // runs ever recorded: changes whenever runs does
};

// Completions arrive on the dispatcher while placement and planning read: own lock.
Mutex g_mu;
std::map<std::pair<const void *, std::string>, std::map<int, PerSlot>> g_runs GUARDED_BY(g_mu);
RunObserver g_observer = nullptr;

}  // namespace

void setRunObserver(RunObserver fn) { g_observer = fn; }

void recordKernelRun(Command *cmd, int slot, double workItems, uint64_t ns) {
  double seconds = double(ns) * 1e-9;
  {
    MutexLock g(g_mu);
    PerSlot &p = g_runs[{cmd->kernel->program, cmd->kernel->name}][slot];
    if (p.runs.size() >= kKeptRuns) {
      p.items -= p.runs.front().items;
      p.seconds -= p.runs.front().seconds;
      p.runs.erase(p.runs.begin());
    }
    p.runs.push_back({workItems, seconds});
    ++p.recorded;
    p.items += workItems;
    p.seconds += seconds;
  }
  if (g_observer) g_observer(cmd, slot, workItems, seconds);
}

double measuredThroughput(const _cl_kernel *k, int slot) {
  MutexLock g(g_mu);
  auto it = g_runs.find({k->program, k->name});
  if (it == g_runs.end()) return -1;
  auto s = it->second.find(slot);
  if (s == it->second.end() || s->second.seconds <= 0) return -1;
  return s->second.items / (s->second.seconds * 1e9);
}

std::vector<KernelRun> measuredRuns(const _cl_kernel *k, int slot) {
  MutexLock g(g_mu);
  auto it = g_runs.find({k->program, k->name});
  if (it == g_runs.end()) return {};
  auto s = it->second.find(slot);
  return s == it->second.end() ? std::vector<KernelRun>{} : s->second.runs;
}

uint64_t measuredRunCount(const _cl_kernel *k, int slot) {
  MutexLock g(g_mu);
  auto it = g_runs.find({k->program, k->name});
  if (it == g_runs.end()) return 0;
  auto s = it->second.find(slot);
  return s == it->second.end() ? 0 : s->second.recorded;
}

}  // namespace tutti
