// mkmd.h - MKMD: scheduling a graph of kernels over several devices (thesis Chapter V).
//
// Device-free, like the partitioner: the runtime feeds it the graph it deferred, the
// simulator tool feeds it recorded graphs and device models (devices that are not present
// included), and tests check it deterministically. Times are seconds from the graph's start.
//   coarse:  list scheduling by upward rank (Eq. 5.4) with EST/EFT over insertion slots,
//            transfers on full-duplex links that serialize per direction (Eq. 5.5-5.10);
//   mkmd:    then Algorithms 3 and 4: in coarse start order, each kernel's work-groups are
//            moved by hill climbing into other devices' idle slots, successors following.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tutti::profiles::mkmd {

struct Device {
  std::string name;
  bool host = false;  // works on host memory (the CPU): nothing crosses a link to or from it
  int link = 0;       // devices on one link share its two directions
  double h2dBandwidth = 25e9, d2hBandwidth = 25e9;  // bytes per second
  double latency = 10e-6;                           // per copy, seconds
  // Host devices: bytes per second at which copies land in host memory touched for the
  // first time (a cold buffer's home: page faults, 0.35-2.5 GB/s on the GPU VMs); 0: no
  // slower than the link.
  double fillBandwidth = 0;
  // Seconds from the graph's start during which the device still runs earlier work (an
  // earlier graph's kernels): nothing of this graph runs there before.
  double busyUntil = 0;
  // Copies from the host into this device wait for the kernels issued to it before them
  // (Tutti's runtime: an upload waits for everything on the device's in-order queue, lest
  // it overwrite bytes a queued kernel still reads), so they cannot overlap its kernels.
  // False: the thesis's model, copies on their own engines beside the kernels.
  bool queuedUploads = false;
};

struct Buffer {
  std::string name;
  uint64_t bytes = 0;
  bool fromHost = true;  // the app wrote it before the graph (else undefined: nothing to copy)
  bool toHost = false;   // the app reads it after the graph
  // Where fromHost's data are when the graph starts: the host unless notOnHost, and these
  // devices (an earlier graph's kernels or the app's write left a whole copy there), so a
  // kernel placed beside its data needs no copy at all.
  std::vector<int> on;
  bool notOnHost = false;
  // Its host memory is not there yet: the first copy that lands there for a kernel on the
  // host device (or a split's gather) runs at that device's fillBandwidth.
  bool cold = false;
  // Seconds from the graph's start at which the copies on `on` are written (a kernel of
  // an earlier graph still writes them); 0: there already.
  double readyAt = 0;
};

struct Kernel {
  std::string name;
  uint64_t groups = 1;
  std::vector<int> reads, writes;  // buffer indices
  // Buffers read in proportion to a piece's groups (the compiler's ranges follow the groups);
  // the others go whole to every piece. Same length as reads, or empty (all whole).
  std::vector<bool> partialRead;
  std::vector<int> after;  // kernels this one must follow besides its buffers (events)
  bool splittable = true;  // partition-ready
  // Partial outputs that must be merged on the host (not concatenated): each extra device
  // adds mergeSecondsPerDevice, and the pieces' whole outputs come back.
  bool mergeOutputs = false;
  double mergeSecondsPerDevice = 0;
  // Predicted seconds for n groups on device d (a profile model, or a static cost fit).
  std::function<double(int d, uint64_t n)> time;
};

struct Graph {
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;  // in enqueue order
};

struct Task {
  enum Kind { Compute, H2D, D2H, Merge } kind = Compute;
  int kernel = -1;      // Compute, Merge: the kernel; copies: the kernel they feed (-1: sink)
  int device = -1;      // Compute: the device; copies: the device whose link carries it
  int buffer = -1;      // copies
  uint64_t groups = 0;  // Compute: groups of this piece
  uint64_t bytes = 0;   // copies
  double start = 0, end = 0;
};

struct Schedule {
  std::vector<Task> tasks;
  double makespan = 0;
  std::vector<double> busy;        // compute seconds per device
  std::vector<int> deviceOf;       // per kernel: where most of its groups run
  std::vector<double> kernelEnd;   // per kernel
  double idleFraction = 0;         // mean over devices of (makespan - busy) / makespan
  int splitKernels = 0;            // kernels run on more than one device
};

