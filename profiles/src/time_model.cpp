// time_model.cpp: fitting the transformed linear regression (thesis Eq. 3.1-3.4).
// Rows are weighted by 1/y so the fit minimises relative error: a kernel's samples span
// 1..N work-groups, and plain least squares would ignore the small counts the partitioner
// needs. Terms are added greedily while k-fold CV error drops, which keeps noise from
// buying extra terms (over-fitting) without stopping short on real curvature.
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "feature_codec.h"
#include "model_terms.h"
#include "nearest_profile.h"
#include "tutti/time_model.h"

namespace tutti::profiles {
namespace {

constexpr int kMaxCols = 9;  // intercept + up to 8 terms
// CV error a size term must reach, relative to h = 1, when every group does the same work.
constexpr double kSizeTermGain = 0.8;
// Two ladders whose times at shared counts differ by less than this factor agree.
constexpr double kLaddersAgree = 1.2;
using SmallMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxCols, kMaxCols>;
using SmallVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxCols, 1>;

struct Candidate {
  GroupCandidate g;
  FeatureCandidate h;
  double scale;  // column norm, so coefficients map back to raw units
  size_t hIndex;  // which feature candidate (0: h = 1)
};

// The weighted, normalised design: column 0 is the intercept; rows are grouped by CV fold.
struct Design {
  Eigen::MatrixXd z;                 // n x (1 + candidates)
  std::vector<Candidate> cands;      // cands[c - 1] describes column c; cands[0]... unused
  std::vector<int> foldStart;        // folds are rows [foldStart[f], foldStart[f+1])
  std::vector<const KernelSample*> rows;
  size_t featureCount = 1;
};

double rawTerm(const Candidate& c, double x, const Features& f) {
  ModelTerm t;
  t.feature = c.h.feature;
  t.complexity = c.h.complexity;
  t.timesCost = c.h.timesCost;
  return groupPart(c.g.shape, c.g.a, c.g.b, x) * t.featurePart(f);
}

// What a fit reads (TimeModel::fit and keepSamples): a positive, finite time of some groups.
bool usableSample(const KernelSample& s) { return s.groups > 0 && s.seconds > 0 && std::isfinite(s.seconds); }

// Every sample has the same known cost per work-item and the same work-group size.
bool sameWorkPerGroup(const std::vector<const KernelSample*>& samples) {
  if (samples.empty()) return false;
  const KernelSample& first = *samples.front();
  auto cost = first.features.find("cost");
  if (cost == first.features.end()) return false;
  for (const KernelSample* s : samples) {
    auto c = s->features.find("cost");
    if (c == s->features.end() || c->second != cost->second) return false;
    for (int d = 0; d < 3; ++d)
      if (s->local[d] != first.local[d]) return false;
  }
  return true;
}

// Two profiled sizes whose ladders take the same time at the group counts both ran (the
// median ratio within kLaddersAgree); false when there are not two sizes or too few
// shared counts to tell.
bool laddersAgree(const std::vector<const KernelSample*>& samples) {
  std::vector<std::pair<const Features*, std::map<uint64_t, double>>> sizes;
  for (auto* s : samples) {
    auto it = std::find_if(sizes.begin(), sizes.end(), [&](auto& z) { return *z.first == s->features; });
    if (it == sizes.end()) {
      sizes.push_back({&s->features, {}});
      it = sizes.end() - 1;
    }
    auto& t = it->second[s->groups];
    t = t > 0 ? std::min(t, s->seconds) : s->seconds;
  }
  if (sizes.size() != 2) return false;
  std::vector<double> ratios;
  for (const auto& [x, t] : sizes[0].second) {
    auto other = sizes[1].second.find(x);
    if (other != sizes[1].second.end()) ratios.push_back(other->second / t);
  }
  if (ratios.size() < 4) return false;
  std::nth_element(ratios.begin(), ratios.begin() + long(ratios.size() / 2), ratios.end());
  return std::fabs(std::log(ratios[ratios.size() / 2])) < std::log(kLaddersAgree);
}

Design buildDesign(const std::vector<const KernelSample*>& samples, int folds) {
  Design d;
  // Interleave folds over samples sorted by (size, groups) so every fold spans the range.
  std::vector<const KernelSample*> sorted = samples;
  std::vector<std::string> keys;
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) {
    if (a->features != b->features) return a->features < b->features;
    return a->groups < b->groups;
  });
  const size_t n = sorted.size();
  for (int f = 0; f < folds; ++f) {
    d.foldStart.push_back(static_cast<int>(d.rows.size()));
    for (size_t i = static_cast<size_t>(f); i < n; i += static_cast<size_t>(folds))
      d.rows.push_back(sorted[i]);
  }
  d.foldStart.push_back(static_cast<int>(n));

