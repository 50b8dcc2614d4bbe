// skmd.cpp - partition-ready kernels of a program and the shape of a split launch.
#include "skmd.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "access.h"
#include "backend_kernel.h"
#include "icd.h"
#include "memory.h"
#include "skmd_launch.h"
#include "trace.h"

namespace tutti {

const cc::KernelInfo *skmdKernelInfo(const SkmdProgram &sp, int slot, const std::string &name) {
  auto *r = static_cast<const cc::CompileResult *>(sp.results[slot].get());
  if (!r) return nullptr;
  for (auto &k : r->kernels)
    if (k.name == name) return &k;
  return nullptr;
}

bool kernelCompilerLinked() { return true; }

cl_kernel skmdVariantKernel(SkmdProgram &sp, int slot, const std::string &key, const std::string &variant) {
  if (size_t(slot) >= sp.progs.size()) return nullptr;  // a program with analyses only (tests)
  auto &v = sp.kernels[key];
  if (v.empty()) v.assign(sp.progs.size(), nullptr);
  if (!v[size_t(slot)] && sp.progs[size_t(slot)] && !variant.empty()) {
    HostSpan span("create variant kernel");
    cl_int err = CL_SUCCESS;
    cl_program p = sp.progs[size_t(slot)];
    v[size_t(slot)] = icd(p).clCreateKernel(p, variant.c_str(), &err);
    if (err != CL_SUCCESS) v[size_t(slot)] = nullptr;
  }
  return v[size_t(slot)];
}

cl_kernel skmdPartitionKernel(SkmdProgram &sp, int slot, const cc::KernelInfo &ki) {
  return skmdVariantKernel(sp, slot, ki.name, ki.partition_kernel);
}

uint64_t SkmdProgram::nextSerial() {
  static std::atomic<uint64_t> n{0};
  return ++n;
}

const _cl_kernel::SkmdSlots &skmdSlotsOf(_cl_kernel *k, SkmdProgram &sp) {
  apiMutex.assertHeld();
  _cl_kernel::SkmdSlots &m = k->skmdSlots;
  if (m.serial == sp.serial) return m;
  m.info.assign(sp.results.size(), nullptr);
  m.partition.assign(sp.results.size(), nullptr);
  for (size_t s = 0; s < sp.results.size(); ++s) {
    const cc::KernelInfo *ki = skmdKernelInfo(sp, int(s), k->name);
    m.info[s] = ki;
    if (ki && ki->partitionable) m.partition[s] = skmdPartitionKernel(sp, int(s), *ki);
  }
  m.serial = sp.serial;
  return m;
}

void skmdCreateKernels(const std::vector<std::string> &kernelNames, SkmdProgram &sp) {
  for (const std::string &name : kernelNames)
    for (size_t s = 0; s < sp.progs.size(); ++s)
      if (const cc::KernelInfo *ki = skmdKernelInfo(sp, int(s), name)) skmdPartitionKernel(sp, int(s), *ki);
}

namespace {

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

}  // namespace

Range skmdClamp(const cc::ByteRange &br, const _cl_mem *m) {
  if (!br.known) return m->range();
  uint64_t b = std::min<uint64_t>(br.begin, m->size), e = std::min<uint64_t>(br.end, m->size);
  if (e <= b) return {m->origin, m->origin};
  return {m->origin + size_t(b), m->origin + size_t(e)};
}

bool skmdOverlapping(const std::vector<Range> &hulls) {
  std::vector<Range> v;
  for (Range r : hulls)
    if (!r.empty()) v.push_back(r);
  std::sort(v.begin(), v.end(), [](Range a, Range b) { return a.begin < b.begin; });
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i].begin < v[i - 1].end) return true;
  return false;
}

bool skmdLaunchShape(Command *cmd, size_t wgLimit, cc::NDRange &nd, cc::ScalarArgs &scalars) {
  nd.work_dim = cmd->dim;
  for (unsigned d = 0; d < 3; ++d) {
    nd.global_offset[d] = d < cmd->dim ? cmd->offset[d] : 0;
    nd.global_size[d] = d < cmd->dim ? cmd->global[d] : 1;
    nd.local_size[d] = d < cmd->dim && cmd->hasLocal ? cmd->local[d] : 1;
  }
  if (!cmd->hasLocal) {
    size_t reqd[3];
    compileWorkGroupSize(cmd->kernel, reqd);
    if (reqd[0]) return false;
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
      hulls.push_back(skmdClamp(cc::accessedRange(info, i, cc::AccessMode::Write, nd, scalars, first, n), a.mem));
      first += n;
    }
    if (skmdOverlapping(hulls)) return true;
  }
  return false;
}

namespace {

cc::ByteRange byteRange(const AccessMemo::Hull &h) {
  cc::ByteRange r;
  r.known = h.known, r.begin = h.begin, r.end = h.end;
  return r;
}

}  // namespace

namespace {
std::atomic<uint64_t> g_hullShapes{0};  // counted under the API lock; TUTTI_STATS reads it
}  // namespace

uint64_t skmdHullShapes() { return g_hullShapes.load(std::memory_order_relaxed); }

