// skmd_launch.h - one launch split across devices: its pieces, merges and concatenations.
//
// Planning (skmd_plan.cpp) fills it; execution (skmd_exec.cpp) stages, launches, merges
// and completes it.
#pragma once
#include <atomic>
#include <memory>
#include <vector>

#include <tutti/compiler.h>

#include "command.h"
#include "real_event.h"

namespace tutti {

namespace cc = tutti::compiler;


// One device's share of a split launch.
struct Piece {
  int slot = -1;
  uint64_t first = 0, count = 0;
  RealEvent firstEv{}, lastEv{};  // of the piece's first and last sub-launch
  // Set: the device cannot hold the launch's buffers, and its groups run there in VAST
  // slices (issue 18) from the homes, as host work, instead of one sub-launch.
  std::shared_ptr<VastLaunch> vast;
  bool pagedRunning = false;  // its slices were started
};

// A buffer argument whose pieces must be combined on the host after the launch.
struct Merge {
  unsigned arg = 0;
  _cl_mem *root = nullptr;
  Range r;                          // the bytes the launch may write, in the root store
  cc::AtomicCombine rule = cc::AtomicCombine::None;  // None: plain writes, merged by diff
  unsigned width = 0;
  // Pre-launch content of r, uninitialised until the snapshot: zero-filling hundreds of
  // megabytes of fresh pages on one thread cost more than the copy itself.
  std::unique_ptr<unsigned char[]> initial;
  std::vector<Range> hull;                           // per piece, bytes it may write
};

struct SkmdLaunch {
  const cc::KernelInfo *info = nullptr;  // of the first piece's target (same analysis)
  std::vector<const cc::KernelInfo *> slotInfo;
  cc::NDRange nd;
  cc::ScalarArgs scalars;
  std::vector<Piece> pieces;
  std::vector<Merge> merges;
  std::vector<std::pair<unsigned, std::vector<Range>>> concat;  // arg -> per piece hull
  // Uploads of pre-launch content from the homes to the pieces' devices (with their
  // slots), kept until they land where a piece on the zero-copy CPU would write the home
  // they read (skmd_exec.cpp prepareMerges).
  std::vector<std::pair<int, RealEvent>> uploads;
  bool snapshotTaken = false;  // every merge's `initial` is filled
  std::atomic<int> outstanding{0};
  bool issued = false;
  int failedSlot = -1;  // the piece's device whose staging or launch failed the issue
  uint64_t tIssue = 0;
};

// A compiler byte range of argument m, clamped to m and placed in its root store.
Range skmdClamp(const cc::ByteRange &br, const _cl_mem *m);
// Whether any two non-empty ranges overlap.
bool skmdOverlapping(const std::vector<Range> &hulls);

}  // namespace tutti
