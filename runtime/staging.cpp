// staging.cpp - pinned staging between the app's pageable memory and a GPU.
//
// A driver copies pageable memory through its own pinned bounce buffer on one thread: on
// the H100 machine 6.5 GB/s host-to-device and 10.5 back for 200 MiB, where DMA from
// pinned memory runs at 53-55 GB/s and 16 threads copy into pinned memory at 24-43 GB/s
// (tools/bench/micro/staging_bw). So the copy pool fills one staging region while the DMA
// engine drains the previous one. Pinning costs about 1.5 GB/s, so the regions are
// allocated once per context, in the background, and reused.
//
// Coherence's own copies (into a home, or from one device to another) go through the
// same regions, on the staging's own queue and a thread of its own, so that the command
// waiting for them stays asynchronous. On the two-H100 machine one context's pinned
// memory is pinned for the other context's copies too (52 GB/s each way, against 10 from
// pageable memory), so one device's regions carry a device-to-device copy's both legs;
// NVIDIA's own copy between two devices of one context ran at 1 GB/s there
// (tools/bench/micro/d2d_bw).
#include "staging.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "backend.h"
#include "host_copy.h"
#include "memory.h"
#include "pinned_ring.h"
#include "reaper.h"
#include "skmd.h"
#include "icd.h"
#include "real_event.h"
#include "log.h"
#include "objects.h"
#include "settings.h"
#include "clock.h"
#include "trace.h"
#include "worker_pool.h"

namespace tutti {

struct Staging {
  struct Region {
    cl_mem buf = nullptr;
    char *p = nullptr;
    RealEvent busy;  // the DMA last issued on this region
  };
  std::vector<Region> regions;
  size_t regionBytes = 0;
  // Maps, unmaps and background copies, beside the slot's in-order queue.
  cl_command_queue ownQueue = nullptr;
  cl_context ctx = nullptr;  // the slot's real context
  std::thread allocator;
  bool ringWanted = false;  // a GPU that VAST may page through
  bool ringAsked = false;   // ringMaker was started (startRing); under apiMutex
  std::thread ringMaker;
  std::atomic<bool> ringPending{false};  // a ring is being pinned in the background
  std::atomic<bool> ready{false};
  std::atomic<bool> allocated{false};  // the allocator is over, ready or not
  size_t next = 0;  // the region the next asynchronous write tries first
  std::mutex use;   // one staged copy at a time
  // Rings for long runs of copies (takeRing), kept between runs.
  std::mutex ringsMu;
  std::vector<std::unique_ptr<PinnedRing>> rings;
  // Background copies, run by one thread started with the first, each once the events
  // it waits for have completed: the oldest ready one first. In posting order, a copy
  // that waits for a long kernel held back every later one from the same device (mk_-
  // TripleCommutator on two H100s: the moves a second GPU's first products needed waited
  // 50 ms behind a push of the first product to the CPU).
  struct Job {
    std::function<void()> run;
    std::vector<std::shared_ptr<RealEvent>> waits;
  };
  std::mutex jobsMu;
  std::condition_variable jobsCv;
  std::deque<Job> jobs;
  std::thread worker;
  bool stopping = false;
};

namespace {

constexpr int kRegions = 4;  // a copy runs while up to three DMAs are queued

bool wanted(_cl_context *ctx, int slot) {
  StagingMode mode = settings().staging;
  if (mode == StagingMode::Off || slot == zeroCopySlot(ctx)) return false;
  const BackingDevice *d = ctx->slots[slot].dev;
  return mode == StagingMode::On || (d->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR));
}

// VAST's rings keep 16 MiB regions however small the app's staging is: its runs were
// measured with them.
size_t ringRegionBytes(const Staging &st) { return std::max<size_t>(st.regionBytes, 16u << 20); }

void allocate(Staging *st, cl_context ctx, cl_device_id dev, std::string label) {
  cl_int err = CL_SUCCESS;
  const auto &d = icd(ctx);
  st->ownQueue = d.clCreateCommandQueue(ctx, dev, 0, &err);
  for (int i = 0; i < kRegions && err == CL_SUCCESS; ++i) {
    Staging::Region r;
    r.buf = d.clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, st->regionBytes, nullptr, &err);
    if (err != CL_SUCCESS) break;
    r.p = static_cast<char *>(d.clEnqueueMapBuffer(st->ownQueue, r.buf, CL_TRUE,
                                                   CL_MAP_READ | CL_MAP_WRITE, 0, st->regionBytes,
                                                   0, nullptr, nullptr, &err));
    st->regions.push_back(std::move(r));
  }
  if (err != CL_SUCCESS) {
    TUTTI_LOG(Info, "%s: no pinned staging memory (%s); large copies use the driver's path",
              label.c_str(), clErrorName(err));
    st->allocated = true;
    return;
  }
  st->ready = true;
  st->allocated = true;
}

