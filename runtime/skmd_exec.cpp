// skmd_exec.cpp - issuing and completing kernel launches split across backing devices.
#include "skmd_exec.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>

#include "backend.h"
#include "clock.h"
#include "coherence.h"
#include "completion.h"
#include "host_copy.h"
#include "icd.h"
#include "inbox.h"
#include "log.h"
#include "measured.h"
#include "memory.h"
#include "skmd.h"
#include "skmd_launch.h"
#include "thread_annotations.h"
#include "trace.h"
#include "transfer.h"
#include "vast_exec.h"
#include "vast_launch.h"
#include "watcher.h"
#include "worker_pool.h"

namespace tutti {

namespace {

std::atomic<uint64_t> g_splitLaunches{0};
std::atomic<uint64_t> g_mergedLaunches{0};  // of those, the ones merged on the host

void CL_CALLBACK onPiece(cl_event, cl_int, void *user) {
  auto *cmd = static_cast<Command *>(user);
  if (cmd->skmd->outstanding.fetch_sub(1) == 1) inbox().postCompletion(cmd);
}

// The thread that runs paged pieces' slices on a device, one piece at a time (they wait
// on that device's queues). Never destroyed: exit must not wait for a waiting thread.
JobThread &pagedThread(int slot) {
  static JobThread *threads = new JobThread[32];
  return threads[size_t(slot) % 32];
}

// Makes piece pi's inputs (and the pre-launch content of what it may write) valid on
// its device (hostOnly: only their host side, see ensureDeviceRange; uploads: see there).
// False: wait.
bool stagePiece(Command *cmd, size_t pi, cl_int &err, bool hostOnly,
                std::vector<RealEvent> *uploads = nullptr) {
  SkmdLaunch &L = *cmd->skmd;
  _cl_context *ctx = cmd->q->ctx;
  Piece &p = L.pieces[pi];
  // Its slices copy from the homes, or from a replica the device holds whole.
  if (p.vast) return vastPieceStaged(cmd, *p.vast, err, p.slot);
  const cc::KernelInfo &ki = *L.slotInfo[p.slot];
  bool ready = true;
  for (unsigned i = 0; i < cmd->args.size() && i < ki.args.size(); ++i) {
    auto &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem) continue;
    const cc::ArgInfo &ai = ki.args[i];
    _cl_mem *root = rootOf(a.mem);
    if (ai.read) {
      Range r = skmdClamp(cc::accessedRange(ki, i, cc::AccessMode::Read, L.nd, L.scalars, p.first,
                                          p.count), a.mem);
      if (!r.empty()) ready &= ensureDeviceRange(ctx, root, r, p.slot, cmd, &err, hostOnly, uploads);
    }
    if (ai.written || ai.atomic) {
      Range w{};
      for (auto &m : L.merges)
        if (m.arg == i) w = m.hull[pi];
      for (auto &c : L.concat)
        if (c.first == i) w = c.second[pi];
      if (!w.empty()) ready &= ensureDeviceRange(ctx, root, w, p.slot, cmd, &err, hostOnly, uploads);
    }
    if (!ai.read && !ai.written && !ai.atomic) {
      // Passed but never touched: the real buffer must still exist.
      if (!realBuffer(a.mem, p.slot, &err)) return true;
    }
    if (err != CL_SUCCESS) return true;
  }
  return ready;
}

// The slot of a piece whose partial result of a merged buffer goes straight into that
// buffer's home (the zero-copy CPU's replica is the home), or -1.
int homeWriterSlot(const SkmdLaunch &L) {
  for (auto &m : L.merges)
    for (auto &p : L.pieces)
      if (p.slot == m.root->store->alias) return p.slot;
  return -1;
}

// Pre-launch content copied under the lock at most this big; more is host work.
constexpr size_t kSnapshotHere = 256 << 10;

// Before the pieces of a merged launch start: a piece that writes its partial result into
// the home (homeWriterSlot) must not start while the other devices may still upload their
// pre-launch copy from it, and every merge needs the pre-launch content of its bytes.
// Waiting for the uploads and copying whole buffers would hold the API lock, so they are
// host work (Command::hostWork) unless there is nothing to wait for and little to copy.
// False: the command waits for that work.
bool prepareMerges(Command *cmd, cl_int &err) {
  SkmdLaunch &L = *cmd->skmd;
  _cl_context *ctx = cmd->q->ctx;
  auto waits = std::make_shared<std::vector<RealEvent>>();
  std::vector<RealEvent> here;  // on drivers that must be called under the lock
  for (auto &[slot, e] : L.uploads)
    (ctx->slots[slot].dev->callsOutsideLock ? *waits : here).push_back(std::move(e));
  L.uploads.clear();
  err = waitEach(here);
  if (err != CL_SUCCESS || (L.snapshotTaken && waits->empty())) return true;
  std::vector<const char *> from;
  size_t bytes = 0;
  for (auto &m : L.merges) {
    from.push_back(m.root->store->home + m.r.begin);
    bytes += m.r.size();
  }
  auto snapshot = [L = cmd->skmd, from] {
    for (size_t i = 0; i < from.size(); ++i) {
      Merge &m = L->merges[i];
      m.initial.reset(new unsigned char[m.r.size()]);
      hostCopy(m.initial.get(), from[i], m.r.size());
    }
  };
  if (waits->empty() && bytes <= kSnapshotHere) {
    snapshot();
    L.snapshotTaken = true;
    return true;
  }
  cmd->hostWork = [waits, snapshot, taken = L.snapshotTaken] {
    cl_int e = waitEach(*waits);
    waits->clear();  // now, not when the job is dropped
    if (!taken) snapshot();
    return e;
  };
  L.snapshotTaken = true;
  return false;
}

// Stages every piece and prepares the merges. False: wait, for copies in flight
// (cmd->staging) or for host work (cmd->hostWork).
bool stage(Command *cmd, cl_int &err, bool hostOnly) {
  SkmdLaunch &L = *cmd->skmd;
  _cl_context *ctx = cmd->q->ctx;
  bool ready = true;
  for (auto &m : L.merges) ready &= ensureHost(ctx, *m.root->store, m.r, cmd);
  std::vector<RealEvent> uploads;
  for (size_t pi = 0; pi < L.pieces.size() && err == CL_SUCCESS; ++pi) {
    int slot = L.pieces[pi].slot;
    ready &= stagePiece(cmd, pi, err, hostOnly, L.merges.empty() ? nullptr : &uploads);
    if (err != CL_SUCCESS) L.failedSlot = slot;
    for (RealEvent &e : uploads) L.uploads.push_back({slot, std::move(e)});
    uploads.clear();
  }
  if (!ready || err != CL_SUCCESS || hostOnly || L.merges.empty()) return ready;
  // Only now: staging the zero-copy CPU's piece may have made its replica the home.
  int writer = homeWriterSlot(L);
  L.uploads.erase(std::remove_if(L.uploads.begin(), L.uploads.end(),
                                 [writer](const auto &u) { return writer < 0 || u.first == writer; }),
                  L.uploads.end());
  return prepareMerges(cmd, err);
}

cl_int launchPiece(Command *cmd, Piece &p) {
  SkmdLaunch &L = *cmd->skmd;
  _cl_kernel *k = cmd->kernel;
  SkmdProgram &sp = *k->program->skmd;
  cl_kernel rk = sp.kernels[k->name][p.slot];
  DeviceSlot &ds = cmd->q->ctx->slots[p.slot];
  const cl_icd_dispatch &d = icd(rk);
  cl_int err = setKernelArgs(cmd, rk, p.slot);
  if (err != CL_SUCCESS) return err;
  cl_uint base = cl_uint(cmd->args.size());
  for (const cc::SubLaunch &s : cc::planPartialLaunch(L.nd, p.first, p.count)) {
    for (unsigned i = 0; i < cc::kAbiArgs && err == CL_SUCCESS; ++i)
      err = d.clSetKernelArg(rk, base + i, sizeof(cl_ulong), &s.abi[i]);
    size_t g[3], l[3];
    for (unsigned j = 0; j < 3; ++j) g[j] = size_t(s.global_size[j]), l[j] = size_t(s.local_size[j]);
    RealEvent e;
    if (err == CL_SUCCESS)
      err = icd(ds.queue()).clEnqueueNDRangeKernel(ds.queue(), rk, s.work_dim, nullptr, g, l, 0,
                                                 nullptr, e.out());
    if (err != CL_SUCCESS) break;
    (p.firstEv ? p.lastEv : p.firstEv) = std::move(e);
  }
  if (err == CL_SUCCESS && !p.lastEv) p.lastEv = p.firstEv.share();
  return err;
}

// dst gets every byte in which a piece's result differs from the pre-launch content:
// those bytes were written by that piece (kernels that write the same byte from two
// work-groups race, so at most one piece changes any byte).
void mergeDiff(unsigned char *dst, const unsigned char *part, const unsigned char *init, size_t n) {
  // Eight bytes at a time, blended through a mask of the bytes that changed: a byte loop
  // for every word that differs ran at 1.4 GB/s where a piece wrote half the words.
  constexpr uint64_t kLow = 0x0101010101010101ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t a, b;
    std::memcpy(&a, part + i, 8);
    std::memcpy(&b, init + i, 8);
    uint64_t x = a ^ b;
    if (!x) continue;
    x |= x >> 4, x |= x >> 2, x |= x >> 1;  // each byte's low bit: did any bit change
    const uint64_t mask = (x & kLow) * 0xFF;
    uint64_t d;
    std::memcpy(&d, dst + i, 8);
    d = (d & ~mask) | (a & mask);
    std::memcpy(dst + i, &d, 8);
  }
  for (; i < n; ++i)
    if (part[i] != init[i]) dst[i] = part[i];
}

