// mkmd_report.cpp - a schedule as a text Gantt chart and as a Chrome trace.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "tutti/mkmd.h"

namespace tutti::profiles::mkmd {

namespace {

char letter(int k) {
  static const char kSet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return k < 0 ? '#' : kSet[size_t(k) % (sizeof kSet - 1)];
}

// Rows: per device its kernels, what it receives and what it sends; the host's merges.
int rowOf(const Task &t) {
  if (t.kind == Task::Merge) return 0;
  return 1 + 3 * t.device + (t.kind == Task::Compute ? 0 : t.kind == Task::H2D ? 1 : 2);
}

std::string rowName(int row, const std::vector<Device> &devs) {
  if (row == 0) return "host merges";
  const Device &d = devs[size_t((row - 1) / 3)];
  static const char *kWhat[] = {"kernels", "in", "out"};
  return d.name + " " + kWhat[(row - 1) % 3];
}

std::string escape(const std::string &s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) o += c;
  }
  return o;
}

}  // namespace

std::string gantt(const Schedule &s, const Graph &g, const std::vector<Device> &devs, int width) {
  std::ostringstream os;
  width = std::max(width, 8);
  char head[160];
  std::snprintf(head, sizeof head, "makespan %.3f ms, idle %.1f %% (mean over devices), %d kernels split\n",
                s.makespan * 1e3, s.idleFraction * 100, s.splitKernels);
  os << head;
  const int rows = 1 + 3 * int(devs.size());
  std::vector<std::string> line(size_t(rows), std::string(size_t(width), ' '));
  std::vector<bool> used(size_t(rows), false);
  const double scale = s.makespan > 0 ? double(width) / s.makespan : 0;
  for (const Task &t : s.tasks) {
    int r = rowOf(t);
    used[size_t(r)] = true;
    int a = std::min(width - 1, int(std::floor(t.start * scale)));
    int b = std::max(a + 1, std::min(width, int(std::ceil(t.end * scale))));
    char c = t.kind == Task::Compute || t.kind == Task::Merge ? letter(t.kernel) : t.kind == Task::H2D ? '-' : '=';
    for (int x = a; x < b; ++x) line[size_t(r)][size_t(x)] = c;
  }
  size_t nameWidth = 0;
  for (int r = 0; r < rows; ++r)
    if (used[size_t(r)] || (r % 3 == 1)) nameWidth = std::max(nameWidth, rowName(r, devs).size());
  for (int r = 0; r < rows; ++r) {
    if (!used[size_t(r)] && r % 3 != 1) continue;  // every device's kernel row, other rows if used
    std::string name = rowName(r, devs);
    os << name << std::string(nameWidth - name.size(), ' ') << " |" << line[size_t(r)] << "|\n";
  }
  os << "kernels:";
  for (size_t k = 0; k < g.kernels.size(); ++k) os << ' ' << letter(int(k)) << '=' << g.kernels[k].name;
  os << "\ncopies: - host to device, = device to host\n";
  return os.str();
}

std::string chromeTrace(const Schedule &s, const Graph &g, const std::vector<Device> &devs) {
  std::ostringstream os;
  os << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  const int rows = 1 + 3 * int(devs.size());
  for (int r = 0; r < rows; ++r)
    os << (r ? ",\n" : "") << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":" << r
       << ",\"args\":{\"name\":\"" << escape(rowName(r, devs)) << "\"}}";
  for (const Task &t : s.tasks) {
    std::string name = t.kernel >= 0 ? g.kernels[size_t(t.kernel)].name : "final read";
    if (t.kind == Task::H2D || t.kind == Task::D2H) name = g.buffers[size_t(t.buffer)].name + " -> " + name;
    const char *cat = t.kind == Task::Compute ? "kernel" : t.kind == Task::H2D ? "h2d" : t.kind == Task::D2H ? "d2h" : "merge";
    char buf[96];
    std::snprintf(buf, sizeof buf, "\"ts\":%.3f,\"dur\":%.3f", t.start * 1e6, (t.end - t.start) * 1e6);
    os << ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":" << rowOf(t) << ",\"cat\":\"" << cat << "\",\"name\":\""
       << escape(name) << "\"," << buf << ",\"args\":{\"groups\":" << t.groups << ",\"bytes\":" << t.bytes << "}}";
  }
  os << "\n]}\n";
  return os.str();
}

}  // namespace tutti::profiles::mkmd