// A copy of a few regions' worth that finds the allocation under way (it starts with the
// context, so a large copy soon after may find it unfinished) waits for it: pinning the
// regions takes about 10 ms on the H100, while the driver's pageable path ran at a third
// of the staged rate and the allocation slowed it further (VectorAdd at thesis size: 62-84
// ms against 16-25 ms with the memory pinned up front, 56-70 natively).
Staging *usable(DeviceSlot &s, size_t n) {
  const size_t min = std::max<size_t>(1, settings().staging_min);
  Staging *st = s.staging.get();
  if (!st || n < min) return nullptr;
  if (!st->ready && !st->allocated && n >= kRegions * st->regionBytes) {
    for (int i = 0; i < 2000 && !st->allocated; ++i) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return st->ready ? st : nullptr;
}

// The size of one round: small enough that a copy of size n pipelines over several.
size_t roundBytes(const Staging &st, size_t n) {
  size_t r = std::max<size_t>(n / kRegions, 1u << 20);
  return std::min((r + 65535) & ~size_t(65535), st.regionBytes);
}

void copyParts(char *dst, const char *src, size_t n) { hostCopy(dst, src, n, 256u << 10); }

cl_int settle(Staging::Region &r) {
  if (!r.busy) return CL_SUCCESS;
  cl_int err = r.busy.wait();
  r.busy.reset();
  return err;
}

cl_int settleAll(Staging &st, cl_int err) {
  for (auto &r : st.regions) {
    cl_int e = settle(r);
    if (err == CL_SUCCESS) err = e;
  }
  return err;
}

// The rounds of a copy out of b at off: reads of up to four rounds ahead into the regions
// on q (the first waits for `after`, when given), and drain(region, at, len) empties each
// in turn. A region that drain leaves busy (its bytes on their way to another device) is
// waited for before it is read into again.
template <typename Drain>
cl_int readRounds(Staging &st, cl_command_queue q, cl_mem b, size_t off, size_t n, cl_event after,
                  Drain drain) {
  size_t round = roundBytes(st, n), rounds = (n + round - 1) / round, nreg = st.regions.size();
  cl_int e = CL_SUCCESS;
  auto issue = [&](size_t k) {
    Staging::Region &r = st.regions[k % nreg];
    if ((e = settle(r)) != CL_SUCCESS) return;
    cl_uint waits = k == 0 && after ? 1 : 0;
    e = icd(q).clEnqueueReadBuffer(q, b, CL_FALSE, off + k * round, std::min(round, n - k * round),
                                   r.p, waits, waits ? &after : nullptr, r.busy.out());
    if (e == CL_SUCCESS) e = icd(q).clFlush(q);
  };
  size_t issued = 0;
  for (; issued < std::min(rounds, nreg) && e == CL_SUCCESS; ++issued) issue(issued);
  for (size_t k = 0; k < rounds && e == CL_SUCCESS; ++k) {
    Staging::Region &r = st.regions[k % nreg];
    if ((e = settle(r)) != CL_SUCCESS) break;
    e = drain(r, k * round, std::min(round, n - k * round));
    if (e == CL_SUCCESS && issued < rounds) issue(issued++);
  }
  return settleAll(st, e);
}

// n bytes of b at off into dst, read on q: counted as staged and traced as `span`.
cl_int readInto(Staging &st, DeviceSlot &s, cl_command_queue q, cl_event after, cl_mem b,
                size_t off, size_t n, void *dst, const char *span) {
  std::lock_guard<std::mutex> l(st.use);
  uint64_t t0 = nowNs();
  char *out = static_cast<char *>(dst);
  cl_int err = readRounds(st, q, b, off, n, after, [&](Staging::Region &r, size_t at, size_t len) {
    copyParts(out + at, r.p, len);
    return CL_SUCCESS;
  });
  if (err == CL_SUCCESS) {
    s.dev->counters.record(Transfer::Staged, n);
    traceSpan(s.dev->index, "d2h", span, t0, nowNs(), n);
  }
  return err;
}

// n bytes from src into b at off through st's regions, written on q (the first write waits
// for `after`, when given): counted as staged and traced as `span`.
cl_int writeFrom(Staging &st, DeviceSlot &s, cl_command_queue q, cl_event after, cl_mem b,
                 size_t off, size_t n, const char *src, const char *span) {
  std::lock_guard<std::mutex> l(st.use);
  uint64_t t0 = nowNs();
  size_t round = roundBytes(st, n), nreg = st.regions.size();
  cl_int e = CL_SUCCESS;
  for (size_t done = 0, k = 0; done < n && e == CL_SUCCESS; done += round, ++k) {
    Staging::Region &r = st.regions[k % nreg];
    if ((e = settle(r)) != CL_SUCCESS) break;
    size_t len = std::min(round, n - done);
    copyParts(r.p, src + done, len);
    cl_uint waits = k == 0 && after ? 1 : 0;
    e = icd(q).clEnqueueWriteBuffer(q, b, CL_FALSE, off + done, len, r.p, waits, waits ? &after : nullptr,
                                    r.busy.out());
    if (e == CL_SUCCESS) e = icd(q).clFlush(q);
  }
  e = settleAll(st, e);
  if (e == CL_SUCCESS) {
    s.dev->counters.record(Transfer::Staged, n);
    traceSpan(s.dev->index, "h2d", span, t0, nowNs(), n);
  }
  return e;
}

// n bytes of src at off on `from` to dst at off on `to` through st (from's regions): read
// on fq, written on tq. A span per leg, so a trace shows both devices busy.
cl_int moveThrough(Staging &st, DeviceSlot &from, cl_command_queue fq, cl_event after, cl_mem src,
                   DeviceSlot &to, cl_command_queue tq, cl_mem dst, size_t off, size_t n) {
  std::lock_guard<std::mutex> l(st.use);
  uint64_t t0 = nowNs();
  cl_int err = readRounds(st, fq, src, off, n, after, [&](Staging::Region &r, size_t at, size_t len) {
    cl_int e = icd(tq).clEnqueueWriteBuffer(tq, dst, CL_FALSE, off + at, len, r.p, 0, nullptr,
                                            r.busy.out());
    return e == CL_SUCCESS ? icd(tq).clFlush(tq) : e;
  });
  if (err == CL_SUCCESS) {
    uint64_t t1 = nowNs();
    from.dev->counters.record(Transfer::Staged, n);
    to.dev->counters.record(Transfer::Staged, n);
    traceSpan(from.dev->index, "d2h", "staged move out", t0, t1, n);
    traceSpan(to.dev->index, "h2d", "staged move in", t0, t1, n);
  }
  return err;
}

// Completed, or failed (the copy then fails on its own and says so).
bool landed(const std::vector<std::shared_ptr<RealEvent>> &waits) {
  for (const auto &e : waits) {
    cl_int status = CL_QUEUED;
    if (!*e) continue;
    if (icd(e->get()).clGetEventInfo(e->get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                                     nullptr) != CL_SUCCESS)
      return true;
    if (status > CL_COMPLETE) return false;
  }
  return true;
}

void work(Staging *st) {
  std::unique_lock<std::mutex> l(st->jobsMu);
  for (;;) {
    st->jobsCv.wait(l, [st] { return st->stopping || !st->jobs.empty(); });
    if (st->jobs.empty()) return;  // stopping, and every copy asked for is done
    auto ready = std::find_if(st->jobs.begin(), st->jobs.end(), [](const Staging::Job &j) { return landed(j.waits); });
    if (ready == st->jobs.end()) {
      // Driver callbacks came 12-20 ms late on NVIDIA (h200x2-2026-11-26): poll instead.
      st->jobsCv.wait_for(l, std::chrono::microseconds(50));
      continue;
    }
    Staging::Job job = std::move(*ready);
    st->jobs.erase(ready);
    l.unlock();
    job.run();
    job = {};  // its references go now, not under the lock
    l.lock();
  }
}

// Real buffers a copy holds on to: the app may release a buffer while a background copy
// of it is still to run.
struct Held {
  std::vector<cl_mem> mems;
  explicit Held(std::initializer_list<cl_mem> ms) : mems(ms) {
    for (cl_mem m : mems) icd(m).clRetainMemObject(m);
  }
  ~Held() {
    for (cl_mem m : mems) icd(m).clReleaseMemObject(m);
  }
};

// Runs copy(own, after) so that it keeps its place in the order of s's queue (after the
// work queued there before now) without the caller, who holds the API lock, waiting for
// that work: on st's thread once a marker on s's queue (`after`) has completed, with own
// true (its commands go on the staging queues, beside whatever is queued on the slots'
// queues later), and *done gets a user event that completes with its result. With
// `waits`, the copy waits for those events instead of the marker (copyOutWaits: a copy
// out of a replica needs only its last writer). Where a driver must not be called beside
// the API lock (`background` false) or no thread starts, it runs now on the slots' own
// queues and *done stays empty.
template <typename Copy>
cl_int startCopy(Staging &st, DeviceSlot &s, bool background, Copy copy, RealEvent *done,
                 const std::vector<RealEvent> *waits = nullptr) {
  if (background) {
    const cl_icd_dispatch &d = icd(s.queue());
    RealEvent marker, user;
    cl_int err = CL_SUCCESS;
    if (!waits) {
      err = d.clEnqueueMarkerWithWaitList(s.queue(), 0, nullptr, marker.out());
      if (err == CL_SUCCESS) err = d.clFlush(s.queue());
    }
    if (err == CL_SUCCESS) user.reset(d.clCreateUserEvent(s.ctx, &err));
    if (err != CL_SUCCESS) return err;
    auto after = std::make_shared<RealEvent>(std::move(marker));
    auto result = std::make_shared<RealEvent>(user.share());
    Staging::Job job;
    if (!waits)
      job.waits.push_back(after);
    else
      for (const RealEvent &w : *waits) job.waits.push_back(std::make_shared<RealEvent>(w.share()));
    job.run = [copy, after, result] {
      cl_int e = copy(true, after->get());
      icd(result->get()).clSetUserEventStatus(result->get(), e == CL_SUCCESS ? CL_COMPLETE : e);
    };
    std::lock_guard<std::mutex> l(st.jobsMu);
    try {
      if (!st.worker.joinable()) st.worker = std::thread(work, &st);
      st.jobs.push_back(std::move(job));
      st.jobsCv.notify_one();
      *done = std::move(user);
      return CL_SUCCESS;
    } catch (...) {
      // No thread: now, as below (the marker alone is harmless).
    }
  }
  return copy(false, nullptr);
}

}  // namespace