// Where a merge's partial results come from and go to, captured under the lock: the host
// work that merges them runs without it.
struct MergePart {
  DeviceSlot *ds;
  cl_mem buf;
  Range h;
};
struct MergeInto {
  unsigned char *home;
  bool restore;  // no piece wrote the home: it starts again from the pre-launch content
  std::vector<MergePart> parts;  // the partial results read back from devices
};

// A driver that must not be called beside the lock (BackingDevice::callsOutsideLock) reads
// under it; the rest of the merge runs without it.
cl_int readPartial(const MergePart &p, unsigned char *dst) {
  auto read = [&] {
    return readNow(*p.ds, p.buf, p.h.begin, p.h.size(), dst, Route::StagedIfWanted, "partial result");
  };
  if (p.ds->dev->callsOutsideLock) return read();
  MutexLock l(apiMutex);
  return read();
}

// One piece's partial result merged into dst over the copy pool: on one thread a 256 MB
// merge took 362 ms on the H100 machine (MatrixTranspose split 10/90), ten times what
// Algorithm 1's merge term, the measured memcpy rate, priced it at. Parts are whole pages,
// so an atomic rule's elements (at most 8 bytes) never straddle two parts.
void mergeInParallel(const Merge &m, unsigned char *dst, const unsigned char *part, const unsigned char *init,
                     size_t n) {
  auto mergeRange = [&](size_t off, size_t len) {
    if (m.rule == cc::AtomicCombine::None) mergeDiff(dst + off, part + off, init + off, len);
    else cc::combineAtomicPartial(m.rule, m.width, dst + off, part + off, init + off, len);
  };
  inPoolTurns(n, 2u << 20, mergeRange);
}

