// skmd_decide.cpp - split policies (TUTTI_PARTITION) over profiled and online-calibrated times.
//
// Per kernel and device the compute time comes from the profile database's TimeModel when
// there is one, else from online samples of this run. A kernel nothing is known about runs
// whole on the strongest device first; devices still unmeasured get a small probe only when
// the probe is cheap (big launch, no host merge, little input to copy).
#include "skmd_decide.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>

#include <tutti/partitioner.h>

#include "backend.h"
#include "measured.h"
#include "memory.h"
#include "log.h"
#include "profile_store.h"
#include "settings.h"
#include "skmd.h"
#include "staging.h"
#include "placement.h"
#include "trace.h"
#include "transfer_probe.h"

namespace tutti {

namespace cc = tutti::compiler;
namespace pf = tutti::profiles;

namespace {

// What the compiler's access analysis says of each buffer argument for this launch shape:
// the same for every device, and for every launch of the shape (kept per kernel).
struct ArgBytes {
  bool mem = false, read = false, written = false;
  bool partial = false;  // read ranges follow the groups (else the whole input goes)
  bool merged = false;   // written atomically or not contiguously: a host merge
  bool preLaunch = false;  // its pre-launch bytes priced as a merge's, without the merge (screening)
  double readBytes = 0, writeBytes = 0;
  double readOne = 0;  // bytes one group reads (partial): a stripe, or nearly all (matmul's B)
};

// What is known about one kernel (by identity), per backing-device index.
struct KernelKnowledge {
  std::string id;  // kernelIdentity
  std::map<int, std::shared_ptr<const pf::TimeModel>> models;  // loaded at first use
  std::vector<uint64_t> boundFor;                              // launch shape of `bound`
  std::map<int, pf::Predictor> bound;
  std::set<int> probed;
  std::map<int, int> stored;  // online samples queued for the database, per device
  std::map<std::pair<int, std::vector<uint64_t>>, int> storedShapes;  // and per launch shape
  // Algorithm 1's last answers from profiled models, by launch shape and data placement:
  // an app repeats its launches, and the walk costs 100+ us each (FDTD3d's five launches
  // ran 1.6 ms behind whole placement on the H100 machine before these were kept).
  struct Kept {
    std::vector<double> key;
    Decision d;
  };
  std::vector<Kept> kept;  // newest last
  std::vector<double> bytesFor;  // launch shape and buffer sizes of `bytes`
  std::vector<ArgBytes> bytes;
  uint64_t unit = 1;             // cc::concatUnit of that shape (0: none)
  // Measured / predicted kernel seconds per (device, launch shape), newest last; the
  // first launch of a shape warms caches and drivers and is left out.
  std::map<std::pair<int, std::vector<uint64_t>>, std::vector<double>> ratios;
  std::map<int, pf::Predictor> corrected;  // bound models times their correction
  // The features of the latest launch shape asked for, and the device's analysis they came
  // from (featuresOf).
  std::vector<uint64_t> featuresFor;
  const cc::KernelInfo *featuresInfo = nullptr;
  pf::Features features;
  // learnFromRun's entries for the latest launch shape it learnt of, per device: a run of
  // completions repeats its shapes, and finding them by (device, shape) twice a completion
  // was most of the path that learns of them. Map nodes stay put; a ratios entry erased
  // clears its pointers here.
  struct Learnt {
    std::vector<uint64_t> shape;
    std::vector<double> *ratios = nullptr;  // kk.ratios[{device, shape}]
    int *ofShape = nullptr;                 // kk.storedShapes[{device, shape}]
  };
  std::map<int, Learnt> learnt;
};
constexpr size_t kCorrectionRuns = 5;
constexpr size_t kMaxCorrectedShapes = 64;  // per kernel, all devices together
constexpr size_t kKeptDecisions = 4;

// Online samples arrive from completion callbacks while decisions run under the runtime
// lock; this lock guards the map for both.
std::mutex g_mu;
std::map<std::string, KernelKnowledge> g_known;
std::atomic<uint64_t> g_modelDecisions{0}, g_keptDecisions{0}, g_probes{0};

// k's entry (g_mu held). Cached on the kernel: building the identity string and finding
// it in the map was a tenth of an SKMD launch's host cost. Entries are never erased, so
// the pointer stays valid; the variants it was found for (a rebuild needs the program's
// kernels released first) guard the cache.
KernelKnowledge &knowledgeOf(_cl_kernel *k) {
  const void *variants = k->program->skmd.get();
  if (k->skmdKnown && k->skmdKnownFor == variants) return *static_cast<KernelKnowledge *>(k->skmdKnown);
  std::string id = kernelIdentity(k);
  KernelKnowledge &kk = g_known[id];
  kk.id = std::move(id);
  k->skmdKnown = &kk;
  k->skmdKnownFor = variants;
  return kk;
}

constexpr uint64_t kProbeMinGroups = 64;    // smaller launches are never split to measure
constexpr double kProbeShare = 1.0 / 256;   // a device may be ~300x slower than the best
constexpr double kProbeInputRatio = 0.25;   // probe input copy vs. the whole kernel's time
constexpr int kStoredPerRun = 64;    // online samples per kernel and device a run stores
constexpr int kStoredPerShape = 4;   // of them per launch shape
// Where the database already has a model for the kernel on that device: one per shape, a
// sample of the real size for the next run's fit. Each costs about 17,000 instructions
// where completions are learnt, the app's final read (BiCGSTAB under TUTTI_MODE=mkmd: 37
// samples, 627,000 instructions of the 7.8 million Tutti spent in its calls).
constexpr int kStoredPerShapeModelled = 1;
constexpr double kMinShare = 0.03;  // of a split's groups, where two other devices share the rest

int devIndex(Command *cmd, int slot) { return cmd->q->ctx->slots[slot].dev->index; }

// Predicted seconds for n items on a device, from the largest launch seen there
// (work scales with groups once a device is full; small pieces are the optimistic side).
bool predictOnline(const std::vector<KernelRun> &v, double items, double &t) {
  if (v.empty()) return false;
  const KernelRun *best = &v.front();
  for (auto &s : v)
    if (s.items > best->items) best = &s;
  if (best->items <= 0 || best->seconds <= 0) return false;
  t = best->seconds * items / best->items;
  return true;
}

// Splits `total` in proportion to weights (largest remainders get the leftovers), in
// multiples of `unit` where it divides total.
std::vector<uint64_t> proportional(const std::vector<double> &w, uint64_t total, uint64_t unit = 1) {
  if (unit > 1 && total % unit == 0) {
    std::vector<uint64_t> g = proportional(w, total / unit);
    for (auto &x : g) x *= unit;
    return g;
  }
  double sum = 0;
  for (double x : w) sum += x;
  std::vector<uint64_t> g(w.size(), 0);
  if (sum <= 0) return g;
  uint64_t given = 0;
  std::vector<std::pair<double, size_t>> rem;
  for (size_t i = 0; i < w.size(); ++i) {
    double exact = double(total) * w[i] / sum;
    g[i] = uint64_t(std::floor(exact));
    given += g[i];
    rem.push_back({exact - double(g[i]), i});
  }
  std::sort(rem.begin(), rem.end(), [](auto a, auto b) { return a.first > b.first; });
  for (size_t i = 0; given < total; ++i, ++given) ++g[rem[i % rem.size()].second];
  return g;
}

std::vector<double> fixedWeights(Command *cmd, const std::vector<int> &usable, size_t nslots) {
  const std::vector<double> &all = settings().partition.weights;
  std::vector<double> out(nslots, 0);
  for (int s : usable) {
    size_t idx = size_t(devIndex(cmd, s));
    out[s] = idx < all.size() ? all[idx] : 0;
  }
  return out;
}

// Copy times: measured ones from the profile database where they exist; otherwise pinned
// PCIe for GPUs (FACTS.md measured 54 GB/s on the H100; half of it is the safe side) and
// a host memcpy into the CPU driver's buffers.
// inBytes, outBytes: about what the launch moves each way, which picks the fit of large
// copies where it is large.
void linkModel(_cl_context *ctx, BackingDevice *d, pf::DeviceCost &c, double inBytes = 0, double outBytes = 0) {
  if (d->isGpu()) {
    c.h2dBandwidth = c.d2hBandwidth = 25e9;
    c.h2dLatency = c.d2hLatency = 15e-6;
    c.bus = 0;  // GPUs share the host's PCIe root: their copies serialize
  } else {
    c.h2dBandwidth = c.d2hBandwidth = 8e9;
    c.h2dLatency = c.d2hLatency = 5e-6;
  }
  const pf::TransferModel &m = storedTransferModel(deviceIdentity(d));
  bool pinned = homesPinned(ctx);
  const pf::TransferFit &in = m.get(pf::Direction::H2D, pinned, inBytes),
                       &out = m.get(pf::Direction::D2H, pinned, outBytes);
  if (!in.isDefault) c.h2dBandwidth = in.bandwidth, c.h2dLatency = in.latency;
  if (!out.isDefault) c.d2hBandwidth = out.bandwidth, c.d2hLatency = out.latency;
}

// Bytes per second a host merge gets through: measured host memcpy where profiling mode
// stored it, else 4 GB/s (a merge reads the partial result and compares it byte-wise).
double mergeBandwidth() {
  const pf::TransferFit &f = storedTransferModel(kHostMemoryId).get(pf::Direction::H2D, false);
  return f.isDefault ? 4e9 : f.bandwidth;
}

double staleFraction(_cl_mem *m, int slot) {
  BufferStore &st = *rootOf(m)->store;
  if (!m->size) return 0;
  // Asked for every buffer and device at every decision (placementKey): no lists unless
  // the zero-copy device's two records must be joined.
  size_t valid = st.devValid[slot].presentBytes(m->range());
  if (slot == zeroCopySlot(m->ctx) && valid < m->size) {  // the home is this device's replica
    IntervalSet here;
    for (Range p : st.hostValid.present(m->range())) here.add(p);
    for (Range p : st.devValid[slot].present(m->range())) here.add(p);
    valid = here.presentBytes(m->range());
  }
  return 1.0 - double(valid) / double(m->size);
}

double clampedBytes(const cc::ByteRange &r, _cl_mem *m) {
  if (!r.known) return double(m->size);
  return double(std::min<uint64_t>(r.end, m->size) - std::min<uint64_t>(r.begin, m->size));
}

// Bytes from the whole launch's hulls alone, which the command graph evaluated when the
// launch was enqueued: each group reading and writing its even share, nothing merged.
std::vector<ArgBytes> optimisticArgBytes(Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                                         const cc::ScalarArgs &scalars) {
  std::vector<ArgBytes> out(cmd->args.size());
  apiMutex.assertHeld();  // planning runs under it; the decision's callers are not annotated
  const AccessMemo &whole = skmdWholeHulls(cmd->kernel, info, nd, scalars);
  const double total = double(nd.totalGroups());
  for (unsigned i = 0; i < cmd->args.size() && i < info.args.size(); ++i) {
    auto &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem || a.mem->isImage()) continue;
    const cc::ArgInfo &ai = info.args[i];
    ArgBytes &b = out[i];
    b.mem = true;
    b.read = ai.read;
    b.written = ai.written || ai.atomic;
    b.partial = true;
    if (b.read) {
      b.readBytes = clampedBytes(skmdHull(whole, i, false), a.mem);
      b.readOne = b.readBytes / total;
    }
    if (b.written) b.writeBytes = clampedBytes(skmdHull(whole, i, true), a.mem);
  }
  return out;
}

// The analysed bytes: one group's reads, and merges. unit: cc::concatUnit of the launch;
// buffers whose writes concatenate in pieces of whole units are not merged.
std::vector<ArgBytes> argBytes(Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                               const cc::ScalarArgs &scalars, uint64_t unit) {
  std::vector<ArgBytes> out = optimisticArgBytes(cmd, info, nd, scalars);
  for (unsigned i = 0; i < out.size(); ++i) {
    ArgBytes &b = out[i];
    if (!b.mem) continue;
    const cc::ArgInfo &ai = info.args[i];
    cc::ByteRange one = cc::accessedRange(info, i, cc::AccessMode::Read, nd, scalars, 0, 1);
    b.partial = one.known;
    if (b.read) b.readOne = b.partial ? std::min(clampedBytes(one, cmd->args[i].mem), b.readBytes) : b.readBytes;
    if (b.written) b.merged = ai.atomic || (unit == 0 && !cc::argWritesContiguous(info, i, nd, scalars));
  }
  return out;
}

// Bytes per group of a read: a line through one group's bytes and the whole launch's, so
// a piece of a stripe-wise read gets its share, while a group that reads nearly everything
// (the B of a matmul, a stencil's coefficients) costs every piece the whole buffer.
double perGroupRead(const ArgBytes &b, uint64_t total) {
  return b.partial && total > 1 ? std::max(0.0, (b.readBytes - b.readOne) / double(total - 1)) : 0;
}

// Bytes a device must receive for a piece of n groups (fixed part + per group), from
// the analysed ranges and what is already valid there; likewise bytes written.
void bytesModel(Command *cmd, const std::vector<ArgBytes> &ab, uint64_t total, int slot,
                pf::DeviceCost &c, bool &merged, double &mergeBytes) {
  // A device that cannot hold the buffers runs its piece in VAST slices from the homes
  // (issue 18): nothing stays there between launches, so every byte it reads crosses.
  const bool paged = !launchFits(cmd->kernel, cmd->args, slot);
  const bool zeroCopy = slot == zeroCopySlot(cmd->q->ctx);
  for (unsigned i = 0; i < ab.size(); ++i) {
    const ArgBytes &b = ab[i];
    if (!b.mem) continue;
    double stale = paged ? 1.0 : staleFraction(cmd->args[i].mem, slot);
    if (b.read) {
      double per = perGroupRead(b, total);
      double fixed = b.partial ? std::max(0.0, b.readOne - per) : b.readBytes;
      c.inBytesPerGroup += per * stale;
      c.inFixedBytes += fixed * stale;
    }
    if (b.written) {
      // The zero-copy CPU writes a USE_HOST_PTR buffer's bytes where the app has them.
      if (!(zeroCopy && rootOf(cmd->args[i].mem)->store->homeIsUser))
        c.outBytesPerGroup += b.writeBytes / double(total);
      if (b.merged) {
        merged = true;
        mergeBytes += b.writeBytes;
      }
      // partial results start from the pre-launch bytes
      if (b.merged || b.preLaunch) c.inFixedBytes += b.writeBytes * stale;
    }
  }
}

// Compute time of one device for this launch: a profiled model bound to the launch's
// features, or the online per-item rate.
struct DeviceTime {
  bool known = false, model = false;
  const pf::Predictor *pred = nullptr;
  double whole = 0;  // seconds for the whole launch
  double perGroup = 0;
};

// Median measured/predicted of dev's recent launches of the bound shape; 1 when unknown.
double correction(const KernelKnowledge &kk, int dev) {
  const bool on = settings().model_correction;
  auto it = kk.ratios.find({dev, kk.boundFor});
  if (!on || it == kk.ratios.end() || it->second.size() < 2) return 1;
  std::vector<double> r(it->second.begin() + 1, it->second.end());
  std::nth_element(r.begin(), r.begin() + long(r.size() / 2), r.end());
  // In steps of 2^(1/8), about 9 %: finer steps would follow the device's noise and make
  // every launch's decision new (kept decisions are keyed on it).
  return std::exp2(std::round(8 * std::log2(r[r.size() / 2])) / 8);
}

DeviceTime deviceTime(KernelKnowledge &kk, Command *cmd, int slot, uint64_t total, double items) {
  int dev = devIndex(cmd, slot);
  DeviceTime t;
  auto b = kk.bound.find(dev);
  if (b != kk.bound.end()) {
    t.known = t.model = true;
    double c = correction(kk, dev);
    t.pred = &b->second;
    if (c != 1) {
      t.pred = &(kk.corrected[dev] = b->second.scaled(c));
      TUTTI_LOG(Debug, "time model of device %d scaled by %.3g (measured/predicted of its "
                "last launches of this shape)", dev, c);
    }
    t.whole = (*t.pred)(total);
  } else if (predictOnline(measuredRuns(cmd->kernel, slot), items, t.whole)) {
    t.known = true;
  }
  t.perGroup = total ? t.whole / double(total) : 0;
  return t;
}

// A launch's features, kept for its kernel's latest shape and analysis (g_mu held). They
// follow from those alone (the analysis gives the cost feature), and each costs about
// 20,000 instructions: asked by the model binding at a shape's first launch and again for
// each online sample on the path that learns of completions (K-means under MKMD on an H200:
// 23 us for each of its first completions, against 10 in whole mode, at the app's final
// read).
const pf::Features &featuresOf(KernelKnowledge &kk, Command *cmd, const cc::KernelInfo &info,
                               const cc::NDRange &nd, const cc::ScalarArgs &scalars,
                               const std::vector<uint64_t> &shape) {
  if (kk.featuresFor.empty() || shape != kk.featuresFor || &info != kk.featuresInfo) {
    kk.features = launchFeatures(cmd, info, nd, scalars);
    kk.featuresFor = shape;
    kk.featuresInfo = &info;
  }
  return kk.features;
}

// Loads each usable device's model once and binds them to this launch's features.
void bindModels(Command *cmd, KernelKnowledge &kk, const std::string &id, const cc::KernelInfo &info,
                const cc::NDRange &nd, const cc::ScalarArgs &scalars, const std::vector<int> &usable) {
  if (!profileDbEnabled()) return;
  bool any = false;
  for (int s : usable) {
    int dev = devIndex(cmd, s);
    auto it = kk.models.find(dev);
    if (it == kk.models.end())
      it = kk.models.emplace(dev, storedTimeModel(id, deviceIdentity(cmd->q->ctx->slots[s].dev))).first;
    any |= it->second != nullptr;
  }
  if (!any) return;
  static std::vector<uint64_t> shape;  // g_mu held: kept storage
  launchShapeInto(cmd, nd, scalars, shape);
  if (shape == kk.boundFor && !kk.bound.empty()) return;  // most launches repeat a shape
  const pf::Features &f = featuresOf(kk, cmd, info, nd, scalars, shape);
  kk.boundFor = shape;
  kk.bound.clear();
  for (auto &m : kk.models)
    if (m.second) kk.bound[m.first] = m.second->bind(f);
}

// A probe is worth it only when it costs little: no host merge of whole buffers, and the
// probed devices' inputs cross the link in a fraction of the kernel's time. nullptr: cheap;
// else why not.
const char *probeCost(Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                      const cc::ScalarArgs &scalars, const std::vector<uint64_t> &groups,
                      const std::vector<int> &probe, double wholeSeconds) {
  if (nd.totalGroups() < kProbeMinGroups) return "launch too small";
  if (skmdNeedsMerge(cmd, info, nd, scalars, groups)) return "outputs would need a host merge";
  uint64_t first = 0;
  double copy = 0;
  for (size_t s = 0; s < groups.size(); ++s) {
    if (!groups[s]) continue;
    if (std::find(probe.begin(), probe.end(), int(s)) != probe.end()) {
      pf::DeviceCost c;
      linkModel(cmd->q->ctx, cmd->q->ctx->slots[s].dev, c);
      for (unsigned i = 0; i < cmd->args.size() && i < info.args.size(); ++i) {
        auto &a = cmd->args[i];
        if (a.kind != ArgValue::Mem || !a.mem || !info.args[i].read) continue;
        double b = clampedBytes(cc::accessedRange(info, i, cc::AccessMode::Read, nd, scalars, first,
                                                  groups[s]),
                                a.mem) *
                   staleFraction(a.mem, int(s));
        if (b > 0) copy += c.h2dLatency + b / c.h2dBandwidth;
      }
    }
    first += groups[s];
  }
  return copy <= kProbeInputRatio * wholeSeconds ? nullptr : "its input copy costs too much";
}

// What Algorithm 1's answer depends on besides the bound models: the launch shape, the
// usable devices, and each buffer argument's size and the share of it stale per device.
void placementKeyInto(Command *cmd, const KernelKnowledge &kk, const std::vector<int> &usable,
                      std::vector<double> &key) {
  key.assign(kk.boundFor.begin(), kk.boundFor.end());
  key.insert(key.end(), usable.begin(), usable.end());
  for (int s : usable) key.push_back(correction(kk, devIndex(cmd, s)));
  for (auto &a : cmd->args) {
    if (a.kind != ArgValue::Mem || !a.mem || a.mem->isImage()) continue;
    key.push_back(double(a.mem->size));
    for (int s : usable) key.push_back(staleFraction(a.mem, s));
  }
}

void argBytesKey(Command *cmd, const cc::NDRange &nd, const cc::ScalarArgs &scalars, std::vector<double> &key) {
  std::vector<uint64_t> shape = launchShape(cmd, nd, scalars);
  key.assign(shape.begin(), shape.end());
  for (auto &a : cmd->args) key.push_back(a.kind == ArgValue::Mem && a.mem ? double(a.mem->size) : -1);
}

// Whether keptArgBytes holds this launch shape's analysis already.
bool exactBytesKept(Command *cmd, const KernelKnowledge &kk, const cc::NDRange &nd, const cc::ScalarArgs &scalars) {
  static std::vector<double> key;  // g_mu held: kept storage
  argBytesKey(cmd, nd, scalars, key);
  return key == kk.bytesFor && kk.bytes.size() == cmd->args.size();
}

// The access analysis of this launch shape: kept per kernel, as it costs ~40 us for a 3-D
// stencil (FDTD3d), more than the partitioning walk.
const std::vector<ArgBytes> &keptArgBytes(Command *cmd, KernelKnowledge &kk, const cc::KernelInfo &info,
                                          const cc::NDRange &nd, const cc::ScalarArgs &scalars) {
  std::vector<double> key;
  argBytesKey(cmd, nd, scalars, key);
  if (key != kk.bytesFor || kk.bytes.size() != cmd->args.size()) {
    HostSpan span("skmd decide: concat unit");
    kk.unit = cc::concatUnit(info, nd, scalars);
    span.next("skmd decide: argument bytes");
    kk.bytes = argBytes(cmd, info, nd, scalars, kk.unit);
    kk.bytesFor = std::move(key);
  }
  return kk.bytes;
}

// Algorithm 1's question for this launch over the usable slots: each device's time model,
// link and bytes. allModels: every device has a profiled model (else per-group samples).
pf::PartitionRequest partitionRequest(Command *cmd, KernelKnowledge &kk, const cc::KernelInfo &info,
                                      const cc::NDRange &nd, const cc::ScalarArgs &scalars,
                                      const std::vector<int> &usable,
                                      const std::vector<DeviceTime> &times, bool &allModels,
                                      const std::vector<ArgBytes> *optimistic = nullptr) {
  uint64_t total = nd.totalGroups();
  const std::vector<ArgBytes> &ab = optimistic ? *optimistic : keptArgBytes(cmd, kk, info, nd, scalars);
  pf::PartitionRequest req;
  req.totalGroups = total;
  bool merged = false;
  allModels = true;
  double mergeBytes = 0;
  for (int s : usable) {
    pf::DeviceCost c;
    const DeviceTime &t = times[s];
    if (t.model) {
      c.model = t.pred;
    } else {
      double perGroup = t.perGroup;
      c.compute = [perGroup](uint64_t n) { return perGroup * double(n); };
      allModels = false;
    }
    bytesModel(cmd, ab, total, s, c, merged, mergeBytes);
    DeviceSlot &ds = cmd->q->ctx->slots[s];
    const double inAll = c.inFixedBytes + c.inBytesPerGroup * double(total);
    const double outAll = c.outFixedBytes + c.outBytesPerGroup * double(total);
    linkModel(cmd->q->ctx, ds.dev, c, inAll, outAll);
    if (s == zeroCopySlot(cmd->q->ctx)) {
      // Its results are in the home as they are written; the app's read is a memcpy.
      const pf::TransferFit &f = storedTransferModel(kHostMemoryId).get(pf::Direction::H2D, false);
      c.d2hBandwidth = f.isDefault ? 8e9 : f.bandwidth;
      c.d2hLatency = 0;
      c.computesOnHostCores = true;
    } else {
      // Staged copies are memcpys on the copy pool's threads, the CPU device's cores.
      c.copiesOnHostCores = !homesPinned(cmd->q->ctx) && stagingWants(ds, size_t(std::max(inAll, outAll)));
    }
    req.devs.push_back(c);
  }
  req.contiguous = !merged;
  req.unit = optimistic ? 1 : std::max<uint64_t>(kk.unit, 1);
  req.mergeSeconds = merged ? mergeBytes * double(usable.size()) / mergeBandwidth() : 0;
  return req;
}

// Screening before the analysis of a launch shape (concatUnit and one group's reads: about
// 0.75 ms of FDTD3d's first launch on an H200 host, a launch Algorithm 1 keeps whole). Its
// bytes price a split at most what the analysis would: pieces read their even share (a
// group reads at least that much where hulls overlap or cover the buffer), at the finest
// unit, without merges; whole placement costs the same. It asks twice, as the analysis may
// find the outputs merged or not, which prices their pre-launch bytes. Where both answers
// keep the launch whole on the same device, so would the analysed bytes
// (Partitioner.DearerPiecesNeverSplitWhatEvenSharesKeepWhole). Two devices only: with more,
// the walk may miss a split on the cheaper question that it finds on the dearer one.
// True: d is that whole placement.
bool screenedWhole(Command *cmd, KernelKnowledge &kk, const cc::KernelInfo &info, const cc::NDRange &nd,
                   const cc::ScalarArgs &scalars, const std::vector<int> &usable,
                   const std::vector<DeviceTime> &times, double minGain, Decision &d) {
  HostSpan span("skmd decide: screening");
  std::vector<ArgBytes> opt = optimisticArgBytes(cmd, info, nd, scalars);
  auto keepsWhole = [&](const pf::PartitionResult &r) {
    return !r.split || (r.baseDevice >= 0 && r.predictedSeconds > r.bestSingleSeconds * (1 - minGain));
  };
  auto analysed = [&](const char *why) {
    TUTTI_LOG(Debug, "kernel '%s': screening on even shares: %s; the shape is analysed",
              cmd->kernel->name.c_str(), why);
    return false;
  };
  bool allModels = true;
  pf::PartitionResult o = pf::partition(partitionRequest(cmd, kk, info, nd, scalars, usable, times, allModels, &opt));
  if (!keepsWhole(o) || o.baseDevice < 0) return analysed("a split may pay");
  if (std::any_of(opt.begin(), opt.end(), [](const ArgBytes &b) { return b.written; })) {
    for (ArgBytes &b : opt) b.preLaunch = b.written;
    pf::PartitionResult m =
        pf::partition(partitionRequest(cmd, kk, info, nd, scalars, usable, times, allModels, &opt));
    if (!keepsWhole(m)) return analysed("a split may pay if the outputs are merged");
    if (m.baseDevice != o.baseDevice)
      return analysed("whole on one device, or another if the outputs are merged");
  }
  if (allModels) ++g_modelDecisions;
  d.groups[usable[size_t(o.baseDevice)]] = nd.totalGroups();
  d.predictedSeconds = o.bestSingleSeconds;
  if (o.split)
    TUTTI_LOG(Debug, "kernel '%s': split predicted %.3f ms at its least bytes against %.3f ms "
              "whole: too little gain (TUTTI_SPLIT_MIN_GAIN), runs whole before the shape's "
              "analysis", cmd->kernel->name.c_str(), o.predictedSeconds * 1e3, o.bestSingleSeconds * 1e3);
  else
    TUTTI_LOG(Debug, "kernel '%s': best single %.3f ms; a split does not pay even at its least "
              "bytes: runs whole before the shape's analysis", cmd->kernel->name.c_str(),
              o.bestSingleSeconds * 1e3);
  return true;
}

Decision algorithm1(Command *cmd, KernelKnowledge &kk, const cc::KernelInfo &info,
                    const cc::NDRange &nd, const cc::ScalarArgs &scalars,
                    const std::vector<int> &usable, const std::vector<DeviceTime> &times,
                    double items) {
  size_t nslots = cmd->q->ctx->slots.size();
  uint64_t total = nd.totalGroups();
  bool allModels = true;
  Decision d;
  d.groups.assign(nslots, 0);
  const double minGain = double(settings().split_min_gain) / 100;
  if (usable.size() == 2 && !exactBytesKept(cmd, kk, nd, scalars) &&
      screenedWhole(cmd, kk, info, nd, scalars, usable, times, minGain, d))
    return d;
  pf::PartitionRequest req = partitionRequest(cmd, kk, info, nd, scalars, usable, times, allModels);
  HostSpan span("skmd decide: partition");
  pf::PartitionResult r = pf::partition(req);
  span.next(nullptr);
  if (allModels) ++g_modelDecisions;
  if (r.split && r.baseDevice >= 0 && r.predictedSeconds > r.bestSingleSeconds * (1 - minGain)) {
    TUTTI_LOG(Debug, "kernel '%s': split predicted %.3f ms against %.3f ms whole: too little "
              "gain (TUTTI_SPLIT_MIN_GAIN), runs whole", cmd->kernel->name.c_str(),
              r.predictedSeconds * 1e3, r.bestSingleSeconds * 1e3);
    d.groups[usable[size_t(r.baseDevice)]] = total;
    d.predictedSeconds = r.bestSingleSeconds;
    return d;
  }
  for (size_t i = 0; i < usable.size(); ++i) d.groups[usable[i]] = r.groups[i];
  d.predictedSeconds = r.split ? r.predictedSeconds : r.bestSingleSeconds;
  TUTTI_LOG(Debug, "kernel '%s': %.0f work-items, %s, best single %.3f ms, split %s %.3f ms",
            cmd->kernel->name.c_str(), items, allModels ? "profiled models" : "online samples",
            r.bestSingleSeconds * 1e3, r.split ? "yes" : "no", r.predictedSeconds * 1e3);
  // A sliver for a third device saves next to nothing and costs what no model holds: its
  // launch, its first-launch build, its copies (BinomialOption on a CPU and two H100s:
  // 0.5 % on the CPU, 31.0 ms against 27.9 without it). Split among the others instead.
  size_t used = 0;
  int sliver = -1;
  for (size_t i = 0; i < usable.size(); ++i) {
    if (!r.groups[i]) continue;
    ++used;
    if (double(r.groups[i]) < kMinShare * double(total)) sliver = int(i);
  }
  if (used > 2 && sliver >= 0) {
    std::vector<int> rest = usable;
    rest.erase(rest.begin() + sliver);
    return algorithm1(cmd, kk, info, nd, scalars, rest, times, items);
  }
  return d;
}

// Algorithm 1's predicted time of a split it did not choose (TUTTI_PARTITION=fixed), so a
// sweep of fixed splits can set the model beside measured runs; -1 while a device has no
// time model or sample yet.
double predictGiven(Command *cmd, KernelKnowledge &kk, const std::string &id,
                    const cc::KernelInfo &info, const cc::NDRange &nd, const cc::ScalarArgs &scalars,
                    const std::vector<int> &usable, const std::vector<uint64_t> &groups, double items) {
  bindModels(cmd, kk, id, info, nd, scalars, usable);
  uint64_t total = nd.totalGroups();
  std::vector<DeviceTime> times(cmd->q->ctx->slots.size());
  std::vector<uint64_t> given;
  for (int s : usable) {
    times[s] = deviceTime(kk, cmd, s, total, items);
    if (!times[s].known) return -1;
    given.push_back(groups[s]);
  }
  bool allModels = true;
  return pf::estimatePartition(partitionRequest(cmd, kk, info, nd, scalars, usable, times, allModels),
                               given);
}

// Sum of the predicted times of the decisions taken (TUTTI_STATS: skmd_predicted_ms).
std::atomic<uint64_t> g_predictedNs{0}, g_predictedLaunches{0};

void notePrediction(const Decision &d) {
  if (d.predictedSeconds < 0) return;
  g_predictedNs += uint64_t(d.predictedSeconds * 1e9);
  ++g_predictedLaunches;
}

int strongest(Command *cmd, const std::vector<int> &usable) {
  int best = -1;
  for (int s : usable)
    if (best < 0 || cmd->q->ctx->slots[s].dev->strength() > cmd->q->ctx->slots[best].dev->strength())
      best = s;
  return best;
}

// decideSplitOnce without its kept answers (g_mu held). probing: the answer is a probe.
Decision decideAnew(Command *cmd, KernelKnowledge &kk, const cc::KernelInfo &info, const cc::NDRange &nd,
                    const cc::ScalarArgs &scalars, const std::vector<int> &usable, double items,
                    bool &probing) {
  size_t nslots = cmd->q->ctx->slots.size();
  uint64_t total = nd.totalGroups();
  Decision d;
  std::vector<DeviceTime> times(nslots);
  std::vector<int> unknown;
  int best = -1;
  for (int s : usable) {
    times[s] = deviceTime(kk, cmd, s, total, items);
    if (!times[s].known) unknown.push_back(s);
    else if (best < 0 || times[s].whole < times[best].whole) best = s;
  }
  d.groups.assign(nslots, 0);
  if (best < 0) {
    d.groups[strongest(cmd, usable)] = total;  // nothing known: calibrate on a real launch
    return d;
  }
  if (!unknown.empty()) {
    // Probe every unmeasured device once, if that is cheap; else keep running whole on the
    // best measured device (its whole launches keep calibrating it).
    uint64_t share = std::max<uint64_t>(1, uint64_t(double(total) * kProbeShare));
    std::vector<int> probe;
    for (int s : unknown)
      if (!kk.probed.count(devIndex(cmd, s))) probe.push_back(s);
    d.groups[best] = total;
    if (probe.empty() || share * probe.size() >= total) return d;
    std::vector<uint64_t> trial(nslots, 0);
    for (int s : probe) trial[s] = share;
    trial[best] = total - share * probe.size();
    if (const char *why = probeCost(cmd, info, nd, scalars, trial, probe, times[best].whole)) {
      TUTTI_LOG(Debug, "kernel '%s': no probe (%s), runs whole", cmd->kernel->name.c_str(), why);
      return d;
    }
    for (int s : probe) kk.probed.insert(devIndex(cmd, s));
    ++g_probes;
    probing = true;
    d.groups = trial;
    return d;
  }
  if (settings().partition.kind == Partition::Linear) {
    std::vector<double> rate(nslots, 0);
    for (int s : usable) rate[s] = times[s].whole > 0 ? 1.0 / times[s].whole : 0;
    keptArgBytes(cmd, kk, info, nd, scalars);
    d.groups = proportional(rate, total, kk.unit);
    return d;
  }
  return algorithm1(cmd, kk, info, nd, scalars, usable, times, items);
}

Decision decideSplitOnce(Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                         const cc::ScalarArgs &scalars, const std::vector<int> &usable) {
  size_t nslots = cmd->q->ctx->slots.size();
  uint64_t total = nd.totalGroups();
  double items = 1;
  for (unsigned i = 0; i < 3; ++i) items *= double(nd.local_size[i]);
  items *= double(total);
  Decision d;
  Partition::Kind policy = settings().partition.kind;
  std::lock_guard<std::mutex> g(g_mu);
  KernelKnowledge &kk = knowledgeOf(cmd->kernel);
  const std::string &id = kk.id;
  if (policy == Partition::Fixed) {
    keptArgBytes(cmd, kk, info, nd, scalars);
    d.groups = proportional(fixedWeights(cmd, usable, nslots), total, kk.unit);
    d.predictedSeconds = predictGiven(cmd, kk, id, info, nd, scalars, usable, d.groups, items);
    return d;
  }
  HostSpan span("skmd decide: bind models");
  bindModels(cmd, kk, id, info, nd, scalars, usable);
  span.next(nullptr);
  // The answer below is a function of the question: the launch shape, the bound models
  // and their corrections, where the data are (placementKey), each device's measured runs
  // (predictOnline's input where a device has no profiled model) and which devices were
  // probed. A repeated launch with nothing new measured since gets the kept answer before
  // any time is predicted: predicting and Algorithm 1 were most of an SKMD launch's host
  // cost (enqueue_rate, issue 17). Probes are not kept: each changes the question.
  // Built in storage kept across launches (g_mu held): a repeated launch allocates nothing.
  static std::vector<double> key;
  static std::vector<uint64_t> shape;
  key.clear();
  if (policy != Partition::Linear) {
    bool allModels = true;
    for (int s : usable) allModels &= kk.bound.count(devIndex(cmd, s)) > 0;
    placementKeyInto(cmd, kk, usable, key);
    if (!allModels) {
      launchShapeInto(cmd, nd, scalars, shape);
      key.insert(key.end(), shape.begin(), shape.end());
      for (int s : usable) key.push_back(double(measuredRunCount(cmd->kernel, s)));
      key.push_back(double(kk.probed.size()));
    }
    // Newest first: a repeated launch finds its answer at the end.
    for (auto it = kk.kept.end(); it != kk.kept.begin();) {
      --it;
      if (it->key == key) {
        if (allModels) ++g_modelDecisions;
        ++g_keptDecisions;
        Decision again = it->d;
        std::rotate(it, it + 1, kk.kept.end());  // most recently used last
        return again;
      }
    }
  }
  bool probing = false;
  d = decideAnew(cmd, kk, info, nd, scalars, usable, items, probing);
  if (policy != Partition::Linear && !probing) {
    if (kk.kept.size() >= kKeptDecisions) kk.kept.erase(kk.kept.begin());
    kk.kept.push_back({key, d});
  }
  return d;
}

}  // namespace

