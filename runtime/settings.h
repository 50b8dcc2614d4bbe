// settings.h - typed view of the TUTTI_* variables defined in settings.def.
#pragma once
#include <string>
#include <vector>

namespace tutti {

enum class SettingKind { Enum, Bool, UInt, Text, Path };

struct SettingSpec {
  const char *field;
  const char *env;  // "TUTTI_" + upper-case field
  SettingKind kind;
  const char *def;
  const char *choices;
  const char *help;
};

// The parsed values, one member per row of settings.def (all kept as text; typed
// accessors below). Parsing never falls back silently: a bad value is an error.
struct Settings {
#define X(field, kind, def, choices, help) std::string field;
#include "settings.def"
#undef X
  bool flag(const std::string &v) const { return v == "1"; }
};

const std::vector<SettingSpec> &settingSpecs();

// Parses from a getenv-like lookup. Returns false and fills `error` with a message
// naming the variable, its value and what is accepted.
bool parseSettings(Settings &out, std::string &error,
                   const char *(*lookup)(const char *) = nullptr);

// The process-wide settings, parsed on first use. ok() is false when a variable was
// bad; error() says which.
const Settings &settings();
bool settingsOk();
const std::string &settingsError();

}  // namespace tutti
