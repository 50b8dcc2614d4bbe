// settings.cpp - parsing and validation of the TUTTI_* variables.
#include "settings.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <sstream>

namespace tutti {
namespace {

std::string envName(const char *field) {
  std::string n = "TUTTI_";
  for (const char *p = field; *p; ++p) n += char(std::toupper(static_cast<unsigned char>(*p)));
  return n;
}

std::string lower(std::string s) {
  for (auto &c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool inChoices(const std::string &v, const char *choices) {
  std::stringstream ss(choices);
  std::string c;
  while (std::getline(ss, c, '|'))
    if (c == v) return true;
  return false;
}

// Normalizes a value of the given kind; returns false when it is not acceptable.
bool normalize(SettingKind kind, const char *choices, std::string &v) {
  switch (kind) {
    case SettingKind::Enum:
      v = lower(v);
      return inChoices(v, choices);
    case SettingKind::Bool: {
      std::string l = lower(v);
      if (l == "1" || l == "on" || l == "yes" || l == "true") { v = "1"; return true; }
      if (l == "0" || l == "off" || l == "no" || l == "false" || l.empty()) { v = "0"; return true; }
      return false;
    }
    case SettingKind::UInt:
      return !v.empty() && std::all_of(v.begin(), v.end(), ::isdigit);
    case SettingKind::Text:
    case SettingKind::Path:
      return true;
  }
  return false;
}

// Values of Text settings with a grammar of their own.
bool checkPlacement(const std::string &v) {
  if (v == "auto" || v == "roundrobin") return true;
  if (v.rfind("device:", 0) == 0) {
    std::string n = v.substr(7);
    return !n.empty() && std::all_of(n.begin(), n.end(), ::isdigit);
  }
  return false;
}

// fixed:w0,w1,.. takes non-negative decimal weights, at least one of them positive.
bool checkPartition(const std::string &v) {
  if (v == "auto" || v == "linear") return true;
  if (v.rfind("fixed:", 0) != 0) return false;
  std::stringstream ss(v.substr(6));
  std::string w;
  bool positive = false, any = false;
  while (std::getline(ss, w, ',')) {
    char *end = nullptr;
    double d = std::strtod(w.c_str(), &end);
    if (w.empty() || *end || !(d >= 0)) return false;
    positive |= d > 0;
    any = true;
  }
  return any && positive;
}

// TUTTI_PROFILE: a switch (0/1 and the usual spellings) or "validate".
bool normalizeProfile(std::string &v) {
  std::string l = lower(v);
  if (l == "validate") {
    v = l;
    return true;
  }
  return normalize(SettingKind::Bool, "", v);
}

}  // namespace

const std::vector<SettingSpec> &settingSpecs() {
  static const std::vector<SettingSpec> specs = [] {
    std::vector<SettingSpec> s;
    static std::deque<std::string> names;  // keeps the env strings alive (no moves)
#define X(field, kind, def, choices, help)                                              \
  names.push_back(envName(#field));                                                     \
  s.push_back({#field, names.back().c_str(), SettingKind::kind, def, choices, help});
#include "settings.def"
#undef X
    return s;
  }();
  return specs;
}

bool parseSettings(Settings &out, std::string &error, const char *(*lookup)(const char *)) {
  if (!lookup) lookup = [](const char *n) -> const char * { return std::getenv(n); };
  error.clear();
  const auto &specs = settingSpecs();
  size_t i = 0;
#define X(field, kind, def, choices, help)                                              \
  {                                                                                     \
    const SettingSpec &spec = specs[i++];                                               \
    const char *raw = lookup(spec.env);                                                 \
    std::string v = raw ? raw : def;                                                    \
    if (!normalize(SettingKind::kind, choices, v)) {                                    \
      error = std::string(spec.env) + "='" + (raw ? raw : "") + "' is not valid";       \
      if (*choices) error += std::string(": expected one of ") + choices;               \
      else if (SettingKind::kind == SettingKind::Bool) error += ": expected 0 or 1";    \
      else if (SettingKind::kind == SettingKind::UInt) error += ": expected a number";  \
      return false;                                                                     \
    }                                                                                   \
    out.field = v;                                                                      \
  }
#include "settings.def"
#undef X
  if (!checkPlacement(out.placement)) {
    error = "TUTTI_PLACEMENT='" + out.placement +
            "' is not valid: expected auto, roundrobin or device:N";
    return false;
  }
  if (!normalizeProfile(out.profile)) {
    error = "TUTTI_PROFILE='" + out.profile + "' is not valid: expected 0, 1 or validate";
    return false;
  }
  if (!checkPartition(out.partition)) {
    error = "TUTTI_PARTITION='" + out.partition +
            "' is not valid: expected auto, linear or fixed:w0,w1,.. (non-negative weights)";
    return false;
  }
  return true;
}

namespace {
struct Global {
  Settings s;
  std::string error;
  bool ok = false;
};
Global &global() {
  static Global g = [] {
    Global g;
    g.ok = parseSettings(g.s, g.error);
    if (!g.ok) {
      // Keep usable defaults for the parts that log the error itself.
      std::string ignored;
      parseSettings(g.s, ignored, [](const char *) -> const char * { return nullptr; });
    }
    return g;
  }();
  return g;
}
}  // namespace

const Settings &settings() { return global().s; }
bool settingsOk() { return global().ok; }
const std::string &settingsError() { return global().error; }

}  // namespace tutti
