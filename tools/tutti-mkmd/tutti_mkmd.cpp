// tutti-mkmd: predicts what MKMD makes of a kernel graph on a chosen set of devices.
//
// The graph and device models come from a file (format in tutti/mkmd.h); the device set may
// name models more than once ("two of the local GPU"), so a machine that is not here can be
// tried. Prints in-order execution on each device (the thesis's baseline), coarse-only and
// MKMD schedules, each one's makespan, speedup over the fastest in-order device and idle
// fraction, the scheduling time, and MKMD's Gantt chart; --trace writes it as a Chrome trace
// (the format of TUTTI_TRACE), --json the figures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tutti/mkmd.h"

using namespace tutti::profiles::mkmd;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: tutti-mkmd GRAPH [--devices MODEL,MODEL,...] [--trace FILE] [--json FILE]\n"
               "                  [--width N] [--repeat N] [--coarse-chart]\n");
  return 2;
}

std::vector<std::string> commaList(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream is(s);
  for (std::string x; std::getline(is, x, ',');)
    if (!x.empty()) out.push_back(x);
  return out;
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream f(path);
  f << text;
  return bool(f);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '-') return usage();
  std::string graphPath = argv[1], trace, json, devSpec;
  int width = 72, repeat = 21;
  bool coarseChart = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--devices") devSpec = next();
    else if (a == "--trace") trace = next();
    else if (a == "--json") json = next();
    else if (a == "--width") width = std::atoi(next().c_str());
    else if (a == "--repeat") repeat = std::max(1, std::atoi(next().c_str()));
    else if (a == "--coarse-chart") coarseChart = true;
    else return usage();
  }
  std::ifstream in(graphPath);
  if (!in) return std::fprintf(stderr, "tutti-mkmd: cannot read %s\n", graphPath.c_str()), 1;
  std::stringstream text;
  text << in.rdbuf();
  GraphFile file;
  std::string err;
  Graph g;
  std::vector<Device> devs;
  if (!parseGraph(text.str(), file, err) || !instantiate(file, commaList(devSpec), g, devs, err))
    return std::fprintf(stderr, "tutti-mkmd: %s: %s\n", graphPath.c_str(), err.c_str()), 1;

  std::printf("graph %s: %zu kernels, %zu buffers; devices:", graphPath.c_str(), g.kernels.size(), g.buffers.size());
  for (const Device &d : devs) std::printf(" %s", d.name.c_str());
  std::printf("\n\nin order on one device (the baseline):\n");
  int fastest = 0;
  std::vector<double> inOrderMs;
  for (size_t d = 0; d < devs.size(); ++d) {
    Schedule s = inOrder(g, devs, int(d));
    inOrderMs.push_back(s.makespan * 1e3);
    if (s.makespan < inOrderMs[size_t(fastest)] / 1e3) fastest = int(d);
    std::printf("  %-24s %10.3f ms\n", devs[d].name.c_str(), s.makespan * 1e3);
  }
  const double base = inOrderMs[size_t(fastest)];

  Options coarseOpt;
  coarseOpt.partition = false;
  Schedule coarse = schedule(g, devs, coarseOpt);
  // Scheduling time: the median of --repeat runs (the figure Fig. 5.9 reports).
  std::vector<double> us;
  Schedule m;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    m = schedule(g, devs);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(us.begin(), us.begin() + long(us.size() / 2), us.end());
  const double schedUs = us[us.size() / 2];

  std::printf("\n%-12s %12s %10s %8s %6s\n", "schedule", "makespan ms", "speedup", "idle %", "split");
  std::printf("%-12s %12.3f %9.2fx %8.1f %6s\n", "in-order", base, 1.0, inOrder(g, devs, fastest).idleFraction * 100, "-");
  std::printf("%-12s %12.3f %9.2fx %8.1f %6d\n", "coarse", coarse.makespan * 1e3, base / (coarse.makespan * 1e3),
              coarse.idleFraction * 100, coarse.splitKernels);
  std::printf("%-12s %12.3f %9.2fx %8.1f %6d\n", "mkmd", m.makespan * 1e3, base / (m.makespan * 1e3),
              m.idleFraction * 100, m.splitKernels);
  std::printf("scheduling time (mkmd, median of %d): %.1f us\n\n", repeat, schedUs);
  if (coarseChart) std::printf("coarse: %s\n", gantt(coarse, g, devs, width).c_str());
  std::printf("mkmd: %s", gantt(m, g, devs, width).c_str());

  if (!trace.empty() && !writeFile(trace, chromeTrace(m, g, devs)))
    return std::fprintf(stderr, "tutti-mkmd: cannot write %s\n", trace.c_str()), 1;
  if (!json.empty()) {
    std::ostringstream os;
    os << "{\"graph\":\"" << graphPath << "\",\"devices\":[";
    for (size_t d = 0; d < devs.size(); ++d) os << (d ? "," : "") << "\"" << devs[d].name << "\"";
    os << "],\"in_order_ms\":[";
    for (size_t d = 0; d < inOrderMs.size(); ++d) os << (d ? "," : "") << inOrderMs[d];
    os << "],\"fastest\":" << fastest << ",\"coarse_ms\":" << coarse.makespan * 1e3 << ",\"mkmd_ms\":" << m.makespan * 1e3
       << ",\"coarse_idle\":" << coarse.idleFraction << ",\"mkmd_idle\":" << m.idleFraction
       << ",\"split_kernels\":" << m.splitKernels << ",\"schedule_us\":" << schedUs
       << ",\"speedup\":" << base / (m.makespan * 1e3) << "}\n";
    if (!writeFile(json, os.str())) return std::fprintf(stderr, "tutti-mkmd: cannot write %s\n", json.c_str()), 1;
  }
  return 0;
}