cl_int runMerges(const SkmdLaunch &L, const std::vector<MergeInto> &into, const std::string &kernel) {
  std::unique_ptr<unsigned char[]> tmp;  // uninitialised: readPartial fills what is merged
  size_t tmpBytes = 0;
  bool tmpTouched = false;
  for (size_t mi = 0; mi < L.merges.size(); ++mi) {
    const Merge &m = L.merges[mi];
    const MergeInto &in = into[mi];
    // A zero-copy CPU piece left its partial result in the home, which started from
    // the pre-launch content: the other pieces' changes go on top of it.
    if (in.restore) hostCopy(in.home + m.r.begin, m.initial.get(), m.r.size());
    for (const MergePart &p : in.parts) {
      if (p.h.size() > tmpBytes) tmp.reset(new unsigned char[tmpBytes = p.h.size()]), tmpTouched = false;
      // A read under the API lock must not fault fresh pages in there: other threads'
      // calls waited 130 ms for it (LockRelease.SplitMergeDoesNotStallOtherThreadsEnqueues).
      if (!p.ds->dev->callsOutsideLock && !tmpTouched) std::memset(tmp.get(), 0, tmpBytes), tmpTouched = true;
      cl_int err = readPartial(p, tmp.get());
      if (err != CL_SUCCESS) {
        TUTTI_LOG(Error, "%s: reading a partial result back failed: %s", p.ds->dev->label().c_str(),
                  clErrorName(err));
        return err;
      }
      const unsigned char *init = m.initial.get() + (p.h.begin - m.r.begin);
      unsigned char *dst = in.home + p.h.begin;
      uint64_t t1 = nowNs();
      mergeInParallel(m, dst, tmp.get(), init, p.h.size());
      traceSpan(-1, "merge", kernel.c_str(), t1, nowNs(), p.h.size());
    }
  }
  return CL_SUCCESS;
}

