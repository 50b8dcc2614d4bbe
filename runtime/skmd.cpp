// skmd.cpp - issuing and completing kernel launches split across backing devices.
#include "skmd.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>

#include <tutti/compiler.h>

#include "backend.h"
#include "icd.h"
#include "log.h"
#include "profile_mode.h"
#include "settings.h"
#include "skmd_decide.h"
#include "trace.h"

namespace tutti {

namespace cc = tutti::compiler;

// One device's share of a split launch.
struct Piece {
  int slot = -1;
  uint64_t first = 0, count = 0;
  cl_event firstEv = nullptr, lastEv = nullptr;
};

// A buffer argument whose pieces must be combined on the host after the launch.
struct Merge {
  unsigned arg = 0;
  _cl_mem *root = nullptr;
  Range r;                          // the argument's bytes in the root store
  cc::AtomicCombine rule = cc::AtomicCombine::None;  // None: plain writes, merged by diff
  unsigned width = 0;
  std::vector<unsigned char> initial;                // pre-launch content of r
  std::vector<Range> hull;                           // per piece, bytes it may write
};

struct SkmdLaunch {
  const cc::KernelInfo *info = nullptr;  // of the first piece's target (same analysis)
  std::vector<const cc::KernelInfo *> slotInfo;
  cc::NDRange nd;
  cc::ScalarArgs scalars;
  std::vector<Piece> pieces;
  std::vector<Merge> merges;
  std::vector<std::pair<unsigned, std::vector<Range>>> concat;  // arg -> per piece hull
  std::atomic<int> outstanding{0};
  bool issued = false;
  uint64_t tIssue = 0;
};

const cc::KernelInfo *skmdKernelInfo(const SkmdProgram &sp, int slot, const std::string &name) {
  auto *r = static_cast<const cc::CompileResult *>(sp.results[slot].get());
  if (!r) return nullptr;
  for (auto &k : r->kernels)
    if (k.name == name) return &k;
  return nullptr;
}

namespace {

std::atomic<uint64_t> g_splitLaunches{0};
std::atomic<uint64_t> g_mergedLaunches{0};  // of those, the ones merged on the host

cl_kernel prKernel(SkmdProgram &sp, int slot, const cc::KernelInfo &ki) {
  auto &v = sp.kernels[ki.name];
  if (v.empty()) v.assign(sp.progs.size(), nullptr);
  if (!v[slot] && sp.progs[slot] && !ki.partition_kernel.empty()) {
    cl_int err;
    v[slot] = icd(sp.progs[slot]).clCreateKernel(sp.progs[slot], ki.partition_kernel.c_str(), &err);
    if (err != CL_SUCCESS) v[slot] = nullptr;
  }
  return v[slot];
}

}  // namespace

void skmdCreateKernels(_cl_program *p, SkmdProgram &sp) {
  for (const std::string &name : p->kernelNames)
    for (size_t s = 0; s < sp.progs.size(); ++s)
      if (const cc::KernelInfo *ki = skmdKernelInfo(sp, int(s), name)) prKernel(sp, int(s), *ki);
}

namespace {

// Logs once per kernel why it runs whole.
void whole(_cl_kernel *k, const std::string &why) {
  static std::set<std::string> said;
  std::string key = k->name + ": " + why;
  if (said.insert(key).second)
    TUTTI_LOG(Info, "kernel '%s' runs whole on one device: %s", k->name.c_str(), why.c_str());
}

size_t kernelWorkGroupSize(cl_kernel rk, cl_device_id dev) {
  size_t n = 0;
  icd(rk).clGetKernelWorkGroupInfo(rk, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof n, &n, nullptr);
  return n;
}

// An app that passes no local size lets the implementation pick one; a split launch
// needs the same one on every device.
void pickLocal(cc::NDRange &nd, size_t limit) {
  size_t cap = std::min<size_t>(limit ? limit : 64, 256);
  uint64_t g = nd.global_size[0], best = 1;
  for (uint64_t l = 1; l <= cap; ++l)
    if (g % l == 0) best = l;
  nd.local_size[0] = best;
  for (unsigned d = 1; d < 3; ++d) nd.local_size[d] = 1;
}

Range clampTo(const cc::ByteRange &br, const _cl_mem *m) {
  if (!br.known) return m->range();
  uint64_t b = std::min<uint64_t>(br.begin, m->size), e = std::min<uint64_t>(br.end, m->size);
  if (e <= b) return {m->origin, m->origin};
  return {m->origin + size_t(b), m->origin + size_t(e)};
}

bool overlapping(const std::vector<Range> &hulls) {
  std::vector<Range> v;
  for (Range r : hulls)
    if (!r.empty()) v.push_back(r);
  std::sort(v.begin(), v.end(), [](Range a, Range b) { return a.begin < b.begin; });
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i].begin < v[i - 1].end) return true;
  return false;
}

