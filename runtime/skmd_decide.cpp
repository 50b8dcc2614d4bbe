// skmd_decide.cpp - split policies (TUTTI_PARTITION) and online calibration samples.
#include "skmd_decide.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "backend.h"
#include "settings.h"

namespace tutti {

namespace cc = tutti::compiler;

namespace {

struct Sample {
  double items, seconds;  // work-items run, kernel time
};

// Samples per kernel identity (source, options, name), per backing-device index.
std::map<std::string, std::map<int, std::vector<Sample>>> g_samples;

std::string kernelId(_cl_kernel *k) {
  std::ostringstream o;
  o << std::hex << std::hash<std::string>()(k->program->source) << '-'
    << std::hash<std::string>()(k->program->options) << '-' << k->name;
  return o.str();
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

}  // namespace

Decision decideSplit(Runtime &, Command *cmd, const cc::KernelInfo &, const cc::NDRange &nd,
                     const cc::ScalarArgs &, const std::vector<int> &usable) {
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
    // Nothing measured yet: run whole on the strongest device; it calibrates.
    for (int s : usable)
      if (best < 0 || cmd->q->ctx->slots[s].dev->strength() > cmd->q->ctx->slots[best].dev->strength())
        best = s;
    d.groups[best] = total;
    return d;
  }
  if (!unknown.empty()) {
    // Cheap probe: each unmeasured device gets a small share of this launch.
    uint64_t probe = std::max<uint64_t>(1, total / 32);
    if (probe * unknown.size() >= total) {
      d.groups[best] = total;
      return d;
    }
    for (int s : unknown) d.groups[s] = probe;
    d.groups[best] = total - probe * unknown.size();
    return d;
  }
  if (policy == "linear") {
    std::vector<double> rate(nslots, 0);
    for (int s : usable) rate[s] = secs[s] > 0 ? 1.0 / secs[s] : 0;
    d.groups = proportional(rate, total);
    return d;
  }
  d.groups[best] = total;
  return d;
}

void recordPiece(Command *cmd, int slot, double workItems, double seconds) {
  auto &v = g_samples[kernelId(cmd->kernel)][devIndex(cmd, slot)];
  if (v.size() >= 64) v.erase(v.begin());
  v.push_back({workItems, seconds});
}

}  // namespace tutti
