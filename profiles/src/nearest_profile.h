// nearest_profile.h: fallback prediction from raw samples when too few exist to fit.
#pragma once

#include <utility>
#include <vector>

#include "tutti/profile_types.h"

namespace tutti::profiles {

// (groups, seconds) points of the sampled size nearest to `f` (log-scaled feature distance),
// sorted by groups, duplicates averaged.
std::vector<std::pair<double, double>> nearestProfileTable(const std::vector<KernelSample>& samples,
                                                           const Features& f);
// Piecewise linear between points; proportional to groups outside them.
double interpolateProfile(const std::vector<std::pair<double, double>>& table, double groups);

}  // namespace tutti::profiles
