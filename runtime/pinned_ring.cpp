// pinned_ring.cpp - copies through a ring of pinned regions (pinned_ring.h).
#include "pinned_ring.h"

#include <algorithm>
#include <cstring>

#include "host_copy.h"
#include "icd.h"

namespace tutti {

// One pinned region: its buffer and mapping, the copy last enqueued on it and, for a copy
// out, the rows still to land in host memory.
struct PinnedRing::Region {
  cl_mem buf = nullptr;
  char *p = nullptr;
  RealEvent busy;
  char *dst = nullptr;  // set: a copy out to land
  size_t pitch = 0, n = 0, rows = 0;
};

PinnedRing::PinnedRing(cl_context ctx, cl_command_queue mapQ, size_t regionBytes)
    : ctx_(ctx), mapQ_(mapQ), q_(mapQ), regionBytes_(regionBytes) {}

std::unique_ptr<PinnedRing> PinnedRing::make(cl_context ctx, cl_command_queue mapQ, size_t regionBytes,
                                             int regions) {
  std::unique_ptr<PinnedRing> ring(new PinnedRing(ctx, mapQ, std::max<size_t>(regionBytes, 4096)));
  const cl_icd_dispatch &d = icd(ctx);
  for (int i = 0; i < regions; ++i) {
    auto r = std::make_unique<Region>();
    cl_int err = CL_SUCCESS;
    r->buf = d.clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, ring->regionBytes_, nullptr, &err);
    if (err == CL_SUCCESS)
      r->p = static_cast<char *>(d.clEnqueueMapBuffer(mapQ, r->buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                                      ring->regionBytes_, 0, nullptr, nullptr, &err));
    if (err != CL_SUCCESS || !r->p) {
      if (r->buf) d.clReleaseMemObject(r->buf);
      return nullptr;
    }
    ring->regions_.push_back(std::move(r));
  }
  return ring->regions_.empty() ? nullptr : std::move(ring);
}

PinnedRing::~PinnedRing() {
  const cl_icd_dispatch &d = icd(ctx_);
  drain();
  for (auto &r : regions_) {
    cl_event e = nullptr;
    if (d.clEnqueueUnmapMemObject(mapQ_, r->buf, r->p, 0, nullptr, &e) == CL_SUCCESS && e) {
      d.clWaitForEvents(1, &e);
      d.clReleaseEvent(e);
    }
    d.clReleaseMemObject(r->buf);
  }
}

cl_int PinnedRing::land(Region &r) {
  cl_int err = CL_SUCCESS;
  if (r.busy) {
    err = r.busy.wait();
    r.busy.reset();
  }
  if (r.dst && err == CL_SUCCESS) {
    hostCopyRows(r.dst, r.pitch, r.p, r.n, r.n, r.rows, 256u << 10);
  }
  r.dst = nullptr;
  return err;
}

PinnedRing::Region *PinnedRing::acquire(cl_int *err) {
  Region &r = *regions_[next_];
  next_ = (next_ + 1) % regions_.size();
  if (r.busy || r.dst) {
    icd(q_).clFlush(q_);  // what the region waits for must be on its way
    *err = land(r);
  }
  return &r;
}

cl_int PinnedRing::landOverlapping(const char *p, size_t n) {
  // Oldest first, so that two copies out to the same bytes land in their order.
  for (size_t k = 0; k < regions_.size(); ++k) {
    Region &r = *regions_[(next_ + k) % regions_.size()];
    if (!r.dst) continue;
    const char *lo = r.dst, *hi = r.dst + (r.rows - 1) * r.pitch + r.n;
    if (lo < p + n && p < hi) {
      // Every older copy out first: they may write the same bytes before this one.
      for (size_t m = 0; m <= k; ++m) {
        Region &o = *regions_[(next_ + m) % regions_.size()];
        if (!o.dst) continue;
        icd(q_).clFlush(q_);
        if (cl_int err = land(o)) return err;
      }
    }
  }
  return CL_SUCCESS;
}

