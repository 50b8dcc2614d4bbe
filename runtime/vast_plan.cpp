// vast_plan.cpp - whether a launch runs through VAST, and its slices (issue 18).
//
// The fast path of thesis §4.4 without an inspector: where the compiler's index-range
// analysis bounds the bytes any range of work-groups reads and writes (contiguous and
// affine kernels), each slice's pages follow from its group range directly. Slices are
// the longest group ranges, in order, whose windows (the pages between the lowest and
// the highest byte each buffer may touch) fit the device's budget together.
#include "vast_plan.h"

#include <algorithm>
#include <deque>
#include <mutex>

#include "backend.h"
#include "failover.h"
#include "icd.h"
#include "memory.h"
#include "log.h"
#include "placement.h"
#include "settings.h"
#include "skmd.h"
#include "vast_launch.h"

namespace tutti {

namespace {

// Share of a device's memory the frame buffers may take: the rest is for its LPTs, the
// other replicas it holds and the driver.
constexpr double kBudgetShare = 0.85;
// More slices than this and a launch is not worth paging (the per-slice costs dominate).
constexpr size_t kMaxSlices = 1 << 16;

bool pageShiftOf(uint64_t page, unsigned &shift) {
  if (page < (uint64_t(1) << cc::kVastMinPageShift) || page > (uint64_t(1) << cc::kVastMaxPageShift) ||
      (page & (page - 1)))
    return false;
  shift = 0;
  while ((uint64_t(1) << shift) < page) ++shift;
  return true;
}

// The device VAST would run cmd on: TUTTI_PLACEMENT=device:N's, else the strongest one
// that may take work from it.
int targetSlot(const Command *cmd) {
  const Settings &s = settings();
  const auto &slots = cmd->q->ctx->slots;
  if (s.placement.kind == Placement::Device)
    return s.placement.device >= 0 && size_t(s.placement.device) < slots.size() &&
                   mayRunOn(cmd, s.placement.device)
               ? s.placement.device
               : -1;
  if (s.placement.kind == Placement::RoundRobin && s.vast != VastMode::Force) return -1;
  int best = -1;
  for (int i = 0; i < int(slots.size()); ++i)
    if (mayRunOn(cmd, i) && (best < 0 || slots[size_t(i)].dev->strength() > slots[size_t(best)].dev->strength()))
      best = i;
  return best;
}

// Bytes of argument a that groups [first, first + count) may read and write, page-aligned
// (the window), and those they may write.
void windowOf(const VastLaunch &L, const VastArg &a, uint64_t first, uint64_t count, Range &window,
              Range &written) {
  const size_t size = a.root->size;
  auto clamp = [size](const cc::ByteRange &br) -> Range {
    if (!br.known) return {0, size};
    size_t b = size_t(std::min<uint64_t>(br.begin, size)), e = size_t(std::min<uint64_t>(br.end, size));
    return e > b ? Range{b, e} : Range{};
  };
  Range r = a.read ? clamp(cc::accessedRange(*L.info, a.arg, cc::AccessMode::Read, L.nd, L.scalars, first, count))
                   : Range{};
  written = a.written ? clamp(cc::accessedRange(*L.info, a.arg, cc::AccessMode::Write, L.nd, L.scalars,
                                                first, count))
                      : Range{};
  Range u = r.empty() ? written : written.empty() ? r : Range{std::min(r.begin, written.begin), std::max(r.end, written.end)};
  if (u.empty()) {
    window = {};
    return;
  }
  const size_t page = size_t(1) << L.pageShift;
  window = {u.begin & ~(page - 1), std::min(size, (u.end + page - 1) & ~(page - 1))};
}

// Frame bytes of groups [first, first + count): UINT64_MAX where one arg's window exceeds
// the device's largest allocation (its frame buffer could not be made).
uint64_t bytesFor(const VastLaunch &L, uint64_t first, uint64_t count) {
  uint64_t total = 0;
  Range w, wr;
  for (const VastArg &a : L.args) {
    if (a.resident) continue;  // outside the sets' budget
    windowOf(L, a, first, count, w, wr);
    if (w.size() > L.maxFrame) return UINT64_MAX;
    total += w.size();
  }
  return total;
}

// Marks the args that are resident for groups [g0, g1): only read, and the first and the
// last group's windows are already the whole range's (so every group's is). Their bytes.
uint64_t markResident(VastLaunch &L, uint64_t g0, uint64_t g1) {
  uint64_t bytes = 0;
  Range all, first, last, wr;
  for (VastArg &a : L.args) {
    a.resident = false;
    if (a.written || !a.read || g1 <= g0) continue;
    windowOf(L, a, g0, g1 - g0, all, wr);
    windowOf(L, a, g0, 1, first, wr);
    windowOf(L, a, g1 - 1, 1, last, wr);
    if (all.empty() || all.size() > L.maxFrame || first.begin != all.begin || first.end != all.end ||
        last.begin != all.begin || last.end != all.end)
      continue;
    a.resident = true;
    bytes += all.size();
  }
  return bytes;
}

bool planFromRanges(VastLaunch &L, uint64_t budget, uint64_t g0, uint64_t total);

// Ranged plans of a program's recent launches: an iterative app (FDTD3d's time steps)
// launches one shape again and again, and each plan evaluates the ranges of many group
// counts at several page sizes (~100 ms per launch for FDTD3d at its thesis size on the VM).
struct RangePlan {
  std::vector<uint64_t> key;
  int sets = 0;
  unsigned pageShift = 0;
  std::vector<VastSlice> slices;
  std::vector<size_t> frameBytes;
  std::vector<bool> resident;
};
struct RangePlans {  // SkmdProgram::vastPlans
  std::mutex mu;
  std::deque<RangePlan> plans;  // newest first
};
constexpr size_t kPlansKept = 16;

// What the plan depends on: the kernel, the launch's shape and scalars, each buffer
// argument's index, access and size, the configured page, the device's bytes and compute
// units, the sets allowed and the groups.
std::vector<uint64_t> planKey(const VastLaunch &L, double usable, int maxSets, uint64_t computeUnits,
                              uint64_t g0, uint64_t g1) {
  std::vector<uint64_t> k{uint64_t(uintptr_t(L.info)), L.nd.work_dim, L.pageShift, uint64_t(usable),
                          uint64_t(maxSets), computeUnits, L.maxFrame, g0, g1};
  for (unsigned d = 0; d < 3; ++d) k.insert(k.end(), {L.nd.global_offset[d], L.nd.global_size[d], L.nd.local_size[d]});
  k.push_back(L.scalars.bits.size());
  k.insert(k.end(), L.scalars.bits.begin(), L.scalars.bits.end());
  for (const VastArg &a : L.args) k.insert(k.end(), {a.arg, a.root->size, uint64_t(a.read) << 1 | uint64_t(a.written)});
  return k;
}

RangePlans &keptPlans(SkmdProgram &sp) {
  if (!sp.vastPlans) sp.vastPlans = std::make_shared<RangePlans>();
  return *static_cast<RangePlans *>(sp.vastPlans.get());
}

// The plan kept for key into L (sets, pages, resident args, slices, frames), if any.
bool keptPlan(VastLaunch &L, const std::vector<uint64_t> &key, SkmdProgram &sp) {
  RangePlans &kept = keptPlans(sp);
  std::lock_guard<std::mutex> l(kept.mu);
  for (const RangePlan &p : kept.plans)
    if (p.key == key) {
      L.sets = p.sets;
      L.setPageShift(p.pageShift);
      L.slices = p.slices;
      for (size_t j = 0; j < L.args.size(); ++j) {
        L.args[j].frameBytes = p.frameBytes[j];
        L.args[j].resident = p.resident[j];
      }
      return true;
    }
  return false;
}

void keepPlan(const VastLaunch &L, std::vector<uint64_t> key, SkmdProgram &sp) {
  RangePlan p{std::move(key), L.sets, L.pageShift, L.slices, {}, {}};
  for (const VastArg &a : L.args) {
    p.frameBytes.push_back(a.frameBytes);
    p.resident.push_back(a.resident);
  }
  RangePlans &kept = keptPlans(sp);
  std::lock_guard<std::mutex> l(kept.mu);
  kept.plans.push_front(std::move(p));
  if (kept.plans.size() > kPlansKept) kept.plans.pop_back();
}

// Slices from the index ranges of groups [g0, g1) within `usable` bytes of the device:
// resident args outside the sets, two sets where maxSets allows and a group fits half of
// what is left, else one. Where no group fits at the page size, smaller pages (down to
// 4 KiB): a small device's windows round up to fewer bytes. Sets L.sets and L.pageShift.
bool planRanged(VastLaunch &L, double usable, int maxSets, uint64_t g0, uint64_t g1, SkmdProgram &sp,
                uint64_t computeUnits) {
  std::vector<uint64_t> key = planKey(L, usable, maxSets, computeUnits, g0, g1);
  if (keptPlan(L, key, sp)) return true;
  const unsigned shift0 = L.pageShift;
  // Pipelined at any page size before one set.
  for (L.sets = maxSets; L.sets >= 1; --L.sets)
    for (unsigned shift = shift0; shift >= cc::kVastMinPageShift; --shift) {
      const uint64_t lptBytes = L.setPageShift(shift);
      const double rest = usable - double(markResident(L, g0, g1));
      const double budget = (rest - L.sets * double(lptBytes)) / L.sets;
      if (budget > 0 && planFromRanges(L, uint64_t(budget), g0, g1)) {
        // Slices of fewer groups than the device has compute units leave it partly idle
        // (Nbody's 16 groups of a 132-SM GPU, each as long as the whole launch's wave):
        // one set of twice the bytes, unpipelined, where its slices are longer.
        const uint64_t two = L.slices.front().count;
        if (L.sets > 1 && two < computeUnits && g1 - g0 > two) {
          std::vector<VastSlice> kept = L.slices;
          std::vector<size_t> frames;
          for (const VastArg &a : L.args) frames.push_back(a.frameBytes);
          if (planFromRanges(L, uint64_t(rest - double(lptBytes)), g0, g1) && L.slices.front().count > two) {
            L.sets = 1;
          } else {
            L.slices = std::move(kept);
            for (size_t j = 0; j < L.args.size(); ++j) L.args[j].frameBytes = frames[j];
          }
        }
        if (shift != shift0)
          TUTTI_LOG(Info, "VAST: %llu-byte pages: a work-group's windows do not fit at %llu",
                    (unsigned long long)(uint64_t(1) << shift), (unsigned long long)(uint64_t(1) << shift0));
        keepPlan(L, std::move(key), sp);
        return true;
      }
    }
  L.setPageShift(shift0);
  L.sets = maxSets;
  for (VastArg &a : L.args) a.resident = false;
  return false;
}

bool planInspect(Command *cmd, VastLaunch &L, int target, uint64_t budget, uint64_t bufferBytes,
                 std::string &why);

bool refuse(_cl_kernel *k, const std::string &why) {
  TUTTI_LOG(Info, "VAST does not take '%s': %s", k->name.c_str(), why.c_str());
  return false;
}

}  // namespace

bool vastMayTake() {
  const Settings &s = settings();
  if (s.vast == VastMode::Force) return true;
  if (s.vast == VastMode::Off) return false;
  // auto takes only GPUs and devices with a TUTTI_MEM_LIMIT.
  for (const BackingDevice *d : backend().devices())
    if (d->isGpu() || d->memLimited) return true;
  return false;
}

namespace {

// The paged kernel, the buffer arguments, the budget and the slices of groups [g0, g1) of
// cmd's launch on slot. nd and scalars: the launch's shape where a split fixed it (null:
// VAST picks one for the paged kernel); inspector: whether slices may come from the
// inspector (whole launches only). False: refused (logged).
bool planSlices(Command *cmd, int slot, VastLaunch &L, const cc::NDRange *nd, const cc::ScalarArgs *scalars,
                uint64_t g0, uint64_t g1, bool inspector) {
  const Settings &s = settings();
  _cl_kernel *k = cmd->kernel;
  BackingDevice *d = cmd->q->ctx->slots[size_t(slot)].dev;
  if (!pageShiftOf(s.vast_page, L.pageShift))
    return refuse(k, "TUTTI_VAST_PAGE must be a power of two from 4096 to 2097152");
  for (const ArgValue &a : cmd->args)
    if ((a.kind == ArgValue::Mem && a.mem && a.mem->isImage()) || a.kind == ArgValue::Sampler)
      return refuse(k, "image arguments");
  SkmdProgram *sp = skmdProgram(k->program);
  if (size_t(slot) >= sp->progs.size() || !sp->progs[size_t(slot)])
    return refuse(k, sp->why.empty() ? "no compiled variants for that device" : sp->why);
  const cc::KernelInfo *ki = skmdKernelInfo(*sp, slot, k->name);
  if (!ki || !ki->partitionable) return refuse(k, ki ? ki->whole_reason : "not compiled");
  if (ki->paged_kernel.empty()) return refuse(k, ki->paged_reason);
  L.info = ki;
  if (d->maxAlloc) L.maxFrame = d->maxAlloc;
  L.paged = skmdVariantKernel(*sp, slot, ki->paged_kernel, ki->paged_kernel);
  if (!L.paged) return refuse(k, "the paged-access kernel does not build there");
  size_t wgLimit = 0;
  icd(L.paged).clGetKernelWorkGroupInfo(L.paged, d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wgLimit,
                                        &wgLimit, nullptr);
  if (s.vast_rebase && !ki->rebased_kernel.empty()) {
    L.rebased = skmdVariantKernel(*sp, slot, ki->rebased_kernel, ki->rebased_kernel);
    size_t rbLimit = 0;
    if (L.rebased)
      icd(L.rebased).clGetKernelWorkGroupInfo(L.rebased, d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof rbLimit,
                                              &rbLimit, nullptr);
    if (rbLimit < wgLimit) L.rebased = nullptr;  // the paged kernel's shape must suit both
  }
  if (nd) {
    L.nd = *nd;
    L.scalars = *scalars;
    if (L.nd.local_size[0] * L.nd.local_size[1] * L.nd.local_size[2] > wgLimit)
      return refuse(k, "the split's work-groups exceed the paged kernel's limit");
  } else if (!skmdLaunchShape(cmd, wgLimit, L.nd, L.scalars)) {
    return refuse(k, "required work-group size without an explicit local size");
  }
  for (uint32_t i : ki->vast_buffer_args) {
    if (i >= cmd->args.size() || i >= ki->args.size()) return refuse(k, "argument list mismatch");
    const ArgValue &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem) return refuse(k, "a NULL buffer argument");
    if (a.mem->parent) return refuse(k, "a sub-buffer argument");
    const cc::ArgInfo &ai = ki->args[i];
    VastArg va;
    va.arg = i;
    va.root = a.mem;
    va.read = ai.read || ai.escapes;
    va.written = ai.written || ai.atomic || ai.escapes;
    // One buffer behind two arguments gets two frame buffers: a write through one would
    // be invisible through the other, and their copy-backs would undo each other.
    for (const VastArg &o : L.args)
      if (o.root == va.root && (o.written || va.written))
        return refuse(k, "a written buffer passed as two arguments");
    L.args.push_back(va);
  }
  // Two sets of frames and LPTs: one slice runs while the next one's pages arrive.
  const uint64_t lptBytes = L.setPageShift(L.pageShift);
  const double usable = double(d->globalMem) * kBudgetShare;
  const int maxSets = s.vast_pipeline ? 2 : 1;
  g1 = std::min(g1, L.nd.totalGroups());
  // The index ranges bound what each group range touches: slices follow from them, unless
  // they are so loose that the slices would move far more than the buffers hold (a
  // transpose's columns), where the inspector's page marks move only what is touched.
  bool bounded = true;
  uint64_t bufferBytes = 0;
  for (const VastArg &a : L.args) {
    const cc::ArgInfo &ai = ki->args[a.arg];
    // A buffer only read, at indices the analysis cannot bound (Nbody's positions in a
    // loop by the local size), is resident whole: as good as the inspector where it fits.
    const bool readOnly = !(ai.written || ai.atomic);
    bounded &= !ai.escapes && (!ai.read || ai.read_range_known || readOnly) &&
               (readOnly || ai.write_range_known);
    bufferBytes += a.root->size;
  }
  bool ranged = bounded && planRanged(L, usable, maxSets, g0, g1, *sp, d->computeUnits);
  if (!inspector) {
    if (!ranged) return refuse(k, "a piece of a split is paged only where the index ranges bound its groups' bytes");
  } else if (!ranged || movedBytes(L) > 4 * bufferBytes) {
    std::string why;
    // The inspector's slices hold every page they touch in each set (no resident buffers).
    // A set's frames together within one allocation: no arg's frame can exceed it.
    const double budgetD = std::min((usable - maxSets * double(lptBytes)) / maxSets, double(L.maxFrame));
    bool inspected = budgetD > 0 && planInspect(cmd, L, slot, uint64_t(budgetD), bufferBytes, why);
    if (inspected) {  // at the configured page
      L.inspect->usable = usable;
      L.sets = maxSets;
      unsigned shift = L.pageShift;
      pageShiftOf(s.vast_page, shift);
      L.setPageShift(shift);
      for (VastArg &a : L.args) a.resident = false;
    } else if (budgetD <= 0) {
      why = "its page tables alone exceed the device's budget";
    }
    // Without an inspector, unknown ranges still page whole buffers where those fit.
    if (!inspected && !ranged && !planRanged(L, usable, maxSets, g0, g1, *sp, d->computeUnits)) return refuse(k, why);
  }
  if (L.inspect) {
    TUTTI_LOG(Info, "VAST: '%s' on %s, slices from the inspector on %s (%llu groups per set, budget %llu bytes)",
              k->name.c_str(), d->label().c_str(), cmd->q->ctx->slots[size_t(L.inspect->slot)].dev->label().c_str(),
              (unsigned long long)L.inspect->groupsPerSet, (unsigned long long)L.inspect->budget);
    return true;
  }
  if (L.slices.empty()) return refuse(k, "one work-group's bytes exceed the device's budget");
  uint64_t resident = 0;
  for (const VastArg &a : L.args) resident += a.resident ? a.frameBytes : 0;
  TUTTI_LOG(Info, "VAST: '%s' on %s in %zu slice(s) of %llu groups (%d frame set(s), %llu resident bytes, %llu-byte pages)%s",
            k->name.c_str(), d->label().c_str(), L.slices.size(), (unsigned long long)L.slices.front().count, L.sets,
            (unsigned long long)resident, (unsigned long long)(uint64_t(1) << L.pageShift),
            nd ? ", a piece of a split" : "");
  return true;
}

}  // namespace