void CL_CALLBACK onPiece(cl_event, cl_int, void *user) {
  auto *cmd = static_cast<Command *>(user);
  if (cmd->skmd->outstanding.fetch_sub(1) == 1) runtime().postCompletion(cmd);
}

}  // namespace

bool skmdLaunchShape(Command *cmd, size_t wgLimit, cc::NDRange &nd, cc::ScalarArgs &scalars) {
  nd.work_dim = cmd->dim;
  for (unsigned d = 0; d < 3; ++d) {
    nd.global_offset[d] = d < cmd->dim ? cmd->offset[d] : 0;
    nd.global_size[d] = d < cmd->dim ? cmd->global[d] : 1;
    nd.local_size[d] = d < cmd->dim && cmd->hasLocal ? cmd->local[d] : 1;
  }
  if (!cmd->hasLocal) {
    if (cmd->kernel->attributes.find("reqd_work_group_size") != std::string::npos) return false;
    pickLocal(nd, wgLimit);
  }
  for (unsigned i = 0; i < cmd->args.size(); ++i)
    if (cmd->args[i].kind == ArgValue::Bytes)
      scalars.set(i, cmd->args[i].bytes.data(), cmd->args[i].bytes.size());
  return true;
}

bool skmdNeedsMerge(Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                    const cc::ScalarArgs &scalars, const std::vector<uint64_t> &groups) {
  for (unsigned i = 0; i < cmd->args.size() && i < info.args.size(); ++i) {
    auto &a = cmd->args[i];
    const cc::ArgInfo &ai = info.args[i];
    if (a.kind != ArgValue::Mem || !a.mem || (!ai.written && !ai.atomic)) continue;
    if (ai.atomic) return true;
    std::vector<Range> hulls;
    uint64_t first = 0;
    for (uint64_t n : groups) {
      if (!n) continue;
      hulls.push_back(clampTo(cc::accessedRange(info, i, cc::AccessMode::Write, nd, scalars, first, n), a.mem));
      first += n;
    }
    if (overlapping(hulls)) return true;
  }
  return false;
}