  std::vector<const Features*> feats;
  double maxX = 1;
  for (auto* s : samples) {
    feats.push_back(&s->features);
    maxX = std::max(maxX, static_cast<double>(s->groups));
  }
  auto hs = featureCandidates(feats);
  auto gs = groupCandidates(maxX);

  std::vector<Candidate> cands;
  std::vector<Eigen::VectorXd> cols;
  Eigen::VectorXd col(n);
  auto addColumn = [&](const Candidate& c, bool intercept) {
    for (size_t i = 0; i < n; ++i) {
      const KernelSample* s = d.rows[i];
      double raw = intercept ? 1.0 : rawTerm(c, static_cast<double>(s->groups), s->features);
      if (!std::isfinite(raw)) return;
      col[static_cast<Eigen::Index>(i)] = raw / s->seconds;
    }
    double norm = col.norm();
    if (!(norm > 0) || !std::isfinite(norm)) return;
    cols.push_back(col / norm);
    cands.push_back(c);
    cands.back().scale = norm;
  };
  addColumn({{GroupShape::Const, 0, 0}, {}, 1, 0}, true);
  for (const auto& g : gs)
    for (size_t h = 0; h < hs.size(); ++h)
      if (!(g.shape == GroupShape::Const && h == 0)) addColumn({g, hs[h], 1, h}, false);
  d.featureCount = hs.size();
  d.z.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(cols.size()));
  for (size_t c = 0; c < cols.size(); ++c) d.z.col(static_cast<Eigen::Index>(c)) = cols[c];
  d.cands = std::move(cands);
  return d;
}

// K-fold CV error (RMS relative) of the model with columns `set` plus each candidate column.
// Fold Gram matrices come from totals minus the fold's share, so a candidate costs O(n m).
std::vector<double> cvErrors(const Design& d, const std::vector<int>& set,
                             const std::vector<char>& allowed) {
  const int folds = static_cast<int>(d.foldStart.size()) - 1;
  const Eigen::Index n = d.z.rows();
  const int m = static_cast<int>(set.size());
  Eigen::MatrixXd zs(n, m);
  for (int j = 0; j < m; ++j) zs.col(j) = d.z.col(set[j]);
  std::vector<SmallMat> aF(folds);
  std::vector<SmallVec> bF(folds);
  SmallMat a = SmallMat::Zero(m, m);
  SmallVec b = SmallVec::Zero(m);
  for (int f = 0; f < folds; ++f) {
    auto blk = zs.middleRows(d.foldStart[f], d.foldStart[f + 1] - d.foldStart[f]);
    aF[f] = blk.transpose() * blk;
    bF[f] = blk.colwise().sum().transpose();  // target is 1 on every (weighted) row
    a += aF[f];
    b += bF[f];
  }
  std::vector<double> err(static_cast<size_t>(d.z.cols()), HUGE_VAL);
  std::vector<SmallVec> vF(folds);
  std::vector<double> dF(folds), eF(folds);
  SmallMat mat(m + 1, m + 1);
  SmallVec rhs(m + 1);
  for (Eigen::Index c = 1; c < d.z.cols(); ++c) {
    if (!allowed[static_cast<size_t>(c)] ||
        std::find(set.begin(), set.end(), static_cast<int>(c)) != set.end())
      continue;
    auto zc = d.z.col(c);
    SmallVec v = SmallVec::Zero(m);
    double dd = 0, ee = 0;
    for (int f = 0; f < folds; ++f) {
      Eigen::Index s = d.foldStart[f], len = d.foldStart[f + 1] - s;
      vF[f] = zs.middleRows(s, len).transpose() * zc.segment(s, len);
      dF[f] = zc.segment(s, len).squaredNorm();
      eF[f] = zc.segment(s, len).sum();
      v += vF[f];
      dd += dF[f];
      ee += eF[f];
    }
    double sse = 0;
    for (int f = 0; f < folds && std::isfinite(sse); ++f) {
      mat.topLeftCorner(m, m) = a - aF[f];
      mat.topRightCorner(m, 1) = v - vF[f];
      mat.bottomLeftCorner(1, m) = (v - vF[f]).transpose();
      mat(m, m) = dd - dF[f];
      rhs.head(m) = b - bF[f];
      rhs(m) = ee - eF[f];
      // A tiny ridge keeps near-collinear candidates (close bends) solvable; CV judges them.
      mat.diagonal().array() += 1e-12 * mat.diagonal().maxCoeff() + 1e-300;
      SmallVec beta = mat.ldlt().solve(rhs);
      Eigen::Index s = d.foldStart[f], len = d.foldStart[f + 1] - s;
      Eigen::VectorXd r = (zs.middleRows(s, len) * beta.head(m) + zc.segment(s, len) * beta(m))
                              .array() - 1.0;
      sse += r.squaredNorm();
    }
    err[static_cast<size_t>(c)] = std::isfinite(sse) ? std::sqrt(sse / double(n)) : HUGE_VAL;
  }
  // The set's own error (for the stopping rule) goes in slot 0.
  double sse0 = 0;
  for (int f = 0; f < folds; ++f) {
    SmallMat mf = a - aF[f];
    mf.diagonal().array() += 1e-12 * mf.diagonal().maxCoeff() + 1e-300;
    SmallVec beta = mf.ldlt().solve(b - bF[f]);
    Eigen::Index s = d.foldStart[f], len = d.foldStart[f + 1] - s;
    sse0 += ((zs.middleRows(s, len) * beta).array() - 1.0).matrix().squaredNorm();
  }
  err[0] = std::isfinite(sse0) ? std::sqrt(sse0 / double(n)) : HUGE_VAL;
  return err;
}