cl_int PinnedRing::in(cl_mem buf, size_t off, size_t bufPitch, const char *src, size_t hostPitch, size_t n,
                      size_t rows, cl_uint nWait, const cl_event *wait) {
  const cl_icd_dispatch &d = icd(q_);
  const size_t span = (rows - 1) * hostPitch + n;
  if (cl_int err = landOverlapping(src, span)) return err;
  cl_int err = CL_SUCCESS;
  // Row groups that fit a region; a row longer than a region goes in parts.
  for (size_t row = 0; row < rows && err == CL_SUCCESS;) {
    if (n > regionBytes_) {
      for (size_t done = 0; done < n && err == CL_SUCCESS; done += regionBytes_) {
        Region *r = acquire(&err);
        if (err != CL_SUCCESS) break;
        const size_t len = std::min(regionBytes_, n - done);
        hostCopy(r->p, src + row * hostPitch + done, len, 256u << 10);
        err = d.clEnqueueWriteBuffer(q_, buf, CL_FALSE, off + row * bufPitch + done, len, r->p, nWait, wait,
                                     r->busy.out());
        nWait = 0, wait = nullptr;
      }
      ++row;
      continue;
    }
    const size_t group = std::min(rows - row, regionBytes_ / n);
    Region *r = acquire(&err);
    if (err != CL_SUCCESS) break;
    hostCopyRows(r->p, n, src + row * hostPitch, hostPitch, n, group, 256u << 10);
    if (group == 1)
      err = d.clEnqueueWriteBuffer(q_, buf, CL_FALSE, off + row * bufPitch, n, r->p, nWait, wait, r->busy.out());
    else {
      const size_t bo[3] = {off + row * bufPitch, 0, 0}, ho[3] = {0, 0, 0}, region[3] = {n, group, 1};
      err = d.clEnqueueWriteBufferRect(q_, buf, CL_FALSE, bo, ho, region, bufPitch, 0, n, 0, r->p, nWait, wait,
                                       r->busy.out());
    }
    nWait = 0, wait = nullptr;
    row += group;
  }
  if (err == CL_SUCCESS) staged_ += n * rows;
  return err;
}

cl_int PinnedRing::out(cl_mem buf, size_t off, size_t bufPitch, char *dst, size_t hostPitch, size_t n, size_t rows,
                       cl_uint nWait, const cl_event *wait) {
  const cl_icd_dispatch &d = icd(q_);
  cl_int err = CL_SUCCESS;
  for (size_t row = 0; row < rows && err == CL_SUCCESS;) {
    const size_t part = std::min(n, regionBytes_);
    const size_t group = n > regionBytes_ ? 1 : std::min(rows - row, regionBytes_ / n);
    for (size_t done = 0; done < n && err == CL_SUCCESS; done += part) {
      Region *r = acquire(&err);
      if (err != CL_SUCCESS) break;
      const size_t len = std::min(part, n - done);
      if (group == 1)
        err = d.clEnqueueReadBuffer(q_, buf, CL_FALSE, off + row * bufPitch + done, len, r->p, nWait, wait,
                                    r->busy.out());
      else {
        const size_t bo[3] = {off + row * bufPitch, 0, 0}, ho[3] = {0, 0, 0}, region[3] = {n, group, 1};
        err = d.clEnqueueReadBufferRect(q_, buf, CL_FALSE, bo, ho, region, bufPitch, 0, n, 0, r->p, nWait, wait,
                                        r->busy.out());
      }
      if (err != CL_SUCCESS) break;
      r->dst = dst + row * hostPitch + done, r->pitch = hostPitch, r->n = len, r->rows = group;
      nWait = 0, wait = nullptr;
    }
    row += group;
  }
  if (err == CL_SUCCESS) staged_ += n * rows;
  return err;
}

cl_int PinnedRing::drain() {
  icd(q_).clFlush(q_);
  cl_int err = CL_SUCCESS;
  for (size_t k = 0; k < regions_.size(); ++k) {
    cl_int e = land(*regions_[(next_ + k) % regions_.size()]);
    if (err == CL_SUCCESS) err = e;
  }
  return err;
}

}  // namespace tutti
