// split_units.h - cutting a launch's work-groups among devices at whole units.
#pragma once
#include <cstdint>
#include <vector>

namespace tutti {

// g's shares (work-groups per slot) rounded to multiples of unit with the same total,
// largest remainders first; g itself where unit <= 1 or does not divide the total.
std::vector<uint64_t> toWholeUnits(const std::vector<uint64_t> &g, uint64_t unit);

}  // namespace tutti