// Least squares on all rows (QR: the final coefficients deserve the stabler solver).
Eigen::VectorXd solveAll(const Design& d, const std::vector<int>& set) {
  Eigen::MatrixXd zs(d.z.rows(), static_cast<Eigen::Index>(set.size()));
  for (size_t j = 0; j < set.size(); ++j) zs.col(static_cast<Eigen::Index>(j)) = d.z.col(set[j]);
  return zs.colPivHouseholderQr().solve(Eigen::VectorXd::Ones(d.z.rows()));
}

}  // namespace

void TimeModel::keepSamples(const std::vector<KernelSample>& all) {
  samples_.clear();
  maxGroups_ = 0;
  for (const auto& s : all)
    if (usableSample(s)) {
      samples_.push_back(s);
      maxGroups_ = std::max(maxGroups_, double(s.groups));
    }
}

TimeModel TimeModel::fit(const std::vector<KernelSample>& all, const FitOptions& opt) {
  TimeModel m;
  std::vector<const KernelSample*> samples;
  for (const auto& s : all)
    if (usableSample(s)) samples.push_back(&s);
  if (samples.empty()) return m;
  m.keepSamples(all);

  std::vector<uint64_t> distinct;
  for (auto* s : samples) distinct.push_back(s->groups);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (samples.size() < opt.minSamples || distinct.size() < opt.minDistinctGroups) {
    m.kind_ = Kind::Nearest;
    m.cvError_ = m.trainError_ = NAN;
    return m;
  }

  int folds = std::clamp(opt.folds, 2, static_cast<int>(samples.size()));
  Design d = buildDesign(samples, folds);
  if (d.z.cols() == 0 || d.cands.front().g.shape != GroupShape::Const) {
    // No intercept column: a time so small that its reciprocal weight overflows (a
    // damaged or foreign database; found by tests/fuzz/fuzz_profile_db). No regression
    // can be fitted through it; the samples still answer as the nearest profile.
    m.kind_ = Kind::Nearest;
    m.cvError_ = m.trainError_ = NAN;
    return m;
  }
  std::vector<int> set{0};
  double cur = HUGE_VAL;
  const int maxTerms = std::min({opt.maxTerms, kMaxCols - 1, static_cast<int>(samples.size()) / 3});

  // Fills the model from the columns in `set` (coefficients solved on all samples).
  auto assign = [&](const std::vector<int>& cols, TimeModel* out) {
    Eigen::VectorXd beta = solveAll(d, cols);
    out->intercept_ = beta(0) / d.cands[0].scale;
    out->terms_.clear();
    for (size_t j = 1; j < cols.size(); ++j) {
      const Candidate& c = d.cands[static_cast<size_t>(cols[j])];
      ModelTerm t;
      t.shape = c.g.shape;
      t.a = c.g.a;
      t.b = c.g.b;
      t.feature = c.h.feature;
      t.complexity = c.h.complexity;
      t.timesCost = c.h.timesCost;
      t.coef = beta(static_cast<Eigen::Index>(j)) / c.scale;
      out->terms_.push_back(t);
    }
    out->kind_ = Kind::Regression;
  };
  // Time must not fall as work-groups grow, and must stay positive where we have data:
  // a fit that wiggles between samples would mislead the partitioner far more than its
  // CV error suggests.
  // Nor may a bend in the upper part of the counts lower the cost of each further group (a
  // negative Hinge): devices fill up (cores, SMs) at small counts, and past that a group's
  // fixed work makes time grow linearly. A slope that drops high up a ladder is noise, and
  // launches larger than any profiled one carried it forward 20-40 % low (issue 5).
  auto sane = [&](const TimeModel& tm) {
    for (const ModelTerm& t : tm.terms())
      if (t.shape == GroupShape::Hinge && t.coef < 0 && t.b > m.maxGroups_ / 8) return false;
    double maxTotal = 1;
    std::vector<Features> sizes;
    for (auto* s : samples) {
      maxTotal = std::max({maxTotal, double(s->totalGroups), double(s->groups)});
      if (std::find(sizes.begin(), sizes.end(), s->features) == sizes.end())
        sizes.push_back(s->features);
      if (tm.rawPredict(s->groups, s->features) <= 0) return false;
    }
    for (const auto& f : sizes) {
      Predictor p = tm.bind(f);
      double prev = p.raw(1), top = std::max(p.raw(uint64_t(maxTotal)), 1e-30);
      for (double x = 1.25; x <= maxTotal * 1.0001; x *= 1.25) {
        double v = p.raw(uint64_t(x));
        if (v < prev - 0.02 * top) return false;
        prev = std::max(prev, v);
      }
    }
    return true;
  };

  // Greedy forward selection for one complexity h*: terms may use h = 1 or h*. Sharing
  // one h per model matters with two profiled sizes: any h then fits each term's ratio
  // between them, and mixing h's that agree on two sizes extrapolates to a third badly.
  // With two sizes even that is not enough: a term with h = 1 beside one with h* fits any
  // per-size slope, so h = 1 terms only join h* terms once three or more sizes pin h* down.
  std::vector<const Features*> sizes;
  for (auto* s : samples)
    if (std::none_of(sizes.begin(), sizes.end(), [&](auto* f) { return *f == s->features; }))
      sizes.push_back(&s->features);
  const bool mixH = sizes.size() >= 3;
  auto greedy = [&](size_t hStar, std::vector<int>* chosen) {
    std::vector<char> allowed(static_cast<size_t>(d.z.cols()), 0);
    for (size_t c = 1; c < allowed.size(); ++c) {
      size_t h = d.cands[c].hIndex;
      allowed[c] = h == hStar || (h == 0 && mixH);
    }
    std::vector<int> cur{0};
    double curErr = HUGE_VAL;
    while (static_cast<int>(cur.size()) - 1 < maxTerms) {
      std::vector<double> err = cvErrors(d, cur, allowed);
      if (cur.size() == 1) curErr = err[0];
      if (curErr < 1e-5) break;  // already exact: more terms can only fit noise
      std::vector<int> order;
      for (size_t c = 1; c < err.size(); ++c)
        if (err[c] < curErr * (1 - opt.minImprovement) && curErr - err[c] > opt.minAbsImprovement)
          order.push_back(static_cast<int>(c));
      std::sort(order.begin(), order.end(), [&](int x, int y) { return err[x] < err[y]; });
      bool added = false;
      for (size_t k = 0; k < std::min<size_t>(order.size(), 24) && !added; ++k) {
        std::vector<int> trial = cur;
        trial.push_back(order[k]);
        TimeModel tm;
        assign(trial, &tm);
        if (!sane(tm)) continue;
        cur = trial;
        curErr = err[static_cast<size_t>(order[k])];
        added = true;
      }
      if (!added) break;
    }
    *chosen = cur;
    return curErr;
  };
  struct Run {
    std::vector<int> set;
    double err;
  };
  std::vector<Run> runs;
  for (size_t h = 0; h < d.featureCount; ++h) {
    if (h == 0 && mixH) continue;  // h = 1 terms are in every run anyway
    Run r;
    r.err = greedy(h, &r.set);
    runs.push_back(r);
  }
  // When a group does the same work at every size, a per-group time that differs between
  // profiled sizes is as likely caches or the machine's mood as a trend. The evidence for a
  // size term is then the two sizes' ladders disagreeing at the same group counts: if
  // they agree, only h = 1 is taken; if not, a size term must still cut the CV error of
  // the h = 1 model by a fifth. On the H100 machine Histogram's two ladders agreed within
  // 5 % (a size term passed the CV margin once and put its H100 runs 90 % off, h = 1 3-10 %),
  // while MersenneTwister's strided writes ran 27-31 % slower at the larger size at every
  // shared count (its size term 18 % off, h = 1 45 %).
  if (!mixH && sameWorkPerGroup(samples) && !runs.empty()) {
    double one = runs.front().err;  // runs[0] is h = 1 (feature candidates start with it)
    double gain = laddersAgree(samples) ? 0 : kSizeTermGain;
    for (size_t i = 1; i < runs.size(); ++i)
      if (runs[i].err > one * gain) runs[i].err = HUGE_VAL;
  }
  // Near-ties go to fewer terms, then to the simpler complexity (candidates come ordered).
  double bestErr = HUGE_VAL;
  for (const auto& r : runs) bestErr = std::min(bestErr, r.err);
  const Run* pick = nullptr;
  for (const auto& r : runs) {
    if (!(r.err <= bestErr * 1.1 + 1e-3)) continue;
    if (!pick || r.set.size() < pick->set.size()) pick = &r;
  }
  set = pick ? pick->set : std::vector<int>{0};
  cur = pick ? pick->err : HUGE_VAL;
  assign(set, &m);
  if (!sane(m)) {  // intercept-only with a bad sign, or similar: trust the raw samples
    m.kind_ = Kind::Nearest;
    m.terms_.clear();
    m.cvError_ = m.trainError_ = NAN;
    return m;
  }
  m.cvError_ = cur == HUGE_VAL ? NAN : cur;
  double sum = 0;
  for (auto* s : samples) sum += std::fabs(m.predict(s->groups, s->features) - s->seconds) / s->seconds;
  m.trainError_ = sum / double(samples.size());
  return m;
}

