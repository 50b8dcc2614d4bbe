// vast_exec.cpp - running a VAST launch's slices on its device (issue 18).
//
// Each slice: the LPT entries of its pages (frames in page order), its pages from the
// homes into the frame buffers, the paged-access kernel over the slice's groups, and the
// bytes the slice may write back into the homes. A slice starts from the bytes as the
// slices before it left them: a page two slices touch carries the first one's writes into
// the second (atomics too), and bytes a slice may write but does not go back unchanged.
#include "vast_exec.h"

#include <atomic>
#include <cstring>
#include <algorithm>
#include <numeric>

#include "backend.h"
#include "clock.h"
#include "coherence.h"
#include "icd.h"
#include "log.h"
#include "memory.h"
#include "pinned_ring.h"
#include "staging.h"
#include "settings.h"
#include "trace.h"
#include "vast_launch.h"

namespace tutti {

namespace {

std::atomic<uint64_t> g_launches{0}, g_slices{0}, g_in{0}, g_out{0}, g_ns{0}, g_inspected{0}, g_fwd{0}, g_kns{0}, g_rebased{0}, g_replica{0}, g_resident{0};

// What a run needs, copied under the lock: it runs without it.
struct VastRun {
  std::shared_ptr<VastLaunch> L;
  DeviceSlot *ds = nullptr;
  int device = -1;  // backing-device index, for the trace
  std::vector<ArgValue> args;
  std::vector<char *> homes;  // per VastArg
  std::vector<cl_mem> replicas;  // per VastArg: the slices' pages come from it (VastLaunch::replicas)
  std::vector<IntervalSet> onReplica;  // per VastArg: where replicas[j] is valid (the rest: the home)
  // Per VastArg: the bytes with content (VastLaunch::defined, and what a slice may have
  // written since). The rest are undefined (a new output buffer): nothing to copy in,
  // which saves BlackScholes 40 % of its copies in.
  std::vector<IntervalSet> defined;
  DeviceSlot *inspectDs = nullptr;  // the inspector's device (L->inspect)
};

// A run of L on slot, its homes valid (vastPieceStaged): what it needs without the lock.
VastRun captureRun(Command *cmd, const std::shared_ptr<VastLaunch> &L, int slot) REQUIRES(apiMutex) {
  _cl_context *ctx = cmd->q->ctx;
  VastRun run;
  for (const VastArg &a : L->args) run.homes.push_back(a.root->store->home);
  run.replicas = L->replicas;
  run.replicas.resize(L->args.size(), nullptr);
  run.onReplica = L->onReplica;
  run.onReplica.resize(L->args.size());
  run.defined = L->defined;
  if (run.defined.size() != L->args.size()) {  // not staged through vastPieceStaged: all of it
    run.defined.assign(L->args.size(), IntervalSet{});
    for (size_t j = 0; j < L->args.size(); ++j) run.defined[j].add(L->args[j].root->range());
  }
  run.L = L;
  run.ds = &ctx->slots[size_t(slot)];
  run.device = run.ds->dev->index;
  run.args = cmd->args;
  return run;
}

// The app's by-value and local arguments on k (the callers bind the buffers).
cl_int setValueArgs(const cl_icd_dispatch &d, cl_kernel k, const std::vector<ArgValue> &args) {
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < args.size() && err == CL_SUCCESS; ++i) {
    const ArgValue &a = args[i];
    if (a.kind == ArgValue::Bytes) err = d.clSetKernelArg(k, i, a.bytes.size(), a.bytes.data());
    else if (a.kind == ArgValue::Local) err = d.clSetKernelArg(k, i, a.localSize, nullptr);
  }
  return err;
}

// One copy between a buffer's bytes (`a`: its home, or the source frame) and a frame
// (`b`), `n` bytes.
struct Copy {
  size_t a, b, n;
};

// Copies of equal size at constant strides on both sides (a transpose's columns, a
// stencil's planes): one rectangle each, so a scattered slice costs a few driver commands
// instead of one per page run (each ~10-20 us on PoCL and NVIDIA alike).
struct Strided {
  Copy first;
  size_t rows = 1, strideA = 0, strideB = 0;
};

std::vector<Strided> strided(const std::vector<Copy> &copies) {
  std::vector<Strided> out;
  for (const Copy &c : copies) {
    if (!out.empty()) {
      Strided &g = out.back();
      const Copy last{g.first.a + (g.rows - 1) * g.strideA, g.first.b + (g.rows - 1) * g.strideB, g.first.n};
      if (c.n == g.first.n && c.a > last.a && c.b > last.b) {
        const size_t sa = c.a - last.a, sb = c.b - last.b;
        if (g.rows == 1 && sa >= c.n && sb >= c.n) {
          g.strideA = sa, g.strideB = sb, g.rows = 2;
          continue;
        }
        if (g.rows > 1 && sa == g.strideA && sb == g.strideB) {
          ++g.rows;
          continue;
        }
      }
    }
    out.push_back({c, 1, 0, 0});
  }
  return out;
}

// Home -> frame (write), frame -> home (read) or frame -> frame (copy), batched by strided().
enum class Dir { In, Out, Forward };

// With a ring, copies between homes and frames go through its pinned regions (all of them:
// a copy out lands in the home later, so none may bypass it).
cl_int enqueueCopies(const cl_icd_dispatch &d, cl_command_queue q, Dir dir, cl_mem frame, cl_mem from,
                     char *home, const std::vector<Copy> &copies, cl_uint nWait, const cl_event *wait,
                     PinnedRing *ring) {
  cl_int err = CL_SUCCESS;
  for (const Strided &g : strided(copies)) {
    const Copy &c = g.first;
    if (ring && dir != Dir::Forward) {
      err = dir == Dir::In ? ring->in(frame, c.b, g.strideB, home + c.a, g.strideA, c.n, g.rows, nWait, wait)
                           : ring->out(frame, c.b, g.strideB, home + c.a, g.strideA, c.n, g.rows, nWait, wait);
      nWait = 0, wait = nullptr;  // q is in order
    } else if (g.rows == 1) {
      err = dir == Dir::In    ? d.clEnqueueWriteBuffer(q, frame, CL_FALSE, c.b, c.n, home + c.a, nWait, wait, nullptr)
            : dir == Dir::Out ? d.clEnqueueReadBuffer(q, frame, CL_FALSE, c.b, c.n, home + c.a, nWait, wait, nullptr)
                              : d.clEnqueueCopyBuffer(q, from, frame, c.a, c.b, c.n, nWait, wait, nullptr);
    } else {
      const size_t fo[3] = {c.b, 0, 0}, zero[3] = {0, 0, 0}, ao[3] = {c.a, 0, 0}, region[3] = {c.n, g.rows, 1};
      err = dir == Dir::In ? d.clEnqueueWriteBufferRect(q, frame, CL_FALSE, fo, zero, region, g.strideB, 0,
                                                        g.strideA, 0, home + c.a, nWait, wait, nullptr)
            : dir == Dir::Out ? d.clEnqueueReadBufferRect(q, frame, CL_FALSE, fo, zero, region, g.strideB, 0,
                                                          g.strideA, 0, home + c.a, nWait, wait, nullptr)
                              : d.clEnqueueCopyBufferRect(q, from, frame, ao, fo, region, g.strideA, 0, g.strideB,
                                                          0, nWait, wait, nullptr);
    }
    if (err != CL_SUCCESS) break;
  }
  return err;
}

// Marks of the inspector's PAS buffers held per launch: at most this many bytes at once
// (sets are inspected in chunks).
constexpr uint64_t kPasChunkBytes = 64ull << 20;

// Algorithm 2 (PAS reduction): consecutive sets join the open slice while the pages they
// add keep it within the budget.
struct SliceBuilder {
  VastLaunch &L;
  uint64_t budget;
  std::vector<std::vector<uint8_t>> marks;    // per arg, per page: 1 touched, 2 written
  std::vector<std::vector<uint64_t>> touched;  // per arg: pages marked, in marking order
  uint64_t pages = 0, first = 0, count = 0;    // of the open slice

