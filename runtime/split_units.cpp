// split_units.cpp - cutting a launch's work-groups among devices at whole units.
#include "split_units.h"

#include <algorithm>

namespace tutti {

// MKMD's schedule cuts a kernel where its time slots end; a cut inside a concatenation
// unit (a row of groups of a 2-D launch writing out[y*w + x]) makes the pieces' write hulls
// overlap, and the launch then needs a host merge (mk_ABE on two H200s: 304 ms against
// 118 whole). Rounds each share to whole units, largest remainders first.
std::vector<uint64_t> toWholeUnits(const std::vector<uint64_t> &g, uint64_t unit) {
  uint64_t total = 0;
  for (uint64_t x : g) total += x;
  if (unit <= 1 || total % unit) return g;
  std::vector<uint64_t> out(g.size());
  std::vector<std::pair<uint64_t, size_t>> rest;
  uint64_t given = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    out[i] = g[i] / unit;
    given += out[i];
    rest.push_back({g[i] % unit, i});
  }
  std::sort(rest.begin(), rest.end(), [](auto a, auto b) { return a.first > b.first; });
  for (size_t j = 0; given < total / unit && j < rest.size(); ++j, ++given) ++out[rest[j].second];
  for (auto &x : out) x *= unit;
  return out;
}

}  // namespace tutti