// Leaves the merges of a split launch whose pieces all finished as host work: every
// device's partial result is read back and combined in the home without the API lock
// (seconds for large buffers), and the merged bytes become valid in the home under it
// afterwards. Until then the command is not finished, so whatever uses those bytes waits.
void mergeOutside(Command *cmd) {
  std::shared_ptr<SkmdLaunch> L = cmd->skmd;
  _cl_context *ctx = cmd->q->ctx;
  std::vector<MergeInto> into;
  for (auto &m : L->merges) {
    BufferStore &st = *m.root->store;
    MergeInto in{reinterpret_cast<unsigned char *>(st.home), true, {}};
    for (size_t pi = 0; pi < L->pieces.size(); ++pi) {
      int slot = L->pieces[pi].slot;
      if (slot == st.alias) in.restore = false;
      else if (!m.hull[pi].empty()) in.parts.push_back({&ctx->slots[slot], st.devBuf[slot], m.hull[pi]});
    }
    into.push_back(std::move(in));
  }
  cmd->hostWork = [L, into = std::move(into), kernel = cmd->kernel->name] {
    return runMerges(*L, into, kernel);
  };
  cmd->hostLanded = [L, ev = cmd->ev](cl_int st) {
    if (st == CL_SUCCESS)
      for (auto &m : L->merges) wrote(*m.root->store, m.r, -1);
    ev->tEnd = nowNs();
    return st;
  };
}

}  // namespace

bool anyLaunched(const SkmdLaunch &L) {
  for (const Piece &p : L.pieces)
    if (p.lastEv) return true;
  return false;
}