  SliceBuilder(VastLaunch &l, uint64_t b) : L(l), budget(b) {
    for (const VastArg &a : L.args) {
      marks.emplace_back(size_t(a.pages), 0);
      touched.emplace_back();
    }
  }
  void close() {
    if (!count) return;
    VastSlice s;
    s.first = first;
    s.count = count;
    const unsigned shift = L.pageShift;
    for (size_t j = 0; j < L.args.size(); ++j) {
      std::vector<uint64_t> &t = touched[j];
      std::sort(t.begin(), t.end());
      std::vector<PageRun> runs;
      std::vector<FrameCopy> out;
      uint64_t frame = 0;
      for (uint64_t p : t) {
        if (!runs.empty() && runs.back().page + runs.back().count == p) ++runs.back().count;
        else runs.push_back({p, 1, frame});
        if (marks[j][p] & 2) {
          Range r{size_t(p << shift), std::min(L.args[j].root->size, size_t((p + 1) << shift))};
          if (!out.empty() && out.back().r.end == r.begin && out.back().frameOffset + out.back().r.size() == size_t(frame << shift))
            out.back().r.end = r.end;
          else
            out.push_back({r, size_t(frame << shift)});
        }
        marks[j][p] = 0;
        ++frame;
      }
      L.args[j].frameBytes = std::max(L.args[j].frameBytes, size_t(frame << shift));
      t.clear();
      s.runs.push_back(std::move(runs));
      s.out.push_back(std::move(out));
    }
    L.slices.push_back(std::move(s));
    first += count;
    count = pages = 0;
  }
  // One set's marks (per arg: 2 * pages bytes, reads then writes). False: the set alone
  // exceeds the budget. The marks are scanned once, eight pages at a time where none is
  // marked: a set touches few of a large buffer's pages, and sets x pages bytes pass here.
  bool add(uint64_t groups, const std::vector<const uint8_t *> &pas) {
    set.clear();
    for (size_t j = 0; j < L.args.size(); ++j) {
      const uint64_t n = L.args[j].pages;
      const uint8_t *rd = pas[j], *wr = pas[j] + n;
      for (uint64_t p = 0; p < n;) {
        if (p + 8 <= n) {
          uint64_t a, b;
          std::memcpy(&a, rd + p, 8);
          std::memcpy(&b, wr + p, 8);
          if (!(a | b)) {
            p += 8;
            continue;
          }
        }
        for (uint64_t e = std::min(n, p + 8); p < e; ++p)
          if (rd[p] | wr[p]) set.push_back({uint32_t(j), p, uint8_t((rd[p] ? 1 : 0) | (wr[p] ? 3 : 0))});
      }
    }
    uint64_t fresh = 0;
    for (const Mark &m : set) fresh += !marks[m.arg][m.page];
    if (count && (pages + fresh) << L.pageShift > budget) close();
    for (const Mark &m : set) {
      uint8_t &old = marks[m.arg][m.page];
      if (!old) touched[m.arg].push_back(m.page), ++pages;
      old |= m.bits;
    }
    if (uint64_t(set.size()) << L.pageShift > budget) return false;
    count += groups;
    return true;
  }
  struct Mark {
    uint32_t arg;
    uint64_t page;
    uint8_t bits;
  };
  std::vector<Mark> set;  // the set being added (kept: its capacity is reused)
};

cl_int inspectOnce(VastRun &run, uint64_t per);

// Runs the inspector over every set (in chunks) on its CPU device and builds the slices.
// Eq. 4.1's granularity assumes every group touches an equal share of the buffers; where
// one set touches more pages than a frame set holds (a transpose's scattered rows), the
// sets shrink (a quarter each time, down to single groups) and it runs again. Where one
// group alone does not fit (MersenneTwister's strided rows, a 64 KiB page each), pages
// shrink to 16 and 4 KiB, and then one frame set takes the whole budget.
cl_int inspect(VastRun &run) {
  VastLaunch &L = *run.L;
  VastInspect &I = *L.inspect;
  const uint64_t per0 = I.groupsPerSet;
  const unsigned shift0 = L.pageShift;
  uint64_t per = per0;
  for (;;) {
    cl_int err = inspectOnce(run, per);
    if (err != CL_MEM_OBJECT_ALLOCATION_FAILURE) {
      I.groupsPerSet = per;
      if (err == CL_SUCCESS && (L.pageShift != shift0 || L.sets == 1))
        TUTTI_LOG(Info, "VAST: inspected with %llu-byte pages and %d frame set(s): a work-group's pages did not fit",
                  (unsigned long long)(uint64_t(1) << L.pageShift), L.sets);
      return err;
    }
    L.slices.clear();
    for (VastArg &a : L.args) a.frameBytes = 0;
    if (per > 1) {
      per = std::max<uint64_t>(1, per / 4);
      continue;
    }
    if (L.pageShift >= cc::kVastMinPageShift + 2) {
      L.pageShift -= 2;
    } else if (L.sets > 1 && I.usable > 0) {
      L.sets = 1;
      L.pageShift = shift0;
    } else {
      TUTTI_LOG(Error, "VAST: one work-group touches more pages than %s holds", run.ds->dev->label().c_str());
      return err;
    }
    const uint64_t lptBytes = L.setPageShift(L.pageShift);
    const double budget = std::min((I.usable - L.sets * double(lptBytes)) / L.sets, double(L.maxFrame));
    if (budget <= 0) return err;
    I.budget = uint64_t(budget);
    per = per0;
  }
}

cl_int inspectOnce(VastRun &run, uint64_t per) {
  VastLaunch &L = *run.L;
  VastInspect &I = *L.inspect;
  const cl_icd_dispatch &d = icd(run.inspectDs->queue());
  cl_context c = run.inspectDs->ctx;
  cl_command_queue q = run.inspectDs->queue();
  const size_t nj = L.args.size();
  const uint64_t G = L.nd.totalGroups(), nsets = (G + per - 1) / per;
  uint64_t marksPerSet = 0;
  for (const VastArg &a : L.args) marksPerSet += 2 * std::max<uint64_t>(a.pages, 1);
  const uint64_t chunk = std::min(nsets, std::max<uint64_t>(1, kPasChunkBytes / marksPerSet));
  cl_int err = CL_SUCCESS;
  std::vector<cl_mem> pas(nj, nullptr);
  cl_mem dummy = d.clCreateBuffer(c, CL_MEM_READ_WRITE, 4096, nullptr, &err);
  auto release = [&] {
    for (cl_mem m : pas)
      if (m) d.clReleaseMemObject(m);
    if (dummy) d.clReleaseMemObject(dummy);
  };
  std::vector<std::vector<uint8_t>> host(nj);
  for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
    host[j].resize(size_t(chunk * 2 * std::max<uint64_t>(L.args[j].pages, 1)));
    pas[j] = d.clCreateBuffer(c, CL_MEM_READ_WRITE, host[j].size(), nullptr, &err);
  }
  cl_kernel ik = I.kernel;
  const cl_uint base = cl_uint(run.args.size());
  if (err == CL_SUCCESS) err = setValueArgs(d, ik, run.args);
  for (cl_uint i = 0; i < base && err == CL_SUCCESS; ++i)
    if (run.args[i].kind == ArgValue::Mem) {
      cl_mem m = i < I.bound.size() && I.bound[i] ? I.bound[i] : dummy;
      err = d.clSetKernelArg(ik, i, sizeof m, &m);
    }
  const cl_uint shift = L.pageShift;
  const cl_ulong perSet = per;
  if (err == CL_SUCCESS) err = d.clSetKernelArg(ik, base + cc::kAbiArgs, sizeof shift, &shift);
  if (err == CL_SUCCESS) err = d.clSetKernelArg(ik, base + cc::kAbiArgs + 1, sizeof perSet, &perSet);
  for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
    const cl_ulong pages = std::max<uint64_t>(L.args[j].pages, 1);
    err = d.clSetKernelArg(ik, base + cc::kAbiArgs + 3 + 2 * cl_uint(j), sizeof(cl_mem), &pas[j]);
    if (err == CL_SUCCESS) err = d.clSetKernelArg(ik, base + cc::kAbiArgs + 4 + 2 * cl_uint(j), sizeof pages, &pages);
  }
  SliceBuilder b(L, I.budget);
  const uint8_t zero = 0;
  for (uint64_t s0 = 0; s0 < nsets && err == CL_SUCCESS; s0 += chunk) {
    const uint64_t s1 = std::min(nsets, s0 + chunk);
    const cl_ulong firstSet = s0;
    err = d.clSetKernelArg(ik, base + cc::kAbiArgs + 2, sizeof firstSet, &firstSet);
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j)
      err = d.clEnqueueFillBuffer(q, pas[j], &zero, 1, 0, host[j].size(), 0, nullptr, nullptr);
    const uint64_t g0 = s0 * per, g1 = std::min(G, s1 * per);
    for (const cc::SubLaunch &sub : cc::planPartialLaunch(L.nd, g0, g1 - g0)) {
      if (err != CL_SUCCESS) break;
      for (unsigned i = 0; i < cc::kAbiArgs && err == CL_SUCCESS; ++i)
        err = d.clSetKernelArg(ik, base + i, sizeof(cl_ulong), &sub.abi[i]);
      size_t g[3], l[3];
      for (unsigned m = 0; m < 3; ++m) g[m] = size_t(sub.global_size[m]), l[m] = size_t(sub.local_size[m]);
      if (err == CL_SUCCESS) err = d.clEnqueueNDRangeKernel(q, ik, sub.work_dim, nullptr, g, l, 0, nullptr, nullptr);
    }
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j)
      err = d.clEnqueueReadBuffer(q, pas[j], CL_FALSE, 0, host[j].size(), host[j].data(), 0, nullptr, nullptr);
    if (err == CL_SUCCESS) err = d.clFinish(q);
    for (uint64_t s = s0; s < s1 && err == CL_SUCCESS; ++s) {
      std::vector<const uint8_t *> marks(nj);
      for (size_t j = 0; j < nj; ++j)
        marks[j] = host[j].data() + (s - s0) * 2 * std::max<uint64_t>(L.args[j].pages, 1);
      if (!b.add(std::min(per, G - s * per), marks)) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    }
  }
  if (err == CL_SUCCESS) b.close();
  release();
  return err;
}

