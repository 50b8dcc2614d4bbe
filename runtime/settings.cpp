// settings.cpp - parsing and validation of the TUTTI_* variables.
#include "settings.h"

#include <cctype>
#include <cmath>
#include <cstdint>
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

// Enum rows list enumerators (Gpu, RoundRobin); their text is the name in lower case,
// '|'-separated as settingSpecs() shows it.
std::string enumChoices(const char *list) {
  std::string out;
  for (const char *p = list; *p; ++p)
    if (*p == ',') out += '|';
    else if (*p != ' ') out += char(std::tolower(static_cast<unsigned char>(*p)));
  return out;
}

template <typename E>
bool parseEnum(const std::string &v, const char *choices, E &out) {
  std::string l = lower(v), c;
  std::stringstream ss(choices);
  for (int i = 0; std::getline(ss, c, '|'); ++i)
    if (c == l) {
      out = E(i);
      return true;
    }
  return false;
}

bool parseBool(const std::string &v, bool &out) {
  std::string l = lower(v);
  if (l == "1" || l == "on" || l == "yes" || l == "true") return out = true, true;
  if (l == "0" || l == "off" || l == "no" || l == "false" || l.empty()) return out = false, true;
  return false;
}

// Decimal digits only (no sign, no spaces), and no wrap-around past `max`.
bool parseUInt(const std::string &v, uint64_t &out, uint64_t max = UINT64_MAX) {
  if (v.empty()) return false;
  uint64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    unsigned d = unsigned(c - '0');
    if (n > (max - d) / 10) return false;
    n = n * 10 + d;
  }
  out = n;
  return true;
}

// The Parsed rows: one overload per type, and what each accepts for the error message.
bool parseSetting(const std::string &v, Placement &out) {
  uint64_t n = 0;
  if (v == "auto") out = {Placement::Auto, -1};
  else if (v == "roundrobin") out = {Placement::RoundRobin, -1};
  else if (v.rfind("device:", 0) == 0 && parseUInt(v.substr(7), n, INT32_MAX))
    out = {Placement::Device, int(n)};
  else return false;
  return true;
}
const char *expected(const Placement &) { return "auto, roundrobin or device:N"; }

// fixed:w0,w1,.. takes non-negative finite decimal weights, at least one of them positive.
bool parseSetting(const std::string &v, Partition &out) {
  if (v == "auto" || v == "linear") {
    out = {v == "auto" ? Partition::Auto : Partition::Linear, {}};
    return true;
  }
  if (v.rfind("fixed:", 0) != 0) return false;
  std::stringstream ss(v.substr(6));
  std::string w;
  std::vector<double> weights;
  bool positive = false;
  while (std::getline(ss, w, ',')) {
    char *end = nullptr;
    double d = std::strtod(w.c_str(), &end);
    if (w.empty() || *end || !(d >= 0) || !std::isfinite(d)) return false;
    positive |= d > 0;
    weights.push_back(d);
  }
  if (!positive) return false;
  out = {Partition::Fixed, std::move(weights)};
  return true;
}
const char *expected(const Partition &) {
  return "auto, linear or fixed:w0,w1,.. (non-negative weights)";
}

// N:SIZE[,N:SIZE...], SIZE in bytes with an optional K, M, G or T suffix (powers of 1024).
bool parseSetting(const std::string &v, MemLimits &out) {
  MemLimits m;
  if (v.empty()) return out = m, true;  // no limits
  std::stringstream ss(v);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    size_t colon = tok.find(':');
    if (colon == std::string::npos) return false;
    uint64_t dev = 0, n = 0;
    if (!parseUInt(tok.substr(0, colon), dev, 1024)) return false;
    std::string size = tok.substr(colon + 1);
    unsigned shift = 0;
    if (!size.empty()) {
      switch (std::toupper(static_cast<unsigned char>(size.back()))) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        case 'T': shift = 40; break;
        default: break;
      }
      if (shift) size.pop_back();
    }
    if (!parseUInt(size, n, UINT64_MAX >> shift) || n == 0) return false;
    m.limits.push_back({size_t(dev), n << shift});
  }
  if (m.limits.empty()) return false;
  out = std::move(m);
  return true;
}
const char *expected(const MemLimits &) {
  return "N:SIZE[,N:SIZE...] (device index, bytes with an optional K/M/G/T suffix, > 0)";
}