Decision decideSplit(Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                     const cc::ScalarArgs &scalars, const std::vector<int> &usable) {
  Decision d = decideSplitOnce(cmd, info, nd, scalars, usable);
  notePrediction(d);  // decisions without a prediction (probes, no model) add nothing
  return d;
}

void modelLaunch(Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                 const cc::ScalarArgs &scalars, const std::vector<int> &usable, LaunchModel &out,
                 bool withArgs) {
  size_t nslots = cmd->q->ctx->slots.size();
  uint64_t total = nd.totalGroups();
  double items = double(total);
  for (unsigned i = 0; i < 3; ++i) items *= double(nd.local_size[i]);
  std::lock_guard<std::mutex> g(g_mu);
  KernelKnowledge &kk = knowledgeOf(cmd->kernel);
  const std::string &id = kk.id;
  out.args.clear();
  // The bytes each argument moves: the compiler's hulls per group, about 20,000 instructions
  // for each new shape, which the times below do not need.
  static const std::remove_reference_t<decltype(kk.bytes)> none;
  const auto &ab = withArgs ? keptArgBytes(cmd, kk, info, nd, scalars) : none;
  for (const auto &a : ab) {
    // Proportional where most of the bytes follow the groups (see bytesModel).
    out.args.push_back({a.mem, a.read, a.written, perGroupRead(a, total) * double(total) > 0.5 * a.readBytes,
                        a.merged});
  }
  bindModels(cmd, kk, id, info, nd, scalars, usable);
  out.known.assign(nslots, false);
  out.fixedSeconds.assign(nslots, 0);
  out.perGroupSeconds.assign(nslots, 0);
  for (int s : usable) {
    DeviceTime t = deviceTime(kk, cmd, s, total, items);
    if (!t.known) continue;
    out.known[s] = true;
    double whole = t.whole, one = t.pred ? (*t.pred)(1) : t.perGroup;
    double slope = total > 1 ? std::max(0.0, (whole - one) / double(total - 1)) : whole;
    out.perGroupSeconds[s] = slope;
    out.fixedSeconds[s] = std::max(0.0, whole - slope * double(total));
  }
}