namespace {

// Plans the split: which devices get which flattened group ranges, and how each
// buffer argument's bytes come together afterwards. False: run whole.
bool plan(Runtime &rt, Command *cmd) {
  _cl_kernel *k = cmd->kernel;
  _cl_context *ctx = cmd->q->ctx;
  SkmdProgram *sp = skmdProgram(k->program);
  if (!sp->ok) return whole(k, sp->why), false;
  auto L = std::make_shared<SkmdLaunch>();
  size_t nslots = ctx->slots.size();
  L->slotInfo.assign(nslots, nullptr);
  std::vector<int> usable;
  bool knowLimit = sp->groupLimit.count(k->name);
  size_t &wgLimit = sp->groupLimit[k->name];
  if (!knowLimit) wgLimit = SIZE_MAX;
  for (size_t s = 0; s < nslots; ++s) {
    const cc::KernelInfo *ki = skmdKernelInfo(*sp, int(s), k->name);
    if (!ki) continue;
    if (!ki->partitionable) return whole(k, ki->whole_reason), false;
    if (!prKernel(*sp, int(s), *ki) || !k->real[s]) continue;
    L->slotInfo[s] = ki;
    if (!L->info) L->info = ki;
    if (!knowLimit)
      wgLimit = std::min(wgLimit, kernelWorkGroupSize(sp->kernels[k->name][s], ctx->slots[s].dev->id));
    usable.push_back(int(s));
  }
  if (usable.size() < 2) return whole(k, "fewer than two devices have its partition-ready variant"), false;
  for (auto &a : cmd->args)
    if ((a.kind == ArgValue::Mem && a.mem && a.mem->isImage()) || a.kind == ArgValue::Sampler)
      return whole(k, "image arguments live on one device"), false;

  cc::NDRange &nd = L->nd;
  if (!skmdLaunchShape(cmd, wgLimit, nd, L->scalars))
    return whole(k, "required work-group size without an explicit local size"), false;
  uint64_t total = nd.totalGroups();
  if (total < 2) return false;

  // A written buffer that is reachable through two arguments could not be tracked
  // per argument: keep such launches whole.
  std::map<_cl_mem *, int> uses;
  for (unsigned i = 0; i < cmd->args.size(); ++i) {
    auto &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem) continue;
    ++uses[rootOf(a.mem)];
  }
  for (unsigned i = 0; i < cmd->args.size(); ++i) {
    auto &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem || i >= L->info->args.size()) continue;
    const cc::ArgInfo &ai = L->info->args[i];
    if ((ai.written || ai.atomic) && uses[rootOf(a.mem)] > 1)
      return whole(k, "a written buffer is passed through more than one argument"), false;
    if (ai.written && ai.atomic) return whole(k, "a buffer is both stored to and updated atomically"), false;
  }

  Decision dec = decideSplit(rt, cmd, *L->info, nd, L->scalars, usable);
  if (dec.groups.size() != nslots) return false;
  uint64_t first = 0;
  int parts = 0, only = -1;
  for (size_t s = 0; s < nslots; ++s)
    if (dec.groups[s]) ++parts, only = int(s);
  if (parts < 2) {
    if (only >= 0) cmd->slot = only;
    return false;
  }
  for (size_t s = 0; s < nslots; ++s) {
    if (!dec.groups[s]) continue;
    L->pieces.push_back({int(s), first, dec.groups[s]});
    first += dec.groups[s];
  }

  // How each written buffer comes together: disjoint write hulls are concatenated by
  // the validity tracker; anything else is merged on the host.
  for (unsigned i = 0; i < cmd->args.size(); ++i) {
    auto &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem || i >= L->info->args.size()) continue;
    const cc::ArgInfo &ai = L->info->args[i];
    if (!ai.written && !ai.atomic) continue;
    std::vector<Range> hulls;
    for (auto &p : L->pieces)
      hulls.push_back(clampTo(cc::accessedRange(*L->slotInfo[p.slot], i, cc::AccessMode::Write, nd,
                                                L->scalars, p.first, p.count),
                              a.mem));
    if (ai.atomic || overlapping(hulls)) {
      Merge m;
      m.arg = i;
      m.root = rootOf(a.mem);
      m.r = a.mem->range();
      m.rule = ai.atomic ? ai.combine : cc::AtomicCombine::None;
      m.width = ai.atomic_width;
      if (ai.atomic && m.rule == cc::AtomicCombine::None)
        return whole(k, "its atomics have no combine rule"), false;
      // Atomic partials start from the same initial content everywhere.
      m.hull = ai.atomic ? std::vector<Range>(L->pieces.size(), m.r) : hulls;
      L->merges.push_back(std::move(m));
    } else {
      L->concat.push_back({i, hulls});
    }
  }
  cmd->skmd = L;
  cmd->slot = -1;  // no single device: dependents never chain behind it
  return true;
}

