// skmd_decide.cpp - split policies (TUTTI_PARTITION) and online calibration samples.
#include "skmd_decide.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <tutti/partitioner.h>

#include "backend.h"
#include "execute.h"
#include "log.h"
#include "settings.h"
#include "skmd.h"

namespace tutti {

namespace cc = tutti::compiler;

namespace {

struct Sample {
  double items, seconds;  // work-items run, kernel time
};

// Samples per kernel identity (source, options, name), per backing-device index.
std::map<std::string, std::map<int, std::vector<Sample>>> g_samples;
std::set<std::pair<std::string, int>> g_probing;  // probe launched (kernel, device)

// Every launch in skmd mode has planned through skmdProgram(), which sets the id.
std::string kernelId(_cl_kernel *k) {
  return (k->program->skmd ? k->program->skmd->id : std::string()) + '-' + k->name;
}

int devIndex(Command *cmd, int slot) { return cmd->q->ctx->slots[slot].dev->index; }

// Predicted seconds for n groups on a device, from the largest launch seen there
// (work scales with groups once a device is full; small pieces are the optimistic side).
bool predict(const std::vector<Sample> &v, double items, double &t) {
  if (v.empty()) return false;
  const Sample *best = &v.front();
  for (auto &s : v)
    if (s.items > best->items) best = &s;
  if (best->items <= 0 || best->seconds <= 0) return false;
  t = best->seconds * items / best->items;
  return true;
}

// Splits `total` in proportion to weights (largest remainders get the leftovers).
std::vector<uint64_t> proportional(const std::vector<double> &w, uint64_t total) {
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
  std::vector<double> all;
  std::stringstream ss(settings().partition.substr(6));
  std::string w;
  while (std::getline(ss, w, ',')) all.push_back(std::strtod(w.c_str(), nullptr));
  std::vector<double> out(nslots, 0);
  for (int s : usable) {
    size_t idx = size_t(devIndex(cmd, s));
    out[s] = idx < all.size() ? all[idx] : 0;
  }
  return out;
}

// Copy bandwidths until measured ones are wired in: pinned PCIe for GPUs (FACTS.md
// measured 54 GB/s on the H100; half of it is the safe side), a host memcpy into the
// CPU driver's buffers otherwise.
void linkModel(BackingDevice *d, profiles::DeviceCost &c) {
  if (d->isGpu()) {
    c.h2dBandwidth = c.d2hBandwidth = 25e9;
    c.h2dLatency = c.d2hLatency = 15e-6;
    c.bus = 0;  // GPUs share the host's PCIe root: their copies serialize
  } else {
    c.h2dBandwidth = c.d2hBandwidth = 8e9;
    c.h2dLatency = c.d2hLatency = 5e-6;
  }
}

// Bytes a device must receive for a piece of n groups (fixed part + per group), from
// the analysed input ranges and what is already valid there; likewise bytes written.
void bytesModel(Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                const cc::ScalarArgs &scalars, int slot, profiles::DeviceCost &c, bool &merged,
                double &mergeBytes) {
  uint64_t total = nd.totalGroups();
  for (unsigned i = 0; i < cmd->args.size() && i < info.args.size(); ++i) {
    auto &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem || a.mem->isImage()) continue;
    const cc::ArgInfo &ai = info.args[i];
    BufferStore &st = *rootOf(a.mem)->store;
    auto bytesOf = [&](cc::AccessMode m) {
      cc::ByteRange r = cc::accessedRange(info, i, m, nd, scalars, 0, total);
      return r.known ? double(std::min<uint64_t>(r.end, a.mem->size) - std::min<uint64_t>(r.begin, a.mem->size))
                     : double(a.mem->size);
    };
    double valid = 0;
    for (Range p : st.devValid[slot].present(a.mem->range())) valid += double(p.size());
    double stale = a.mem->size ? 1.0 - valid / double(a.mem->size) : 0;
    bool partial = cc::accessedRange(info, i, cc::AccessMode::Read, nd, scalars, 0, 1).known;
    if (ai.read) {
      double b = bytesOf(cc::AccessMode::Read) * stale;
      if (partial) c.inBytesPerGroup += b / double(total);
      else c.inFixedBytes += b;
    }
    if (ai.written || ai.atomic) {
      double b = bytesOf(cc::AccessMode::Write);
      c.outBytesPerGroup += b / double(total);
      if (ai.atomic || !cc::argWritesContiguous(info, i, nd, scalars)) {
        merged = true;
        mergeBytes += b;
        c.inFixedBytes += b * stale;  // partial results start from the pre-launch bytes
      }
    }
  }
}

Decision algorithm1(Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                    const cc::ScalarArgs &scalars, const std::vector<int> &usable,
                    const std::vector<double> &secs, double items) {
  size_t nslots = cmd->q->ctx->slots.size();
  uint64_t total = nd.totalGroups();
  profiles::PartitionRequest req;
  req.totalGroups = total;
  bool merged = false;
  double mergeBytes = 0;
  for (int s : usable) {
    profiles::DeviceCost c;
    double perGroup = secs[s] / double(total);
    c.compute = [perGroup](uint64_t n) { return perGroup * double(n); };
    linkModel(cmd->q->ctx->slots[s].dev, c);
    bytesModel(cmd, info, nd, scalars, s, c, merged, mergeBytes);
    req.devs.push_back(c);
  }
  req.contiguous = !merged;
  req.mergeSeconds = merged ? mergeBytes * double(usable.size()) / 4e9 : 0;
  profiles::PartitionResult r = profiles::partition(req);
  Decision d;
  d.groups.assign(nslots, 0);
  for (size_t i = 0; i < usable.size(); ++i) d.groups[usable[i]] = r.groups[i];
  TUTTI_LOG(Debug, "kernel '%s': %.0f work-items, best single %.3f ms, split %s %.3f ms",
            cmd->kernel->name.c_str(), items, r.bestSingleSeconds * 1e3, r.split ? "yes" : "no",
            r.predictedSeconds * 1e3);
  return d;
}

}  // namespace