// Piece pi's device refused it (err) after other pieces were enqueued, which cannot be
// taken back: its work-groups go to the device of a launched piece instead, where its
// inputs can be staged now. Only without host merges, whose partial results are one
// replica per piece. Now: launch it again; AfterStaging: once the copies it waits for
// (cmd->staging) are done, when the command is issued again.
enum class Retarget { No, Now, AfterStaging };
Retarget retarget(Command *cmd, size_t pi, cl_int err) {
  SkmdLaunch &L = *cmd->skmd;
  Piece &p = L.pieces[pi];
  if (!L.merges.empty()) return Retarget::No;
  BackingDevice *failed = cmd->q->ctx->slots[p.slot].dev;
  failed->noteFailure(err);
  const std::string &name = cmd->kernel->name;
  SkmdProgram &sp = *cmd->kernel->program->skmd;
  for (const Piece &o : L.pieces) {
    int s = o.slot;
    if (!o.lastEv || s == p.slot || !L.slotInfo[size_t(s)] || !sp.kernels[name][size_t(s)] ||
        cmd->q->ctx->slots[size_t(s)].dev->retired)
      continue;
    int from = p.slot;
    p.slot = s;
    cl_int e = CL_SUCCESS;
    bool ready = stagePiece(cmd, pi, e, false);
    if (e == CL_SUCCESS) {
      TUTTI_LOG(Warn, "%s refused a piece of '%s' (%s): %s runs it", failed->label().c_str(),
                name.c_str(), clErrorName(err), cmd->q->ctx->slots[size_t(s)].dev->label().c_str());
      return ready ? Retarget::Now : Retarget::AfterStaging;
    }
    p.slot = from;
  }
  return Retarget::No;
}

