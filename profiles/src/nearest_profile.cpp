// nearest_profile.cpp: nearest-sample fallback for kernels with too few profile samples.
// Sizes differ by orders of magnitude, so distance compares log(1 + |value|) per feature.
#include "nearest_profile.h"

#include <algorithm>
#include <cmath>

namespace tutti::profiles {

namespace {
// Both maps are sorted by name: one merge walk, a missing feature counting as 0. A set of
// the names per sample cost K-means's first launch under MKMD 110k instructions.
double featureDistance(const Features& a, const Features& b) {
  double d = 0;
  auto term = [&d](double va, double vb) {
    double t = std::log1p(std::fabs(va)) - std::log1p(std::fabs(vb));
    d += t * t;
  };
  auto ia = a.begin(), ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      term(ia->second, 0), ++ia;
    } else if (ia == a.end() || ib->first < ia->first) {
      term(0, ib->second), ++ib;
    } else {
      term(ia->second, ib->second), ++ia, ++ib;
    }
  }
  return d;
}
}  // namespace

std::vector<std::pair<double, double>> nearestProfileTable(const std::vector<KernelSample>& samples,
                                                           const Features& f) {
  const Features* best = nullptr;
  double bestD = HUGE_VAL;
  for (const auto& s : samples) {
    double d = featureDistance(s.features, f);
    if (d < bestD) {
      bestD = d;
      best = &s.features;
    }
  }
  std::vector<std::pair<double, double>> pts;
  if (!best) return pts;
  for (const auto& s : samples)
    if (s.features == *best && s.groups > 0 && s.seconds > 0)
      pts.emplace_back(static_cast<double>(s.groups), s.seconds);
  std::sort(pts.begin(), pts.end());
  std::vector<std::pair<double, double>> out;
  for (size_t i = 0; i < pts.size();) {
    size_t j = i;
    double sum = 0;
    for (; j < pts.size() && pts[j].first == pts[i].first; ++j) sum += pts[j].second;
    out.emplace_back(pts[i].first, sum / double(j - i));
    i = j;
  }
  return out;
}

double interpolateProfile(const std::vector<std::pair<double, double>>& t, double x) {
  if (t.empty()) return 0;
  if (x <= t.front().first) return t.front().second * x / t.front().first;
  if (x >= t.back().first) return t.back().second * x / t.back().first;
  auto hi = std::lower_bound(t.begin(), t.end(), std::make_pair(x, -HUGE_VAL));
  auto lo = hi - 1;
  double w = (x - lo->first) / (hi->first - lo->first);
  return lo->second + w * (hi->second - lo->second);
}

}  // namespace tutti::profiles
