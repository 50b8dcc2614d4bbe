// mkmd_record.cpp - TUTTI_MKMD_RECORD: the app's kernel graph, as MKMD would see it, to a file.
//
// Every kernel the app enqueues becomes a node with the compiler's access analysis of its
// buffer arguments and each device's predicted time (profile models, else this run's
// measurements); buffers the app writes before and reads after are the graph's inputs and
// outputs. tutti-mkmd then schedules the recording on any device set, devices that are not
// here included, so MKMD's gains can be predicted and its scheduler tested without them.
#include "mkmd_record.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "log.h"
#include "mkmd_graph.h"
#include "settings.h"

namespace tutti {

namespace {

struct Recorder {
  std::mutex mu;
  MkmdGraphBuilder graph;
};

Recorder &recorder() {
  static Recorder *r = new Recorder;  // outlives every static the exit handler might see
  return *r;
}

void writeAtExit() {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> l(r.mu);
  const std::string &path = settings().mkmd_record;
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) {
    TUTTI_LOG(Error, "TUTTI_MKMD_RECORD: cannot write %s", path.c_str());
    return;
  }
  const auto &file = r.graph.file;
  std::fprintf(f, "# recorded by Tutti (TUTTI_MKMD_RECORD): %zu kernels, %zu buffers\n",
               file.graph.kernels.size(), file.graph.buffers.size());
  for (size_t i = 0; i < r.graph.labels.size(); ++i)
    std::fprintf(f, "# %s: %s\n", file.models[i].name.c_str(), r.graph.labels[i].c_str());
  std::string text = profiles::mkmd::formatGraph(file);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

}  // namespace

void mkmdRecord(Command *cmd) {
  if (settings().mkmd_record.empty()) return;
  Recorder &r = recorder();
  std::lock_guard<std::mutex> l(r.mu);
  if (r.graph.file.models.empty()) std::atexit(writeAtExit);
  r.graph.add(cmd);
  r.graph.kernels.clear();  // commands are freed when done; the file needs none of them
}

}  // namespace tutti
