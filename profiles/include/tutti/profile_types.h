// profile_types.h: plain records shared by the profile database and the models.
// Kept free of SQLite/Eigen so the runtime can include them without extra dependencies.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

namespace tutti::profiles {

// Named kernel parameters (argument sizes, scalar values, static cost...). A sorted map keeps
// the stored text and the model's term order deterministic.
using Features = std::map<std::string, double>;

struct KernelSample {
  std::string kernelId;    // caller's hash of source + name + build options
  std::string kernelName;  // display only
  std::string deviceId;    // caller's stable device identity string
  uint32_t workDim = 1;
  std::array<uint64_t, 3> global{{1, 1, 1}};
  std::array<uint64_t, 3> local{{1, 1, 1}};
  uint64_t totalGroups = 0;  // work-groups of the whole NDRange
  uint64_t groups = 0;       // work-groups this sample actually ran (<= totalGroups)
  Features features;
  double seconds = 0;
  int64_t timestamp = 0;  // unix seconds; 0 on insert means "now"
};

enum class Direction { H2D, D2H };
const char* directionName(Direction d);  // "h2d" / "d2h"
bool parseDirection(const std::string& s, Direction* out);

struct TransferSample {
  std::string deviceId;
  Direction direction = Direction::H2D;
  bool pinned = false;
  uint64_t bytes = 0;
  double seconds = 0;
  int64_t timestamp = 0;
};

}  // namespace tutti::profiles