IssueResult issueSplit(Command *cmd) {
  // The issue and its staging in the trace: on two H200s a first split launch's enqueue
  // once took 17-21 ms beyond its plan, and 1.1 ms in the next call, 0.2 of it the issue.
  HostSpan whole("issue split");
  IssueResult out{IssueResult::Done};
  SkmdLaunch &L = *cmd->skmd;
  cl_int err = CL_SUCCESS;
  // The zero-copy CPU piece has nothing to wait for, while a GPU's inputs cross PCIe
  // (NVIDIA's copies from pageable memory hold the calling thread): it starts first,
  // once everything the other pieces need from devices is on its way to the host (a
  // later marker on the CPU queue would wait for the piece). Merges keep one order.
  int zc = zeroCopySlot(cmd->q->ctx);
  bool early = L.merges.empty() && zc >= 0;
  bool staged;
  {
    HostSpan span("split stage");
    staged = stage(cmd, err, early);
  }
  if (!staged) {
    out = {IssueResult::Staging, CL_SUCCESS};
    return out;
  }
  if (!L.tIssue) L.tIssue = nowNs();
  for (size_t pi = 0; early && err == CL_SUCCESS && pi < L.pieces.size(); ++pi) {
    Piece &p = L.pieces[pi];
    if (p.slot != zc || p.lastEv || p.vast) continue;
    if (!stagePiece(cmd, pi, err, false) || err != CL_SUCCESS) {
      if (err != CL_SUCCESS) L.failedSlot = p.slot;
      continue;
    }
    err = launchPiece(cmd, p);
    if (err != CL_SUCCESS) L.failedSlot = p.slot;
    cl_command_queue q = cmd->q->ctx->slots[p.slot].queue();
    if (err == CL_SUCCESS) icd(q).clFlush(q);
  }
  if (err == CL_SUCCESS && early && !stage(cmd, err, false)) {
    out = {IssueResult::Staging, CL_SUCCESS};
    return out;
  }
  // The early piece runs already, so a device that then refuses another piece's inputs
  // cannot fail the launch over whole: that piece goes to a launched piece's device, as a
  // refused launch does (e2e.faults device-stops-mkmd: BiCGSTAB failed with the refused
  // upload's error where a device was left to run it).
  for (size_t tries = 0; err != CL_SUCCESS && early && anyLaunched(L) && tries < L.pieces.size(); ++tries) {
    size_t pi = 0;
    while (pi < L.pieces.size() && (L.pieces[pi].slot != L.failedSlot || L.pieces[pi].lastEv || L.pieces[pi].vast))
      ++pi;
    if (pi == L.pieces.size()) break;
    Retarget t = retarget(cmd, pi, err);
    if (t == Retarget::No) break;
    if (t == Retarget::AfterStaging) return {IssueResult::Staging, CL_SUCCESS};
    err = CL_SUCCESS;
    L.failedSlot = -1;
    if (!stage(cmd, err, false)) return {IssueResult::Staging, CL_SUCCESS};
  }
  for (size_t pi = 0; pi < L.pieces.size(); ++pi) {
    Piece &p = L.pieces[pi];
    if (err != CL_SUCCESS) break;
    if (p.lastEv || p.vast) continue;  // started early, or paged (below)
    err = launchPiece(cmd, p);
    if (err != CL_SUCCESS && anyLaunched(L)) {
      Retarget t = retarget(cmd, pi, err);
      if (t == Retarget::AfterStaging) return {IssueResult::Staging, CL_SUCCESS};
      if (t == Retarget::Now) err = launchPiece(cmd, p);
    }
    if (err != CL_SUCCESS) {
      L.failedSlot = p.slot;
      TUTTI_LOG(Error, "%s: launching a piece of '%s' failed: %s",
                cmd->q->ctx->slots[p.slot].dev->label().c_str(), cmd->kernel->name.c_str(),
                clErrorName(err));
      break;
    }
  }
  // Paged pieces (VAST slices from the homes), once the others are on their devices. A
  // driver that must not be called beside the lock runs them here; the rest run on the
  // device's job thread and count as outstanding like a launched piece.
  std::vector<std::function<cl_int()>> pagedJobs;
  std::vector<int> pagedSlots;
  bool flushed = false;
  for (Piece &p : L.pieces) {
    if (err != CL_SUCCESS || !p.vast || p.pagedRunning) continue;
    p.pagedRunning = true;
    std::function<cl_int()> job = vastPieceRun(cmd, p.vast, p.slot);
    if (cmd->q->ctx->slots[p.slot].dev->callsOutsideLock) {
      pagedJobs.push_back(std::move(job));  // posted after the flush below
      pagedSlots.push_back(p.slot);
      continue;
    }
    // Slices run here, now: the other pieces first, so that they overlap the slices.
    for (Piece &o : L.pieces) {
      DeviceSlot &ds = cmd->q->ctx->slots[o.slot];
      if (o.lastEv && !flushed) icd(ds.queue()).clFlush(ds.queue());
    }
    flushed = true;
    job();
  }
  // Pieces already enqueued must finish before the command reports failure.
  int launched = 0;
  for (Piece &p : L.pieces) launched += bool(p.lastEv);
  if (err != CL_SUCCESS && launched == 0) {
    out = {IssueResult::Done, err};
    return out;
  }
  if (err == CL_SUCCESS)
    for (auto &c : L.concat)
      for (size_t pi = 0; pi < L.pieces.size(); ++pi)
        if (!c.second[pi].empty())
          wrote(*rootOf(cmd->args[c.first].mem)->store, c.second[pi],
                L.pieces[pi].vast ? -1 : L.pieces[pi].slot);  // paged: into the home
  L.issued = err == CL_SUCCESS;
  if (L.issued) {
    ++g_splitLaunches;
    if (!L.merges.empty()) ++g_mergedLaunches;
  }
  L.outstanding = launched + int(pagedJobs.size());
  for (Piece &p : L.pieces)
    if (p.lastEv) whenComplete(cmd->q->ctx->slots[p.slot], p.lastEv.get(), onPiece, cmd);
  for (Piece &p : L.pieces) {
    DeviceSlot &ds = cmd->q->ctx->slots[p.slot];
    icd(ds.queue()).clFlush(ds.queue());
  }
  for (size_t j = 0; j < pagedJobs.size(); ++j)
    pagedThread(pagedSlots[j]).post([job = std::move(pagedJobs[j]), cmd] {
      job();
      onPiece(nullptr, CL_COMPLETE, cmd);
    });
  if (launched + pagedJobs.size() == 0) {
    // Every piece ran here (paged under the lock): nothing left to wait for.
    return {IssueResult::Done, collectSkmd(cmd)};
  }
  out = {IssueResult::Issued, CL_SUCCESS};
  return out;
}