// Makes piece pi's inputs (and the pre-launch content of what it may write) valid on
// its device (hostOnly: only their host side, see ensureDeviceRange). False: wait.
bool stagePiece(Command *cmd, size_t pi, cl_int &err, bool hostOnly) {
  SkmdLaunch &L = *cmd->skmd;
  _cl_context *ctx = cmd->q->ctx;
  Piece &p = L.pieces[pi];
  const cc::KernelInfo &ki = *L.slotInfo[p.slot];
  bool ready = true;
  for (unsigned i = 0; i < cmd->args.size() && i < ki.args.size(); ++i) {
    auto &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem) continue;
    const cc::ArgInfo &ai = ki.args[i];
    _cl_mem *root = rootOf(a.mem);
    if (ai.read) {
      Range r = clampTo(cc::accessedRange(ki, i, cc::AccessMode::Read, L.nd, L.scalars, p.first,
                                          p.count), a.mem);
      if (!r.empty()) ready &= ensureDeviceRange(ctx, root, r, p.slot, cmd, &err, hostOnly);
    }
    if (ai.written || ai.atomic) {
      Range w{};
      for (auto &m : L.merges)
        if (m.arg == i) w = m.hull[pi];
      for (auto &c : L.concat)
        if (c.first == i) w = c.second[pi];
      if (!w.empty()) ready &= ensureDeviceRange(ctx, root, w, p.slot, cmd, &err, hostOnly);
    }
    if (!ai.read && !ai.written && !ai.atomic) {
      // Passed but never touched: the real buffer must still exist.
      if (!realBuffer(a.mem, p.slot, &err)) return true;
    }
    if (err != CL_SUCCESS) return true;
  }
  return ready;
}

// Stages every piece and snapshots what will be merged. False: wait for copies.
bool stage(Command *cmd, cl_int &err, bool hostOnly) {
  SkmdLaunch &L = *cmd->skmd;
  _cl_context *ctx = cmd->q->ctx;
  bool ready = true;
  for (auto &m : L.merges) ready &= ensureHost(ctx, *m.root->store, m.r, cmd);
  for (size_t pi = 0; pi < L.pieces.size() && err == CL_SUCCESS; ++pi)
    ready &= stagePiece(cmd, pi, err, hostOnly);
  if (!ready || err != CL_SUCCESS || hostOnly) return ready;
  bool aliasMerged = false;
  for (auto &m : L.merges) {
    const char *home = m.root->store->home;
    m.initial.assign(home + m.r.begin, home + m.r.end);
    for (auto &p : L.pieces) aliasMerged |= p.slot == m.root->store->alias;
  }
  // A piece on the zero-copy CPU writes its partial result into the home while the
  // other devices may still be uploading their pre-launch copy from it: let those
  // uploads land first.
  if (aliasMerged)
    for (auto &p : L.pieces) {
      DeviceSlot &ds = ctx->slots[p.slot];
      bool alias = false;
      for (auto &m : L.merges) alias |= p.slot == m.root->store->alias;
      if (!alias) icd(ds.queue).clFinish(ds.queue);
    }
  return true;
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
    cl_event e = nullptr;
    if (err == CL_SUCCESS)
      err = icd(ds.queue).clEnqueueNDRangeKernel(ds.queue, rk, s.work_dim, nullptr, g, l, 0,
                                                 nullptr, &e);
    if (err != CL_SUCCESS) break;
    if (!p.firstEv) {
      p.firstEv = e;
    } else {
      if (p.lastEv) icd(p.lastEv).clReleaseEvent(p.lastEv);
      p.lastEv = e;
    }
  }
  if (err == CL_SUCCESS && !p.lastEv) {
    p.lastEv = p.firstEv;
    icd(p.lastEv).clRetainEvent(p.lastEv);
  }
  return err;
}

// dst gets every byte in which a piece's result differs from the pre-launch content:
// those bytes were written by that piece (kernels that write the same byte from two
// work-groups race, so at most one piece changes any byte).
void mergeDiff(unsigned char *dst, const unsigned char *part, const unsigned char *init, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t a, b;
    std::memcpy(&a, part + i, 8);
    std::memcpy(&b, init + i, 8);
    if (a == b) continue;
    for (size_t j = i; j < i + 8; ++j)
      if (part[j] != init[j]) dst[j] = part[j];
  }
  for (; i < n; ++i)
    if (part[i] != init[i]) dst[i] = part[i];
}

