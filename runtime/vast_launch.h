// vast_launch.h - a launch that runs on one device in slices whose pages fit its memory.
//
// VAST (issue 18, thesis ch. IV): planning (vast_plan.cpp) cuts the launch's work-groups
// into slices whose bytes fit the device's budget and fixes each slice's window of pages
// per buffer; execution (vast_exec.cpp) copies each window into a frame buffer, runs the
// compiler's paged-access kernel over the slice with a look-ahead page table that maps
// the window's pages onto the frame, and copies the bytes the slice may write back to
// the buffers' host homes.
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

#include <tutti/compiler.h>

#include "command.h"
#include "interval_set.h"

namespace tutti {

namespace cc = tutti::compiler;

// One buffer argument of the paged kernel (entry j of KernelInfo::vast_buffer_args).
struct VastArg {
  unsigned arg = 0;         // kernel argument index
  _cl_mem *root = nullptr;  // the (root) buffer bound to it
  bool read = false, written = false;  // written: plain stores or atomics
  uint64_t pages = 0;       // ceil(size / page): the LPT's length
  size_t frameBytes = 0;    // largest window over the slices: the frame buffer's size
  // Only read, and every slice's window is the same (Nbody's positions, a product's right
  // matrix): one frame buffer serves both sets, copied in once for the whole run.
  bool resident = false;
};

// Logical pages [page, page + count) of a buffer at frames [frame, frame + count).
struct PageRun {
  uint64_t page = 0, count = 0, frame = 0;
};

// Bytes a slice may write, and where they are in its frame buffer.
struct FrameCopy {
  Range r;
  size_t frameOffset = 0;
};

struct VastSlice {
  uint64_t first = 0, count = 0;  // flattened work-groups
  // Per VastArg: the pages in its frame buffer (sorted, frames from 0 in page order),
  // and the bytes copied back (each inside one run).
  std::vector<std::vector<PageRun>> runs;
  std::vector<std::vector<FrameCopy>> out;
};

// Where byte b of a buffer (inside one of runs) lies in the frame buffer. Runs are sorted
// by page: a binary search (a scattered slice has thousands of runs, each looked up).
inline size_t frameOffsetOf(const std::vector<PageRun> &runs, size_t b, unsigned shift) {
  uint64_t p = b >> shift;
  auto it = std::upper_bound(runs.begin(), runs.end(), p,
                             [](uint64_t page, const PageRun &r) { return page < r.page; });
  if (it == runs.begin()) return SIZE_MAX;
  const PageRun &r = *--it;
  if (p >= r.page + r.count) return SIZE_MAX;
  return size_t((r.frame + (p - r.page)) << shift) + (b & ((size_t(1) << shift) - 1));
}

// The inspector (thesis §4.4.1): run on a CPU device before the slices, it marks the pages
// each set of consecutive work-groups touches; the slices follow from those marks.
struct VastInspect {
  int slot = -1;                 // the CPU device it runs on
  cl_kernel kernel = nullptr;    // <k>__tutti_insp there
  std::vector<uint32_t> dataArgs;  // arguments it reads: bound to their real buffers there
  std::vector<cl_mem> bound;     // per kernel argument: the real buffer bound (or null)
  uint64_t groupsPerSet = 1;     // Eq. 4.1
  uint64_t budget = 0;           // bytes of one frame set
  double usable = 0;             // bytes of the device all sets and LPTs may take
};

struct VastLaunch {
  std::shared_ptr<VastInspect> inspect;  // set: the slices come from the inspector's marks
  const cc::KernelInfo *info = nullptr;
  cc::NDRange nd;
  cc::ScalarArgs scalars;
  cl_kernel paged = nullptr;  // <k>__tutti_paged on the slot
  // <k>__tutti_rb on the slot (TUTTI_VAST_REBASE): runs slices whose windows are one run
  // of pages per buffer, without the page-table lookups.
  cl_kernel rebased = nullptr;
  unsigned pageShift = 16;
  // The device's largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE): one arg's frame buffer
  // never exceeds it, so a buffer above NVIDIA's 25 % limit is kept in several frames.
  uint64_t maxFrame = UINT64_MAX;
  // Sets the page size (2^shift bytes) and every arg's page count; returns one set's
  // look-ahead page-table bytes (4 per page, at least one page per arg).
  uint64_t setPageShift(unsigned shift) {
    pageShift = shift;
    uint64_t lptBytes = 0;
    for (VastArg &a : args) {
      a.pages = (a.root->size + (size_t(1) << shift) - 1) >> shift;
      lptBytes += std::max<uint64_t>(a.pages, 1) * 4;
    }
    return lptBytes;
  }
  // Frame sets the budget was planned for: 2 pipelines the slices; 1 where one set of
  // half the budget cannot hold a single work-group's pages.
  int sets = 2;
  std::vector<VastArg> args;
  std::vector<VastSlice> slices;  // planned, or (inspect) made by the run
  // Set by the run (host work): the command is issued again to record its outputs.
  bool ran = false;
  cl_int status = CL_SUCCESS;
  bool ranRebased = false;    // by the run: the rebased kernel ran its slices
  size_t slicesStarted = 0;  // by the run: none, and a failure may run the launch elsewhere
  // Per VastArg: bytes with content when the launch was first staged (valid in the home,
  // on a device, or on their way); the rest are undefined and need no copy in.
  mutable std::vector<IntervalSet> defined;
  // Per VastArg, set when staged: the replica on the launch's own device that its slices'
  // pages come from where it is valid (a buffer only read), else null: from the home.
  mutable std::vector<cl_mem> replicas;
  // Per VastArg with a replica: the bytes copied from it (valid there when staged); the
  // slices' other bytes come from the home.
  mutable std::vector<IntervalSet> onReplica;
  // t0: host ns when the slices began; ns: how long they took.
  uint64_t bytesIn = 0, bytesOut = 0, bytesForwarded = 0, bytesStaged = 0, t0 = 0, ns = 0;
  uint64_t bytesFromReplica = 0;  // of bytesIn, copied from replicas on the device
  uint64_t bytesResident = 0;     // windows of resident args not copied again (slices after the first)
  uint64_t kernelNs = 0;  // the paged kernel's own time (device profiling), all slices
};

// The bytes L's slices copy in: each slice's windows, resident ones once.
inline uint64_t movedBytes(const VastLaunch &L) {
  uint64_t n = 0;
  for (size_t i = 0; i < L.slices.size(); ++i)
    for (size_t j = 0; j < L.slices[i].runs.size(); ++j)
      if (i == 0 || !L.args[j].resident)
        for (const PageRun &r : L.slices[i].runs[j]) n += r.count << L.pageShift;
  return n;
}

}  // namespace tutti
