// model_terms.h: the candidate term family searched by TimeModel::fit.
// Internal: the public header only exposes the chosen terms.
#pragma once

#include <string>
#include <vector>

#include "tutti/time_model.h"

namespace tutti::profiles {

// h(v) for one complexity class; NaN where the class is undefined for v (e.g. sqrt(-1)).
double complexityValue(Complexity c, double v);
const char* complexityName(Complexity c, const std::string& var);

struct FeatureCandidate {
  std::string feature;  // empty: h = 1
  Complexity complexity = Complexity::One;
  bool timesCost = false;
};
struct GroupCandidate {
  GroupShape shape;
  double a, b;
};

// Feature parts worth trying: only features that vary across samples (a constant one is
// collinear with the intercept) and, if "cost" varies, products with it.
std::vector<FeatureCandidate> featureCandidates(const std::vector<const Features*>& samples);
// Group parts: x, and Ramp/Hinge over a geometric grid of bends b up to maxGroups / 2 with a few
// sharpnesses a = s / b (scale-free: the transition width is a fraction of b).
std::vector<GroupCandidate> groupCandidates(double maxGroups);

}  // namespace tutti::profiles