bool parseSetting(const std::string &v, DeviceList &out) {
  DeviceList picks;
  std::stringstream ss(v);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    tok.erase(0, tok.find_first_not_of(" \t"));
    tok.erase(tok.find_last_not_of(" \t") + 1);
    if (tok.empty()) continue;
    DevicePick p;
    p.text = lower(tok);
    auto typeOf = [](const std::string &t, DeviceType &type) {
      if (t == "cpu") type = DeviceType::Cpu;
      else if (t == "gpu") type = DeviceType::Gpu;
      else if (t == "accelerator" || t == "acc") type = DeviceType::Accelerator;
      else return false;
      return true;
    };
    size_t digit = p.text.find_first_of("0123456789");
    if (p.text == "all") p.kind = DevicePick::All;
    else if (typeOf(p.text, p.type)) p.kind = DevicePick::Type;
    else if (p.text.find_first_not_of("0123456789") == std::string::npos) {
      if (!parseUInt(p.text, p.n, SIZE_MAX)) return false;  // no device has that index
      p.kind = DevicePick::Index;
    } else if (digit != std::string::npos && typeOf(p.text.substr(0, digit), p.type) &&
               parseUInt(p.text.substr(digit), p.n, SIZE_MAX)) {
      p.kind = DevicePick::NthOfType;  // cpuN / gpuN / accN: the N-th device of that type
    } else {
      p.kind = DevicePick::Name;  // a substring of the device's name
    }
    picks.push_back(std::move(p));
  }
  if (picks.empty()) return false;
  out = std::move(picks);
  return true;
}
const char *expected(const DeviceList &) {
  return "a comma list of all, cpu, gpu, accelerator, cpuN/gpuN, N or a name substring";
}

bool parseSetting(const std::string &v, ProfileMode &out) {
  bool on = false;
  if (lower(v) == "validate") out = ProfileMode::Validate;
  else if (parseBool(v, on)) out = on ? ProfileMode::On : ProfileMode::Off;
  else return false;
  return true;
}
const char *expected(const ProfileMode &) { return "0, 1 or validate"; }

}  // namespace

// What the X-macros below do per kind of row: the choices text settingSpecs() shows, the
// parse into the member, and what the error message says is accepted instead.
#define TUTTI_STRINGIZE(...) #__VA_ARGS__
#define TUTTI_CHOICES_Enum(list) \
  (choices.push_back(enumChoices(TUTTI_STRINGIZE list)), choices.back().c_str())
#define TUTTI_CHOICES_Bool(list) list
#define TUTTI_CHOICES_UInt(list) list
#define TUTTI_CHOICES_Parsed(list) list
#define TUTTI_CHOICES_Text(list) list
#define TUTTI_CHOICES_Path(list) list
#define TUTTI_PARSE_Enum(v, spec, member) parseEnum(v, spec.choices, member)
#define TUTTI_PARSE_Bool(v, spec, member) parseBool(v, member)
#define TUTTI_PARSE_UInt(v, spec, member) parseUInt(v, member)
#define TUTTI_PARSE_Parsed(v, spec, member) parseSetting(v, member)
#define TUTTI_PARSE_Text(v, spec, member) (member = v, true)
#define TUTTI_PARSE_Path(v, spec, member) (member = v, true)
#define TUTTI_EXPECTED_Enum(spec, member) std::string("one of ") + spec.choices
#define TUTTI_EXPECTED_Bool(spec, member) "0 or 1"
#define TUTTI_EXPECTED_UInt(spec, member) "a number"
#define TUTTI_EXPECTED_Parsed(spec, member) expected(member)
#define TUTTI_EXPECTED_Text(spec, member) ""
#define TUTTI_EXPECTED_Path(spec, member) ""

const std::vector<SettingSpec> &settingSpecs() {
  static const std::vector<SettingSpec> specs = [] {
    std::vector<SettingSpec> s;
    static std::deque<std::string> names;  // keeps the env strings alive (no moves)
    static std::deque<std::string> choices;  // Enum rows' choices, as text
#define X(field, kind, type, def, list, help)                                           \
  names.push_back(envName(#field));                                                     \
  s.push_back({#field, names.back().c_str(), SettingKind::kind, def,                    \
               TUTTI_CHOICES_##kind(list), help});
#include "settings.def"
#undef X
    return s;
  }();
  return specs;
}

bool parseDeviceList(const std::string &spec, DeviceList &out) { return parseSetting(spec, out); }

bool parseSettings(Settings &out, std::string &error, const char *(*lookup)(const char *)) {
  if (!lookup) lookup = [](const char *n) -> const char * { return std::getenv(n); };
  error.clear();
  const auto &specs = settingSpecs();
  size_t i = 0;
#define X(field, kind, type, def, list, help)                                     \
  {                                                                             \
    const SettingSpec &spec = specs[i++];                                       \
    const char *raw = lookup(spec.env);                                         \
    std::string v = raw ? raw : def;                                            \
    if (!TUTTI_PARSE_##kind(v, spec, out.field)) {                              \
      error = std::string(spec.env) + "='" + v + "' is not valid: expected " +  \
              TUTTI_EXPECTED_##kind(spec, out.field);                           \
      return false;                                                             \
    }                                                                           \
  }
#include "settings.def"
#undef X
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

namespace detail {
std::atomic<const Settings *> g_settings{nullptr};
const Settings &parseSettingsOnce() {
  const Settings &s = global().s;
  g_settings.store(&s, std::memory_order_release);
  return s;
}
}  // namespace detail

bool settingsOk() { return global().ok; }
const std::string &settingsError() { return global().error; }

}  // namespace tutti