cl_int runMerges(Command *cmd) {
  SkmdLaunch &L = *cmd->skmd;
  _cl_context *ctx = cmd->q->ctx;
  std::vector<unsigned char> tmp;
  for (auto &m : L.merges) {
    BufferStore &st = *m.root->store;
    unsigned char *home = reinterpret_cast<unsigned char *>(st.home);
    // A zero-copy CPU piece left its partial result in the home, which started from
    // the pre-launch content: the other pieces' changes go on top of it.
    bool aliasPiece = false;
    for (auto &p : L.pieces) aliasPiece |= p.slot == st.alias;
    if (!aliasPiece) std::memcpy(home + m.r.begin, m.initial.data(), m.r.size());
    for (size_t pi = 0; pi < L.pieces.size(); ++pi) {
      Range h = m.hull[pi];
      int slot = L.pieces[pi].slot;
      if (h.empty() || slot == st.alias) continue;
      DeviceSlot &ds = ctx->slots[slot];
      tmp.resize(h.size());
      uint64_t t0 = nowNs();
      cl_int err = icd(ds.queue).clEnqueueReadBuffer(ds.queue, st.devBuf[slot], CL_TRUE, h.begin,
                                                     h.size(), tmp.data(), 0, nullptr, nullptr);
      if (err != CL_SUCCESS) {
        TUTTI_LOG(Error, "%s: reading a partial result back failed: %s", ds.dev->label().c_str(),
                  clErrorName(err));
        return err;
      }
      ds.dev->counters.d2hBytes += h.size();
      ++ds.dev->counters.d2hTransfers;
      traceSpan(ds.dev->index, "d2h", "partial result", t0, nowNs(), h.size());
      const unsigned char *init = m.initial.data() + (h.begin - m.r.begin);
      unsigned char *dst = home + h.begin;
      uint64_t t1 = nowNs();
      if (m.rule == cc::AtomicCombine::None) mergeDiff(dst, tmp.data(), init, h.size());
      else cc::combineAtomicPartial(m.rule, m.width, dst, tmp.data(), init, h.size());
      traceSpan(-1, "merge", cmd->kernel->name.c_str(), t1, nowNs(), h.size());
    }
    wrote(st, m.r, -1);
  }
  return CL_SUCCESS;
}

}  // namespace

bool issueSkmd(Runtime &rt, Command *cmd, IssueResult &out) {
  if (cmd->kind == CmdKind::Kernel && !cmd->skmd && profileLaunch(rt, cmd, out)) return true;
  if (cmd->kind != CmdKind::Kernel || settings().mode != KernelMode::Skmd) return false;
  if (!cmd->skmd) {
    uint64_t t0 = tracing() ? nowNs() : 0;
    bool split = plan(rt, cmd);
    if (t0) traceSpan(-1, "tutti", "skmd plan", t0, nowNs(), 0);
    if (!split) return false;
  }
  SkmdLaunch &L = *cmd->skmd;
  cl_int err = CL_SUCCESS;
  // The zero-copy CPU piece has nothing to wait for, while a GPU's inputs cross PCIe
  // (NVIDIA's copies from pageable memory hold the calling thread): it starts first,
  // once everything the other pieces need from devices is on its way to the host (a
  // later marker on the CPU queue would wait for the piece). Merges keep one order.
  int zc = zeroCopySlot(cmd->q->ctx);
  bool early = L.merges.empty() && zc >= 0;
  if (!stage(cmd, err, early)) {
    out = {IssueResult::Staging, CL_SUCCESS};
    return true;
  }
  if (!L.tIssue) L.tIssue = nowNs();
  for (size_t pi = 0; early && err == CL_SUCCESS && pi < L.pieces.size(); ++pi) {
    Piece &p = L.pieces[pi];
    if (p.slot != zc || p.lastEv) continue;
    if (!stagePiece(cmd, pi, err, false) || err != CL_SUCCESS) continue;
    err = launchPiece(cmd, p);
    cl_command_queue q = cmd->q->ctx->slots[p.slot].queue;
    if (err == CL_SUCCESS) icd(q).clFlush(q);
  }
  if (err == CL_SUCCESS && early && !stage(cmd, err, false)) {
    out = {IssueResult::Staging, CL_SUCCESS};
    return true;
  }
  for (Piece &p : L.pieces) {
    if (err != CL_SUCCESS) break;
    if (p.lastEv) continue;  // started early
    err = launchPiece(cmd, p);
    if (err != CL_SUCCESS) {
      TUTTI_LOG(Error, "%s: launching a piece of '%s' failed: %s",
                cmd->q->ctx->slots[p.slot].dev->label().c_str(), cmd->kernel->name.c_str(),
                clErrorName(err));
      break;
    }
  }
  // Pieces already enqueued must finish before the command reports failure.
  int launched = 0;
  for (Piece &p : L.pieces) launched += p.lastEv != nullptr;
  if (err != CL_SUCCESS && launched == 0) {
    out = {IssueResult::Done, err};
    return true;
  }
  if (err == CL_SUCCESS)
    for (auto &c : L.concat)
      for (size_t pi = 0; pi < L.pieces.size(); ++pi)
        if (!c.second[pi].empty())
          wrote(*rootOf(cmd->args[c.first].mem)->store, c.second[pi], L.pieces[pi].slot);
  L.issued = err == CL_SUCCESS;
  if (L.issued) {
    ++g_splitLaunches;
    if (!L.merges.empty()) ++g_mergedLaunches;
  }
  L.outstanding = launched;
  for (Piece &p : L.pieces)
    if (p.lastEv) icd(p.lastEv).clSetEventCallback(p.lastEv, CL_COMPLETE, onPiece, cmd);
  for (Piece &p : L.pieces) {
    DeviceSlot &ds = cmd->q->ctx->slots[p.slot];
    icd(ds.queue).clFlush(ds.queue);
  }
  out = {IssueResult::Issued, CL_SUCCESS};
  return true;
}

