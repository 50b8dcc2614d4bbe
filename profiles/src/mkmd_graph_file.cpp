// mkmd_graph_file.cpp - the text form of a recorded kernel graph and its device models.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "tutti/mkmd.h"

namespace tutti::profiles::mkmd {

namespace {

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

bool number(const std::string &s, double &v) {
  char *end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0' && v >= 0;
}

int indexOf(const std::vector<std::string> &names, const std::string &n) {
  auto it = std::find(names.begin(), names.end(), n);
  return it == names.end() ? -1 : int(it - names.begin());
}

}  // namespace

bool parseGraph(const std::string &text, GraphFile &out, std::string &error) {
  out = GraphFile{};
  std::vector<std::string> bufferNames, kernelNames, modelNames;
  std::istringstream lines(text);
  std::string line;
  int lineNo = 0;
  auto fail = [&](const std::string &why) {
    error = "line " + std::to_string(lineNo) + ": " + why;
    return false;
  };
  while (std::getline(lines, line)) {
    ++lineNo;
    line = line.substr(0, line.find('#'));
    std::vector<std::string> w = split(line, ' ');
    if (w.empty()) continue;
    if (w.size() < 2) return fail("'" + w[0] + "' needs a name");
    const std::string &what = w[0], &name = w[1];
    std::map<std::string, std::string> kv;
    std::vector<std::string> flags;
    for (size_t i = 2; i < w.size(); ++i) {
      size_t eq = w[i].find('=');
      if (eq == std::string::npos) flags.push_back(w[i]);
      else kv[w[i].substr(0, eq)] = w[i].substr(eq + 1);
    }
    auto num = [&](const char *key, double def, double &v) {
      auto it = kv.find(key);
      if (it == kv.end()) return v = def, true;
      return number(it->second, v);
    };
    auto names = [&](const char *key, const std::vector<std::string> &known, std::vector<int> &ids,
                     std::vector<bool> *star) {
      auto it = kv.find(key);
      if (it == kv.end()) return true;
      for (std::string n : split(it->second, ',')) {
        bool partial = n.back() == '*';
        if (partial) n.pop_back();
        int id = indexOf(known, n);
        if (id < 0) return fail(std::string(key) + ": unknown '" + n + "'");
        ids.push_back(id);
        if (star) star->push_back(partial);
      }
      return true;
    };
    if (what == "device") {
      Device d;
      d.name = name;
      d.host = std::find(flags.begin(), flags.end(), "host") != flags.end();
      d.queuedUploads = std::find(flags.begin(), flags.end(), "inorder") != flags.end();
      double link, h2d, d2h, lat, fill;
      if (!num("link", double(out.models.size()), link) || !num("h2d", 25, h2d) || !num("d2h", 25, d2h) ||
          !num("latency", 10, lat) || !num("fill", 0, fill))
        return fail("device " + name + ": bad number");
      d.fillBandwidth = fill * 1e9;
      d.link = int(link);
      d.h2dBandwidth = h2d * 1e9;
      d.d2hBandwidth = d2h * 1e9;
      d.latency = lat * 1e-6;
      if (indexOf(modelNames, name) >= 0) return fail("device " + name + " twice");
      modelNames.push_back(name);
      out.models.push_back(d);
    } else if (what == "buffer") {
      Buffer b;
      b.name = name;
      double bytes;
      if (!num("bytes", 0, bytes)) return fail("buffer " + name + ": bad bytes");
      b.bytes = uint64_t(bytes);
      b.fromHost = std::find(flags.begin(), flags.end(), "in") != flags.end();
      b.toHost = std::find(flags.begin(), flags.end(), "out") != flags.end();
      b.notOnHost = std::find(flags.begin(), flags.end(), "nohost") != flags.end();
      b.cold = std::find(flags.begin(), flags.end(), "cold") != flags.end();
      if (!names("on", modelNames, b.on, nullptr)) return false;
      if (indexOf(bufferNames, name) >= 0) return fail("buffer " + name + " twice");
      bufferNames.push_back(name);
      out.graph.buffers.push_back(b);
    } else if (what == "kernel") {
      Kernel k;
      k.name = name;
      double groups, merge;
      if (!num("groups", 1, groups) || groups < 1) return fail("kernel " + name + ": bad groups");
      if (!num("merge", 0, merge)) return fail("kernel " + name + ": bad merge");
      k.groups = uint64_t(groups);
      k.mergeOutputs = kv.count("merge") > 0;
      k.mergeSecondsPerDevice = merge * 1e-3;
      k.splittable = std::find(flags.begin(), flags.end(), "whole") == flags.end();
      std::vector<bool> partial;
      if (!names("reads", bufferNames, k.reads, &partial) || !names("writes", bufferNames, k.writes, nullptr) ||
          !names("after", kernelNames, k.after, nullptr))
        return false;
      k.partialRead = partial;
      std::vector<GraphFile::Linear> t(out.models.size());
      std::vector<bool> known(out.models.size(), false);
      for (const std::string &spec : split(kv["time"], ',')) {
        size_t colon = spec.find(':'), plus = spec.find('+');
        if (colon == std::string::npos || plus == std::string::npos || plus < colon)
          return fail("kernel " + name + ": time wants MODEL:FIXED_MS+US_PER_GROUP, not '" + spec + "'");
        int m = indexOf(modelNames, spec.substr(0, colon));
        double fixedMs, perGroupUs;
        if (m < 0) return fail("kernel " + name + ": unknown device '" + spec.substr(0, colon) + "'");
        if (!number(spec.substr(colon + 1, plus - colon - 1), fixedMs) || !number(spec.substr(plus + 1), perGroupUs))
          return fail("kernel " + name + ": bad time '" + spec + "'");
        t[size_t(m)] = {fixedMs * 1e-3, perGroupUs * 1e-6};
        known[size_t(m)] = true;
      }
      kernelNames.push_back(name);
      out.graph.kernels.push_back(k);
      out.kernelTime.push_back(t);
      out.timeKnown.push_back(known);
    } else {
      return fail("unknown item '" + what + "'");
    }
  }
  return true;
}

std::string formatGraph(const GraphFile &g) {
  std::ostringstream os;
  char buf[128];
  for (const Device &d : g.models) {
    std::snprintf(buf, sizeof buf, " link=%d h2d=%.4g d2h=%.4g latency=%.4g", d.link, d.h2dBandwidth / 1e9,
                  d.d2hBandwidth / 1e9, d.latency * 1e6);
    os << "device " << d.name << (d.host ? " host" : "") << (d.queuedUploads ? " inorder" : "") << buf;
    if (d.fillBandwidth > 0) {
      std::snprintf(buf, sizeof buf, " fill=%.4g", d.fillBandwidth / 1e9);
      os << buf;
    }
    os << "\n";
  }
  for (const Buffer &b : g.graph.buffers) {
    os << "buffer " << b.name << " bytes=" << b.bytes << (b.fromHost ? " in" : "") << (b.toHost ? " out" : "")
       << (b.notOnHost ? " nohost" : "") << (b.cold ? " cold" : "");
    for (size_t i = 0; i < b.on.size(); ++i) os << (i ? "," : " on=") << g.models[size_t(b.on[i])].name;
    os << "\n";
  }
  auto list = [&](const char *key, const std::vector<int> &ids, const std::vector<bool> *star, bool kernels) {
    if (ids.empty()) return;
    os << " " << key << "=";
    for (size_t i = 0; i < ids.size(); ++i)
      os << (i ? "," : "") << (kernels ? g.graph.kernels[size_t(ids[i])].name : g.graph.buffers[size_t(ids[i])].name)
         << (star && i < star->size() && (*star)[i] ? "*" : "");
  };
  for (size_t k = 0; k < g.graph.kernels.size(); ++k) {
    const Kernel &K = g.graph.kernels[k];
    os << "kernel " << K.name << " groups=" << K.groups;
    list("reads", K.reads, &K.partialRead, false);
    list("writes", K.writes, nullptr, false);
    list("after", K.after, nullptr, true);
    if (!K.splittable) os << " whole";
    if (K.mergeOutputs) os << " merge=" << K.mergeSecondsPerDevice * 1e3;
    std::string sep = " time=";
    for (size_t m = 0; m < g.models.size(); ++m) {
      if (!g.timeKnown[k][m]) continue;
      std::snprintf(buf, sizeof buf, "%s:%.6g+%.6g", g.models[m].name.c_str(), g.kernelTime[k][m].fixedSeconds * 1e3,
                    g.kernelTime[k][m].perGroupSeconds * 1e6);
      os << sep << buf;
      sep = ",";
    }
    os << "\n";
  }
  return os.str();
}

bool instantiate(const GraphFile &g, const std::vector<std::string> &set, Graph &graph, std::vector<Device> &devs,
                 std::string &error) {
  std::vector<int> model;
  std::vector<std::string> names;
  for (const Device &d : g.models) names.push_back(d.name);
  if (set.empty())
    for (size_t m = 0; m < g.models.size(); ++m) model.push_back(int(m));
  for (const std::string &s : set) {
    int m = indexOf(names, s);
    if (m < 0) return error = "no device model '" + s + "' in the graph", false;
    model.push_back(m);
  }
  devs.clear();
  int nextLink = 0;
  for (const Device &d : g.models) nextLink = std::max(nextLink, d.link + 1);
  std::map<int, int> copies;
  for (int m : model) {
    Device d = g.models[size_t(m)];
    if (copies[m]++) {
      d.name += "#" + std::to_string(copies[m]);
      d.link = nextLink++;  // another card of the kind: its own link
    }
    devs.push_back(d);
  }
  graph = g.graph;
  // Data on a model's device start on the first device of that model in the set (or, with
  // the model left out, on the host, as the runtime would have had to fetch them there).
  for (Buffer &b : graph.buffers) {
    std::vector<int> on;
    for (int m : b.on) {
      auto it = std::find(model.begin(), model.end(), m);
      if (it != model.end()) on.push_back(int(it - model.begin()));
    }
    if (on.empty()) b.notOnHost = false;
    b.on = on;
  }
  for (size_t k = 0; k < graph.kernels.size(); ++k) {
    std::vector<GraphFile::Linear> t;
    for (int m : model) {
      if (!g.timeKnown[k][size_t(m)])
        return error = "kernel " + graph.kernels[k].name + " has no time on " + g.models[size_t(m)].name, false;
      t.push_back(g.kernelTime[k][size_t(m)]);
    }
    graph.kernels[k].time = [t](int d, uint64_t n) {
      return t[size_t(d)].fixedSeconds + t[size_t(d)].perGroupSeconds * double(n);
    };
  }
  return true;
}

}  // namespace tutti::profiles::mkmd