uint64_t skmdSplitLaunches() { return g_splitLaunches; }
int skmdFailedBeforeStart(const Command *cmd) {
  const SkmdLaunch &L = *cmd->skmd;
  for (const Piece &p : L.pieces)
    if (p.lastEv || p.firstEv) return -1;
  return L.issued ? -1 : L.failedSlot;
}
uint64_t skmdMergedLaunches() { return g_mergedLaunches; }

cl_int collectSkmd(Command *cmd) {
  SkmdLaunch &L = *cmd->skmd;
  cl_int status = L.issued ? CL_SUCCESS : CL_OUT_OF_RESOURCES;
  uint64_t hs = UINT64_MAX, he = 0;
  uint64_t groupItems = 1;
  for (unsigned d = 0; d < 3; ++d) groupItems *= L.nd.local_size[d];
  for (Piece &p : L.pieces) {
    if (p.vast && p.pagedRunning) {
      DeviceSlot &ds = cmd->q->ctx->slots[p.slot];
      const VastLaunch &V = *p.vast;
      if (!V.ran || V.status != CL_SUCCESS) {
        TUTTI_LOG(Error, "%s: a paged piece of '%s' failed: %s", ds.dev->label().c_str(),
                  cmd->kernel->name.c_str(), clErrorName(V.ran ? V.status : CL_OUT_OF_RESOURCES));
        status = V.ran ? V.status : CL_OUT_OF_RESOURCES;
      } else {
        vastPieceLanded(cmd, V, p.slot);
        hs = std::min(hs, V.t0);
        he = std::max(he, V.t0 + V.ns);
        ds.dev->counters.kernelNs += V.kernelNs;
        traceSpan(ds.dev->index, "kernel", cmd->kernel->name.c_str(), V.t0, V.t0 + V.ns, p.count);
      }
      ++ds.dev->counters.splitPieces;
      ds.dev->counters.workItems += p.count * groupItems;
      p.pagedRunning = false;
      continue;
    }
    if (!p.lastEv) continue;
    DeviceSlot &ds = cmd->q->ctx->slots[p.slot];
    const cl_icd_dispatch &d = icd(p.lastEv.get());
    cl_int st = CL_COMPLETE;
    d.clGetEventInfo(p.lastEv.get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
    if (st < 0) {
      TUTTI_LOG(Error, "%s: a piece of '%s' failed on the device: %s", ds.dev->label().c_str(),
                cmd->kernel->name.c_str(), clErrorName(st));
      status = st;
    }
    cl_ulong start = 0, end = 0;
    if (d.clGetEventProfilingInfo(p.firstEv.get(), CL_PROFILING_COMMAND_START, sizeof start, &start,
                                  nullptr) == CL_SUCCESS &&
        d.clGetEventProfilingInfo(p.lastEv.get(), CL_PROFILING_COMMAND_END, sizeof end, &end,
                                  nullptr) == CL_SUCCESS &&
        end >= start) {
      uint64_t a, b;
      deviceSpanToHost(ds, start, end, a, b);
      hs = std::min(hs, a);
      he = std::max(he, b);
      ds.dev->counters.kernelNs += end - start;
      recordKernelRun(cmd, p.slot, double(p.count * groupItems), end - start);
      traceSpan(ds.dev->index, "kernel", cmd->kernel->name.c_str(), a, b, p.count);
    }
    ++ds.dev->counters.kernels;
    ++ds.dev->counters.splitPieces;
    ds.dev->counters.workItems += p.count * groupItems;
    p.firstEv.reset();
    p.lastEv.reset();
  }
  if (status == CL_SUCCESS && !L.merges.empty()) mergeOutside(cmd);
  _cl_event *ev = cmd->ev;
  if (he) {
    if (ev->tSubmit && hs < ev->tSubmit) hs = ev->tSubmit;
    ev->tStart = hs;
    ev->tEnd = std::max(he, hs);
  }
  if (!L.merges.empty()) ev->tEnd = nowNs();
  ev->device = -1;
  return status;
}

}  // namespace tutti