bool stagingWants(DeviceSlot &s, size_t n) { return usable(s, n) != nullptr; }

void awaitStaging(DeviceSlot &s) {
  Staging *st = s.staging.get();
  for (int i = 0; st && i < 20000 && !st->allocated; ++i)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
}

// The ring, pinned in the background once the regions are (under apiMutex).
static void startRing(Staging *st) {
  st->ringAsked = true;
  st->ringPending = true;
  try {
    st->ringMaker = std::thread([st] {
      if (st->allocator.joinable()) st->allocator.join();  // only this thread joins it now
      if (st->ready) {
        auto r = PinnedRing::make(st->ctx, st->ownQueue, ringRegionBytes(*st), 2 * kRegions);
        std::lock_guard<std::mutex> l(st->ringsMu);
        if (r) st->rings.push_back(std::move(r));
      }
      st->ringPending = false;
    });
  } catch (...) {
    st->ringPending = false;  // no thread: the first VAST run makes it
  }
}

void startStaging(_cl_context *ctx, int slot) {
  size_t total = size_t(settings().staging_mb) << 20;
  if (!total || !wanted(ctx, slot)) return;  // TUTTI_STAGING_MB=0: none
  DeviceSlot &s = ctx->slots[slot];
  auto st = std::make_shared<Staging>();
  st->ctx = s.ctx;
  st->regionBytes = std::max<size_t>(total / kRegions, 1u << 20) & ~size_t(65535);
  st->ringWanted = settings().vast != VastMode::Off && kernelCompilerLinked() &&
                   (s.dev->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR));
  s.staging = st;
  warmPool();
  try {
    st->allocator = std::thread(allocate, st.get(), s.ctx, s.dev->id, s.dev->label());
  } catch (...) {
    // no thread: the driver's path
  }
  // Every launch paged, or a device given a small budget: VAST is likely from the start.
  if (st->ringWanted && (settings().vast == VastMode::Force || s.dev->memLimited)) startRing(st.get());
}