Decision decideSplit(Runtime &, Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                     const cc::ScalarArgs &scalars, const std::vector<int> &usable) {
  size_t nslots = cmd->q->ctx->slots.size();
  uint64_t total = nd.totalGroups();
  double items = 1;
  for (unsigned i = 0; i < 3; ++i) items *= double(nd.local_size[i]);
  items *= double(total);
  Decision d;
  const std::string &policy = settings().partition;
  if (policy.rfind("fixed:", 0) == 0) {
    d.groups = proportional(fixedWeights(cmd, usable, nslots), total);
    return d;
  }
  auto &per = g_samples[kernelId(cmd->kernel)];
  std::vector<double> secs(nslots, -1);
  std::vector<int> unknown;
  int best = -1;
  for (int s : usable) {
    double t;
    if (!predict(per[devIndex(cmd, s)], items, t)) {
      unknown.push_back(s);
      continue;
    }
    secs[s] = t;
    if (best < 0 || t < secs[best]) best = s;
  }
  d.groups.assign(nslots, 0);
  if (best < 0) {
    // Nothing measured yet: the strongest device is the best guess.
    for (int s : usable)
      if (best < 0 || cmd->q->ctx->slots[s].dev->strength() > cmd->q->ctx->slots[best].dev->strength())
        best = s;
    unknown.erase(std::remove(unknown.begin(), unknown.end(), best), unknown.end());
  }
  // Cheap probes: a device never measured for this kernel gets a small share of one
  // big launch (launches are often all enqueued before the first one finishes).
  uint64_t share = total / 32;
  std::vector<int> probe;
  if (share > 0)
    for (int s : unknown)
      if (g_probing.insert({kernelId(cmd->kernel), devIndex(cmd, s)}).second) probe.push_back(s);
  if (!probe.empty()) {
    for (int s : probe) d.groups[s] = share;
    d.groups[best] = total - share * probe.size();
    return d;
  }
  if (!unknown.empty() || secs[best] < 0) {
    d.groups[best] = total;  // still measuring: run whole where it is best known
    return d;
  }
  if (policy == "linear") {
    std::vector<double> rate(nslots, 0);
    for (int s : usable) rate[s] = secs[s] > 0 ? 1.0 / secs[s] : 0;
    d.groups = proportional(rate, total);
    return d;
  }
  return algorithm1(cmd, info, nd, scalars, usable, secs, items);
}

void recordPiece(Command *cmd, int slot, double workItems, double seconds) {
  auto &v = g_samples[kernelId(cmd->kernel)][devIndex(cmd, slot)];
  if (v.size() >= 64) v.erase(v.begin());
  v.push_back({workItems, seconds});
}

}  // namespace tutti