bool vastPlan(Command *cmd) {
  if (cmd->vast) return true;  // issued again after its slices ran
  const Settings &s = settings();
  if (s.vast == VastMode::Off || cmd->kind != CmdKind::Kernel) return false;
  _cl_kernel *k = cmd->kernel;
  int slot = targetSlot(cmd);
  if (slot < 0) return false;
  BackingDevice *d = cmd->q->ctx->slots[size_t(slot)].dev;
  // auto: only what the device cannot hold, on a device whose memory is not the host's.
  if (s.vast == VastMode::Auto && (launchFits(k, cmd->args, slot) || (!d->isGpu() && !d->memLimited)))
    return false;
  auto L = std::make_shared<VastLaunch>();
  if (!planSlices(cmd, slot, *L, nullptr, nullptr, 0, UINT64_MAX, true)) return false;
  cmd->slot = slot;
  cmd->vast = std::move(L);
  return true;
}

bool vastMayPage(const Command *cmd, int slot) {
  const Settings &s = settings();
  const BackingDevice *d = cmd->q->ctx->slots[size_t(slot)].dev;
  return s.vast != VastMode::Off && (s.vast == VastMode::Force || d->isGpu() || d->memLimited);
}

std::shared_ptr<VastLaunch> vastPlanPiece(Command *cmd, int slot, const cc::NDRange &nd,
                                          const cc::ScalarArgs &scalars, uint64_t first, uint64_t count) {
  auto L = std::make_shared<VastLaunch>();
  if (!planSlices(cmd, slot, *L, &nd, &scalars, first, first + count, false)) return nullptr;
  return L;
}

