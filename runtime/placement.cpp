// placement.cpp - which backing device runs a whole kernel (TUTTI_PLACEMENT).
#include <algorithm>

#include "backend.h"
#include "measured.h"
#include "placement.h"
#include "log.h"
#include "settings.h"
#include "vast_plan.h"

namespace tutti {

namespace {

unsigned g_roundRobin = 0;

inline _cl_mem *rootBuffer(const ArgValue &a) {
  if (a.kind != ArgValue::Mem || !a.mem || a.mem->isImage()) return nullptr;
  return a.mem->parent ? a.mem->parent : a.mem;
}

bool fitsNow(_cl_kernel *k, const std::vector<ArgValue> &args, int slot) {
  if (!k->real[slot]) return false;
  BackingDevice *d = k->program->ctx->slots[slot].dev;
  // Each distinct root buffer counted once, without a set's allocations (kernels have a
  // handful of arguments).
  cl_ulong total = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    _cl_mem *m = rootBuffer(args[i]);
    if (!m || std::any_of(args.begin(), args.begin() + i, [&](const ArgValue &b) { return rootBuffer(b) == m; }))
      continue;
    if (d->maxAlloc && m->size > d->maxAlloc) return false;
    total += m->size;
  }
  return !d->globalMem || total <= d->globalMem;
}

__attribute__((noinline)) uint64_t refit(_cl_kernel *k, const std::vector<ArgValue> &args) {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  auto &m = k->fitMemo;
  m.roots.clear();
  for (const ArgValue &a : args)
    if (const _cl_mem *r = rootBuffer(a)) m.roots.push_back({r, r->size});
  m.mask = 0;
  for (int s = 0; s < int(std::min<size_t>(k->real.size(), 64)); ++s)
    if (fitsNow(k, args, s)) m.mask |= uint64_t(1) << s;
  m.valid = true;
  return m.mask;
}

// Whether the buffers fit depends on nothing but their sizes and which of them are the
// same: a launch with the buffers of the kernel's last one reuses that answer (refit
// otherwise). A buffer made where a released one was, with the same size, fits as it did.
inline uint64_t fitMask(_cl_kernel *k, const std::vector<ArgValue> &args) {
  apiMutex.assertHeld();  // callers below the API layer are not annotated yet
  const auto &m = k->fitMemo;
  if (!m.valid) return refit(k, args);
  size_t j = 0;
  for (const ArgValue &a : args) {
    const _cl_mem *r = rootBuffer(a);
    if (!r) continue;
    if (j >= m.roots.size() || m.roots[j].first != r || m.roots[j].second != r->size) return refit(k, args);
    ++j;
  }
  return j == m.roots.size() ? m.mask : refit(k, args);
}

bool fits(_cl_kernel *k, const std::vector<ArgValue> &args, int slot) {
  return slot < 64 ? (fitMask(k, args) >> slot) & 1 : fitsNow(k, args, slot);
}

int forcedImageSlot(_cl_kernel *k, const std::vector<ArgValue> &args) {
  for (auto &a : args)
    if (a.kind == ArgValue::Mem && a.mem && a.mem->isImage()) return a.mem->imageSlot;
  (void)k;
  return -1;
}

// Into c (cleared): every launch asks twice, so callers pass storage they keep. Slots in
// `avoid` failed this command, retired ones fail everything (failover.cpp).
void candidates(_cl_kernel *k, const std::vector<ArgValue> &args, std::vector<int> &c,
                uint32_t avoid) {
  c.clear();
  int img = forcedImageSlot(k, args);
  const auto &slots = k->program->ctx->slots;
  const uint64_t mask = fitMask(k, args);
  for (int s = 0; s < int(k->real.size()); ++s)
    if ((img < 0 || s == img) && slots[size_t(s)].dev->takesWork(s, avoid) &&
        (s < 64 ? (mask >> s) & 1 : fitsNow(k, args, s)))
      c.push_back(s);
}

std::vector<int> &scratch() {
  __attribute__((tls_model("initial-exec"))) static thread_local std::vector<int> c;  // see t_afterUnlock (runtime.cpp)
  return c;
}

}  // namespace

