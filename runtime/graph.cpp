// graph.cpp - dependencies of a new command from barriers, queue order and data.
#include "graph.h"

#include <algorithm>

#include "access.h"

namespace tutti {

namespace {
bool overlaps(Range a, Range b) { return a.begin < b.end && b.begin < a.end; }
bool pending(_cl_event *e) REQUIRES(apiMutex) { return e && !e->done; }

// An in-order queue's command may overtake earlier ones whose data it does not touch, but
// not what those wait for elsewhere: in queue order it runs after them, so after their
// wait lists too (Soak.ThreadsMixedCommandsMatchTheModel: a write ran ahead of a fill that
// waited for another queue's kernel, and that kernel then overwrote what it wrote). `deps`
// holds the command's own wait list so far.
void inheritExternalWaits(Command *cmd, std::vector<_cl_event *> &deps) REQUIRES(apiMutex) {
  _cl_command_queue *q = cmd->q;
  auto &ext = q->externalWaits;
  ext.erase(std::remove_if(ext.begin(), ext.end(), [](const auto &w) REQUIRES(apiMutex) { return !pending(w.wait); }),
            ext.end());
  size_t own = deps.size();
  for (const auto &w : ext) deps.push_back(w.wait);
  for (size_t i = 0; i < own; ++i)
    if (deps[i]->queue != q && pending(deps[i])) ext.push_back({deps[i], cmd->ev});
}

}  // namespace

void graphDependencies(Command *cmd, std::vector<_cl_event *> &deps) {
  _cl_command_queue *q = cmd->q;
  if (pending(q->lastBarrier)) deps.push_back(q->lastBarrier);
  if (cmd->waitsAll) {
    // Markers and barriers without a wait list wait for everything before them: what
    // came before the last barrier is behind that barrier already.
    for (auto *e : q->sinceBarrier)
      if (pending(e) && e != cmd->ev) deps.push_back(e);
  }
  if (q->inOrder()) inheritExternalWaits(cmd, deps);
  if (cmd->blocksLater) {
    // Barriers (and markers of in-order queues) hold back everything after them.
    q->accesses.clear();
    q->externalWaits.clear();
    q->sinceBarrier.clear();
    q->lastBarrier = cmd->ev;
    return;
  }
  // A marker that waits for everything before it (out-of-order queues: it holds back
  // nothing after it) stands for all of that: later markers and barriers wait for it and
  // what came after it, not again for every command before it (dep_chain ooo-marker: 867
  // deps per marker at 8,000 kernels, growing with the app's length).
  if (cmd->waitsAll) q->sinceBarrier.clear();
  q->sinceBarrier.push_back(cmd->ev);
  if (cmd->waitsAll || !q->inOrder()) return;
  // In-order queues: order by data, so independent commands may overlap or reorder.
  // Kept across launches (the runtime lock guards it; swapped out in case of reentry),
  // never destroyed: an app thread may still enqueue while the process exits.
  static std::vector<Access> &scratch = *new std::vector<Access>;
  std::vector<Access> mine;
  mine.swap(scratch);
  mine.clear();
  accessesOf(cmd, mine);
  for (auto &a : q->accesses)
    if (pending(a.ev))
      for (auto &m : mine)
        if (a.root == m.root && (a.write || m.write) && overlaps(a.r, m.r)) {
          deps.push_back(a.ev);
          break;
        }
  // A write that covers an earlier access orders everything after it behind that
  // access already, so the earlier record can go: the list stays short however many
  // launches are in flight.
  auto stale = [&](const _cl_command_queue::Access &a) REQUIRES(apiMutex) {
    if (!pending(a.ev)) return true;
    for (auto &m : mine)
      if (m.write && m.root == a.root && m.r.begin <= a.r.begin && a.r.end <= m.r.end) return true;
    return false;
  };
  q->accesses.erase(std::remove_if(q->accesses.begin(), q->accesses.end(), stale),
                    q->accesses.end());
  for (auto &m : mine) q->accesses.push_back({m.root, m.r, m.write, cmd->ev});
  scratch.swap(mine);
}

void graphForget(_cl_command_queue *q, _cl_event *ev) {
  if (q->lastBarrier == ev) q->lastBarrier = nullptr;
  q->externalWaits.erase(std::remove_if(q->externalWaits.begin(), q->externalWaits.end(),
                                        [ev](const auto &w) { return w.owner == ev; }),
                         q->externalWaits.end());
  q->accesses.erase(std::remove_if(q->accesses.begin(), q->accesses.end(),
                                   [ev](const auto &a) { return a.ev == ev; }),
                    q->accesses.end());
  // In-order queues report completions in order: the event is the oldest one. Out of
  // order, completions come roughly in enqueue order too, so the search stops early; the
  // event is listed at most once.
  auto &s = q->sinceBarrier;
  if (!s.empty() && s.front() == ev) s.pop_front();
  else if (auto it = std::find(s.begin(), s.end(), ev); it != s.end()) s.erase(it);
}

}  // namespace tutti