// Pinning 64 MiB of regions and VAST's 128 MiB ring with the context made every process
// about 100 ms slower to start and end on the H100 (VectorAdd --size tiny: 522 ms against
// 414 ms with TUTTI_STAGING_MB=0, natively 416). The regions still come with the context:
// copies right after a large buffer is made need them (pinned only from the first large
// buffer on, VectorAdd at thesis size took 40 ms instead of 17; with 4 MiB regions, 34). The ring
// comes with the first buffer of a quarter of the device's memory (VAST likely), or with
// the context under TUTTI_VAST=force (every launch is paged) or a TUTTI_MEM_LIMIT on the
// device (FDTD3d's first slices waited 46 ms for it), made in the background once
// the regions are, else when a VAST run first asks for it (takeRing; 46 ms on the H100).
void stagingForBuffer(_cl_context *ctx, size_t bytes) {
  for (DeviceSlot &s : ctx->slots) {
    Staging *st = s.staging.get();
    if (!st || !st->ringWanted || st->ringAsked || bytes < s.dev->globalMem / 4) continue;
    startRing(st);
  }
}

void finishStagedCopies(DeviceSlot &s) {
  if (!s.staging) return;
  Staging &st = *s.staging;
  {
    std::lock_guard<std::mutex> l(st.jobsMu);
    st.stopping = true;
  }
  st.jobsCv.notify_all();
  if (st.worker.joinable()) st.worker.join();
}