bool launchFits(_cl_kernel *k, const std::vector<ArgValue> &args, int slot) { return fits(k, args, slot); }

cl_int placementError(_cl_kernel *k, const std::vector<ArgValue> &args, std::string &why,
                      uint32_t avoid) {
  candidates(k, args, scratch(), avoid);
  if (!scratch().empty()) return CL_SUCCESS;
  bool built = std::any_of(k->real.begin(), k->real.end(), [](cl_kernel r) { return r; });
  if (avoid) {
    why = "kernel '" + k->name + "' failed on every backing device that could run it";
    return CL_OUT_OF_RESOURCES;
  }
  if (!built) {
    why = "kernel '" + k->name + "' is not built for any backing device";
    return CL_INVALID_PROGRAM_EXECUTABLE;
  }
  // VAST may run it in slices on a device that cannot hold it; planning tells (and fails
  // the launch with CL_MEM_OBJECT_ALLOCATION_FAILURE if it cannot).
  if (vastMayTake()) return CL_SUCCESS;
  why = "kernel '" + k->name +
        "' cannot be placed: its buffers exceed the memory of every backing device "
        "and VAST cannot page it";
  return CL_MEM_OBJECT_ALLOCATION_FAILURE;
}

int chooseSlot(Command *cmd) {
  // A launch placed while it waited for its wait list is placed again if that device has
  // been retired since (failover.cpp).
  if (cmd->slot >= 0 && cmd->kind == CmdKind::Kernel && cmd->q->ctx->slots[size_t(cmd->slot)].dev->retired)
    cmd->slot = -1, cmd->skmdWhole = false;
  if (cmd->slot >= 0) return cmd->slot;
  switch (cmd->kind) {
    case CmdKind::Kernel: break;
    case CmdKind::ImageRead: case CmdKind::ImageWrite: case CmdKind::ImageCopy:
    case CmdKind::ImageFill: case CmdKind::ImageToBuffer: case CmdKind::ImageMap:
      return cmd->slot = cmd->src && cmd->src->isImage() ? cmd->src->imageSlot : cmd->dst->imageSlot;
    case CmdKind::BufferToImage: return cmd->slot = cmd->dst->imageSlot;
    case CmdKind::Unmap:
      return cmd->src->isImage() ? (cmd->slot = cmd->src->imageSlot) : -1;
    default: return -1;  // host-side commands
  }
  _cl_kernel *k = cmd->kernel;
  std::vector<int> &c = scratch();
  candidates(k, cmd->args, c, cmd->avoid);
  if (c.empty()) return -1;
  const Settings &s = settings();
  int slot = -1;
  if (s.placement.kind == Placement::Device) {
    int want = s.placement.device;
    if (std::find(c.begin(), c.end(), want) != c.end()) slot = want;
    else {
      TUTTI_LOG(Warn, "TUTTI_PLACEMENT=device:%d: kernel '%s' cannot run there; using device %d",
                want, k->name.c_str(), c.front());
      slot = c.front();
    }
  } else if (s.placement.kind == Placement::RoundRobin) {
    slot = c[g_roundRobin++ % c.size()];
  } else if (c.size() == 1) {
    slot = c.front();  // auto with one candidate: no measurements to look up
  } else {
    // auto: the best throughput measured for this kernel, else the strongest device.
    double best = -1;
    for (int cs : c) {
      double tp = measuredThroughput(k, cs);
      if (tp > best) best = tp, slot = cs;
    }
    if (slot < 0) {
      for (int cs : c)
        if (slot < 0 || k->program->ctx->slots[cs].dev->strength() >
                            k->program->ctx->slots[slot].dev->strength())
          slot = cs;
    }
  }
  return cmd->slot = slot;
}

}  // namespace tutti
