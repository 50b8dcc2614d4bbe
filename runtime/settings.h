// settings.h - typed view of the TUTTI_* variables defined in settings.def.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace tutti {

enum class SettingKind { Enum, Bool, UInt, Parsed, Text, Path };

struct SettingSpec {
  const char *field;
  const char *env;  // "TUTTI_" + upper-case field
  SettingKind kind;
  const char *def;
  const char *choices;  // '|'-separated; for Enum rows, the enumerators in lower case
  const char *help;
};

// One enum class per Enum row of settings.def, enumerators in the table's order.
#define TUTTI_SETTING_LIST(...) __VA_ARGS__
#define TUTTI_SETTING_ENUM_Enum(type, choices) enum class type { TUTTI_SETTING_LIST choices };
#define TUTTI_SETTING_ENUM_Bool(type, choices)
#define TUTTI_SETTING_ENUM_UInt(type, choices)
#define TUTTI_SETTING_ENUM_Parsed(type, choices)
#define TUTTI_SETTING_ENUM_Text(type, choices)
#define TUTTI_SETTING_ENUM_Path(type, choices)
#define X(field, kind, type, def, choices, help) TUTTI_SETTING_ENUM_##kind(type, choices)
#include "settings.def"
#undef X

// The types of the Parsed rows.

// TUTTI_PLACEMENT: auto | roundrobin | device:N.
struct Placement {
  enum Kind { Auto, RoundRobin, Device } kind = Auto;
  int device = -1;  // Device: the backing device's index in tutti-info order
};

// TUTTI_PARTITION: auto | linear | fixed:w0,w1,..
struct Partition {
  enum Kind { Auto, Linear, Fixed } kind = Auto;
  std::vector<double> weights;  // Fixed: per backing device; >= 0, at least one > 0
};

// TUTTI_DEVICES: a comma list of picks, matched against the real devices at discovery
// (which devices exist is known only then; selectDevices in backend.h).
struct DevicePick {
  enum Kind { All, Type, Index, NthOfType, Name } kind = All;
  DeviceType type = DeviceType::Gpu;  // Type, NthOfType
  size_t n = 0;                       // Index, NthOfType
  std::string text;                   // as written, in lower case (Name matches on it)
};
using DeviceList = std::vector<DevicePick>;

// TUTTI_MEM_LIMIT: per backing device (index in tutti-info order), the bytes Tutti may
// use there, below what the device reports (VAST, issue 18).
struct MemLimits {
  std::vector<std::pair<size_t, uint64_t>> limits;  // device index -> bytes
  uint64_t of(size_t device) const {
    for (auto &[d, b] : limits)
      if (d == device) return b;
    return 0;  // none
  }
};

// TUTTI_PROFILE: a switch (0/1 and the Bool spellings) or validate.
enum class ProfileMode { Off, On, Validate };

// The parsed values, one member per row of settings.def, each of its row's type. Parsing
// happens once and never falls back silently: a bad value is an error.
struct Settings {
#define X(field, kind, type, def, choices, help) type field{};
#include "settings.def"
#undef X
};

const std::vector<SettingSpec> &settingSpecs();

// TUTTI_DEVICES' grammar alone, for selectDevices on a spec given as text (unit tests).
bool parseDeviceList(const std::string &spec, DeviceList &out);

// Parses from a getenv-like lookup. Returns false and fills `error` with a message
// naming the variable, its value and what is accepted.
bool parseSettings(Settings &out, std::string &error,
                   const char *(*lookup)(const char *) = nullptr);

// The process-wide settings, parsed on first use. ok() is false when a variable was
// bad; error() says which. Inline: a launch asks a dozen times, and a call through the
// PLT plus a guarded static each time showed in its profile.
namespace detail {
extern std::atomic<const Settings *> g_settings;  // set once parsed
const Settings &parseSettingsOnce();
}  // namespace detail
inline const Settings &settings() {
  const Settings *s = detail::g_settings.load(std::memory_order_acquire);
  return s ? *s : detail::parseSettingsOnce();
}
bool settingsOk();
const std::string &settingsError();

}  // namespace tutti