void stopStaging(DeviceSlot &s, bool later) {
  if (!s.staging) return;
  finishStagedCopies(s);
  // The threads may still be pinning (a tiny app releases its context within
  // milliseconds of making it): the job waits for them, and unpins.
  std::shared_ptr<Staging> st = std::move(s.staging);
  auto joinThreads = [st] {
    if (st->ringMaker.joinable()) st->ringMaker.join();  // it joins the allocator
    else if (st->allocator.joinable()) st->allocator.join();
  };
  auto job = [st, joinThreads] {
    joinThreads();
    settleAll(*st, CL_SUCCESS);
    st->rings.clear();  // unmapped through ownQueue, released below
    for (auto &r : st->regions) {
      if (r.p) icd(st->ownQueue).clEnqueueUnmapMemObject(st->ownQueue, r.buf, r.p, 0, nullptr, nullptr);
      if (st->ownQueue) icd(st->ownQueue).clFinish(st->ownQueue);
      if (r.buf) icd(r.buf).clReleaseMemObject(r.buf);
    }
    if (st->ownQueue) icd(st->ownQueue).clReleaseCommandQueue(st->ownQueue);
  };
  if (later) reapLater(job, joinThreads);
  else job();
}

std::unique_ptr<PinnedRing> takeRing(DeviceSlot &s, cl_command_queue q, uint64_t runBytes) {
  Staging *st = s.staging.get();
  if (!st || !st->ready || !settings().staging_mb) return nullptr;
  // A run that moves less than a ring holds copies faster through the driver's pageable
  // path (6-15 GB/s) than it would wait for one to be pinned (46 ms for 128 MiB on the
  // H100): small launches paged on two H200s waited 19-42 ms for the rings their devices
  // were pinning in the background, against 7.6 ms for the whole app on one GPU.
  // TUTTI_STAGING=on stages every run, as it does every copy.
  const bool small = settings().staging != StagingMode::On && runBytes < uint64_t(2 * kRegions) * ringRegionBytes(*st);
  auto kept = [st] {
    std::unique_ptr<PinnedRing> r;
    std::lock_guard<std::mutex> l(st->ringsMu);
    if (!st->rings.empty()) {
      r = std::move(st->rings.back());
      st->rings.pop_back();
    }
    return r;
  };
  // One pinned in the background (startRing) is worth waiting for: it started earlier. The
  // flag is read before looking: startRing's thread lists its ring, then clears the flag.
  std::unique_ptr<PinnedRing> ring;
  for (int i = 0; !ring && i < 2000; ++i) {
    const bool pending = st->ringPending;
    if ((ring = kept()) || !pending || small) break;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  if (!ring && !small) {
    uint64_t t0 = nowNs();
    ring = PinnedRing::make(s.ctx, st->ownQueue, ringRegionBytes(*st), 2 * kRegions);
    if (ring) traceSpan(s.dev->index, "h2d", "pin ring", t0, nowNs(), 2 * kRegions * ringRegionBytes(*st));
  }
  if (ring) ring->bind(q);
  return ring;
}

void returnRing(DeviceSlot &s, std::unique_ptr<PinnedRing> ring) {
  if (!ring) return;
  ring->drain();
  ring->bind(s.staging->ownQueue);
  std::lock_guard<std::mutex> l(s.staging->ringsMu);
  s.staging->rings.push_back(std::move(ring));
}

bool stagedWrite(DeviceSlot &s, cl_mem b, size_t off, size_t n, const void *src, cl_int *err) {
  Staging *st = usable(s, n);
  if (!st) return false;
  std::lock_guard<std::mutex> l(st->use);
  uint64_t t0 = nowNs();
  size_t round = roundBytes(*st, n);
  const char *in = static_cast<const char *>(src);
  cl_int e = CL_SUCCESS;
  for (size_t done = 0, k = 0; done < n && e == CL_SUCCESS; done += round, ++k) {
    Staging::Region &r = st->regions[k % st->regions.size()];
    if ((e = settle(r)) != CL_SUCCESS) break;
    size_t len = std::min(round, n - done);
    copyParts(r.p, in + done, len);
    e = icd(s.queue()).clEnqueueWriteBuffer(s.queue(), b, CL_FALSE, off + done, len, r.p, 0, nullptr, r.busy.out());
    if (e == CL_SUCCESS) e = icd(s.queue()).clFlush(s.queue());
  }
  *err = settleAll(*st, e);
  if (*err == CL_SUCCESS) {
    s.dev->counters.record(Transfer::Staged, n);
    traceSpan(s.dev->index, "h2d", "staged write", t0, nowNs(), n);
  }
  return true;
}

bool stagedWriteBeside(DeviceSlot &s, cl_mem b, size_t off, size_t n, const void *src, cl_int *err) {
  Staging *st = usable(s, n);
  if (!st) return false;
  *err = writeFrom(*st, s, st->ownQueue, nullptr, b, off, n, static_cast<const char *>(src),
                   "staged write (beside)");
  return true;
}

bool stagedWriteAsync(DeviceSlot &s, cl_mem b, size_t off, size_t n, const void *src, RealEvent *last,
                      cl_int *err) {
  Staging *st = usable(s, n);
  if (!st) return false;
  std::lock_guard<std::mutex> l(st->use);
  uint64_t t0 = nowNs();
  size_t round = roundBytes(*st, n), nreg = st->regions.size();
  const char *in = static_cast<const char *>(src);
  cl_int e = CL_SUCCESS;
  size_t done = 0;
  Staging::Region *prev = nullptr;
  // Only regions whose last DMA has finished: waiting for a busy one would wait for the
  // kernels queued before that DMA, which the app did not ask to wait for.
  for (size_t k = 0; k < nreg && done < n && e == CL_SUCCESS; ++k) {
    Staging::Region &r = st->regions[st->next];
    if (r.busy) {
      cl_int status = CL_QUEUED;
      e = icd(r.busy.get()).clGetEventInfo(r.busy.get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
      if (e != CL_SUCCESS || status > CL_COMPLETE) break;
      if ((e = settle(r)) != CL_SUCCESS) break;
    }
    size_t len = std::min(round, n - done);
    copyParts(r.p, in + done, len);
    e = icd(s.queue()).clEnqueueWriteBuffer(s.queue(), b, CL_FALSE, off + done, len, r.p, 0, nullptr, r.busy.out());
    if (e != CL_SUCCESS) break;
    done += len;
    prev = &r;
    st->next = (st->next + 1) % nreg;
  }
  if (!done && e == CL_SUCCESS) return false;  // every region busy: the driver's path
  if (e == CL_SUCCESS && done < n)  // the rest straight from the app's memory, which it keeps
    e = icd(s.queue()).clEnqueueWriteBuffer(s.queue(), b, CL_FALSE, off + done, n - done, in + done, 0,
                                          nullptr, last->out());
  else if (e == CL_SUCCESS)
    *last = prev->busy.share();
  if (e == CL_SUCCESS) e = icd(s.queue()).clFlush(s.queue());
  *err = e;
  if (e == CL_SUCCESS) {
    s.dev->counters.record(Transfer::Staged, done);
    traceSpan(s.dev->index, "h2d", "staged write (async)", t0, nowNs(), done);
  } else {
    settleAll(*st, e);
  }
  return true;
}

bool stagedRead(DeviceSlot &s, cl_mem b, size_t off, size_t n, void *dst, cl_int *err) {
  Staging *st = usable(s, n);
  if (!st) return false;
  *err = readInto(*st, s, s.queue(), nullptr, b, off, n, dst, "staged read");
  return true;
}

bool stagedReadQueued(DeviceSlot &s, cl_mem b, size_t off, size_t n, void *dst, RealEvent *done,
                      cl_int *err, const std::vector<RealEvent> *waits) {
  Staging *st = usable(s, n);
  if (!st) return false;
  DeviceSlot *sp = &s;
  auto held = std::make_shared<Held>(std::initializer_list<cl_mem>{b});
  auto copy = [st, sp, held, b, off, n, dst](bool own, cl_event after) {
    return readInto(*st, *sp, own ? st->ownQueue : sp->queue(), after, b, off, n, dst, "staged fill");
  };
  *err = startCopy(*st, s, s.dev->callsOutsideLock, copy, done, waits);
  return true;
}

bool stagedWriteQueued(DeviceSlot &s, cl_mem b, size_t off, size_t n, const void *src, RealEvent *done,
                       cl_int *err) {
  Staging *st = usable(s, n);
  if (!st) return false;
  DeviceSlot *sp = &s;
  auto held = std::make_shared<Held>(std::initializer_list<cl_mem>{b});
  const char *in = static_cast<const char *>(src);
  auto copy = [st, sp, held, b, off, n, in](bool own, cl_event after) {
    return writeFrom(*st, *sp, own ? st->ownQueue : sp->queue(), after, b, off, n, in, "staged upload");
  };
  *err = startCopy(*st, s, s.dev->callsOutsideLock, copy, done);
  return true;
}

bool stagedMoveQueued(DeviceSlot &from, cl_mem src, DeviceSlot &to, cl_mem dst, size_t off,
                      size_t n, RealEvent *done, cl_int *err, const std::vector<RealEvent> *waits) {
  Staging *st = usable(from, n), *tst = usable(to, n);
  if (!st || !tst || &from == &to) return false;
  DeviceSlot *fp = &from, *tp = &to;
  auto held = std::make_shared<Held>(std::initializer_list<cl_mem>{src, dst});
  auto copy = [st, tst, fp, tp, held, src, dst, off, n](bool own, cl_event after) {
    return moveThrough(*st, *fp, own ? st->ownQueue : fp->queue(), after, src, *tp,
                       own ? tst->ownQueue : tp->queue(), dst, off, n);
  };
  bool background = from.dev->callsOutsideLock && to.dev->callsOutsideLock;
  *err = startCopy(*st, from, background, copy, done, waits);
  return true;
}

}  // namespace tutti