struct Options {
  bool partition = true;  // fine-grain multi-kernel partitioning after coarse scheduling
  int steps = 100;        // Algorithm 4: at most this many moves, each 1/steps of the groups
  // A kernel is split only when that ends it at least this fraction earlier than running it
  // whole where coarse scheduling put it: a split launch costs more than its models say
  // (partition-ready variants, more launches, gathers), as TUTTI_SPLIT_MIN_GAIN says for SKMD.
  double minSplitGain = 0.1;
  // And at least this many seconds: a split costs pieces, launches and cross-device waits
  // whose time does not shrink with the kernel (TUTTI_MKMD_SPLIT_MIN_US in the runtime).
  double minSplitSeconds = 0;
  // A split's pieces under this share of the groups are given to its largest piece (as
  // SKMD drops a device under 3 % when others share the rest).
  double minPieceShare = 0.03;
};

// Every kernel on one device in enqueue order: the baseline the thesis compares with.
Schedule inOrder(const Graph &g, const std::vector<Device> &devs, int device);
// Coarse-grain list scheduling, then (Options::partition) fine-grain partitioning.
Schedule schedule(const Graph &g, const std::vector<Device> &devs, const Options &opt = {});

// Dependencies of each kernel on earlier ones: read-after-write, write-after-read and
// write-after-write on a buffer, plus Kernel::after. Sorted, no duplicates.
std::vector<std::vector<int>> predecessors(const Graph &g);
// Eq. 5.4's priority of each kernel (upward rank, transfers at the mean link bandwidth).
std::vector<double> upwardRank(const Graph &g, const std::vector<Device> &devs);

// A per-device text Gantt chart, `width` columns wide (kernels as letters, copies as - and =).
std::string gantt(const Schedule &s, const Graph &g, const std::vector<Device> &devs, int width = 72);
// The schedule as a Chrome trace (the format TUTTI_TRACE writes): one row per device and
// per link direction.
std::string chromeTrace(const Schedule &s, const Graph &g, const std::vector<Device> &devs);

}  // namespace tutti::profiles::mkmd

namespace tutti::profiles::mkmd {

// A recorded graph with device models, as the simulator reads it (one item per line, '#'
// starts a comment):
//   device NAME [host] [inorder] [link=N] [h2d=GB/s] [d2h=GB/s] [latency=us] [fill=GB/s]
//   buffer NAME bytes=N [in] [out] [on=MODEL1,MODEL2] [nohost] [cold]
//   kernel NAME groups=N [reads=B1,B2*] [writes=B3] [after=K1,K2] [whole] [merge=MS]
//          time=MODEL:FIXED_MS+US_PER_GROUP[,MODEL:...]
// B* marks a buffer read in proportion to a piece's groups; `whole`: not partition-ready;
// merge=MS: partial outputs merged on the host, MS per extra device. on=: devices holding
// an `in` buffer's data when the graph starts; nohost: the host's copy is stale; cold and
// fill=: Device::fillBandwidth and Buffer::cold; inorder: Device::queuedUploads.
struct GraphFile {
  struct Linear {
    double fixedSeconds = 0, perGroupSeconds = 0;
  };
  std::vector<Device> models;
  Graph graph;                                  // without time functions
  std::vector<std::vector<Linear>> kernelTime;  // [kernel][model]
  std::vector<std::vector<bool>> timeKnown;     // [kernel][model]
};
bool parseGraph(const std::string &text, GraphFile &out, std::string &error);
std::string formatGraph(const GraphFile &g);
// The graph over a device set named by model (a model may appear more than once: each copy
// gets a link of its own). Empty set: every model once. False: an unknown model, or a kernel
// with no time on one of the devices.
bool instantiate(const GraphFile &g, const std::vector<std::string> &set, Graph &graph,
                 std::vector<Device> &devs, std::string &error);

}  // namespace tutti::profiles::mkmd
