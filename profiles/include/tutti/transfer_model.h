// transfer_model.h: host<->device copy time t = latency + bytes / bandwidth, per device,
// direction and host-memory kind, fitted by least squares over transfer samples.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "tutti/profile_types.h"

namespace tutti::profiles {

struct TransferFit {
  double latency = 10e-6;     // seconds
  double bandwidth = 12e9;    // bytes / second
  bool isDefault = true;      // no samples: a guess, not a measurement
  size_t samples = 0;
  double seconds(double bytes) const { return bytes > 0 ? latency + bytes / bandwidth : 0.0; }
};

class TransferModel {
 public:
  static constexpr double kDefaultPageableBandwidth = 12e9;
  static constexpr double kDefaultPinnedBandwidth = 25e9;
  static constexpr double kDefaultLatency = 10e-6;

  // Copies of at least kLargeBytes take the fit of the samples of at least kLargeFrom
  // bytes, where there are two such sizes. Staged copies ramp up: 16 MiB went over the
  // H100's staging at 14 GB/s, 256 MB at 36, and one line through every size priced a
  // 268 MB upload at 19.5 ms against 7.5 measured.
  static constexpr double kLargeBytes = 64.0 * (1 << 20);
  static constexpr double kLargeFrom = 16.0 * (1 << 20);

  TransferModel();  // all defaults
  // Samples of one device (samples of other devices are ignored if deviceId is given).
  static TransferModel fit(const std::vector<TransferSample>& samples,
                           const std::string& deviceId = "");
  // The fit of copies below kLargeBytes (fitted on the samples below it).
  const TransferFit& get(Direction d, bool pinned) const;
  // The fit for copies of about `bytes`.
  const TransferFit& get(Direction d, bool pinned, double bytes) const;
  std::string describe() const;

 private:
  std::array<TransferFit, 4> fits_;   // [direction * 2 + pinned]
  std::array<TransferFit, 4> large_;  // the same, of the large samples
};

// Least-squares fit of one (direction, pinned) group; exposed for tests.
TransferFit fitTransfer(const std::vector<TransferSample>& samples, bool pinned);

}  // namespace tutti::profiles
