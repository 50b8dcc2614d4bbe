// fuzz_settings.cpp - libFuzzer target: the TUTTI_* settings parser (issue 21).
//
// The input is a list of NAME=value lines; parseSettings reads every variable of
// settings.def through a lookup over them. Any value must parse or be refused with a
// message naming the variable, never crash or hang; a value accepted once is accepted
// again (parsing is a pure function of the text).
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

#include "settings.h"

namespace {
std::map<std::string, std::string> *g_vars;
const char *lookup(const char *name) {
  auto it = g_vars->find(name);
  return it == g_vars->end() ? nullptr : it->second.c_str();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::map<std::string, std::string> vars;
  std::string text(reinterpret_cast<const char *>(data), size);
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    size_t eq = line.find('=');
    if (eq != std::string::npos) vars["TUTTI_" + line.substr(0, eq)] = line.substr(eq + 1);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  g_vars = &vars;
  tutti::Settings a, b;
  std::string errA, errB;
  bool okA = tutti::parseSettings(a, errA, lookup);
  bool okB = tutti::parseSettings(b, errB, lookup);
  if (okA != okB || errA != errB) std::abort();  // not a pure function of the text
  if (!okA && errA.rfind("TUTTI_", 0) != 0) std::abort();  // the message names the variable
  return 0;
}