uint64_t skmdSplitLaunches() { return g_splitLaunches; }
uint64_t skmdMergedLaunches() { return g_mergedLaunches; }

void skmdRecordWhole(Command *cmd, int slot, double workItems, double seconds) {
  if (settings().mode == KernelMode::Skmd) recordPiece(cmd, slot, workItems, seconds);
}

cl_int collectSkmd(Runtime &, Command *cmd) {
  SkmdLaunch &L = *cmd->skmd;
  cl_int status = L.issued ? CL_SUCCESS : CL_OUT_OF_RESOURCES;
  uint64_t hs = UINT64_MAX, he = 0;
  uint64_t groupItems = 1;
  for (unsigned d = 0; d < 3; ++d) groupItems *= L.nd.local_size[d];
  for (Piece &p : L.pieces) {
    if (!p.lastEv) continue;
    DeviceSlot &ds = cmd->q->ctx->slots[p.slot];
    const cl_icd_dispatch &d = icd(p.lastEv);
    cl_int st = CL_COMPLETE;
    d.clGetEventInfo(p.lastEv, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
    if (st < 0) {
      TUTTI_LOG(Error, "%s: a piece of '%s' failed on the device: %s", ds.dev->label().c_str(),
                cmd->kernel->name.c_str(), clErrorName(st));
      status = st;
    }
    cl_ulong start = 0, end = 0;
    if (d.clGetEventProfilingInfo(p.firstEv, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                  nullptr) == CL_SUCCESS &&
        d.clGetEventProfilingInfo(p.lastEv, CL_PROFILING_COMMAND_END, sizeof end, &end,
                                  nullptr) == CL_SUCCESS &&
        end >= start) {
      uint64_t a, b;
      deviceSpanToHost(ds, start, end, a, b);
      hs = std::min(hs, a);
      he = std::max(he, b);
      ds.dev->counters.kernelNs += end - start;
      recordKernelTime(cmd->kernel, p.slot, double(p.count * groupItems), end - start);
      recordPiece(cmd, p.slot, double(p.count * groupItems), double(end - start) * 1e-9);
      traceSpan(ds.dev->index, "kernel", cmd->kernel->name.c_str(), a, b, p.count);
    }
    ++ds.dev->counters.kernels;
    ++ds.dev->counters.splitPieces;
    ds.dev->counters.workItems += p.count * groupItems;
    icd(p.firstEv).clReleaseEvent(p.firstEv);
    icd(p.lastEv).clReleaseEvent(p.lastEv);
    p.firstEv = p.lastEv = nullptr;
  }
  if (status == CL_SUCCESS) status = runMerges(cmd);
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