namespace {

// Every measured run of a kernel (measured.h): how far off its profiled model was, and a
// sample for the profile database.
void learnFromRun(Command *cmd, int slot, double workItems, double seconds) {
  if (settings().mode == KernelMode::Whole) return;
  apiMutex.assertHeld();  // completions are collected under it; the observer is not annotated
  SkmdProgram *sp = cmd->kernel->program->skmd.get();
  const cc::KernelInfo *info = sp && sp->ok ? skmdKernelInfo(*sp, slot, cmd->kernel->name) : nullptr;
  // Kept storage (API lock held): the final read of an app learns of every launch at once,
  // and each of these allocated per completion.
  static cc::NDRange nd;
  static cc::ScalarArgs scalars;
  static std::pair<int, std::vector<uint64_t>> key;
  nd = cc::NDRange{};
  scalars.bits.clear();
  uint64_t groups = 0;
  if (info) {
    auto lim = sp->groupLimit.find(cmd->kernel->name);
    if (skmdLaunchShape(cmd, lim == sp->groupLimit.end() ? 0 : lim->second, nd, scalars))
      groups = uint64_t(std::llround(workItems / double(nd.local_size[0] * nd.local_size[1] * nd.local_size[2])));
  }
  int dev = devIndex(cmd, slot);
  pf::KernelSample sample;
  {
    std::lock_guard<std::mutex> g(g_mu);
    KernelKnowledge &kk = knowledgeOf(cmd->kernel);
    auto b = kk.bound.find(dev);
    // Its shape only where something below uses it: not on every completion of a long run.
    static std::vector<uint64_t> shape;  // g_mu held: kept storage
    shape.clear();
    if (groups && (b != kk.bound.end() || kk.stored[dev] < kStoredPerRun)) launchShapeInto(cmd, nd, scalars, shape);
    KernelKnowledge::Learnt &l = kk.learnt[dev];
    if (l.shape != shape) {
      l.shape = shape;  // kept storage
      l.ratios = nullptr;
      l.ofShape = nullptr;
    }
    // How far off the profiled model was, for launches of the shape it is bound to.
    if (groups && b != kk.bound.end() && shape == kk.boundFor) {
      double predicted = b->second(groups);
      if (!l.ratios) {
        key.first = dev;
        key.second = shape;
        auto it = kk.ratios.find(key);
        if (it == kk.ratios.end()) {
          // A bound on memory for apps that launch ever new shapes: the oldest-keyed go first.
          if (kk.ratios.size() >= kMaxCorrectedShapes) {
            for (auto &e : kk.learnt) e.second.ratios = nullptr;
            kk.ratios.erase(kk.ratios.begin());
          }
          it = kk.ratios.emplace(key, std::vector<double>{}).first;
        }
        l.ratios = &it->second;
      }
      auto &r = *l.ratios;
      if (predicted > 0 && seconds > 0) {
        if (r.size() > kCorrectionRuns) r.erase(r.begin() + 1);  // keep the warm-up first
        r.push_back(seconds / predicted);
      }
    }
    // A long run repeats the same launches: the first ones say what the next run needs,
    // and a few of one shape say what more of it would. A sample's features cost about
    // 20,000 instructions on the path that learns of completions: BiCGSTAB's 158 launches
    // were learnt of at its final read under TUTTI_MODE=mkmd, about 1 ms on two H100s.
    if (!groups || kk.stored[dev] >= kStoredPerRun) return;
    if (!l.ofShape) {
      key.first = dev;
      key.second = shape;
      auto sit = kk.storedShapes.find(key);
      if (sit == kk.storedShapes.end()) sit = kk.storedShapes.emplace(key, 0).first;
      l.ofShape = &sit->second;
    }
    int &ofShape = *l.ofShape;
    if (ofShape >= (b != kk.bound.end() ? kStoredPerShapeModelled : kStoredPerShape)) return;
    ++ofShape;
    ++kk.stored[dev];
    // Also into the database, so the next run starts with a model.
    if (!profileDbEnabled()) return;
    sample = kernelSample(cmd, slot, nd, featuresOf(kk, cmd, *info, nd, scalars, shape), groups, seconds);
  }
  queueOnlineSample(std::move(sample));
}

const bool g_learning = (setRunObserver(learnFromRun), true);

}  // namespace

uint64_t skmdModelDecisions() { return g_modelDecisions; }
uint64_t skmdProbes() { return g_probes; }
double skmdPredictedMs() { return double(g_predictedNs) / 1e6; }
uint64_t skmdPredictedLaunches() { return g_predictedLaunches; }
uint64_t skmdKeptDecisions() { return g_keptDecisions; }

}  // namespace tutti
