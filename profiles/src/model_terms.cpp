// model_terms.cpp: evaluation and enumeration of regression terms x*g_ab(x)*h(x_j).
#include "model_terms.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

namespace tutti::profiles {

double complexityValue(Complexity c, double v) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  switch (c) {
    case Complexity::One: return 1.0;
    case Complexity::Lin: return v;
    case Complexity::Square: return v * v;
    case Complexity::Cube: return v * v * v;
    case Complexity::NLogN: return v < 0 ? kNaN : (v == 0 ? 0.0 : v * std::log(v));
    case Complexity::Sqrt: return v < 0 ? kNaN : std::sqrt(v);
  }
  return kNaN;
}

const char* complexityName(Complexity c, const std::string& var) {
  static thread_local std::string s;
  switch (c) {
    case Complexity::One: s = "1"; break;
    case Complexity::Lin: s = var; break;
    case Complexity::Square: s = var + "^2"; break;
    case Complexity::Cube: s = var + "^3"; break;
    case Complexity::NLogN: s = var + "*log(" + var + ")"; break;
    case Complexity::Sqrt: s = "sqrt(" + var + ")"; break;
  }
  return s.c_str();
}

double ModelTerm::featurePart(const Features& f) const {
  double v = 1.0;
  if (!feature.empty()) {
    auto it = f.find(feature);
    v = complexityValue(complexity, it == f.end() ? 0.0 : it->second);
  }
  if (timesCost) {
    auto it = f.find("cost");
    v *= it == f.end() ? 0.0 : it->second;
  }
  return v;
}

std::string ModelTerm::describe() const {
  char buf[96];
  switch (shape) {
    case GroupShape::Const: buf[0] = 0; break;
    case GroupShape::Linear: std::snprintf(buf, sizeof buf, "x"); break;
    case GroupShape::Ramp: std::snprintf(buf, sizeof buf, "x*g(%.3g,%.4g)", a, b); break;
    case GroupShape::Hinge: std::snprintf(buf, sizeof buf, "(x-%.4g)*g(%.3g,%.4g)", b, a, b); break;
  }
  std::string h;
  if (!feature.empty()) h = complexityName(complexity, feature);
  if (timesCost) h += h.empty() ? "cost" : "*cost";
  std::string body = buf;
  if (!h.empty()) body += body.empty() ? h : "*" + h;
  if (body.empty()) body = "1";
  char c[32];
  std::snprintf(c, sizeof c, "%.4g*", coef);
  return c + body;
}

std::vector<FeatureCandidate> featureCandidates(const std::vector<const Features*>& samples) {
  std::set<std::string> names;
  for (auto* f : samples)
    for (const auto& kv : *f) names.insert(kv.first);
  auto varies = [&](const std::string& n, bool* nonNeg) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (auto* f : samples) {
      auto it = f->find(n);
      double v = it == f->end() ? 0.0 : it->second;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    *nonNeg = lo >= 0;
    return hi > lo * (1 + 1e-12) + 1e-300 || hi < lo;
  };
  bool costNonNeg = false;
  bool costVaries = names.count("cost") && varies("cost", &costNonNeg);

  std::vector<FeatureCandidate> out{{"", Complexity::One, false}};
  if (costVaries) out.push_back({"", Complexity::One, true});
  // Simplest first: model selection breaks near-ties in this order.
  const Complexity all[] = {Complexity::Lin, Complexity::Sqrt, Complexity::NLogN,
                            Complexity::Square, Complexity::Cube};
  for (const auto& n : names) {
    bool nonNeg = false;
    if (n == "cost" || !varies(n, &nonNeg)) continue;
    for (Complexity c : all) {
      if (!nonNeg && (c == Complexity::NLogN || c == Complexity::Sqrt)) continue;
      out.push_back({n, c, false});
      if (costVaries) out.push_back({n, c, true});
    }
  }
  return out;
}

std::vector<GroupCandidate> groupCandidates(double maxGroups) {
  std::vector<GroupCandidate> out{{GroupShape::Const, 0, 0}, {GroupShape::Linear, 0, 0}};
  const double sharpness[] = {2.0, 8.0, 32.0};
  // Bends only in the lower half of the counts seen: the slope after a bend near the top
  // rests on the last two or three rungs, and launches larger than any profiled one
  // extrapolate it (issue 5: a bend at 724 of 1024 groups put the CPU's 4096 27 % low).
  for (double b = 2.0; b <= maxGroups / 2; b *= std::sqrt(2.0)) {
    for (double s : sharpness) {
      out.push_back({GroupShape::Ramp, s / b, b});
      out.push_back({GroupShape::Hinge, s / b, b});
    }
  }
  return out;
}

}  // namespace tutti::profiles
