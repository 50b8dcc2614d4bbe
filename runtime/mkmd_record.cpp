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
#include <map>
#include <mutex>

#include <tutti/mkmd.h>

#include "backend.h"
#include "log.h"
#include "memory.h"
#include "profile_store.h"
#include "settings.h"
#include "skmd.h"
#include "skmd_decide.h"

namespace tutti {

namespace mk = profiles::mkmd;
namespace cc = compiler;

namespace {

struct Recorder {
  std::mutex mu;
  bool devicesKnown = false;
  mk::GraphFile file;
  std::map<const _cl_mem *, int> buffers;  // root -> index
  std::map<std::string, int> launches;     // kernel name -> launches so far
  std::vector<std::string> labels;         // per device model: the backing device
};

Recorder &recorder() {
  static Recorder *r = new Recorder;  // outlives every static the exit handler might see
  return *r;
}

// Kernel names go into a line of space- and comma-separated items.
std::string sanitized(std::string s) {
  for (char &c : s)
    if (c == ' ' || c == ',' || c == '=' || c == '#' || c == ':' || c == '*') c = '_';
  return s;
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
  std::fprintf(f, "# recorded by Tutti (TUTTI_MKMD_RECORD): %zu kernels, %zu buffers\n",
               r.file.graph.kernels.size(), r.file.graph.buffers.size());
  for (size_t i = 0; i < r.labels.size(); ++i)
    std::fprintf(f, "# %s: %s\n", r.file.models[i].name.c_str(), r.labels[i].c_str());
  std::string text = mk::formatGraph(r.file);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

void addDevices(Recorder &r, _cl_context *ctx) {
  if (r.devicesKnown) return;
  r.devicesKnown = true;
  int zc = zeroCopySlot(ctx);
  for (size_t s = 0; s < ctx->slots.size(); ++s) {
    const BackingDevice *d = ctx->slots[s].dev;
    mk::Device m;
    // Short names, for tutti-mkmd --devices; the comment above them says which device.
    m.name = std::string(d->isGpu() ? "gpu" : (d->type & CL_DEVICE_TYPE_CPU) ? "cpu" : "dev") + std::to_string(s);
    r.labels.push_back(d->label());
    m.host = int(s) == zc;
    m.link = int(s);
    // The staged (pinned) rates are what Tutti's copies run at.
    const profiles::TransferModel &tm = storedTransferModel(deviceIdentity(d));
    const profiles::TransferFit &in = tm.get(profiles::Direction::H2D, true);
    const profiles::TransferFit &out = tm.get(profiles::Direction::D2H, true);
    m.h2dBandwidth = in.bandwidth;
    m.d2hBandwidth = out.bandwidth;
    m.latency = in.latency;
    r.file.models.push_back(m);
  }
  std::atexit(writeAtExit);
}

int bufferOf(Recorder &r, _cl_mem *m) {
  _cl_mem *root = rootOf(m);
  auto it = r.buffers.find(root);
  if (it != r.buffers.end()) return it->second;
  mk::Buffer b;
  b.name = "buf" + std::to_string(r.buffers.size()) + "_" + std::to_string(root->size);
  b.bytes = root->size;
  b.fromHost = root->flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR);
  r.file.graph.buffers.push_back(b);
  return r.buffers[root] = int(r.file.graph.buffers.size() - 1);
}

// The compiler's view of the launch where the program has it (TUTTI_MODE=skmd).
bool analysed(Command *cmd, cc::NDRange &nd, cc::ScalarArgs &scalars, LaunchModel &lm, bool &splittable) {
  _cl_kernel *k = cmd->kernel;
  SkmdProgram *sp = settings().mode == KernelMode::Skmd ? skmdProgram(k->program) : nullptr;
  if (!sp || !sp->ok) return false;
  const cc::KernelInfo *info = nullptr;
  std::vector<int> usable;
  for (size_t s = 0; s < cmd->q->ctx->slots.size(); ++s)
    if (const cc::KernelInfo *ki = skmdKernelInfo(*sp, int(s), k->name)) {
      if (!info) info = ki;
      usable.push_back(int(s));
    }
  if (!info) return false;
  auto lim = sp->groupLimit.find(k->name);
  if (!skmdLaunchShape(cmd, lim == sp->groupLimit.end() ? SIZE_MAX : lim->second, nd, scalars)) return false;
  modelLaunch(cmd, *info, nd, scalars, usable, lm);
  splittable = info->partitionable;
  return true;
}

void recordKernel(Recorder &r, Command *cmd) {
  const size_t nslots = cmd->q->ctx->slots.size();
  mk::Kernel node;
  node.name = sanitized(cmd->kernel->name) + "." + std::to_string(r.launches[cmd->kernel->name]++);
  cc::NDRange nd;
  cc::ScalarArgs scalars;
  LaunchModel lm;
  bool splittable = false;
  bool known = analysed(cmd, nd, scalars, lm, splittable);
  node.groups = known ? nd.totalGroups() : 1;
  node.splittable = known && splittable;
  for (size_t i = 0; i < cmd->args.size(); ++i) {
    const ArgValue &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem || a.mem->isImage()) continue;
    int b = bufferOf(r, a.mem);
    // Without the analysis every buffer is read and written: the graph stays correct.
    bool read = !known || i >= lm.args.size() || lm.args[i].read;
    bool written = !known || i >= lm.args.size() || lm.args[i].written;
    if (read) {
      node.reads.push_back(b);
      node.partialRead.push_back(known && i < lm.args.size() && lm.args[i].partial);
    }
    if (written) node.writes.push_back(b);
    if (known && i < lm.args.size() && lm.args[i].merged) {
      node.mergeOutputs = true;
      // Merges run at host memory speed over the buffer (skmd_exec's diff merge).
      node.mergeSecondsPerDevice += double(rootOf(a.mem)->size) / 4e9;
    }
  }
  std::vector<mk::GraphFile::Linear> t(nslots);
  std::vector<bool> have(nslots, false);
  for (size_t s = 0; known && s < nslots && s < lm.known.size(); ++s)
    if (lm.known[s]) t[s] = {lm.fixedSeconds[s], lm.perGroupSeconds[s]}, have[s] = true;
  r.file.graph.kernels.push_back(node);
  r.file.kernelTime.push_back(t);
  r.file.timeKnown.push_back(have);
}

}  // namespace

void mkmdRecord(Command *cmd) {
  if (settings().mkmd_record.empty()) return;
  Recorder &r = recorder();
  std::lock_guard<std::mutex> l(r.mu);
  addDevices(r, cmd->q->ctx);
  switch (cmd->kind) {
    case CmdKind::Kernel: recordKernel(r, cmd); break;
    case CmdKind::Write: case CmdKind::WriteRect:
      r.file.graph.buffers[size_t(bufferOf(r, cmd->dst))].fromHost = true;
      break;
    case CmdKind::Read: case CmdKind::ReadRect: case CmdKind::Map:
      if (cmd->src && !cmd->src->isImage()) r.file.graph.buffers[size_t(bufferOf(r, cmd->src))].toHost = true;
      break;
    default: break;
  }
}

}  // namespace tutti
