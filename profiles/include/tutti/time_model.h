// time_model.h: per (kernel, device) regression model of kernel time vs. work-groups run.
// Thesis Eq. 3.1-3.4: y = b0 + sum_k b_k * x*g_ab(x)*h(x_j), terms chosen by k-fold CV.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tutti/profile_types.h"

namespace tutti::profiles {

// How a term depends on x = work-groups run.
enum class GroupShape : uint8_t {
  Const,   // 1: size-dependent fixed cost (h alone)
  Linear,  // x
  Ramp,    // x * g_ab(x)        (thesis Eq. 3.4)
  Hinge,   // (x - b) * g_ab(x)  (our addition: flat-then-linear without a jump at b)
};

// How a term depends on one feature x_j (h in Eq. 3.4).
enum class Complexity : uint8_t { One, Lin, Square, Cube, NLogN, Sqrt };

struct ModelTerm {
  GroupShape shape = GroupShape::Linear;
  double a = 0, b = 0;        // g_ab(x) = atan(a (x - b)) / pi + 0.5
  std::string feature;        // empty with Complexity::One
  Complexity complexity = Complexity::One;
  bool timesCost = false;     // also multiplied by the "cost" feature
  double coef = 0;            // applies to the raw (unscaled) term value
  std::string describe() const;
  double featurePart(const Features& f) const;  // h(x_j) (* cost)
};

struct FitOptions {
  int folds = 5;
  int maxTerms = 6;                  // besides the intercept
  size_t minSamples = 8;             // fewer: nearest-profile fallback
  size_t minDistinctGroups = 4;
  double minImprovement = 0.03;      // a term must cut the CV error by >= 3% (relative)...
  double minAbsImprovement = 0.002;  // ...and by >= 0.2 percentage points
};

// atan with |error| < 1e-5 rad, ~5x faster than std::atan; fitting and prediction both use it.
// Inline (with groupPart) because the partitioner evaluates models thousands of times per
// decision.
inline double fastAtan(double z) {
  // Minimax polynomial on [-1, 1] (max error ~1e-5 rad); atan(z) = pi/2 - atan(1/z) outside.
  constexpr double kHalfPi = 1.5707963267948966;
  double az = z < 0 ? -z : z;
  bool inv = az > 1.0;
  double t = inv ? 1.0 / az : az;
  double t2 = t * t;
  double p = t * (0.99997726 +
                  t2 * (-0.33262347 + t2 * (0.19354346 + t2 * (-0.11643287 +
                                                              t2 * (0.05265332 + t2 * -0.01172120)))));
  if (inv) p = kHalfPi - p;
  return z < 0 ? -p : p;
}

// Evaluates x-dependent part of a term shape (shared by fitting and prediction).
inline double groupPart(GroupShape s, double a, double b, double x) {
  constexpr double kInvPi = 0.3183098861837907;
  switch (s) {
    case GroupShape::Const: return 1.0;
    case GroupShape::Linear: return x;
    case GroupShape::Ramp: return x * (fastAtan(a * (x - b)) * kInvPi + 0.5);
    case GroupShape::Hinge: return (x - b) * (fastAtan(a * (x - b)) * kInvPi + 0.5);
  }
  return 0;
}

// A model bound to one set of features: only the x-dependent parts are left, so a call is a
// few fast atans (the partitioner calls it thousands of times per decision).
class Predictor {
 public:
  double operator()(uint64_t groups) const {
    double y = raw(groups);
    return y > 0 ? y : 0.0;
  }
  // Unclamped (model checks use it). Inline: the partitioner calls it in its inner loop.
  double raw(uint64_t groups) const {
    if (!valid_) return 0;
    double x = static_cast<double>(static_cast<int64_t>(groups));  // one instruction, same value
    if (!table_.empty()) return tableRaw(x);
    double y = curve(x);
    // Past the largest profiled count, at least the growth from one group to that count,
    // continued in proportion: a curve still flat there (a GPU on its latency floor) says
    // nothing about where it rises.
    if (x > xMax_) y = std::max(y, y1_ + (yMax_ - y1_) * x / xMax_);
    return y;
  }
  bool valid() const { return valid_; }
  // The same curve times s (an online correction of a profiled model).
  Predictor scaled(double s) const;

 private:
  friend class TimeModel;
  double tableRaw(double x) const;  // nearest-profile fallback
  double curve(double x) const {
    double y = intercept_;
    for (int i = 0; i < nTerms_; ++i) {
      const Bound& t = terms_[static_cast<size_t>(i)];
      y += t.coef * groupPart(t.shape, t.a, t.b, x);
    }
    return y;
  }
  struct Bound {
    GroupShape shape;
    double a, b, coef;
  };
  static constexpr int kMaxTerms = 8;
  bool valid_ = false;
  double intercept_ = 0;
  int nTerms_ = 0;
  std::array<Bound, kMaxTerms> terms_{};
  std::vector<std::pair<double, double>> table_;  // nearest-profile fallback: (groups, s)
  double xMax_ = HUGE_VAL, y1_ = 0, yMax_ = 0;     // largest profiled count; curve at 1, there
};

class TimeModel {
 public:
  enum class Kind { None, Regression, Nearest };

  // Samples of one (kernel, device); samples with groups == 0 or seconds <= 0 are ignored.
  static TimeModel fit(const std::vector<KernelSample>& samples, const FitOptions& opt = {});

  bool valid() const { return kind_ != Kind::None; }
  Kind kind() const { return kind_; }
  double predict(uint64_t groups, const Features& f) const;  // seconds, never negative
  Predictor bind(const Features& f) const;
  std::string describe() const;  // one line for logs

  // The fit cache (a fit of 64 samples costs ~100 ms, at every build of an SKMD app):
  // fitKey names the fit's input (these samples in this order, the options, and this
  // build's fitting code), so equal keys give equal fits. save() is the model as exact
  // text (hex floats); load() makes it again over the samples it was fitted on, and is
  // false for text that is not such a model.
  static std::string fitKey(const std::vector<KernelSample>& samples, const FitOptions& opt = {});
  // Whether two fit keys' samples span the same launch shapes (sizes and work-group sizes),
  // whatever their group counts and times: a fit of one may serve the other until it is
  // refitted. A fit without a size extrapolates to it badly (the Triple Commutator's products
  // on an H200, fitted at n = 1024 alone and run at 4096: predicted 4x short).
  static bool sameSizes(const std::string& keyA, const std::string& keyB);
  std::string save() const;
  static bool load(const std::string& text, const std::vector<KernelSample>& samples, TimeModel* out);

  double intercept() const { return intercept_; }
  const std::vector<ModelTerm>& terms() const { return terms_; }
  double cvError() const { return cvError_; }        // RMS relative error of k-fold CV
  double trainError() const { return trainError_; }  // mean relative error on the samples
  size_t sampleCount() const { return samples_.size(); }

 private:
  double rawPredict(uint64_t groups, const Features& f) const;
  void keepSamples(const std::vector<KernelSample>& all);  // fit's input filter

  Kind kind_ = Kind::None;
  double intercept_ = 0;
  std::vector<ModelTerm> terms_;
  double cvError_ = 0, trainError_ = 0;
  std::vector<KernelSample> samples_;  // kept for the nearest-profile fallback only
  double maxGroups_ = 0;               // largest work-group count among the samples
};

}  // namespace tutti::profiles
