// profile_ladder.cpp: which work-group counts profiling mode runs (thesis §3.3 methodology).
// Fine steps up to 16 catch where a GPU's time stops being flat; beyond that a geometric
// ladder keeps the run count logarithmic in the NDRange size.
#include <algorithm>
#include <cmath>

#include "tutti/partitioner.h"

namespace tutti::profiles {

std::vector<uint64_t> profileLadder(uint64_t total) {
  std::vector<uint64_t> out;
  for (uint64_t g = 1; g <= std::min<uint64_t>(16, total); ++g) out.push_back(g);
  for (uint64_t g = 16; g < total;) {
    g = std::max<uint64_t>(g + 1, static_cast<uint64_t>(std::llround(double(g) * 1.4)));
    if (g >= total) break;
    out.push_back(g);
  }
  if (total > 0 && (out.empty() || out.back() != total)) out.push_back(total);
  return out;
}

}  // namespace tutti::profiles
