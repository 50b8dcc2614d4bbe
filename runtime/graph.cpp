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
  cmd->ev->accessSeq = 0;  // no records name it (yet)
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
  // An event with several records (arguments on one buffer, a read and a write) is listed
  // once, without searching what is listed: a write after thousands of pending reads.
  static uint64_t mark = 0;
  ++mark;
  auto conflicts = [&](const std::deque<_cl_command_queue::Access> &list, Range r) REQUIRES(apiMutex) {
    for (const auto &a : list)
      if (pending(a.ev) && a.ev->depMark != mark && overlaps(a.r, r)) {
        a.ev->depMark = mark;
        deps.push_back(a.ev);
      }
  };
  for (const Access &m : mine) {
    auto it = q->accesses.find(m.root);
    if (it == q->accesses.end()) continue;
    conflicts(it->second.writes, m.r);
    if (m.write) conflicts(it->second.reads, m.r);
  }
  // A write that covers an earlier access orders everything after it behind that
  // access already, so the earlier record can go: the lists stay short however many
  // launches are in flight.
  for (const Access &m : mine) {
    if (!m.write) continue;
    auto it = q->accesses.find(m.root);
    if (it == q->accesses.end()) continue;
    auto stale = [&m](const _cl_command_queue::Access &a) REQUIRES(apiMutex) {
      return !pending(a.ev) || (m.r.begin <= a.r.begin && a.r.end <= m.r.end);
    };
    for (auto *list : {&it->second.reads, &it->second.writes})
      list->erase(std::remove_if(list->begin(), list->end(), stale), list->end());
  }
  cmd->ev->accessSeq = ++q->accessSeq;
  for (const Access &m : mine) {
    auto &root = q->accesses[m.root];
    (m.write ? root.writes : root.reads).push_back({m.r, cmd->ev, cmd->ev->accessSeq});
  }
  scratch.swap(mine);
}

void graphForget(_cl_command_queue *q, _cl_event *ev) {
  if (q->lastBarrier == ev) q->lastBarrier = nullptr;
  q->externalWaits.erase(std::remove_if(q->externalWaits.begin(), q->externalWaits.end(),
                                        [ev](const auto &w) { return w.owner == ev; }),
                         q->externalWaits.end());
  // Each list is in seq order, and an in-order queue completes its oldest command first:
  // ev's records are at the fronts, found without a scan however long the lists are.
  if (ev->accessSeq)
    for (auto it = q->accesses.begin(); it != q->accesses.end();) {
      for (auto *list : {&it->second.reads, &it->second.writes}) {
        auto at = std::lower_bound(list->begin(), list->end(), ev->accessSeq,
                                   [](const _cl_command_queue::Access &a, uint64_t seq) { return a.seq < seq; });
        auto end = at;
        while (end != list->end() && end->seq == ev->accessSeq) ++end;
        list->erase(at, end);
      }
      it = it->second.reads.empty() && it->second.writes.empty() ? q->accesses.erase(it) : std::next(it);
    }
  // In-order queues report completions in order: the event is the oldest one. Out of
  // order, completions come roughly in enqueue order too, so the search stops early; the
  // event is listed at most once.
  auto &s = q->sinceBarrier;
  if (!s.empty() && s.front() == ev) s.pop_front();
  else if (auto it = std::find(s.begin(), s.end(), ev); it != s.end()) s.erase(it);
}

}  // namespace tutti
