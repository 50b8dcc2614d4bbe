// profile_types.cpp: small helpers for the shared records (direction names, feature text).
#include <cstdio>
#include <cstdlib>

#include "feature_codec.h"
#include "tutti/profile_types.h"

namespace tutti::profiles {

const char* directionName(Direction d) { return d == Direction::H2D ? "h2d" : "d2h"; }

bool parseDirection(const std::string& s, Direction* out) {
  if (s == "h2d") *out = Direction::H2D;
  else if (s == "d2h") *out = Direction::D2H;
  else return false;
  return true;
}

std::string encodeFeatures(const Features& f) {
  std::string out;
  char num[40];
  for (const auto& [name, value] : f) {
    // Tabs and newlines are the separators; feature names are identifiers, so drop them.
    for (char c : name)
      if (c != '\t' && c != '\n') out += c;
    std::snprintf(num, sizeof num, "\t%.17g\n", value);
    out += num;
  }
  return out;
}

Features decodeFeatures(const std::string& s) {
  Features f;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t tab = s.find('\t', pos), nl = s.find('\n', pos);
    if (tab == std::string::npos || nl == std::string::npos || tab > nl) break;
    f[s.substr(pos, tab - pos)] = std::strtod(s.c_str() + tab + 1, nullptr);
    pos = nl + 1;
  }
  return f;
}

}  // namespace tutti::profiles