namespace {

// The longest n in [1, rem] with fits(n), fits being true up to some n and false after;
// 0 if fits(1) is false. Gallops from `guess` (doubling steps up or down), then bisects:
// a good guess costs two evaluations.
template <typename F>
uint64_t longestFitting(uint64_t rem, uint64_t guess, F fits) {
  guess = std::clamp<uint64_t>(guess, 1, rem);
  uint64_t lo = 0, hi = rem + 1;  // fits(lo) (or lo == 0), !fits(hi) (or hi == rem + 1)
  if (fits(guess)) {
    lo = guess;
    for (uint64_t step = 1; lo < rem; step *= 2) {
      const uint64_t t = std::min(rem, lo + step);
      if (!fits(t)) {
        hi = t;
        break;
      }
      lo = t;
    }
    if (lo == rem) return lo;
  } else {
    hi = guess;
    for (uint64_t step = 1; hi > 1; step *= 2) {
      const uint64_t t = hi > step ? hi - step : 1;
      if (fits(t)) {
        lo = t;
        break;
      }
      hi = t;
    }
    if (lo == 0) return 0;
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

bool planFromRanges(VastLaunch &Lr, uint64_t budget, uint64_t g0, uint64_t total) {
  VastLaunch *L = &Lr;
  L->slices.clear();
  for (VastArg &a : L->args) a.frameBytes = 0;
  // Slices in order: each the longest group range whose windows fit (windows grow with
  // the range). `total`: the end group. Each evaluation of the ranges costs (~0.3 ms for
  // FDTD3d's 3-D ranges; its first launch spent 47 ms here, searching from one group), so
  // the search starts from a guess: the previous slice's count (a uniform kernel's slices
  // are equal), or for the first slice the count at which the bytes of one group and of
  // all of them, taken as linear in the count, reach the budget.
  uint64_t prevCount = 0;
  for (uint64_t first = g0; first < total;) {
    const uint64_t rem = total - first;
    auto fits = [&](uint64_t n) { return bytesFor(*L, first, n) <= budget; };
    uint64_t guess = prevCount;
    if (!guess) {
      const double one = double(bytesFor(*L, first, 1)), all = double(bytesFor(*L, first, rem));
      const double slope = rem > 1 ? (all - one) / double(rem - 1) : 0;
      guess = all <= double(budget) ? rem
              : slope > 0 && double(budget) > one ? uint64_t(std::min(double(rem), (double(budget) - one) / slope)) + 1
                                                  : 1;
    }
    const uint64_t lo = longestFitting(rem, guess, fits);
    if (lo == 0) return L->slices.clear(), false;
    prevCount = lo;
    VastSlice sl;
    sl.first = first;
    sl.count = lo;
    for (VastArg &a : L->args) {
      Range w, wr;
      windowOf(*L, a, first, lo, w, wr);
      std::vector<PageRun> runs;
      std::vector<FrameCopy> out;
      if (!w.empty()) {
        runs.push_back({w.begin >> L->pageShift, (w.size() + (size_t(1) << L->pageShift) - 1) >> L->pageShift, 0});
        if (!wr.empty()) out.push_back({wr, wr.begin - w.begin});
      }
      sl.runs.push_back(std::move(runs));
      sl.out.push_back(std::move(out));
      a.frameBytes = std::max(a.frameBytes, w.size());
    }
    L->slices.push_back(std::move(sl));
    if (L->slices.size() > kMaxSlices) return L->slices.clear(), false;
    first += lo;
  }
  return true;
}

// The inspector's plan: a CPU device that runs it (the zero-copy one first: the buffers
// it reads are the homes there), and Eq. 4.1's groups per set.
bool planInspect(Command *cmd, VastLaunch &L, int target, uint64_t budget, uint64_t bufferBytes,
                 std::string &why) {
  const std::string &name = cmd->kernel->name;
  SkmdProgram *sp = skmdProgram(cmd->kernel->program);
  _cl_context *ctx = cmd->q->ctx;
  std::vector<int> order;
  if (zeroCopySlot(ctx) >= 0) order.push_back(zeroCopySlot(ctx));
  for (int s = 0; s < int(ctx->slots.size()); ++s) order.push_back(s);
  for (int s : order) {
    const BackingDevice *dev = ctx->slots[size_t(s)].dev;
    if (!dev->isCpu() || !mayRunOn(cmd, s) || size_t(s) >= sp->progs.size() || !sp->progs[size_t(s)]) continue;
    const cc::KernelInfo *ki = skmdKernelInfo(*sp, s, name);
    if (!ki || ki->inspector_kernel.empty()) {
      why = ki ? "no inspector: " + ki->inspector_reason : "no inspector";
      continue;
    }
    // The buffers it reads must fit that device (the others are never dereferenced).
    uint64_t data = 0;
    for (uint32_t i : ki->inspector_data_args) data += rootOf(cmd->args[i].mem)->size;
    if (dev->globalMem && data > dev->globalMem) {
      why = "the inspector's data exceed the CPU device's memory";
      continue;
    }
    cl_kernel ik = skmdVariantKernel(*sp, s, ki->inspector_kernel, ki->inspector_kernel);
    if (!ik) {
      why = "the inspector does not build on the CPU device";
      continue;
    }
    auto in = std::make_shared<VastInspect>();
    in->slot = s;
    in->kernel = ik;
    in->dataArgs = ki->inspector_data_args;
    in->budget = budget;
    in->groupsPerSet = cc::vastGroupsPerPas(budget, bufferBytes, L.nd.totalGroups());
    L.inspect = std::move(in);
    L.slices.clear();
    (void)target;
    return true;
  }
  if (why.empty()) why = "no CPU device to run the inspector";
  return false;
}

}  // namespace

}  // namespace tutti
