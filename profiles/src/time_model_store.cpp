// time_model_store.cpp: a fitted time model as exact text, and the key of the fit it came from.
// The profile database keeps each (kernel, device)'s last fit under its key, so a build
// whose samples have not changed loads its models instead of fitting them again.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <tuple>

#include "tutti/time_model.h"

#ifndef TUTTI_FIT_CODE_HASH
#error "TUTTI_FIT_CODE_HASH: the hash of the fitting code's sources (profiles/CMakeLists.txt)"
#endif

namespace tutti::profiles {
namespace {

constexpr const char* kMagic = "tutti-time-model 1";

// FNV-1a: the key only needs to tell fit inputs apart, not resist an adversary.
struct Hasher {
  uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, size_t n) {
    auto c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  }
  void u64(uint64_t v) { bytes(&v, sizeof v); }
  void f64(double v) { bytes(&v, sizeof v); }
  void str(const std::string& s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
};

std::string hexDouble(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}

bool readDouble(std::istream& in, double* v) {
  std::string w;
  if (!(in >> w)) return false;
  char* end = nullptr;
  *v = std::strtod(w.c_str(), &end);
  return end && *end == '\0';
}

}  // namespace

std::string TimeModel::fitKey(const std::vector<KernelSample>& samples, const FitOptions& opt) {
  Hasher h;
  h.str(TUTTI_FIT_CODE_HASH);
  h.u64(uint64_t(opt.folds));
  h.u64(uint64_t(opt.maxTerms));
  h.u64(opt.minSamples);
  h.u64(opt.minDistinctGroups);
  h.f64(opt.minImprovement);
  h.f64(opt.minAbsImprovement);
  for (const KernelSample& s : samples) {
    h.u64(s.workDim);
    for (int d = 0; d < 3; ++d) h.u64(s.global[d]), h.u64(s.local[d]);
    h.u64(s.totalGroups);
    h.u64(s.groups);
    h.u64(s.features.size());
    for (const auto& [name, value] : s.features) h.str(name), h.f64(value);
    h.f64(s.seconds);
  }
  // Then the launch shapes alone (sizes): a fit of other samples at the same sizes may
  // stand in while the new one is made (sameSizes), one that lacks a size may not.
  std::vector<const KernelSample*> shapes;
  for (const KernelSample& s : samples)
    if (std::none_of(shapes.begin(), shapes.end(), [&](const KernelSample* o) {
          return o->workDim == s.workDim && o->features == s.features && o->local == s.local;
        }))
      shapes.push_back(&s);
  std::sort(shapes.begin(), shapes.end(), [](const KernelSample* a, const KernelSample* b) {
    return std::tie(a->workDim, a->features, a->local) < std::tie(b->workDim, b->features, b->local);
  });
  Hasher z;
  for (const KernelSample* s : shapes) {
    z.u64(s->workDim);
    for (int d = 0; d < 3; ++d) z.u64(s->local[d]);
    for (const auto& [name, value] : s->features) z.str(name), z.f64(value);
  }
  char b[48];
  std::snprintf(b, sizeof b, "%016" PRIx64 "-%zu-s%016" PRIx64, h.h, samples.size(), z.h);
  return b;
}

bool TimeModel::sameSizes(const std::string& keyA, const std::string& keyB) {
  const size_t a = keyA.rfind("-s"), b = keyB.rfind("-s");
  return a != std::string::npos && b != std::string::npos && keyA.compare(a, std::string::npos, keyB, b) == 0;
}

std::string TimeModel::save() const {
  std::ostringstream os;
  os << kMagic << "\nkind " << int(kind_) << "\nintercept " << hexDouble(intercept_) << "\ncv "
     << hexDouble(cvError_) << "\ntrain " << hexDouble(trainError_) << "\nterms " << terms_.size() << "\n";
  for (const ModelTerm& t : terms_)
    os << int(t.shape) << ' ' << hexDouble(t.a) << ' ' << hexDouble(t.b) << ' ' << int(t.complexity) << ' '
       << int(t.timesCost) << ' ' << hexDouble(t.coef) << " [" << t.feature << "]\n";
  return os.str();
}

bool TimeModel::load(const std::string& text, const std::vector<KernelSample>& samples, TimeModel* out) {
  std::istringstream in(text);
  std::string line, word;
  if (!std::getline(in, line) || line != kMagic) return false;
  TimeModel m;
  int kind = -1;
  size_t n = 0;
  if (!(in >> word >> kind) || word != "kind" || kind < int(Kind::None) || kind > int(Kind::Nearest)) return false;
  m.kind_ = Kind(kind);
  if (!(in >> word) || word != "intercept" || !readDouble(in, &m.intercept_)) return false;
  if (!(in >> word) || word != "cv" || !readDouble(in, &m.cvError_)) return false;
  if (!(in >> word) || word != "train" || !readDouble(in, &m.trainError_)) return false;
  if (!(in >> word >> n) || word != "terms" || n > 64) return false;
  for (size_t i = 0; i < n; ++i) {
    ModelTerm t;
    int shape = -1, complexity = -1, timesCost = -1;
    if (!(in >> shape) || shape < 0 || shape > int(GroupShape::Hinge)) return false;
    if (!readDouble(in, &t.a) || !readDouble(in, &t.b)) return false;
    if (!(in >> complexity >> timesCost) || complexity < 0 || complexity > int(Complexity::Sqrt) ||
        timesCost < 0 || timesCost > 1)
      return false;
    if (!readDouble(in, &t.coef)) return false;
    in >> std::ws;
    if (!std::getline(in, line) || line.size() < 2 || line.front() != '[' || line.back() != ']') return false;
    t.shape = GroupShape(shape);
    t.complexity = Complexity(complexity);
    t.timesCost = timesCost != 0;
    t.feature = line.substr(1, line.size() - 2);
    m.terms_.push_back(std::move(t));
  }
  m.keepSamples(samples);
  *out = std::move(m);
  return true;
}

}  // namespace tutti::profiles
