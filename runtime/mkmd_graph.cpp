// mkmd_graph.cpp - the app's commands as MKMD's kernel graph (TUTTI_MKMD_RECORD, TUTTI_MODE=mkmd).
#include "mkmd_graph.h"

#include "backend.h"
#include "host_fill.h"
#include "memory.h"
#include "profile_store.h"
#include "settings.h"
#include "skmd.h"
#include "skmd_decide.h"

namespace tutti {

namespace mk = profiles::mkmd;
namespace cc = compiler;

namespace {

// Kernel names go into a line of space- and comma-separated items.
std::string sanitized(std::string s) {
  for (char &c : s)
    if (c == ' ' || c == ',' || c == '=' || c == '#' || c == ':' || c == '*') c = '_';
  return s;
}

// The compiler's view of the launch where the program has it (TUTTI_MODE=skmd or mkmd).
bool launchModelOf(Command *cmd, cc::NDRange &nd, cc::ScalarArgs &scalars, LaunchModel &lm, bool &splittable,
                   bool withArgs = true) {
  _cl_kernel *k = cmd->kernel;
  SkmdProgram *sp = settings().mode != KernelMode::Whole ? skmdProgram(k->program) : nullptr;
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
  modelLaunch(cmd, *info, nd, scalars, usable, lm, withArgs);
  splittable = info->partitionable;
  return true;
}

}  // namespace

double mkmdFastestSeconds(Command *cmd) {
  cc::NDRange nd;
  cc::ScalarArgs scalars;
  LaunchModel lm;
  bool splittable = false;
  // Times only: TUTTI_MKMD_EAGER asks this of a kernel's first launches, on the app's thread.
  if (cmd->kind != CmdKind::Kernel || !launchModelOf(cmd, nd, scalars, lm, splittable, false)) return 0;
  double best = 0;
  bool any = false;
  for (size_t s = 0; s < lm.known.size(); ++s)
    if (lm.known[s]) {
      double t = lm.fixedSeconds[s] + lm.perGroupSeconds[s] * double(nd.totalGroups());
      best = any ? std::min(best, t) : t;
      any = true;
    }
  return best;
}

void MkmdGraphBuilder::devices(_cl_context *ctx) {
  if (!file.models.empty()) return;
  int zc = zeroCopySlot(ctx);
  for (size_t s = 0; s < ctx->slots.size(); ++s) {
    const BackingDevice *d = ctx->slots[s].dev;
    mk::Device m;
    // Short names, for tutti-mkmd --devices; the comment above them says which device.
    m.name = std::string(d->isGpu() ? "gpu" : (d->type & CL_DEVICE_TYPE_CPU) ? "cpu" : "dev") + std::to_string(s);
    labels.push_back(d->label());
    m.host = int(s) == zc;
    m.link = int(s);
    // The staged (pinned) rates are what Tutti's copies run at.
    const profiles::TransferModel &tm = storedTransferModel(deviceIdentity(d));
    const profiles::TransferFit &in = tm.get(profiles::Direction::H2D, true);
    const profiles::TransferFit &out = tm.get(profiles::Direction::D2H, true);
    m.h2dBandwidth = in.bandwidth;
    m.d2hBandwidth = out.bandwidth;
    m.latency = in.latency;
    if (m.host) m.fillBandwidth = hostFillBandwidth();
    // Uploads wait for the kernels queued before them (coherence.cpp's uploads through
    // staging wait for a marker on the slot's queue): the Triple Commutator's schedule on
    // one H200 had the CPU's 64 MB result arrive beside a product that it queued behind.
    m.queuedUploads = !m.host;
    file.models.push_back(m);
  }
}

int MkmdGraphBuilder::bufferOf(_cl_mem *m) {
  _cl_mem *root = rootOf(m);
  auto it = buffers_.find(root);
  if (it != buffers_.end()) return it->second;
  mk::Buffer b;
  b.name = "buf" + std::to_string(buffers_.size()) + "_" + std::to_string(root->size);
  b.bytes = root->size;
  b.fromHost = root->flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR);
  // Where its data are now: devices holding all of it (a kernel of an earlier window, or
  // the app's write, left them there), and whether the host's copy is current. Assumed on
  // the host, BiCGSTAB's matrix went to one H100 while every kernel ran on the other.
  const BufferStore &st = *root->store;
  const Range all{0, st.size};
  bool written = !st.hostValid.present(all).empty();
  for (size_t s = 0; s < st.devValid.size(); ++s) {
    if (st.devValid[s].missing(all).empty()) b.on.push_back(int(s));
    written |= !st.devValid[s].present(all).empty();
  }
  b.fromHost = b.fromHost || written;
  b.notOnHost = !b.on.empty() && !st.hostValid.missing(all).empty();
  b.cold = !st.home;  // allocated on first need, and its pages faulted in by the first copy
  file.graph.buffers.push_back(b);
  roots.push_back(root);
  return buffers_[root] = int(file.graph.buffers.size() - 1);
}

void MkmdGraphBuilder::add(Command *cmd) {
  devices(cmd->q->ctx);
  switch (cmd->kind) {
    case CmdKind::Kernel: break;
    case CmdKind::Write: case CmdKind::WriteRect: {
      // A held write: its data come from the app's memory, wherever the old ones are.
      mk::Buffer &b = file.graph.buffers[size_t(bufferOf(cmd->dst))];
      b.fromHost = true;
      b.on.clear();
      b.notOnHost = false;
      return;
    }
    case CmdKind::Read: case CmdKind::ReadRect: case CmdKind::Map:
      if (cmd->src && !cmd->src->isImage()) file.graph.buffers[size_t(bufferOf(cmd->src))].toHost = true;
      return;
    default: return;
  }
  const size_t nslots = cmd->q->ctx->slots.size();
  mk::Kernel node;
  node.name = sanitized(cmd->kernel->name) + "." + std::to_string(launches_[cmd->kernel->name]++);
  cc::NDRange nd;
  cc::ScalarArgs scalars;
  LaunchModel lm;
  bool splittable = false;
  bool known = launchModelOf(cmd, nd, scalars, lm, splittable);
  node.groups = known ? nd.totalGroups() : 1;
  node.splittable = known && splittable;
  for (size_t i = 0; i < cmd->args.size(); ++i) {
    const ArgValue &a = cmd->args[i];
    if (a.kind != ArgValue::Mem || !a.mem || a.mem->isImage()) continue;
    int b = bufferOf(a.mem);
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
  kernels.push_back(cmd);
  analysed.push_back(known);
  file.graph.kernels.push_back(node);
  file.kernelTime.push_back(t);
  file.timeKnown.push_back(have);
}

}  // namespace tutti
