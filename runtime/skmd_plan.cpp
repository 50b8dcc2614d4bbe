// skmd_plan.cpp - planning a split launch: which devices run which work-groups, and
// how each written buffer comes together afterwards.
#include "skmd_plan.h"

#include <algorithm>
#include <set>

#include "backend.h"
#include "failover.h"
#include "icd.h"
#include "log.h"
#include "memory.h"
#include "placement.h"
#include "skmd.h"
#include "skmd_decide.h"
#include "skmd_launch.h"
#include "split_units.h"
#include "trace.h"
#include "vast_launch.h"
#include "vast_plan.h"

namespace tutti {

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

}  // namespace

// Plans the split: which devices get which flattened group ranges, and how each
// buffer argument's bytes come together afterwards. False: run whole.
bool skmdPlan(Command *cmd) {
  if (cmd->skmdWhole) return false;
  _cl_kernel *k = cmd->kernel;
  _cl_context *ctx = cmd->q->ctx;
  SkmdProgram *sp = skmdProgram(k->program);
  if (!sp->ok) return whole(k, sp->why), false;
  // The launch's plan is made only once it is split: most launches run whole, and these
  // locals cost no allocation of a shared SkmdLaunch per launch.
  size_t nslots = ctx->slots.size();
  // Kept storage (API lock held): a launch that stays whole allocates nothing here.
  static std::vector<const cc::KernelInfo *> slotInfo;
  static std::vector<int> usable;
  static std::vector<bool> paged;
  slotInfo.assign(nslots, nullptr);
  usable.clear();
  paged.assign(nslots, false);
  const cc::KernelInfo *info = nullptr;
  auto limit = sp->groupLimit.try_emplace(k->name, SIZE_MAX);
  bool knowLimit = !limit.second;
  size_t &wgLimit = limit.first->second;
  size_t pagedLimit = SIZE_MAX;
  // The plan's parts in the trace: a first two-GPU plan's 19-21 ms (H200s) were VAST's
  // variant kernels, made at that launch then (now when the program builds).
  HostSpan span("skmd plan: devices");
  const _cl_kernel::SkmdSlots &slots = skmdSlotsOf(k, *sp);
  for (size_t s = 0; s < nslots && s < slots.info.size(); ++s) {
    const auto *ki = static_cast<const cc::KernelInfo *>(slots.info[s]);
    if (!ki) continue;
    if (!ki->partitionable) return whole(k, ki->whole_reason), false;
    if (!slots.partition[s] || !k->real[s] || !mayRunOn(cmd, int(s))) continue;
    // A piece's replicas are whole buffers: a device that cannot hold them takes a piece
    // only where VAST pages it there (its groups in slices, from the homes).
    if (!launchFits(k, cmd->args, int(s))) {
      cl_kernel pk = vastMayPage(cmd, int(s)) && !ki->paged_kernel.empty()
                         ? skmdVariantKernel(*sp, int(s), ki->paged_kernel, ki->paged_kernel)
                         : nullptr;
      if (!pk) continue;
      paged[s] = true;
      pagedLimit = std::min(pagedLimit, kernelWorkGroupSize(pk, ctx->slots[s].dev->id));
    }
    slotInfo[s] = ki;
    if (!info) info = ki;
    if (!knowLimit)
      wgLimit = std::min(wgLimit, kernelWorkGroupSize(sp->kernels[k->name][s], ctx->slots[s].dev->id));
    usable.push_back(int(s));
  }
  if (usable.size() < 2) return whole(k, "fewer than two devices have its partition-ready variant"), false;
  for (auto &a : cmd->args)
    if ((a.kind == ArgValue::Mem && a.mem && a.mem->isImage()) || a.kind == ArgValue::Sampler)
      return whole(k, "image arguments live on one device"), false;

  cc::NDRange nd;
  cc::ScalarArgs scalars;
  if (!skmdLaunchShape(cmd, std::min(wgLimit, pagedLimit), nd, scalars))
    return whole(k, "required work-group size without an explicit local size"), false;
  uint64_t total = nd.totalGroups();
  if (total < 2) return false;

  // A written buffer that is reachable through two arguments could not be tracked
  // per argument: keep such launches whole.
  auto uses = [&](_cl_mem *root) {
    int n = 0;
    for (auto &a : cmd->args) n += a.kind == ArgValue::Mem && a.mem && rootOf(a.mem) == root;
    return n;
  };
  for (unsigned i = 0; i < cmd->args.size(); ++i) {
    auto &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem || i >= info->args.size()) continue;
    const cc::ArgInfo &ai = info->args[i];
    if ((ai.written || ai.atomic) && uses(rootOf(a.mem)) > 1)
      return whole(k, "a written buffer is passed through more than one argument"), false;
    if (ai.written && ai.atomic) return whole(k, "a buffer is both stored to and updated atomically"), false;
  }

  span.next("skmd plan: decide");
  Decision dec;
  if (cmd->forcedGroups.size() == nslots) {
    // MKMD's schedule decided; a share on a device without the variant cannot run.
    for (size_t s = 0; s < nslots; ++s)
      if (cmd->forcedGroups[s] && std::find(usable.begin(), usable.end(), int(s)) == usable.end()) return false;
    uint64_t sum = 0;
    for (uint64_t g : cmd->forcedGroups) sum += g;
    if (sum != total) return false;
    dec.groups = toWholeUnits(cmd->forcedGroups, cc::concatUnit(*info, nd, scalars));
  } else {
    dec = decideSplit(cmd, *info, nd, scalars, usable);
  }
  span.next("skmd plan: merges and pieces");
  if (dec.groups.size() != nslots) return false;
  uint64_t first = 0;
  int parts = 0, only = -1;
  for (size_t s = 0; s < nslots; ++s)
    if (dec.groups[s]) ++parts, only = int(s);
  if (parts < 2) {
    if (only >= 0 && !paged[size_t(only)]) cmd->slot = only, cmd->skmdWhole = true;  // else VAST may page it whole
    return false;
  }
  auto L = std::make_shared<SkmdLaunch>();
  L->info = info;
  L->slotInfo = slotInfo;
  L->nd = nd;
  L->scalars = std::move(scalars);
  for (size_t s = 0; s < nslots; ++s) {
    if (!dec.groups[s]) continue;
    Piece &pc = L->pieces.emplace_back();
    pc.slot = int(s), pc.first = first, pc.count = dec.groups[s];
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
      hulls.push_back(skmdClamp(cc::accessedRange(*L->slotInfo[p.slot], i, cc::AccessMode::Write, nd,
                                                L->scalars, p.first, p.count),
                              a.mem));
    if (ai.atomic || skmdOverlapping(hulls)) {
      Merge m;
      m.arg = i;
      m.root = rootOf(a.mem);
      // The bytes the launch may write, by which the command graph orders commands
      // (launchAccess): the merge touches no others, which commands not ordered after
      // this one may write meanwhile.
      m.r = skmdClamp(cc::accessedRange(*L->info, i, cc::AccessMode::Write, nd, L->scalars, 0, total),
                      a.mem);
      for (Range h : hulls)
        if (!h.empty()) m.r = m.r.empty() ? h : Range{std::min(m.r.begin, h.begin), std::max(m.r.end, h.end)};
      if (m.r.empty()) continue;
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
  // Pieces on devices that cannot hold the buffers run in VAST slices; their writes go
  // to the homes, so only concatenated outputs (no host merges of partial replicas).
  for (auto &p : L->pieces) {
    if (!paged[size_t(p.slot)]) continue;
    if (!L->merges.empty()) return whole(k, "a paged piece's writes would need a host merge"), false;
    p.vast = vastPlanPiece(cmd, p.slot, nd, L->scalars, p.first, p.count);
    if (!p.vast) return false;  // VAST logged why; the launch may still be paged whole
  }
  cmd->skmd = L;
  cmd->slot = -1;  // no single device: dependents never chain behind it
  return true;
}

}  // namespace tutti