double TimeModel::rawPredict(uint64_t groups, const Features& f) const {
  return bind(f).raw(groups);
}

double TimeModel::predict(uint64_t groups, const Features& f) const { return bind(f)(groups); }

Predictor TimeModel::bind(const Features& f) const {
  Predictor p;
  if (kind_ == Kind::None) return p;
  p.valid_ = true;
  if (kind_ == Kind::Nearest) {
    p.table_ = nearestProfileTable(samples_, f);
    return p;
  }
  // Everything but the g_ab(x) factor is fixed once the features are: fold h(x_j) and the
  // coefficient together, and fold x-independent terms into the intercept.
  p.intercept_ = intercept_;
  for (const auto& t : terms_) {
    double h = t.featurePart(f);
    if (!std::isfinite(h)) continue;
    if (t.shape == GroupShape::Const) {
      p.intercept_ += t.coef * h;
    } else if (p.nTerms_ < Predictor::kMaxTerms) {
      p.terms_[static_cast<size_t>(p.nTerms_++)] = {t.shape, t.a, t.b, t.coef * h};
    }
  }
  if (maxGroups_ > 1) {
    p.xMax_ = maxGroups_;
    p.y1_ = p.curve(1);
    p.yMax_ = p.curve(maxGroups_);
  }
  return p;
}

double Predictor::tableRaw(double x) const { return interpolateProfile(table_, x); }

Predictor Predictor::scaled(double s) const {
  Predictor p = *this;
  p.intercept_ *= s;
  p.y1_ *= s;
  p.yMax_ *= s;
  for (int i = 0; i < p.nTerms_; ++i) p.terms_[static_cast<size_t>(i)].coef *= s;
  for (auto& row : p.table_) row.second *= s;
  return p;
}

std::string TimeModel::describe() const {
  char buf[128];
  switch (kind_) {
    case Kind::None: return "no model (no samples)";
    case Kind::Nearest:
      std::snprintf(buf, sizeof buf, "nearest profile (%zu samples, too few to fit)",
                    samples_.size());
      return buf;
    case Kind::Regression: break;
  }
  std::snprintf(buf, sizeof buf, "regression n=%zu cv=%.2f%% train=%.2f%%: %.4g", samples_.size(),
                100 * cvError_, 100 * trainError_, intercept_);
  std::string s = buf;
  for (const auto& t : terms_) s += " + " + t.describe();
  return s;
}

}  // namespace tutti::profiles
