// pinned_ring.h - a run of copies between host memory and device buffers through pinned regions.
//
// The NVIDIA driver copies pageable memory at 6-15 GB/s and pinned memory at ~54 GB/s
// (FACTS.md). A VAST run moves its whole data through the device, from homes that are
// ordinary memory (often the app's own, CL_MEM_USE_HOST_PTR), so it stages every copy
// through a few pinned regions of its own: host threads fill one region while the DMA
// engine drains others. Its own regions, not the slot's staging: a run lasts seconds, and
// the slot's staging serves the app's copies meanwhile.
//
// Copies in: the source bytes are read into a region when the copy is enqueued. Copies
// out: the device writes a region, and the bytes reach their host destination when the
// region is next needed, when an enqueued copy in reads them, or at drain(). So while a
// ring is in use every copy between those host bytes and the device must go through it.
#pragma once
#include <CL/cl.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "real_event.h"

namespace tutti {

class PinnedRing {
 public:
  // regions x regionBytes of pinned memory, mapped through mapQ (a queue of ctx that
  // outlives the ring). Null when the driver gives none (the caller copies from pageable
  // memory instead). A ring is kept between runs: pinning costs milliseconds per region.
  static std::unique_ptr<PinnedRing> make(cl_context ctx, cl_command_queue mapQ, size_t regionBytes,
                                          int regions);
  // The in-order queue of ctx that this run's copies go on.
  void bind(cl_command_queue q) { q_ = q; }
  size_t regionBytes() const { return regionBytes_; }
  ~PinnedRing();
  PinnedRing(const PinnedRing &) = delete;
  PinnedRing &operator=(const PinnedRing &) = delete;

  // rows copies of n bytes from host src (rows hostPitch apart) into buf at off (rows
  // bufPitch apart), after the wait list (only the first command waits: q is in order).
  cl_int in(cl_mem buf, size_t off, size_t bufPitch, const char *src, size_t hostPitch, size_t n,
            size_t rows, cl_uint nWait, const cl_event *wait);
  // The other way: buf at off into host dst, landing there by drain() at the latest.
  cl_int out(cl_mem buf, size_t off, size_t bufPitch, char *dst, size_t hostPitch, size_t n, size_t rows,
             cl_uint nWait, const cl_event *wait);
  // Waits for every copy and lands every copy out.
  cl_int drain();
  // Bytes through the ring since the last call.
  size_t takeBytesStaged() { size_t n = staged_; staged_ = 0; return n; }

 private:
  struct Region;
  PinnedRing(cl_context ctx, cl_command_queue mapQ, size_t regionBytes);
  // The next region, free: its last copy done, and a copy out landed.
  Region *acquire(cl_int *err);
  cl_int land(Region &r);
  // Lands pending copies out whose destinations overlap [p, p + n).
  cl_int landOverlapping(const char *p, size_t n);

  cl_context ctx_;
  cl_command_queue mapQ_, q_;
  size_t regionBytes_;
  std::vector<std::unique_ptr<Region>> regions_;
  size_t next_ = 0;
  size_t staged_ = 0;
};

}  // namespace tutti
