// profile_mode.cpp - the profiling ladder of one launch shape on every backing device.
#include "profile_mode.h"

#include <algorithm>
#include <set>

#include <tutti/compiler.h>
#include <tutti/partitioner.h>

#include "backend.h"
#include "icd.h"
#include "log.h"
#include "profile_store.h"
#include "settings.h"
#include "skmd.h"
#include "transfer_probe.h"

namespace tutti {

namespace cc = tutti::compiler;
namespace pf = tutti::profiles;

namespace {

// A partition-ready kernel on one device with its arguments bound to scratch buffers, so
// the ladder never changes the app's data.
struct Bench {
  DeviceSlot *ds = nullptr;
  cl_kernel k = nullptr;
  std::vector<cl_mem> scratch;
  cl_uint nargs = 0;
  double lastSeconds = 0;  // of the last rung
  Bench() = default;
  Bench(const Bench &) = delete;
  ~Bench() {
    for (cl_mem m : scratch)
      if (m) icd(m).clReleaseMemObject(m);
    if (k) icd(k).clReleaseKernel(k);
  }
};

bool bindScratch(Command *cmd, Bench &b) {
  const cl_icd_dispatch &d = icd(b.k);
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < cmd->args.size() && err == CL_SUCCESS; ++i) {
    const ArgValue &a = cmd->args[i];
    switch (a.kind) {
      case ArgValue::Bytes: err = d.clSetKernelArg(b.k, i, a.bytes.size(), a.bytes.data()); break;
      case ArgValue::Local: err = d.clSetKernelArg(b.k, i, a.localSize, nullptr); break;
      case ArgValue::Mem: {
        cl_mem m = nullptr;
        if (a.mem && a.mem->size) {
          char *home = rootOf(a.mem)->store->home + a.mem->origin;
          m = d.clCreateBuffer(b.ds->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a.mem->size,
                               home, &err);
          b.scratch.push_back(m);
        }
        if (err == CL_SUCCESS) err = d.clSetKernelArg(b.k, i, sizeof(cl_mem), m ? &m : nullptr);
        break;
      }
      default: err = CL_INVALID_KERNEL_ARGS;
    }
  }
  b.nargs = cl_uint(cmd->args.size());
  return err == CL_SUCCESS;
}

// Seconds for the flattened groups [0, n) on b's device, first start to last end.
double runGroups(Bench &b, const cc::NDRange &nd, uint64_t n) {
  const cl_icd_dispatch &d = icd(b.k);
  std::vector<cl_event> evs;
  cl_int err = CL_SUCCESS;
  for (const cc::SubLaunch &s : cc::planPartialLaunch(nd, 0, n)) {
    for (unsigned i = 0; i < cc::kAbiArgs && err == CL_SUCCESS; ++i)
      err = d.clSetKernelArg(b.k, b.nargs + i, sizeof(cl_ulong), &s.abi[i]);
    size_t g[3], l[3];
    for (unsigned j = 0; j < 3; ++j) g[j] = size_t(s.global_size[j]), l[j] = size_t(s.local_size[j]);
    cl_event e = nullptr;
    if (err == CL_SUCCESS)
      err = d.clEnqueueNDRangeKernel(b.ds->queue, b.k, s.work_dim, nullptr, g, l, 0, nullptr, &e);
    if (err != CL_SUCCESS) break;
    evs.push_back(e);
  }
  double secs = -1;
  if (err == CL_SUCCESS && !evs.empty() && d.clWaitForEvents(cl_uint(evs.size()), evs.data()) == CL_SUCCESS) {
    cl_ulong start = 0, end = 0;
    if (d.clGetEventProfilingInfo(evs.front(), CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) ==
            CL_SUCCESS &&
        d.clGetEventProfilingInfo(evs.back(), CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
            CL_SUCCESS &&
        end >= start)
      secs = double(end - start) * 1e-9;
  }
  for (cl_event e : evs) d.clReleaseEvent(e);
  return secs;
}

// A rung slower than this ends the ladder once enough rungs are in: on a device 100x
// slower than the best, the top of a thesis-size ladder would otherwise take minutes, and
// the model's growth terms extrapolate from the rungs below.
constexpr double kSlowRung = 1.0;
constexpr size_t kEnoughRungs = 8;

// The ladder on one device; one sample per rung (best of two for short rungs).
size_t ladderOn(Command *cmd, Bench &b, int slot, const cc::NDRange &nd, const pf::Features &f) {
  runGroups(b, nd, 1);  // first launch pays for the driver's JIT and buffer placement
  size_t n = 0;
  for (uint64_t g : pf::profileLadder(nd.totalGroups())) {
    if (n >= kEnoughRungs && b.lastSeconds > kSlowRung) break;
    double s = runGroups(b, nd, g);
    b.lastSeconds = s;
    if (s >= 0 && s < 10e-3) {
      double again = runGroups(b, nd, g);
      if (again >= 0) s = std::min(s, again);
    }
    if (s <= 0) continue;
    queueKernelSample(kernelSample(cmd, slot, nd, f, g, s));
    ++n;
  }
  return n;
}


}  // namespace

bool profileLaunch(Runtime &, Command *cmd, IssueResult &out) {
  if (settings().profile != "1" || cmd->kind != CmdKind::Kernel || !profileDbEnabled()) return false;
  _cl_kernel *k = cmd->kernel;
  _cl_context *ctx = cmd->q->ctx;
  for (auto &a : cmd->args)
    if ((a.kind == ArgValue::Mem && a.mem && a.mem->isImage()) || a.kind == ArgValue::Sampler) return false;
  SkmdProgram *sp = skmdProgram(k->program);
  if (!sp->ok) return false;
  std::vector<Bench> benches(ctx->slots.size());
  std::vector<int> slots;
  const cc::KernelInfo *info = nullptr;
  for (size_t s = 0; s < ctx->slots.size(); ++s) {
    const cc::KernelInfo *ki = skmdKernelInfo(*sp, int(s), k->name);
    if (!ki || !ki->partitionable || ki->partition_kernel.empty() || !sp->progs[s]) continue;
    cl_int err = CL_SUCCESS;
    benches[s].ds = &ctx->slots[s];
    benches[s].k = icd(sp->progs[s]).clCreateKernel(sp->progs[s], ki->partition_kernel.c_str(), &err);
    if (err != CL_SUCCESS) continue;
    if (!info) info = ki;
    slots.push_back(int(s));
  }
  if (!info) return false;
  // The local size an app left open must be one every device accepts.
  cc::NDRange nd;
  cc::ScalarArgs scalars;
  size_t wg = SIZE_MAX;
  for (int s : slots) {
    size_t n = 0;
    icd(benches[s].k).clGetKernelWorkGroupInfo(benches[s].k, ctx->slots[s].dev->id,
                                               CL_KERNEL_WORK_GROUP_SIZE, sizeof n, &n, nullptr);
    if (n) wg = std::min(wg, n);
  }
  if (!skmdLaunchShape(cmd, wg == SIZE_MAX ? 0 : wg, nd, scalars)) return false;
  static std::set<std::pair<std::string, std::vector<uint64_t>>> done;
  auto key = std::make_pair(kernelIdentity(k), launchShape(cmd, nd, scalars));
  if (done.count(key)) return false;
  bool ready = true;
  for (auto &a : cmd->args)
    if (a.kind == ArgValue::Mem && a.mem) ready &= ensureHost(ctx, *rootOf(a.mem)->store, a.mem->range(), cmd);
  if (!ready) {
    out = {IssueResult::Staging, CL_SUCCESS};
    return true;
  }
  done.insert(key);
  for (int s : slots) measureTransfers(ctx->slots[s]);
  measureHostMemory();
  pf::Features f = launchFeatures(cmd, *info, nd, scalars);
  for (int s : slots) {
    if (!bindScratch(cmd, benches[s])) continue;
    size_t n = ladderOn(cmd, benches[s], s, nd, f);
    TUTTI_LOG(Info, "profiled '%s' (%llu groups) on %s: %zu samples", k->name.c_str(),
              (unsigned long long)nd.totalGroups(), ctx->slots[s].dev->label().c_str(), n);
  }
  flushProfileSamples();
  return false;
}

}  // namespace tutti
