// mkmd_plan.cpp - TUTTI_MODE=mkmd: held commands become a kernel graph, MKMD schedules it
// (profiles/ mkmd: coarse list scheduling, then splits into idle slots), and each kernel
// command carries its share of work-groups per device into planning.
#include "mkmd_plan.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>

#include "backend.h"
#include "clock.h"
#include "coherence.h"
#include "completion.h"
#include "log.h"
#include "memory.h"
#include "mkmd_graph.h"
#include "settings.h"
#include "trace.h"

namespace tutti {

namespace mk = profiles::mkmd;

namespace {

MkmdCounters g_counters;  // under the API lock, like the commands it counts

// A device with no prediction for a kernel must not get it: a time no schedule picks.
constexpr double kUnknownSeconds = 1e3;

// A graph that repeats (an iterative solver's windows) keeps its schedule: the same kernel
// objects with the same groups over the same buffers, in the same order, with the same
// predictions known and the data in the same places. Times are not in the key: once every
// prediction is known, the window's schedule stays as it was first made.
struct KeptSchedule {
  std::vector<uint64_t> key;
  std::vector<std::vector<uint64_t>> groups;  // [kernel][device]
  std::vector<double> start;                  // [kernel]
  double makespan = 0;
  std::vector<double> deviceEnd, bufferEnd;   // scheduledEnds
};
std::deque<KeptSchedule> g_kept;  // newest first, under the API lock
constexpr size_t kSchedulesKept = 8;

// What earlier graphs left running, as their schedules predicted it (absolute ns): until
// when each device of a context runs their kernels, and when each root buffer's last
// scheduled writer ends. Without it a later window was scheduled as if every device were
// free and its inputs written. Hints only: a stale entry has passed by the time an address
// comes back.
std::map<const _cl_context *, std::vector<uint64_t>> g_busyUntil;
std::map<const _cl_mem *, uint64_t> g_writtenAt;

// Returns the longest device backlog (seconds).
double applyBacklog(const MkmdGraphBuilder &b, _cl_context *ctx, uint64_t now, mk::Graph &g, std::vector<mk::Device> &devs) {
  auto ahead = [now](uint64_t t) { return t > now ? double(t - now) * 1e-9 : 0.0; };
  auto busy = g_busyUntil.find(ctx);
  if (busy != g_busyUntil.end() && busy->second.size() == devs.size())
    for (size_t d = 0; d < devs.size(); ++d) devs[d].busyUntil = ahead(busy->second[d]);
  for (size_t i = 0; i < g.buffers.size() && i < b.roots.size(); ++i) {
    auto w = g_writtenAt.find(b.roots[i]);
    if (w != g_writtenAt.end()) g.buffers[i].readyAt = ahead(w->second);
  }
  double most = 0;
  for (const mk::Device &d : devs) most = std::max(most, d.busyUntil);
  return most;
}

// The schedule's ends, relative to its start: per device, and per graph buffer of its
// last writer (0: none).
void scheduledEnds(const mk::Graph &g, const mk::Schedule &s, size_t ndev, std::vector<double> &device,
                   std::vector<double> &buffer) {
  device.assign(ndev, 0);
  buffer.assign(g.buffers.size(), 0);
  for (const mk::Task &t : s.tasks) {
    if (t.kind != mk::Task::Compute) continue;
    device[size_t(t.device)] = std::max(device[size_t(t.device)], t.end);
    for (int w : g.kernels[size_t(t.kernel)].writes) buffer[size_t(w)] = std::max(buffer[size_t(w)], t.end);
  }
}

void rememberBacklog(const MkmdGraphBuilder &b, _cl_context *ctx, uint64_t now, const std::vector<double> &device,
                     const std::vector<double> &buffer) {
  auto at = [now](double sec) { return now + uint64_t(std::max(0.0, sec) * 1e9); };
  for (auto it = g_writtenAt.begin(); it != g_writtenAt.end();)
    it = it->second <= now ? g_writtenAt.erase(it) : std::next(it);
  for (auto it = g_busyUntil.begin(); it != g_busyUntil.end();)
    it = std::all_of(it->second.begin(), it->second.end(), [now](uint64_t t) { return t <= now; })
             ? g_busyUntil.erase(it)
             : std::next(it);
  std::vector<uint64_t> &busy = g_busyUntil[ctx];
  busy.resize(device.size(), 0);
  for (size_t d = 0; d < device.size(); ++d)
    if (device[d] > 0) busy[d] = std::max(busy[d], at(device[d]));
  for (size_t i = 0; i < buffer.size() && i < b.roots.size(); ++i)
    if (buffer[i] > 0) g_writtenAt[b.roots[i]] = at(buffer[i]);
}

std::vector<uint64_t> graphKey(const MkmdGraphBuilder &b) {
  const mk::GraphFile &f = b.file;
  std::vector<uint64_t> key{f.models.size(), f.graph.buffers.size(), f.graph.kernels.size()};
  for (size_t i = 0; i < f.graph.buffers.size(); ++i) {
    const mk::Buffer &x = f.graph.buffers[i];
    key.insert(key.end(), {uint64_t(uintptr_t(b.roots[i])), x.bytes,
                           uint64_t(x.cold) << 2 | uint64_t(x.fromHost) << 1 | x.toHost, x.on.size()});
    key.insert(key.end(), x.on.begin(), x.on.end());
  }
  auto list = [&key](const std::vector<int> &v) {
    key.push_back(v.size());
    key.insert(key.end(), v.begin(), v.end());
  };
  for (size_t k = 0; k < f.graph.kernels.size(); ++k) {
    const mk::Kernel &x = f.graph.kernels[k];
    key.insert(key.end(), {uint64_t(uintptr_t(b.kernels[k]->kernel)), x.groups, uint64_t(b.analysed[k]),
                           uint64_t(x.splittable) << 1 | x.mergeOutputs});
    list(x.reads), list(x.writes), list(x.after);
    key.push_back(x.partialRead.size());
    for (bool pr : x.partialRead) key.push_back(pr);
    for (bool known : f.timeKnown[k]) key.push_back(known);
  }
  return key;
}

// The held commands in the order the schedule starts them: each kernel at its start, every
// other command right behind the kernel held before it. The commands' dependencies still
// decide when each may go; this order decides which goes first among those that may. In
// the app's order, mk_Lyapunov's transpose, which a second GPU's product waited for, was
// issued behind a 21 ms product on the first GPU's queue.
void issueInScheduleOrder(std::deque<Command *> &held, const std::vector<Command *> &kernels,
                          const std::vector<double> &start) {
  std::vector<std::pair<double, Command *>> order;
  order.reserve(held.size());
  double key = -1;
  size_t next = 0;  // the graph's kernels are the held kernels, in held order
  for (Command *c : held) {
    bool kernel = next < kernels.size() && kernels[next] == c;
    if (kernel) key = std::max(key, start[next]);
    order.push_back({kernel ? start[next++] : key, c});
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  for (size_t i = 0; i < order.size(); ++i) held[i] = order[i].second;
}

}  // namespace

bool mkmdScheduleHeld(std::deque<Command *> &held) {
  if (held.front()->q->ctx->slots.size() == 1) return true;  // nothing to choose between
  _cl_context *ctx = held.front()->q->ctx;
  MkmdGraphBuilder b;
  bool any = false;
  for (Command *c : held) {
    b.add(c);
    any |= c->kind == CmdKind::Kernel;
  }
  if (!any) return false;
  uint64_t t0 = nowNs();
  auto &file = b.file;
  const size_t nd = file.models.size();
  // Host merges cost far more than their bytes over memory bandwidth (a merged split of
  // mk_ABE on two H100s: 534 ms against 123 whole): only concatenating splits here.
  for (mk::Kernel &k : file.graph.kernels)
    if (k.mergeOutputs) k.splittable = false;
  std::vector<uint64_t> key = graphKey(b);
  auto kept = std::find_if(g_kept.begin(), g_kept.end(), [&](const KeptSchedule &k) { return k.key == key; });
  // A kernel known nowhere goes where whole mode would put it: the strongest device that
  // can run it, at no time, and nowhere else. At no time on every device, the schedule put
  // it wherever it finished first, which is the host's CPU, since its inputs need no copy
  // there: mk_Lyapunov's 4096^2 products on two H200s took 7 s on the CPU instead of 21 ms.
  // The same where the strongest device has no time for it, whatever the others have: times
  // of weaker devices alone put every such kernel on them. Profiles made on another machine
  // (two H200s' database on two H100s: only the CPU's identity matched) ran mk_ABE's
  // products on the CPU, 30 s against 117 ms in whole mode.
  for (size_t k = 0; k < file.graph.kernels.size(); ++k) {
    const std::vector<cl_kernel> &real = b.kernels[k]->kernel->real;
    auto runs = [&](size_t d) { return d < real.size() && real[d]; };
    double strongest = 0;
    for (size_t d = 0; d < nd; ++d)
      if (runs(d)) strongest = std::max(strongest, ctx->slots[d].dev->strength());
    auto isStrongest = [&](size_t d) { return runs(d) && ctx->slots[d].dev->strength() >= strongest; };
    bool strongestKnown = false;
    for (size_t d = 0; d < nd; ++d) strongestKnown |= isStrongest(d) && file.timeKnown[k][d];
    if (!strongestKnown && b.analysed[k]) {
      ++g_counters.unknown;
      TUTTI_LOG(Info, "mkmd: no time model for kernel %s on the strongest device: placed as in whole mode",
                file.graph.kernels[k].name.c_str());
    }
    for (size_t d = 0; d < nd; ++d) {
      if (strongestKnown && file.timeKnown[k][d]) continue;
      file.kernelTime[k][d] = {!strongestKnown && isStrongest(d) ? 0 : kUnknownSeconds, 0};
      file.timeKnown[k][d] = true;
    }
  }
  const mk::Graph &g = file.graph;
  std::vector<std::vector<uint64_t>> groups;
  std::vector<double> start, deviceEnd, bufferEnd;
  double makespan = 0, backlog = 0;
  const bool reused = kept != g_kept.end();
  if (reused) {
    groups = kept->groups, start = kept->start, makespan = kept->makespan;
    deviceEnd = kept->deviceEnd, bufferEnd = kept->bufferEnd;
    std::rotate(g_kept.begin(), kept, kept + 1);  // newest first
  } else {
    mk::Graph inst;
    std::vector<mk::Device> devs;
    std::string err;
    if (!mk::instantiate(file, {}, inst, devs, err)) {
      TUTTI_LOG(Warn, "mkmd: cannot schedule %zu kernels: %s", g.kernels.size(), err.c_str());
      return false;
    }
    backlog = applyBacklog(b, ctx, t0, inst, devs);
    mk::Options opt;
    opt.minSplitSeconds = double(settings().mkmd_split_min_us) * 1e-6;
    mk::Schedule s = mk::schedule(inst, devs, opt);
    scheduledEnds(inst, s, nd, deviceEnd, bufferEnd);
    groups.assign(g.kernels.size(), std::vector<uint64_t>(nd, 0));
    start.assign(g.kernels.size(), s.makespan);
    for (const mk::Task &t : s.tasks)
      if (t.kind == mk::Task::Compute) {
        groups[size_t(t.kernel)][size_t(t.device)] += t.groups;
        start[size_t(t.kernel)] = std::min(start[size_t(t.kernel)], t.start);
      }
    makespan = s.makespan;
    g_kept.push_front({std::move(key), groups, start, makespan, deviceEnd, bufferEnd});
    if (g_kept.size() > kSchedulesKept) g_kept.pop_back();
  }
  rememberBacklog(b, ctx, t0, deviceEnd, bufferEnd);
  int split = 0;
  auto run = std::make_shared<MkmdRun>();
  run->t0 = t0;
  run->kernels = run->pending = g.kernels.size();
  run->predictedMs = std::max(0.0, makespan - backlog) * 1e3;
  for (Command *c : b.kernels) c->mkmdRun = run;
  for (size_t k = 0; k < g.kernels.size(); ++k) {
    if (!b.analysed[k]) continue;
    b.kernels[k]->forcedGroups = groups[k];
    split += std::count_if(groups[k].begin(), groups[k].end(), [](uint64_t x) { return x > 0; }) > 1;
  }
  // A kernel's output that a kernel on another device reads next moves right after the
  // producer is issued, behind it on its in-order queue. Moved when the consumer is
  // issued instead, the copy came behind every kernel issued to the producer's device
  // since (mk_TripleCommutator on two H200s: the CPU's adds waited for all twelve
  // products, 224 ms against a schedule of 130).
  {
    std::vector<int> lastWriter(b.roots.size(), -1);
    auto onlyDevice = [&](size_t k) {
      int dev = -1;
      for (size_t d = 0; d < nd; ++d)
        if (groups[k][d]) {
          if (dev >= 0) return -1;
          dev = int(d);
        }
      return dev;
    };
    for (size_t k = 0; k < g.kernels.size(); ++k) {
      int to = b.analysed[k] ? onlyDevice(k) : -1;
      for (int r : g.kernels[k].reads) {
        int p = lastWriter[size_t(r)];
        // A producer whose reader runs elsewhere reports its own completion: lazily
        // issued, it was reported with the next armed launch on its queue (completion.cpp),
        // and mk_Lyapunov's second GPU waited 21 ms for a 0.1 ms transpose that way. Its
        // event also lets the copies of its outputs wait for it alone (copyOutWaits).
        if (p >= 0 && (to < 0 || onlyDevice(size_t(p)) != to)) b.kernels[size_t(p)]->ev->wanted = true;
        if (to < 0 || p < 0) continue;
        int from = onlyDevice(size_t(p));
        auto &push = b.kernels[size_t(p)]->pushTo;
        std::pair<_cl_mem *, int> item{b.roots[size_t(r)], to};
        if (from >= 0 && from != to && std::find(push.begin(), push.end(), item) == push.end()) {
          push.push_back(item);
          ++g_counters.pushes;
        }
      }
      for (int w : g.kernels[k].writes) lastWriter[size_t(w)] = b.analysed[k] ? int(k) : -1;
    }
  }
  // The app's writes in the window go straight to the device of the buffer's first
  // reader (issueWrite follows the affinity), not to the strongest device: on two H100s,
  // BiCGSTAB's matrix went to the first while the schedule ran every kernel on the second.
  std::vector<bool> placed(b.roots.size(), false);
  for (size_t k = 0; k < g.kernels.size(); ++k) {
    if (!b.analysed[k]) continue;
    int main = int(std::max_element(groups[k].begin(), groups[k].end()) - groups[k].begin());
    for (int r : g.kernels[k].reads)
      if (!placed[size_t(r)]) placed[size_t(r)] = true, b.roots[size_t(r)]->store->affinity = main;
    for (int w : g.kernels[k].writes) placed[size_t(w)] = true;
  }
  if (logEnabled(LogLevel::Debug))
    for (size_t k = 0; k < g.kernels.size(); ++k) {
      std::string on, predicted;
      char buf[64];
      for (size_t d = 0; d < nd; ++d) {
        if (groups[k][d]) on += " " + b.labels[d].substr(0, b.labels[d].find(':')) + "=" + std::to_string(groups[k][d]);
        const auto &t = file.kernelTime[k][d];
        std::snprintf(buf, sizeof buf, " %.3f", (t.fixedSeconds + t.perGroupSeconds * double(g.kernels[k].groups)) * 1e3);
        predicted += buf;
      }
      TUTTI_LOG(Debug, "mkmd: %s (%p) starts at %.3f ms on%s (whole, per device:%s ms)", g.kernels[k].name.c_str(),
                (void *)b.kernels[k], start[k] * 1e3, on.c_str(), predicted.c_str());
    }
  // What the graph waits for that went before it (TUTTI_MKMD_EAGER's launches) reports its
  // completion now, before the graph's kernels queue behind it: armed later, a lazy launch
  // completes with the newest launch of its queue (armCompletion), and mk_Lyapunov's second
  // GPU waited 23 ms on two H100s for a 0.1 ms transpose behind a product on the first.
  for (Command *c : held)
    for (_cl_event *d : c->deps)
      if (!d->done && d->cmd && d->cmd->state == Command::State::Issued) armCompletion(d->cmd);
  pinQueuedWriters(ctx, b.roots);
  issueInScheduleOrder(held, b.kernels, start);
  uint64_t t1 = nowNs();
  ++g_counters.graphs;
  g_counters.reused += reused;
  g_counters.kernels += g.kernels.size();
  g_counters.split += uint64_t(split);
  // What this graph adds to the app's predicted time: earlier graphs' counted theirs.
  g_counters.predictedMs += std::max(0.0, makespan - backlog) * 1e3;
  g_counters.scheduleUs += double(t1 - t0) / 1e3;
  traceSpan(-1, "tutti", reused ? "mkmd schedule (kept)" : "mkmd schedule", t0, t1, g.kernels.size());
  TUTTI_LOG(Info, "mkmd: %zu kernels scheduled in %.0f us%s, predicted makespan %.3f ms, %d split",
            g.kernels.size(), double(t1 - t0) / 1e3, reused ? " (the schedule kept for this graph)" : "",
            makespan * 1e3, split);
  // Every kernel analysed and whole on one and the same device.
  int only = -1;
  for (size_t k = 0; k < g.kernels.size(); ++k) {
    if (!b.analysed[k]) return false;
    for (size_t d = 0; d < nd; ++d)
      if (groups[k][d]) {
        if (only >= 0 && int(d) != only) return false;
        only = int(d);
      }
  }
  return only >= 0;
}

// A window of short kernels is scheduled at once: held until the app waits, a chain of
// small kernels lost the overlap of the app's enqueues with their work, and its schedule
// keeps them on one device anyway (mk_BiCGSTAB on two H200s: 9.1 ms held in windows of 64,
// 8.1 in windows of 8 that then stream, 8.2 in whole mode). A window of long kernels holds
// on: mk_ABE's products, scheduled eight first and its last sum alone, took 86-158 ms
// against 72 in one graph.
//
// A window that is one chain (each held command waits for the one held before it) is
// scheduled at once too, whatever its kernels take: a chain has no branches for the
// graph to run side by side, so waiting for more of it only costs the overlap. K-means
// with 8 models held all 31 commands until its read (12.4 ms against 10.1 in whole
// mode on two H200s), its kernels being too long for the short bound.
namespace {
bool heldChain(const std::deque<Command *> &held) {
  for (size_t i = 1; i < held.size(); ++i) {
    const _cl_event *before = held[i - 1]->ev;
    const auto &deps = held[i]->deps;
    if (std::find(deps.begin(), deps.end(), before) == deps.end()) return false;
  }
  return true;
}
}  // namespace

bool mkmdWindowFull(const std::deque<Command *> &held) {
  const Settings &st = settings();
  const uint64_t most = std::max<uint64_t>(st.mkmd_window, 1);
  if (held.size() >= most) return true;
  if (held.size() != st.mkmd_short_window) return false;
  if (heldChain(held)) {
    ++g_counters.chains;
    return true;
  }
  double sum = 0;
  for (Command *c : held)
    if (c->kind == CmdKind::Kernel) sum += mkmdFastestSeconds(c);
  return sum * 1e6 < double(st.mkmd_short_us);
}

void mkmdStreamed(uint64_t n) { g_counters.streamed += n; }
void mkmdWentAtOnce(uint64_t n) { g_counters.eager += n; }

// Predicting a launch costs about 50,000 instructions (its model on every device), more than
// the launch itself: the verdict is kept per kernel for its latest shape (NDRange and buffer
// sizes) and asked again every kRetinyEvery launches, in case scalar arguments moved it.
bool mkmdTiny(Command *cmd) {
  constexpr uint32_t kRetinyEvery = 64;
  const uint64_t tiny = settings().mkmd_tiny_us;
  if (!tiny || cmd->kind != CmdKind::Kernel) return false;
  uint64_t bytes = 0;
  for (const ArgValue &a : cmd->args)
    if (a.kind == ArgValue::Mem && a.mem) bytes += a.mem->size;
  _cl_kernel::TinyMemo &m = cmd->kernel->mkmdTiny;
  // A kernel's first launch asked about goes unjudged (TUTTI_MKMD_FIRST_UNJUDGED): the
  // verdict's first run in a process touches code and models nothing warmed, 40-60 us on an
  // H200 with the GPU idle behind K-means's 22 us first kernel. Its next launch is judged.
  if (!m.seen) {
    m.seen = true;
    if (settings().mkmd_first_unjudged) return true;
  }
  const bool same = m.uses && m.uses < kRetinyEvery && m.dim == cmd->dim && m.bytes == bytes &&
                    std::equal(cmd->global, cmd->global + 3, m.global) && std::equal(cmd->local, cmd->local + 3, m.local);
  if (same) {
    ++m.uses;
    return m.tiny;
  }
  const double t = mkmdFastestSeconds(cmd);
  m.dim = cmd->dim, m.bytes = bytes, m.uses = 1;
  std::copy(cmd->global, cmd->global + 3, m.global);
  std::copy(cmd->local, cmd->local + 3, m.local);
  m.tiny = t > 0 && t * 1e6 < double(tiny);
  return m.tiny;
}

// The graphs' runs as a union: a window scheduled while the one before still runs adds
// only the time after that one's end, as its predictedMs leaves out the backlog.
void mkmdCommandDone(Command *cmd) {
  static uint64_t coveredUntil = 0;  // under the API lock, like the commands
  std::shared_ptr<MkmdRun> run = std::move(cmd->mkmdRun);
  run->end = std::max(run->end, cmd->ev->tEnd ? uint64_t(cmd->ev->tEnd) : nowNs());
  if (--run->pending) return;
  const uint64_t from = std::max(run->t0, coveredUntil);
  const double ms = run->end > from ? double(run->end - from) * 1e-6 : 0.0;
  coveredUntil = std::max(coveredUntil, run->end);
  g_counters.measuredMs += ms;
  ++g_counters.measured;
  traceSpan(-1, "tutti", "mkmd graph run", run->t0, run->end, run->kernels);
  TUTTI_LOG(Info, "mkmd: graph of %zu kernels ran %.3f ms after its schedule (%.3f ms counted), predicted %.3f ms",
            run->kernels, double(run->end - run->t0) * 1e-6, ms, run->predictedMs);
}

MkmdCounters mkmdCounters() { return g_counters; }

}  // namespace tutti
