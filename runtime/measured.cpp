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

using Entry = std::map<int, PerSlot>;

// k's runs per slot, or null while none were recorded (map nodes stay put: the pointer
// kept on the kernel stays valid).
const Entry *entryOf(const _cl_kernel *k) REQUIRES(g_mu) {
  if (k->measuredEntry) return static_cast<const Entry *>(k->measuredEntry);
  auto it = g_runs.find({k->program, k->name});
  if (it == g_runs.end()) return nullptr;
  const_cast<_cl_kernel *>(k)->measuredEntry = &it->second;
  return &it->second;
}

const PerSlot *runsOf(const _cl_kernel *k, int slot) REQUIRES(g_mu) {
  const Entry *e = entryOf(k);
  if (!e) return nullptr;
  auto s = e->find(slot);
  return s == e->end() ? nullptr : &s->second;
}

}  // namespace

void setRunObserver(RunObserver fn) { g_observer = fn; }

void recordKernelRun(Command *cmd, int slot, double workItems, uint64_t ns) {
  double seconds = double(ns) * 1e-9;
  {
    MutexLock g(g_mu);
    if (!cmd->kernel->measuredEntry) cmd->kernel->measuredEntry = &g_runs[{cmd->kernel->program, cmd->kernel->name}];
    PerSlot &p = (*static_cast<Entry *>(cmd->kernel->measuredEntry))[slot];
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
  const PerSlot *p = runsOf(k, slot);
  if (!p || p->seconds <= 0) return -1;
  return p->items / (p->seconds * 1e9);
}

std::vector<KernelRun> measuredRuns(const _cl_kernel *k, int slot) {
  MutexLock g(g_mu);
  const PerSlot *p = runsOf(k, slot);
  return p ? p->runs : std::vector<KernelRun>{};
}

uint64_t measuredRunCount(const _cl_kernel *k, int slot) {
  MutexLock g(g_mu);
  const PerSlot *p = runsOf(k, slot);
  return p ? p->recorded : 0;
}

}  // namespace tutti