// The compiler's hulls of a launch shape, evaluated once per shape: evaluating them took
// two thirds of an enqueue under TUTTI_MODE=mkmd (perf, mk_BiCGSTAB on two PoCL devices:
// 23 us a launch against 5 in whole mode; 64 against 21 on an H100 machine).
const AccessMemo &skmdWholeHulls(_cl_kernel *k, const cc::KernelInfo &info, const cc::NDRange &nd,
                                 const cc::ScalarArgs &scalars) {
  constexpr size_t kShapesKept = 8;
  static std::vector<uint64_t> key;  // API lock held: kept storage, no allocation per launch
  key.assign(1, nd.work_dim);
  key.insert(key.end(), nd.global_offset, nd.global_offset + 3);
  key.insert(key.end(), nd.global_size, nd.global_size + 3);
  key.insert(key.end(), nd.local_size, nd.local_size + 3);
  // Floating-point scalars cannot enter the affine index expressions the hulls come from,
  // and solvers change them every launch (BiCGSTAB's alpha, beta and omega): in the key,
  // they made every launch a new shape.
  // Asked at every launch: the conditional copied the type's name, and string::compare cost
  // about 1,800 instructions a launch of K-means.
  auto startsWith = [](const std::string &t, const char *p, size_t n) {
    return t.size() >= n && !std::memcmp(t.data(), p, n);
  };
  for (size_t i = 0; i < scalars.bits.size(); ++i) {
    bool floating = false;
    if (i < info.args.size()) {
      const std::string &t = info.args[i].type_name;
      floating = startsWith(t, "float", 5) || startsWith(t, "double", 6) || startsWith(t, "half", 4);
    }
    key.push_back(floating ? 0 : scalars.bits[i]);
  }
  auto &memos = k->accessMemo;
  for (size_t m = 0; m < memos.size(); ++m)
    if (memos[m].info == &info && memos[m].key == key) {
      if (m) std::rotate(memos.begin(), memos.begin() + long(m), memos.begin() + long(m) + 1);
      return memos.front();
    }
  g_hullShapes.fetch_add(1, std::memory_order_relaxed);
  AccessMemo memo;
  memo.key = key;
  memo.info = &info;
  const uint64_t total = nd.totalGroups();
  auto hull = [&](unsigned i, cc::AccessMode mode) {
    cc::ByteRange r = cc::accessedRange(info, i, mode, nd, scalars, 0, total);
    return AccessMemo::Hull{r.known, r.begin, r.end};
  };
  for (unsigned i = 0; i < info.args.size(); ++i) {
    const cc::ArgInfo &ai = info.args[i];
    memo.read.push_back(ai.read ? hull(i, cc::AccessMode::Read) : AccessMemo::Hull{});
    memo.write.push_back(ai.written || ai.atomic ? hull(i, cc::AccessMode::Write) : AccessMemo::Hull{});
  }
  if (memos.size() >= kShapesKept) memos.pop_back();
  memos.insert(memos.begin(), std::move(memo));
  return memos.front();
}

cc::ByteRange skmdHull(const AccessMemo &memo, unsigned arg, bool write) {
  return byteRange((write ? memo.write : memo.read)[arg]);
}

// The command graph's view of a launch (access.h): per buffer argument, the hull of the
// bytes the whole launch reads and of those it writes, from the compiler's analysis of
// the program's partition-ready variant (TUTTI_MODE=skmd builds it). Arguments the kernel
// never touches order nothing. False when the analysis cannot say, or when the launch
// orders by its whole buffers (Command::ordersWhole).
bool skmdLaunchAccess(const Command *cmd, std::vector<Access> &out) {
  apiMutex.assertHeld();  // the command graph's callers are not annotated yet
  if (cmd->ordersWhole) return false;
  SkmdProgram *sp = cmd->kernel->program->skmd.get();
  if (!sp || !sp->ok) return false;
  const cc::KernelInfo *info = nullptr;
  const _cl_kernel::SkmdSlots &slots = skmdSlotsOf(cmd->kernel, *sp);
  for (size_t s = 0; s < slots.info.size() && !info; ++s) info = static_cast<const cc::KernelInfo *>(slots.info[s]);
  if (!info || info->args.size() < cmd->args.size()) return false;
  for (const ArgValue &a : cmd->args)
    if ((a.kind == ArgValue::Mem && a.mem && a.mem->isImage()) || a.kind == ArgValue::Sampler)
      return false;
  cc::NDRange nd;
  cc::ScalarArgs scalars;
  auto lim = sp->groupLimit.find(cmd->kernel->name);
  if (!skmdLaunchShape(const_cast<Command *>(cmd), lim == sp->groupLimit.end() ? 0 : lim->second,
                       nd, scalars))
    return false;
  const AccessMemo &memo = skmdWholeHulls(cmd->kernel, *info, nd, scalars);
  for (unsigned i = 0; i < cmd->args.size(); ++i) {
    const ArgValue &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem) continue;
    const cc::ArgInfo &ai = info->args[i];
    _cl_mem *root = rootOf(a.mem);
    if (ai.escapes) {  // the analysis lost the pointer: every byte, both ways
      out.push_back({root, a.mem->range(), true});
      continue;
    }
    if (ai.read) out.push_back({root, skmdClamp(byteRange(memo.read[i]), a.mem), false});
    if (ai.written || ai.atomic) out.push_back({root, skmdClamp(byteRange(memo.write[i]), a.mem), true});
  }
  return true;
}

namespace {
const bool g_launchAccess = (setLaunchAccess(skmdLaunchAccess), true);
}  // namespace

}  // namespace tutti