// Two frame sets and a copy queue beside the device queue: while slice i runs, slice
// i+1's window crosses to the other set (Fig. 4.3/4.8). The copy queue is in order, so
// slice i+2's copy-in, which reuses slice i's frames, comes after slice i's copy-out;
// bytes of slice i+1's window that slice i may write come from slice i's frames, copied
// on the device once slice i's kernel is done (shared pages, Fig. 4.7).
cl_int runSlices(VastRun &run) {
  VastLaunch &L = *run.L;
  const cl_icd_dispatch &d = icd(run.ds->queue());
  cl_context c = run.ds->ctx;
  cl_command_queue q = run.ds->queue();
  const size_t page = size_t(1) << L.pageShift;
  const size_t nj = L.args.size();
  cl_int err = CL_SUCCESS;
  // Spans of the run's fixed costs (queue, frames, page tables; the ring; the release):
  // a small launch paged on an H200 spent 10-44 ms outside its copies and kernels.
  const uint64_t tSetup = tracing() ? nowNs() : 0;
  cl_command_queue copyQ =
      settings().vast_pipeline && L.sets > 1 ? d.clCreateCommandQueue(c, run.ds->dev->id, 0, &err) : nullptr;
  if (err != CL_SUCCESS) copyQ = nullptr;
  const int sets = copyQ ? 2 : 1;
  if (!copyQ) copyQ = q, err = CL_SUCCESS;  // no second queue: one set, in order
  std::vector<cl_mem> frames[2], lpts[2];
  std::vector<cl_event> events;  // released at the end
  std::unique_ptr<PinnedRing> ring;
  auto release = [&] {
    returnRing(*run.ds, std::move(ring));  // its copies are on copyQ
    for (cl_event e : events) d.clReleaseEvent(e);
    for (int k = 0; k < 2; ++k) {
      for (cl_mem m : frames[k]) if (m) d.clReleaseMemObject(m);
      for (cl_mem m : lpts[k]) if (m) d.clReleaseMemObject(m);
    }
    if (copyQ != q) d.clReleaseCommandQueue(copyQ);
  };
  const cl_uint zero = 0;
  // Every window one run of pages (index ranges, not the inspector): the rebased kernel,
  // and no page tables.
  bool rebased = L.rebased && !L.inspect;
  for (const VastSlice &s : L.slices)
    for (const std::vector<PageRun> &runs : s.runs) rebased &= runs.size() <= 1 && (runs.empty() || runs[0].frame == 0);
  for (int k = 0; k < sets; ++k) {
    frames[k].assign(nj, nullptr);
    lpts[k].assign(nj, nullptr);
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
      if (k > 0 && L.args[j].resident) {  // one frame buffer for both sets
        frames[k][j] = frames[0][j];
        err = d.clRetainMemObject(frames[k][j]);
      } else {
        frames[k][j] = d.clCreateBuffer(c, CL_MEM_READ_WRITE, std::max(L.args[j].frameBytes, page), nullptr, &err);
      }
      if (err != CL_SUCCESS) break;
      if (rebased) continue;
      size_t lptBytes = size_t(std::max<uint64_t>(L.args[j].pages, 1)) * 4;
      lpts[k][j] = d.clCreateBuffer(c, CL_MEM_READ_ONLY, lptBytes, nullptr, &err);
      // Entries outside a slice's window are never read; zero keeps them inside the frame.
      if (err == CL_SUCCESS)
        err = d.clEnqueueFillBuffer(copyQ, lpts[k][j], &zero, sizeof zero, 0, lptBytes, 0, nullptr, nullptr);
    }
  }
  // Homes are ordinary memory: where the slot stages copies (a GPU), a run's copies go
  // through pinned regions (pinned_ring.h), unless every window is smaller than a copy
  // worth staging.
  size_t widest = 0;
  for (const VastArg &a : L.args) widest = std::max(widest, a.frameBytes);
  if (tSetup) traceSpan(run.device, "vast", "run setup", tSetup, nowNs(), sets);
  const uint64_t tRing = tracing() ? nowNs() : 0;
  if (err == CL_SUCCESS && widest >= settings().staging_min) ring = takeRing(*run.ds, copyQ, movedBytes(L));
  if (tRing && ring) traceSpan(run.device, "vast", "take ring", tRing, nowNs(), 0);
  // The app's by-value and local arguments, then the page shift (paged kernel); frames and
  // LPTs or rebases per slice.
  cl_kernel rk = rebased ? L.rebased : L.paged;
  L.ranRebased = rebased;
  const cl_uint base = cl_uint(run.args.size());
  if (err == CL_SUCCESS) err = setValueArgs(d, rk, run.args);
  const cl_uint shift = L.pageShift;
  if (err == CL_SUCCESS && !rebased) err = d.clSetKernelArg(rk, base + cc::kAbiArgs, sizeof shift, &shift);
  if (err != CL_SUCCESS) {
    release();
    return err;
  }
  auto track = [&](cl_event e) { events.push_back(e); return e; };
  // Pages copied from replicas on the device: after what the device queue already holds
  // (the app's writes to them), since the copy queue is another queue.
  cl_event qMark = nullptr;
  if (err == CL_SUCCESS && copyQ != q &&
      std::any_of(run.replicas.begin(), run.replicas.end(), [](cl_mem m) { return m != nullptr; })) {
    err = d.clEnqueueMarkerWithWaitList(q, 0, nullptr, &qMark);
    if (err == CL_SUCCESS) track(qMark);
  }
  // Per slice, its first and last sub-launch's events: the paged kernel's own time.
  std::vector<std::pair<cl_event, cl_event>> spans;
  // The bytes a slice may write, from its frames (set k) to the homes, after its kernel.
  std::vector<Copy> batch, fromReplica;
  auto copyOut = [&](const VastSlice &s, size_t k, cl_event after) {
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
      batch.clear();
      for (const FrameCopy &o : s.out[j]) {
        batch.push_back({o.r.begin, o.frameOffset, o.r.size()});
        L.bytesOut += o.r.size();
      }
      err = enqueueCopies(d, copyQ, Dir::Out, frames[k][j], nullptr, run.homes[j], batch, 1, &after, ring.get());
    }
  };
  // LPT entries of every slice, alive until the end (the copies read them later).
  std::vector<std::vector<cl_uint>> lptValues(L.slices.size() * nj);
  const VastSlice *prev = nullptr;
  cl_event prevKernel = nullptr;
  for (size_t si = 0; si < L.slices.size() && err == CL_SUCCESS; ++si) {
    const VastSlice &s = L.slices[si];
    const int k = int(si % size_t(sets));
    const uint64_t tIn = tracing() ? nowNs() : 0, inBefore = L.bytesIn;
    // Copy-in: LPT entries, then the window, less what the previous slice may write
    // (those bytes follow its copy-out below).
    std::vector<std::pair<size_t, Range>> late;  // (arg, bytes) forwarded from prev's frames
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
      const std::vector<PageRun> &runs = s.runs[j];
      if (runs.empty()) continue;
      if (!rebased) {
        // The LPT entries from the slice's first page to its last in one copy (entries
        // between its runs are never read).
        std::vector<cl_uint> &vals = lptValues[si * nj + j];
        const uint64_t lo = runs.front().page, hi = runs.back().page + runs.back().count;
        vals.assign(size_t(hi - lo), 0);
        for (const PageRun &r : runs)
          std::iota(vals.begin() + ptrdiff_t(r.page - lo), vals.begin() + ptrdiff_t(r.page - lo + r.count),
                    cl_uint(r.frame));
        err = d.clEnqueueWriteBuffer(copyQ, lpts[k][j], CL_FALSE, size_t(lo) * 4, vals.size() * 4, vals.data(), 0,
                                     nullptr, nullptr);
      }
      if (si > 0 && L.args[j].resident) {  // its window is in the frames since the first slice
        for (const PageRun &r : runs)
          for (Range b : run.defined[j].present({size_t(r.page) << L.pageShift,
                                                 std::min(L.args[j].root->size, size_t(r.page + r.count) << L.pageShift)}))
            L.bytesResident += b.size();
        continue;
      }
      IntervalSet prevOut;
      if (prev && sets > 1)
        for (const FrameCopy &o : prev->out[j]) prevOut.add(o.r);
      batch.clear();
      for (const PageRun &r : runs) {
        if (err != CL_SUCCESS) break;
        const Range bytes{size_t(r.page) << L.pageShift,
                          std::min(L.args[j].root->size, size_t(r.page + r.count) << L.pageShift)};
        // Bytes the previous slice may write come after its copy-out; the rest now.
        IntervalSet now;
        now.add(bytes);
        for (Range sh : prevOut.present(bytes)) {
          now.remove(sh);
          late.push_back({j, sh});
        }
        // Frames follow the runs in page order: byte b of run r is at its frame's offset.
        // From the replica where it is valid, else from the home.
        auto add = [&](std::vector<Copy> &to, Range b) {
          to.push_back({b.begin, size_t(r.frame << L.pageShift) + (b.begin - bytes.begin), b.size()});
          L.bytesIn += b.size();
        };
        for (Range n : now.ranges())
          for (Range b : run.defined[j].present(n)) {
            if (!run.replicas[j]) {
              add(batch, b);
              continue;
            }
            for (Range t : run.onReplica[j].present(b)) add(fromReplica, t), L.bytesFromReplica += t.size();
            for (Range t : run.onReplica[j].missing(b)) add(batch, t);
          }
      }
      // What this slice may write has content for the slices after it.
      for (const FrameCopy &o : s.out[j]) run.defined[j].add(o.r);
      if (err == CL_SUCCESS && !fromReplica.empty())
        err = enqueueCopies(d, copyQ, Dir::Forward, frames[k][j], run.replicas[j], nullptr, fromReplica,
                            qMark ? 1 : 0, qMark ? &qMark : nullptr, nullptr);
      fromReplica.clear();
      if (err == CL_SUCCESS && !batch.empty())
        err = enqueueCopies(d, copyQ, Dir::In, frames[k][j], nullptr, run.homes[j], batch, 0, nullptr, ring.get());
    }
    // Bytes the previous slice may write go from its frames to this slice's on the device,
    // once its kernel is done (shared pages, Fig. 4.7: no trip through the host).
    for (size_t j = 0; j < nj && err == CL_SUCCESS && !late.empty(); ++j) {
      batch.clear();
      for (auto &[lj, r] : late)
        if (lj == j) {
          batch.push_back({frameOffsetOf(prev->runs[j], r.begin, L.pageShift),
                           frameOffsetOf(s.runs[j], r.begin, L.pageShift), r.size()});
          L.bytesForwarded += r.size();
        }
      if (!batch.empty())
        err = enqueueCopies(d, copyQ, Dir::Forward, frames[k][j], frames[(si - 1) % size_t(sets)][j], nullptr,
                            batch, 1, &prevKernel, nullptr);
    }
    ++L.slicesStarted;
    // Host time to issue the copies in: through a ring it includes copying into the pinned
    // regions, and waiting for regions still busy.
    if (tIn) traceSpan(run.device, "vast", "slice copy-in issued", tIn, nowNs(), L.bytesIn - inBefore);
    cl_event copied = nullptr;
    if (err == CL_SUCCESS) err = d.clEnqueueMarkerWithWaitList(copyQ, 0, nullptr, &copied);
    if (err != CL_SUCCESS) break;
    track(copied);
    // The previous slice's copy-out, after its kernel; the copy queue is in order, so the
    // next slice's copy-in, which reuses those frames, comes after it.
    if (prev && sets > 1) {
      const uint64_t tOut = tracing() ? nowNs() : 0, outBefore = L.bytesOut;
      copyOut(*prev, (si - 1) % 2, prevKernel);
      if (tOut) traceSpan(run.device, "vast", "slice copy-out issued", tOut, nowNs(), L.bytesOut - outBefore);
      if (err != CL_SUCCESS) break;
    }
    if (copyQ != q) d.clFlush(copyQ);
    // The slice's kernel, once its copy-in is done.
    for (size_t j = 0; j < nj && err == CL_SUCCESS; ++j) {
      err = d.clSetKernelArg(rk, L.args[j].arg, sizeof(cl_mem), &frames[k][j]);
      if (err != CL_SUCCESS) break;
      if (rebased) {
        const cl_ulong at = s.runs[j].empty() ? 0 : cl_ulong(s.runs[j][0].page) << L.pageShift;
        err = d.clSetKernelArg(rk, base + cc::kAbiArgs + cl_uint(j), sizeof at, &at);
      } else {
        err = d.clSetKernelArg(rk, base + cc::kAbiArgs + 1 + cl_uint(j), sizeof(cl_mem), &lpts[k][j]);
      }
    }
    cl_event last = nullptr;
    bool firstSub = true;
    for (const cc::SubLaunch &sub : cc::planPartialLaunch(L.nd, s.first, s.count)) {
      if (err != CL_SUCCESS) break;
      for (unsigned i = 0; i < cc::kAbiArgs && err == CL_SUCCESS; ++i)
        err = d.clSetKernelArg(rk, base + i, sizeof(cl_ulong), &sub.abi[i]);
      size_t g[3], l[3];
      for (unsigned m = 0; m < 3; ++m) g[m] = size_t(sub.global_size[m]), l[m] = size_t(sub.local_size[m]);
      cl_event e = nullptr;
      if (err == CL_SUCCESS)
        err = d.clEnqueueNDRangeKernel(q, rk, sub.work_dim, nullptr, g, l, firstSub ? 1 : 0,
                                       firstSub ? &copied : nullptr, &e);
      if (err == CL_SUCCESS) {
        if (firstSub) spans.push_back({track(e), nullptr});
        else if (last != spans.back().first) d.clReleaseEvent(last);
        last = e;
      }
      firstSub = false;
    }
    if (err != CL_SUCCESS) {
      if (last && (spans.empty() || last != spans.back().first)) d.clReleaseEvent(last);
      break;
    }
    if (last != spans.back().first) track(last);
    spans.back().second = last;
    // One frame set: its copy-out before the next slice's copy-in overwrites the frames.
    if (sets == 1) copyOut(s, 0, last);
    d.clFlush(q);
    prev = &s;
    prevKernel = last;
    ++g_slices;
  }
  // The last slice's copy-out.
  if (prev && sets > 1 && err == CL_SUCCESS) copyOut(*prev, (L.slices.size() - 1) % 2, prevKernel);
  const uint64_t tDrain = tracing() ? nowNs() : 0;
  cl_int fin = ring ? ring->drain() : CL_SUCCESS;
  if (ring) L.bytesStaged = ring->takeBytesStaged();
  if (cl_int f = d.clFinish(copyQ); fin == CL_SUCCESS) fin = f;
  if (copyQ != q) {
    cl_int f2 = d.clFinish(q);
    if (fin == CL_SUCCESS) fin = f2;
  }
  if (err == CL_SUCCESS) err = fin;
  if (tDrain) traceSpan(run.device, "vast", "run drain", tDrain, nowNs(), 0);
  for (auto [first, last] : spans) {
    cl_ulong t0 = 0, t1 = 0;
    if (last && d.clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr) == CL_SUCCESS &&
        d.clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr) == CL_SUCCESS && t1 > t0)
      L.kernelNs += t1 - t0;
  }
  if (tracing() && err == CL_SUCCESS) traceSpan(run.device, "vast", "paged slices", L.t0, nowNs(), L.slices.size());
  const uint64_t tRel = tracing() ? nowNs() : 0;
  release();
  if (tRel) traceSpan(run.device, "vast", "run release", tRel, nowNs(), 0);
  if (err != CL_SUCCESS)
    TUTTI_LOG(Error, "%s: VAST slices failed: %s", run.ds->dev->label().c_str(), clErrorName(err));
  return err;
}

}  // namespace

