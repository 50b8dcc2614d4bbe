// memory.cpp - host homes, device replicas, images and samplers on devices.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

#include "memory.h"

#include "backend.h"
#include "host_copy.h"
#include "icd.h"
#include "log.h"
#include "settings.h"
#include "skmd.h"
#include "transfer.h"

namespace tutti {

namespace {

// A slot whose driver should provide pinned host memory for homes, or -1.
int pinnedSlot(_cl_context *ctx) {
  if (!homesPinned(ctx)) return -1;
  for (size_t i = 0; i < ctx->slots.size(); ++i)
    if (ctx->slots[i].dev->isGpu()) return int(i);
  return ctx->slots.empty() ? -1 : 0;
}

// NVIDIA's driver (CUDA 13.0) crashes in clReleaseMemObject when the older of two
// overlapping sub-buffers that kernels used is released while the newer one lives; in
// reverse creation order it does not. So a real sub-buffer whose virtual one is gone
// waits until every newer one is gone too (its root's death releases the rest).
void releaseRealSubs(BufferStore &st, const std::vector<cl_mem> &gone, bool all) {
  for (auto &rs : st.realSubs)
    if (std::find(gone.begin(), gone.end(), rs.mem) != gone.end()) rs.dead = true;
  while (!st.realSubs.empty() && (all || st.realSubs.back().dead)) {
    cl_mem r = st.realSubs.back().mem;
    st.realSubs.pop_back();
    icd(r).clReleaseMemObject(r);
  }
}

}  // namespace

// Pinning costs more than it saves unless a home carries its bytes across PCIe many
// times: on the H100 a 200 MB VectorAdd staged through pinned homes took 318-370 ms
// against 92-96 ms with pageable memory and direct copies, and an SKMD probe that
// staged 1/256 of two inputs paid for pinning both whole buffers. Large copies go
// direct anyway, so homes are pageable (and only touched pages cost) unless asked.
bool homesPinned(_cl_context *ctx) {
  if (settings().pinned != PinnedMode::On) return false;
  return !ctx->slots.empty();
}

char *homeOf(_cl_context *ctx, BufferStore &st) {
  if (st.home) return st.home;
  int ps = pinnedSlot(ctx);
  if (ps >= 0) {
    DeviceSlot &s = ctx->slots[ps];
    cl_int err = CL_SUCCESS;
    const size_t bytes = paddedHostSize(st.size);  // as allocHostMemory, for zero copy
    cl_mem b = icd(s.ctx).clCreateBuffer(s.ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                                         bytes, nullptr, &err);
    void *p = nullptr;
    if (b && err == CL_SUCCESS)
      p = icd(s.queue()).clEnqueueMapBuffer(s.queue(), b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                          bytes, 0, nullptr, nullptr, &err);
    if (p && err == CL_SUCCESS) {
      st.home = static_cast<char *>(p);
      st.pinnedBuf = b;
      st.pinnedQueue = s.queue();
      return st.home;
    }
    if (b) icd(b).clReleaseMemObject(b);
    TUTTI_LOG(Info, "no pinned memory from %s (%s); using pageable memory",
              s.dev->label().c_str(), clErrorName(err));
  }
  st.home = static_cast<char *>(allocHostMemory(st.size));
  if (!st.home) TUTTI_LOG(Error, "no host memory for a %zu-byte buffer home", st.size);
  return st.home;
}

size_t paddedHostSize(size_t size) {
  size_t align = 1;
  for (const BackingDevice *d : backend().devices())
    align = std::max<size_t>(align, d->baseAddrAlign / 8);
  size = std::max<size_t>(size, 1);
  return (size + align - 1) / align * align;
}

void *allocHostMemory(size_t size) {
  // Real drivers round each buffer up to their base address alignment (PoCL: to
  // CL_DEVICE_MEM_BASE_ADDR_ALIGN, 128 bytes on x86), so a kernel that strays a little
  // past its buffer's end writes into padding natively (piglit's bswap.cl launches 24
  // work-items on 8-element buffers). The zero-copy CPU device runs kernels on this
  // memory itself: without the same padding those writes overwrote the heap's next block.
  size = paddedHostSize(size);
  void *p = nullptr;
  // With TUTTI_HUGE_PAGES, big blocks on 2 MiB boundaries with transparent huge pages: a
  // first touch faults 2 MiB at a time. Off by default: the CPU device then sees the same
  // 4 KiB pages a native app's buffers get, whose scattered physical frames keep strided
  // writes from piling into one cache set.
  constexpr size_t kHuge = 2u << 20;
  const bool huge = settings().huge_pages;
  size_t align = huge && size >= 2 * kHuge ? kHuge : 4096;
  if (posix_memalign(&p, align, size) != 0) return nullptr;
  if (align == kHuge) madvise(p, size & ~(kHuge - 1), MADV_HUGEPAGE);  // a hint only
  return p;
}

int pickZeroCopySlot(const _cl_context *ctx) {
  if (!settings().zero_copy) return -1;
  int best = -1;
  for (size_t i = 0; i < ctx->slots.size(); ++i) {
    const BackingDevice *d = ctx->slots[i].dev;
    // PoCL's CPU devices run kernels on a CL_MEM_USE_HOST_PTR buffer's memory itself;
    // other CPU drivers may keep a copy, which would make the home stale.
    if (!d->isCpu() || d->platformName.find("Portable Computing Language") == std::string::npos)
      continue;
    if (best < 0 || d->strength() > ctx->slots[best].dev->strength()) best = int(i);
  }
  return best;
}

bool directCopy(const BufferStore &st, size_t bytes) {
  const uint64_t min = settings().direct_min;
  return min && bytes >= min && !st.homeIsUser;
}

int directSlot(_cl_context *ctx, const BufferStore &st, size_t bytes) {
  const Settings &s = settings();
  if (!directCopy(st, bytes)) return -1;
  int n = int(ctx->slots.size());
  int slot = -1;
  if (st.affinity >= 0 && st.affinity < n) {
    slot = st.affinity;
  } else if (s.placement.kind == Placement::Device) {
    slot = s.placement.device < n ? s.placement.device : -1;
  } else if (s.placement.kind == Placement::Auto) {  // round robin: the next device is anyone's guess
    for (int i = 0; i < n; ++i)
      if (slot < 0 || ctx->slots[i].dev->strength() > ctx->slots[slot].dev->strength()) slot = i;
  }
  // Under SKMD the split is not known when the app writes, yet the bytes still go to
  // the strongest device: keeping them in the home instead would let a CPU share start
  // without copies, but on the H100 machine (a VM) a first touch of fresh home pages ran
  // at 0.35-1.5 GB/s, far below the 10 GB/s of the direct pageable copy.
  if (slot < 0 || slot == zeroCopySlot(ctx)) return -1;  // the CPU's replica is the home
  const BackingDevice *d = ctx->slots[slot].dev;
  if (d->retired) return -1;  // failover.cpp: no new work, new bytes stay in the home
  return d->maxAlloc && st.size > d->maxAlloc ? -1 : slot;
}

bool stripeSlots(_cl_context *ctx, const BufferStore &st, Range r, std::vector<std::pair<int, Range>> &out) {
  out.clear();
  const Settings &s = settings();
  if (s.mode != KernelMode::Skmd || s.vast == VastMode::Off || !s.vast_stripes || r.empty()) return false;
  // Only where the split is known: Algorithm 1 runs a kernel it knows nothing about whole
  // on the strongest device first, and paged whole there, the other stripes would cross to
  // the host and back (its later splits are unmeasured on two GPUs: not striped for yet).
  if (!kernelCompilerLinked() || s.partition.kind != Partition::Fixed) return false;
  // The devices the fixed policy gives pieces to that VAST may page on (vastMayPage), in
  // proportion to its weights.
  std::vector<std::pair<int, double>> w;
  double strongest = 0, total = 0;
  int top = -1;
  for (int i = 0; i < int(ctx->slots.size()); ++i) {
    const BackingDevice *d = ctx->slots[size_t(i)].dev;
    if (i == zeroCopySlot(ctx) || d->retired || (d->maxAlloc && st.size > d->maxAlloc)) continue;
    if (!(d->isGpu() || d->memLimited)) continue;
    const double wi = size_t(i) < s.partition.weights.size() ? s.partition.weights[size_t(i)] : 0;
    if (wi <= 0) continue;
    w.push_back({i, wi});
    if (top < 0 || d->strength() > strongest) top = i, strongest = d->strength();
  }
  if (w.size() < 2) return false;
  // Only data the strongest cannot hold (VAST's budget is 85 % of a device's memory): where
  // they fit, a launch runs whole there and the bytes belong on it.
  if (double(ctx->bufferBytes) <= 0.85 * double(ctx->slots[size_t(top)].dev->globalMem)) return false;
  for (const auto &p : w) total += p.second;
  double acc = 0;
  size_t begin = 0;
  for (size_t j = 0; j < w.size(); ++j) {
    acc += w[j].second;
    size_t end = j + 1 == w.size() ? st.size : std::min(st.size, (size_t(double(st.size) * acc / total) + 4095) & ~size_t(4095));
    const Range part{std::max(begin, r.begin), std::min(end, r.end)};
    if (part.end > part.begin) out.push_back({w[j].first, part});
    begin = end;
  }
  return out.size() > 1;
}

namespace {

// The initial content in the home: no device was chosen for it, or its upload failed.
cl_int copyToHome(_cl_mem *m, const void *hostPtr) REQUIRES(apiMutex) {
  BufferStore &st = *m->store;
  if (!homeOf(m->ctx, st)) {
    for (cl_mem b : st.devBuf)
      if (b) icd(b).clReleaseMemObject(b);
    m->ctx->bufferBytes -= std::min<uint64_t>(m->ctx->bufferBytes, st.size);
    m->store.reset();
    return CL_OUT_OF_HOST_MEMORY;
  }
  hostCopy(st.home, hostPtr, m->size);
  st.hostValid.add({0, m->size});
  return CL_SUCCESS;
}

cl_int uploadFailed(_cl_mem *m, const DeviceSlot &ds, const void *hostPtr, cl_int err) REQUIRES(apiMutex) {
  TUTTI_LOG(Info, "%s: initial upload failed (%s); keeping the data on the host",
            ds.dev->label().c_str(), clErrorName(err));
  return copyToHome(m, hostPtr);
}

}  // namespace

cl_int createStore(_cl_mem *m, void *hostPtr, InitialUpload *upload) {
  auto st = std::make_shared<BufferStore>();
  st->size = m->size;
  m->ctx->bufferBytes += m->size;  // less again where the store goes (copyToHome, releaseStore)
  size_t n = m->ctx->slots.size();
  st->devValid.resize(n);
  st->devBuf.assign(n, nullptr);
  st->lastWrite.resize(n);
  m->store = st;
  if (m->flags & CL_MEM_USE_HOST_PTR) {
    st->home = static_cast<char *>(hostPtr);
    st->homeIsUser = true;
    st->hostValid.add({0, m->size});
    return CL_SUCCESS;
  }
  // Without initial content the bytes are undefined: valid nowhere, so nothing moves
  // until something writes them.
  if (!(m->flags & CL_MEM_COPY_HOST_PTR)) return CL_SUCCESS;
  int slot = directSlot(m->ctx, *st, m->size);
  if (slot < 0) return copyToHome(m, hostPtr);
  // Straight to the device that will most likely use it: no home, no second copy.
  DeviceSlot &ds = m->ctx->slots[slot];
  cl_int err = CL_SUCCESS;
  cl_mem b = realBuffer(m, slot, &err);
  if (!b) return uploadFailed(m, ds, hostPtr, err);
  *upload = {&ds, slot, b, hostPtr, m->size};
  return CL_SUCCESS;
}

cl_int uploadInitial(const InitialUpload &u) {
  return writeNow(*u.ds, u.buf, 0, u.size, u.src, "initial upload");
}

cl_int initialLanded(_cl_mem *m, const InitialUpload &u, cl_int err) {
  if (err != CL_SUCCESS) return uploadFailed(m, *u.ds, u.src, err);
  m->store->devValid[u.slot].add({0, u.size});
  return CL_SUCCESS;
}

cl_mem realBuffer(_cl_mem *m, int slot, cl_int *err) {
  *err = CL_SUCCESS;
  _cl_mem *root = m->parent ? m->parent : m;
  BufferStore &st = *root->store;
  DeviceSlot &s = root->ctx->slots[slot];
  if (!st.devBuf[slot] && st.alias < 0 && slot == zeroCopySlot(root->ctx) && homeOf(root->ctx, st) &&
      reinterpret_cast<uintptr_t>(st.home) % 128 == 0) {
    // The CPU's replica is the home: copies between them become no-ops (ensureHost,
    // ensureDeviceRange), so the CPU starts on data the app wrote without moving it.
    st.devBuf[slot] = icd(s.ctx).clCreateBuffer(s.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                                st.size ? st.size : 1, st.home, err);
    if (*err == CL_SUCCESS) st.alias = slot;
    else st.devBuf[slot] = nullptr;  // a plain replica below
  }
  if (!st.devBuf[slot]) {
    st.devBuf[slot] = icd(s.ctx).clCreateBuffer(s.ctx, CL_MEM_READ_WRITE, st.size, nullptr, err);
    if (*err != CL_SUCCESS) {
      TUTTI_LOG(Error, "%s: clCreateBuffer(%zu bytes) failed: %s", s.dev->label().c_str(),
                st.size, clErrorName(*err));
      st.devBuf[slot] = nullptr;
      return nullptr;
    }
  }
  if (!m->parent) return st.devBuf[slot];
  if (m->subReal.empty()) m->subReal.assign(root->ctx->slots.size(), nullptr);
  if (!m->subReal[slot]) {
    cl_buffer_region reg{m->origin, m->size};
    m->subReal[slot] = icd(st.devBuf[slot]).clCreateSubBuffer(
        st.devBuf[slot], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, err);
    if (*err != CL_SUCCESS) {
      TUTTI_LOG(Error, "%s: clCreateSubBuffer(origin %zu, size %zu) failed: %s",
                s.dev->label().c_str(), m->origin, m->size, clErrorName(*err));
      m->subReal[slot] = nullptr;
    } else {
      st.realSubs.push_back({m->subReal[slot], false});
    }
  }
  return m->subReal[slot];
}

cl_mem realImage(_cl_mem *m, cl_int *err) {
  *err = m->realImage ? CL_SUCCESS : CL_INVALID_MEM_OBJECT;
  return m->realImage;
}

int imageSlot(_cl_context *ctx) {
  int best = -1;
  for (size_t i = 0; i < ctx->slots.size(); ++i) {
    BackingDevice *d = ctx->slots[i].dev;
    if (d->imageSupport && (best < 0 || d->strength() > ctx->slots[best].dev->strength()))
      best = int(i);
  }
  return best;
}

cl_sampler realSampler(_cl_sampler *s, int slot, cl_int *err) {
  *err = CL_SUCCESS;
  if (s->real.empty()) s->real.assign(s->ctx->slots.size(), nullptr);
  if (!s->real[slot]) {
    cl_context c = s->ctx->slots[slot].ctx;
    s->real[slot] = icd(c).clCreateSampler(c, s->normalized, s->addressing, s->filter, err);
  }
  return s->real[slot];
}

namespace {
uint64_t g_realMemEpoch = 1;  // guarded by the runtime lock, as every store is
}  // namespace

uint64_t realMemEpoch() { return g_realMemEpoch; }
void forgetRealArgs() { ++g_realMemEpoch; }

void releaseStore(_cl_mem *m) {
  ++g_realMemEpoch;
  // A launch handed to an issuer may still name these real buffers.
  for (DeviceSlot &s : m->ctx->slots)
    if (s.issuer) s.issuer->drain();
  if (m->parent) {
    releaseRealSubs(*m->parent->store, m->subReal, false);
  } else if (m->store) {
    BufferStore &st = *m->store;
    m->ctx->bufferBytes -= std::min<uint64_t>(m->ctx->bufferBytes, st.size);
    releaseRealSubs(st, {}, true);
    // A copy into the home may still be under way (a staged one on a thread of its own,
    // after the command that asked for it failed on something else).
    for (auto &f : st.pendingFills) f.ev.wait();
    st.pendingFills.clear();
    for (cl_mem b : st.devBuf)
      if (b) icd(b).clReleaseMemObject(b);
    if (st.pinnedBuf) {
      icd(st.pinnedQueue).clEnqueueUnmapMemObject(st.pinnedQueue, st.pinnedBuf, st.home, 0,
                                                  nullptr, nullptr);
      icd(st.pinnedBuf).clReleaseMemObject(st.pinnedBuf);
    } else if (!st.homeIsUser) {
      std::free(st.home);
    }
  }
  if (m->realImage) icd(m->realImage).clReleaseMemObject(m->realImage);
}

}  // namespace tutti
