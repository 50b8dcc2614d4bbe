// transfer_model.cpp: least-squares latency/bandwidth fit of host<->device copies.
// Rows are weighted by 1/t so 4 KiB copies (latency-bound) count as much as 128 MiB ones
// (bandwidth-bound); otherwise the latency would be noise from the largest copies.
#include "tutti/transfer_model.h"

#include <cmath>
#include <cstdio>

namespace tutti::profiles {

namespace {
TransferFit defaults(bool pinned) {
  TransferFit f;
  f.latency = TransferModel::kDefaultLatency;
  f.bandwidth = pinned ? TransferModel::kDefaultPinnedBandwidth
                       : TransferModel::kDefaultPageableBandwidth;
  f.isDefault = true;
  return f;
}
}  // namespace

TransferFit fitTransfer(const std::vector<TransferSample>& samples, bool pinned) {
  TransferFit out = defaults(pinned);
  // Weighted normal equations for t = L + B * bytes with weight 1/t.
  double s11 = 0, s1b = 0, sbb = 0, s1t = 0, sbt = 0;
  size_t n = 0;
  double sumBytes = 0, sumSeconds = 0;
  for (const auto& s : samples) {
    if (s.pinned != pinned || s.seconds <= 0 || s.bytes == 0) continue;
    double w = 1.0 / (s.seconds * s.seconds), b = double(s.bytes);
    s11 += w;
    s1b += w * b;
    sbb += w * b * b;
    s1t += w * s.seconds;
    sbt += w * b * s.seconds;
    sumBytes += b;
    sumSeconds += s.seconds;
    ++n;
  }
  if (n == 0) return out;
  out.samples = n;
  out.isDefault = false;
  double det = s11 * sbb - s1b * s1b;
  double lat = NAN, inv = NAN;
  if (n >= 2 && det > 1e-12 * s11 * sbb) {
    lat = (sbb * s1t - s1b * sbt) / det;
    inv = (s11 * sbt - s1b * s1t) / det;
  }
  if (!(lat >= 0) || !(inv > 0)) {
    // One size only, or a negative intercept from noise: keep the default latency if it
    // fits under the samples, and put the rest into the bandwidth.
    lat = std::min(TransferModel::kDefaultLatency, 0.5 * sumSeconds / double(n));
    inv = (sumSeconds - lat * double(n)) / sumBytes;
    if (!(inv > 0)) inv = sumSeconds / sumBytes;
  }
  out.latency = lat;
  out.bandwidth = 1.0 / inv;
  return out;
}

TransferModel::TransferModel() {
  for (int d = 0; d < 2; ++d)
    for (int p = 0; p < 2; ++p) fits_[static_cast<size_t>(d * 2 + p)] = defaults(p == 1);
}

TransferModel TransferModel::fit(const std::vector<TransferSample>& samples,
                                 const std::string& deviceId) {
  TransferModel m;
  for (Direction dir : {Direction::H2D, Direction::D2H}) {
    std::vector<TransferSample> sel;
    for (const auto& s : samples)
      if (s.direction == dir && (deviceId.empty() || s.deviceId == deviceId)) sel.push_back(s);
    std::vector<TransferSample> small, large;
    for (const auto& s : sel) {
      if (double(s.bytes) < kLargeBytes) small.push_back(s);
      if (double(s.bytes) >= kLargeFrom) large.push_back(s);
    }
    for (int p = 0; p < 2; ++p) {
      const size_t i = static_cast<size_t>(int(dir) * 2 + p);
      m.fits_[i] = fitTransfer(small.empty() ? sel : small, p == 1);
      m.large_[i] = fitTransfer(large, p == 1);
    }
  }
  return m;
}

const TransferFit& TransferModel::get(Direction d, bool pinned) const {
  return fits_[static_cast<size_t>(int(d) * 2 + (pinned ? 1 : 0))];
}

const TransferFit& TransferModel::get(Direction d, bool pinned, double bytes) const {
  const TransferFit& l = large_[static_cast<size_t>(int(d) * 2 + (pinned ? 1 : 0))];
  return bytes >= kLargeBytes && l.samples >= 2 ? l : get(d, pinned);
}

std::string TransferModel::describe() const {
  std::string s;
  char buf[128];
  for (Direction dir : {Direction::H2D, Direction::D2H})
    for (bool pinned : {true, false}) {
      const TransferFit& f = get(dir, pinned);
      std::snprintf(buf, sizeof buf, "%s%s %s: %.1f GB/s + %.1f us (%s)", s.empty() ? "" : "; ",
                    directionName(dir), pinned ? "pinned" : "pageable", f.bandwidth / 1e9,
                    f.latency * 1e6,
                    f.isDefault ? "default" : (std::to_string(f.samples) + " samples").c_str());
      s += buf;
      const TransferFit& l = get(dir, pinned, kLargeBytes);
      if (&l != &f) {
        std::snprintf(buf, sizeof buf, ", from %.0f MiB %.1f GB/s + %.1f us", kLargeBytes / (1 << 20),
                      l.bandwidth / 1e9, l.latency * 1e6);
        s += buf;
      }
    }
  return s;
}

}  // namespace tutti::profiles