bool vastUnstarted(const Command *cmd) { return cmd->vast->slicesStarted == 0; }

// Counters and the device's share of a finished VAST run on slot.
static void landed(const VastLaunch &L, BackingDevice *dev) {
  ++g_launches;
  if (L.inspect) ++g_inspected;
  if (L.ranRebased) ++g_rebased;
  g_replica += L.bytesFromReplica;
  g_resident += L.bytesResident;
  g_in += L.bytesIn;
  g_fwd += L.bytesForwarded;
  g_kns += L.kernelNs;
  g_out += L.bytesOut;
  g_ns += L.ns;
  dev->counters.kernels += 1;
  dev->counters.record(Transfer::HostToDevice, L.bytesIn);
  dev->counters.record(Transfer::DeviceToHost, L.bytesOut);
  dev->counters.record(Transfer::Staged, L.bytesStaged);
}

// The bytes of arg j that L's slices touch (their windows' hull): a piece of a split needs
// only its own groups' bytes home. The whole buffer where the slices come later (from the
// inspector's marks).
static Range sliceHull(const VastLaunch &L, size_t j) {
  const Range all = L.args[j].root->range();
  if (L.inspect || L.slices.empty()) return all;
  size_t lo = SIZE_MAX, hi = 0;
  for (const VastSlice &s : L.slices)
    for (const PageRun &r : s.runs[j]) {
      lo = std::min(lo, size_t(r.page) << L.pageShift);
      hi = std::max(hi, size_t(r.page + r.count) << L.pageShift);
    }
  return lo < hi ? Range{std::max(lo, all.begin), std::min(hi, all.end)} : Range{};
}

