// db_path.cpp: where the profile database lives by default.
// One shared per-user cache so every app run under Tutti reuses earlier profiles.
#include <cstdlib>
#include <string>

#include "tutti/profile_db.h"

namespace tutti::profiles {

std::string defaultDbPath() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::string();
  };
  std::string p = env("TUTTI_PROFILE_DB");
  if (!p.empty()) return p;
  std::string cache = env("XDG_CACHE_HOME");
  if (cache.empty()) {
    std::string home = env("HOME");
    // No HOME (daemons, sandboxes): a relative path still works in the current directory.
    cache = home.empty() ? std::string(".cache") : home + "/.cache";
  }
  return cache + "/tutti/profiles.sqlite";
}

}  // namespace tutti::profiles
