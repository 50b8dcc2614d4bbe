// tutti-profile: command-line front end of the SKMD profile database (profiles/).
// list / export / prune work on the database directly; run starts an app under Tutti in
// profiling mode so the runtime fills the database.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tutti/profile_db.h"
#include "tutti/time_model.h"
#include "tutti/transfer_model.h"

using namespace tutti::profiles;

namespace {

const char* kUsage =
    "usage: tutti-profile [--db PATH] COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  list                          kernels x devices, sample counts, model fit quality;\n"
    "                                devices with their transfer models\n"
    "  export [--kernel ID] [--device ID]\n"
    "                                write samples as JSON to stdout\n"
    "  prune  [--kernel ID] [--device ID] [--older-than DAYS] | --all\n"
    "                                delete samples (filters combine)\n"
    "  run -- APP [ARGS...]          run APP under Tutti in profiling mode\n"
    "                                (TUTTI_PROFILE=1, LD_PRELOAD=libtutti.so)\n"
    "\n"
    "options:\n"
    "  --db PATH   profile database (default: $TUTTI_PROFILE_DB, else\n"
    "              $XDG_CACHE_HOME/tutti/profiles.sqlite, else ~/.cache/tutti/profiles.sqlite)\n"
    "  --help      this text\n"
    "\n"
    "run finds libtutti.so through $TUTTI_LIB, else next to this program (., ../lib,\n"
    "../../interpose), else the build tree it was built in.\n";

struct Args {
  std::string db, command, kernel, device;
  double olderThan = -1;
  bool all = false;
  std::vector<char*> app;
};

int usageError(const std::string& msg) {
  std::fprintf(stderr, "tutti-profile: %s\n(try tutti-profile --help)\n", msg.c_str());
  return 2;
}

bool fileExists(const std::string& p) { return !p.empty() && access(p.c_str(), R_OK) == 0; }

std::string findLibrary() {
  if (const char* env = std::getenv("TUTTI_LIB"); env && *env) return env;
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/'));
    for (const char* rel : {"/libtutti.so", "/../lib/libtutti.so", "/../../interpose/libtutti.so"})
      if (fileExists(dir + rel)) return dir + rel;
  }
#ifdef TUTTI_BUILD_LIB
  if (fileExists(TUTTI_BUILD_LIB)) return TUTTI_BUILD_LIB;
#endif
  return "";
}

std::string shortId(const std::string& id) { return id.size() > 16 ? id.substr(0, 16) : id; }

int cmdList(ProfileDB& db) {
  auto kernels = db.kernels();
  std::printf("database: %s\n\n", db.path().c_str());
  if (kernels.empty()) std::printf("no kernel samples\n");
  else std::printf("%-24s %-16s %-32s %7s  %s\n", "kernel", "id", "device", "samples", "model");
  for (const auto& k : kernels) {
    TimeModel m = TimeModel::fit(db.kernelSamples(k.kernelId, k.deviceId));
    char quality[96];
    if (m.kind() == TimeModel::Kind::Regression)
      std::snprintf(quality, sizeof quality, "regression, %zu terms, cv error %.2f%%",
                    m.terms().size(), 100 * m.cvError());
    else
      std::snprintf(quality, sizeof quality, "%s",
                    m.kind() == TimeModel::Kind::Nearest ? "nearest profile (too few samples)"
                                                         : "none");
    std::printf("%-24s %-16s %-32s %7zu  %s\n", k.kernelName.c_str(), shortId(k.kernelId).c_str(),
                k.deviceId.c_str(), k.samples, quality);
  }
  auto devices = db.devices();
  if (!devices.empty()) std::printf("\n%-32s %8s %9s  %s\n", "device", "kernel", "transfer", "transfer model");
  for (const auto& d : devices) {
    TransferModel t = TransferModel::fit(db.transferSamples(d.deviceId), d.deviceId);
    std::printf("%-32s %8zu %9zu  %s\n", d.deviceId.c_str(), d.kernelSamples, d.transferSamples,
                t.describe().c_str());
  }
  return 0;
}

int cmdRun(const Args& a) {
  if (a.app.empty()) return usageError("run: no program given (run -- APP [ARGS...])");
  std::string lib = findLibrary();
  if (!fileExists(lib))
    return usageError("run: cannot find libtutti.so (set TUTTI_LIB to its path)");
  const char* prev = std::getenv("LD_PRELOAD");
  std::string preload = prev && *prev ? lib + ":" + prev : lib;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("TUTTI_PROFILE", "1", 1);
  if (!a.db.empty()) setenv("TUTTI_PROFILE_DB", a.db.c_str(), 1);
  std::vector<char*> argv = a.app;
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "tutti-profile: run: cannot execute %s: %s\n", argv[0], std::strerror(errno));
  return 127;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (s == "--help" || s == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (s == "--") {
      for (++i; i < argc; ++i) a.app.push_back(argv[i]);
    } else if (s == "--db" || s == "--kernel" || s == "--device" || s == "--older-than") {
      const char* v = value();
      if (!v) return usageError(s + " needs a value");
      if (s == "--db") a.db = v;
      else if (s == "--kernel") a.kernel = v;
      else if (s == "--device") a.device = v;
      else {
        char* end = nullptr;
        a.olderThan = std::strtod(v, &end);
        if (!end || *end || !(a.olderThan >= 0)) return usageError("--older-than needs days >= 0");
      }
    } else if (s == "--all") {
      a.all = true;
    } else if (!s.empty() && s[0] == '-') {
      return usageError("unknown option " + s);
    } else if (a.command.empty()) {
      a.command = s;
    } else if (a.command == "run") {
      for (; i < argc; ++i) a.app.push_back(argv[i]);  // `run APP ...` without `--` too
    } else {
      return usageError("unexpected argument " + s);
    }
  }
  if (a.command.empty()) return usageError("no command");
  if (a.command == "run") return cmdRun(a);

  bool known = a.command == "list" || a.command == "export" || a.command == "prune";
  if (!known) return usageError("unknown command " + a.command);
  ProfileDB db;
  std::string path = a.db.empty() ? defaultDbPath() : a.db;
  if (!db.open(path)) {
    std::fprintf(stderr, "tutti-profile: %s\n", db.lastError().c_str());
    return 1;
  }
  if (a.command == "list") return cmdList(db);
  if (a.command == "export") {
    std::fputs(db.exportJson({a.kernel, a.device}).c_str(), stdout);
    return 0;
  }
  if (a.all && (!a.kernel.empty() || !a.device.empty() || a.olderThan >= 0))
    return usageError("prune: --all goes alone");
  int64_t n = db.prune({a.kernel, a.device, a.olderThan, a.all});
  if (n < 0) {
    std::fprintf(stderr, "tutti-profile: %s\n", db.lastError().c_str());
    return 1;
  }
  std::printf("deleted %lld samples\n", static_cast<long long>(n));
  return 0;
}