bool vastPieceStaged(Command *cmd, const VastLaunch &L, cl_int &err, int slot) {
  _cl_context *ctx = cmd->q->ctx;
  bool ready = true;
  // Before ensureHost, which counts bytes valid nowhere as the home's.
  if (L.defined.empty())
    for (const VastArg &a : L.args) {
      const BufferStore &st = *a.root->store;
      IntervalSet d = st.hostValid;
      for (const IntervalSet &v : st.devValid)
        for (Range r : v.ranges()) d.add(r);
      for (const BufferStore::Fill &f : st.pendingFills) d.add(f.r);
      L.defined.push_back(std::move(d));
    }
  L.replicas.assign(L.args.size(), nullptr);
  L.onReplica.assign(L.args.size(), IntervalSet{});
  for (size_t j = 0; j < L.args.size(); ++j) {
    const VastArg &a = L.args[j];
    BufferStore &st = *a.root->store;
    const Range hull = sliceHull(L, j);
    // Forced through VAST, data the app wrote to the device itself: staging them home first
    // took 16 of Reduction's 86 ms on the H100. Only for buffers no slice writes: a later
    // slice must see an earlier one's writes, which go to the home. A piece of a split
    // needs only its slices' bytes on the device, not the whole buffer: those the other
    // pieces read may be valid elsewhere only.
    const Range need = hull.empty() ? a.root->range() : hull;
    IntervalSet home;  // what the slices take from the home
    if (!hull.empty()) home.add(hull);
    if (slot >= 0 && !a.written && slot != st.alias && st.devValid[size_t(slot)].intersects(need)) {
      cl_int e = CL_SUCCESS;
      cl_mem rb = realBuffer(a.root, slot, &e);
      if (rb && e == CL_SUCCESS) {
        ready &= !waitFills(st, need, cmd);
        L.replicas[j] = rb;
        for (Range t : st.devValid[size_t(slot)].present(need)) L.onReplica[j].add(t), home.remove(t);
        if (home.empty()) continue;
      }
    }
    if (!homeOf(ctx, st)) {
      err = CL_OUT_OF_HOST_MEMORY;
      return true;
    }
    for (Range t : home.ranges()) ready &= ensureHost(ctx, st, t, cmd);
  }
  return ready;
}

std::function<cl_int()> vastPieceRun(Command *cmd, const std::shared_ptr<VastLaunch> &L, int slot) {
  return [run = captureRun(cmd, L, slot)]() mutable {
    run.L->t0 = nowNs();
    cl_int st = runSlices(run);
    run.L->ns = nowNs() - run.L->t0;
    run.L->status = st;
    run.L->ran = true;
    return st;
  };
}

void vastPieceLanded(Command *cmd, const VastLaunch &L, int slot) {
  if (L.status == CL_SUCCESS) landed(L, cmd->q->ctx->slots[size_t(slot)].dev);
}

IssueResult issueVast(Command *cmd) {
  VastLaunch &L = *cmd->vast;
  _cl_context *ctx = cmd->q->ctx;
  if (L.ran) {
    // The homes now hold what the slices wrote; every replica of those bytes is stale.
    // After a failure too: a slice may have written back before it.
    for (size_t j = 0; j < L.args.size(); ++j)
      for (size_t si = 0; si < std::min(L.slicesStarted, L.slices.size()); ++si)
        for (const FrameCopy &o : L.slices[si].out[j]) wrote(*L.args[j].root->store, o.r, -1);
    if (L.status != CL_SUCCESS) return {IssueResult::Done, L.status};
    landed(L, ctx->slots[size_t(cmd->slot)].dev);
    cmd->ev->device = cmd->slot;
    // The app's profiling times span the slices (the command had no real event).
    cmd->ev->tStart = L.t0;
    cmd->ev->tEnd = L.t0 + L.ns;
    return {IssueResult::Done, L.status};
  }
  // Every byte of its buffers in their homes (the slices copy windows from there).
  cl_int homeErr = CL_SUCCESS;
  bool ready = vastPieceStaged(cmd, L, homeErr, cmd->slot);
  if (homeErr != CL_SUCCESS) return {IssueResult::Done, homeErr};
  DeviceSlot *inspectDs = nullptr;
  // The inspector's data on its CPU device (the zero-copy one holds them in the homes).
  if (L.inspect) {
    VastInspect &I = *L.inspect;
    I.bound.assign(cmd->args.size(), nullptr);
    cl_int err = CL_SUCCESS;
    for (uint32_t i : I.dataArgs) {
      ready &= ensureDevice(ctx, cmd->args[i].mem, I.slot, cmd, &err);
      if (err != CL_SUCCESS) return {IssueResult::Done, err};
    }
    if (!ready) return {IssueResult::Staging, CL_SUCCESS};
    for (uint32_t i : I.dataArgs) {
      I.bound[i] = realBuffer(cmd->args[i].mem, I.slot, &err);
      if (err != CL_SUCCESS) return {IssueResult::Done, err};
    }
    inspectDs = &ctx->slots[size_t(I.slot)];
  }
  if (!ready) return {IssueResult::Staging, CL_SUCCESS};
  VastRun run = captureRun(cmd, cmd->vast, cmd->slot);
  run.inspectDs = inspectDs;
  auto go = [run = std::move(run)]() mutable {
    run.L->t0 = nowNs();
    cl_int st = run.L->inspect ? inspect(run) : CL_SUCCESS;
    if (st == CL_SUCCESS && tracing()) traceSpan(run.device, "vast", "inspector", run.L->t0, nowNs(), 0);
    if (st == CL_SUCCESS) st = runSlices(run);
    run.L->ns = nowNs() - run.L->t0;
    return st;
  };
  if (!ctx->slots[size_t(cmd->slot)].dev->callsOutsideLock ||
      (L.inspect && !ctx->slots[size_t(L.inspect->slot)].dev->callsOutsideLock)) {
    // A driver that must not be called beside the lock: the slices run here.
    L.status = go();
    L.ran = true;
    return issueVast(cmd);
  }
  // Host work with the lock released; then the command is issued again (L.ran).
  cmd->hostWork = std::move(go);
  cmd->hostLanded = [L = cmd->vast](cl_int st) {
    L->status = st;
    L->ran = true;
    return CL_SUCCESS;
  };
  return {IssueResult::Staging, CL_SUCCESS};
}

VastCounters vastCounters() {
  return {g_launches.load(), g_slices.load(), g_in.load(), g_out.load(), g_ns.load(), g_inspected.load(), g_fwd.load(), g_kns.load(), g_rebased.load(), g_replica.load(), g_resident.load()};
}

}  // namespace tutti
