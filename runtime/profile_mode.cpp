// profile_mode.cpp - the profiling ladder of one launch shape on every backing device, and
// validation of the stored models against random work-group counts (TUTTI_PROFILE=validate).
#include "profile_mode.h"

#include <errno.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>

#include <tutti/compiler.h>
#include <tutti/partitioner.h>

#include "backend.h"
#include "coherence.h"
#include "completion.h"
#include "issue.h"
#include "memory.h"
#include "icd.h"
#include "real_event.h"
#include "log.h"
#include "profile_store.h"
#include "settings.h"
#include "skmd.h"
#include "trace.h"
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
  std::vector<void *> hostCopies;  // the zero-copy CPU's scratch memory
  cl_uint nargs = 0;
  double lastSeconds = 0;  // of the last rung
  Bench() = default;
  Bench(const Bench &) = delete;
  ~Bench() {
    for (cl_mem m : scratch)
      if (m) icd(m).clReleaseMemObject(m);
    if (k) icd(k).clReleaseKernel(k);
    for (void *p : hostCopies) std::free(p);
  }
};

// The zero-copy CPU device runs real launches on the homes in place, so its scratch
// buffers wrap host memory allocated as homes are (page size and alignment decide which
// cache sets strided writes meet in): the profile times the memory the launches will use.
cl_mem scratchBuffer(Command *cmd, Bench &b, const char *src, size_t size, cl_int *err) {
  const cl_icd_dispatch &d = icd(b.k);
  _cl_context *ctx = cmd->q->ctx;
  int zc = zeroCopySlot(ctx);
  if (zc < 0 || b.ds != &ctx->slots[zc])
    return d.clCreateBuffer(b.ds->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size,
                            const_cast<char *>(src), err);
  void *p = allocHostMemory(size);
  if (!p) {
    *err = CL_OUT_OF_HOST_MEMORY;
    return nullptr;
  }
  b.hostCopies.push_back(p);
  std::memcpy(p, src, size);
  return d.clCreateBuffer(b.ds->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, p, err);
}

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
          m = scratchBuffer(cmd, b, home, a.mem->size, &err);
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
  std::vector<RealEvent> evs;
  cl_int err = CL_SUCCESS;
  for (const cc::SubLaunch &s : cc::planPartialLaunch(nd, 0, n)) {
    for (unsigned i = 0; i < cc::kAbiArgs && err == CL_SUCCESS; ++i)
      err = d.clSetKernelArg(b.k, b.nargs + i, sizeof(cl_ulong), &s.abi[i]);
    size_t g[3], l[3];
    for (unsigned j = 0; j < 3; ++j) g[j] = size_t(s.global_size[j]), l[j] = size_t(s.local_size[j]);
    RealEvent e;
    if (err == CL_SUCCESS)
      err = d.clEnqueueNDRangeKernel(b.ds->queue(), b.k, s.work_dim, nullptr, g, l, 0, nullptr, e.out());
    if (err != CL_SUCCESS) break;
    evs.push_back(std::move(e));
  }
  double secs = -1;
  if (err == CL_SUCCESS && !evs.empty() && waitAll(evs) == CL_SUCCESS) {
    cl_ulong start = 0, end = 0;
    if (d.clGetEventProfilingInfo(evs.front().get(), CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) ==
            CL_SUCCESS &&
        d.clGetEventProfilingInfo(evs.back().get(), CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
            CL_SUCCESS &&
        end >= start)
      secs = double(end - start) * 1e-9;
  }
  return secs;
}

// A rung slower than this ends the ladder once enough rungs are in: on a device 100x
// slower than the best, the top of a thesis-size ladder would otherwise take minutes, and
// the model's growth terms extrapolate from the rungs below.
constexpr double kSlowRung = 1.0;
constexpr size_t kEnoughRungs = 8;

// Seconds for groups [0, n): the fastest of TUTTI_PROFILE_REPEATS runs (one when a run takes
// over kSlowRung), each run's time in *runs when given. The ladder and validation time the
// same way, so that both see the device undisturbed.
double timeGroups(Bench &b, const cc::NDRange &nd, uint64_t n, std::vector<double> *runs = nullptr) {
  uint64_t repeats = std::max<uint64_t>(1, settings().profile_repeats);
  double best = -1;
  for (uint64_t r = 0; r < repeats; ++r) {
    double s = runGroups(b, nd, n);
    if (runs) runs->push_back(s);
    if (s >= 0 && (best < 0 || s < best)) best = s;
    if (s > kSlowRung) break;
  }
  return best;
}

// The ladder on one device; one sample per rung.
size_t ladderOn(Command *cmd, Bench &b, int slot, const cc::NDRange &nd, const pf::Features &f) {
  runGroups(b, nd, 1);  // first launch pays for the driver's JIT and buffer placement
  size_t n = 0;
  for (uint64_t g : pf::profileLadder(nd.totalGroups())) {
    if (n >= kEnoughRungs && b.lastSeconds > kSlowRung) break;
    double s = timeGroups(b, nd, g);
    b.lastSeconds = s;
    if (s <= 0) continue;
    queueKernelSample(kernelSample(cmd, slot, nd, f, g, s));
    ++n;
  }
  return n;
}

// cmd's partition-ready kernel on every device that has one, and the launch's NDRange.
struct Prepared {
  std::vector<Bench> benches;  // per slot (k == nullptr: no kernel there)
  std::vector<int> slots;      // slots with a kernel
  const cc::KernelInfo *info = nullptr;
  cc::NDRange nd;
  cc::ScalarArgs scalars;
  std::string why;  // when prepare() fails
  explicit Prepared(size_t nslots) : benches(nslots) {}
};

bool prepare(Command *cmd, Prepared &p) {
  _cl_kernel *k = cmd->kernel;
  _cl_context *ctx = cmd->q->ctx;
  for (auto &a : cmd->args)
    if ((a.kind == ArgValue::Mem && a.mem && a.mem->isImage()) || a.kind == ArgValue::Sampler) {
      p.why = "image or sampler arguments";
      return false;
    }
  SkmdProgram *sp = skmdProgram(k->program);
  if (!sp->ok) {
    p.why = "no partition-ready program: " + sp->why;
    return false;
  }
  for (size_t s = 0; s < ctx->slots.size(); ++s) {
    const cc::KernelInfo *ki = skmdKernelInfo(*sp, int(s), k->name);
    if (ki && !ki->partitionable && p.why.empty()) p.why = "not partitionable: " + ki->whole_reason;
    if (!ki || !ki->partitionable || ki->partition_kernel.empty() || !sp->progs[s]) continue;
    cl_int err = CL_SUCCESS;
    p.benches[s].ds = &ctx->slots[s];
    p.benches[s].k = icd(sp->progs[s]).clCreateKernel(sp->progs[s], ki->partition_kernel.c_str(), &err);
    if (err != CL_SUCCESS) continue;
    if (!p.info) p.info = ki;
    p.slots.push_back(int(s));
  }
  if (!p.info) {
    if (p.why.empty()) p.why = "no partition-ready kernel on any device";
    return false;
  }
  // The local size an app left open must be one every device accepts.
  size_t wg = SIZE_MAX;
  for (int s : p.slots) {
    size_t n = 0;
    icd(p.benches[s].k).clGetKernelWorkGroupInfo(p.benches[s].k, ctx->slots[s].dev->id,
                                                 CL_KERNEL_WORK_GROUP_SIZE, sizeof n, &n, nullptr);
    if (n) wg = std::min(wg, n);
  }
  if (!skmdLaunchShape(cmd, wg == SIZE_MAX ? 0 : wg, p.nd, p.scalars)) {
    p.why = "requires a work-group size the app did not give";
    return false;
  }
  return true;
}

// Validation records: JSON lines appended to TUTTI_VALIDATE_OUT (default stderr).
void writeRecord(const std::string &line) {
  static FILE *f = [] {
    const std::string &path = settings().validate_out;
    if (path.empty()) return stderr;
    FILE *out = std::fopen(path.c_str(), "a");
    if (!out)
      TUTTI_LOG(Error, "TUTTI_VALIDATE_OUT=%s: cannot open it, validation records go to stderr",
                path.c_str());
    return out ? out : stderr;
  }();
  std::fprintf(f, "%s\n", line.c_str());
  std::fflush(f);
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// The start of every record: which app, kernel and (slot >= 0) device.
std::string recordHead(Command *cmd, int slot) {
  std::string r = std::string("{\"app\":\"") + jsonEscape(program_invocation_short_name) +
                  "\",\"kernel\":\"" + jsonEscape(cmd->kernel->name) + "\",\"kernel_id\":\"" +
                  jsonEscape(kernelIdentity(cmd->kernel)) + "\"";
  if (slot >= 0) {
    BackingDevice *d = cmd->q->ctx->slots[slot].dev;
    r += ",\"device\":\"" + jsonEscape(deviceIdentity(d)) + "\",\"device_index\":" +
         std::to_string(d->index);
  }
  return r;
}

// A kernel (slot < 0) or device that cannot be validated: one record per kernel and reason.
void reportSkip(Command *cmd, int slot, const std::string &why) {
  // Also from the host-work thread (profileLaunch).
  static std::mutex mu;
  static std::set<std::string> said;
  std::string head = recordHead(cmd, slot);
  {
    std::lock_guard<std::mutex> g(mu);
    if (!said.insert(head + why).second) return;
  }
  TUTTI_LOG(Info, "validation: '%s' skipped: %s", cmd->kernel->name.c_str(), why.c_str());
  writeRecord(head + ",\"skipped\":\"" + jsonEscape(why) + "\"}");
}

uint64_t splitmix64(uint64_t &x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// TUTTI_VALIDATE_RUNS counts uniform over [1, total], from the seed, the kernel's name and
// the launch shape: the same on every device and in every run.
std::vector<uint64_t> randomCounts(const std::string &name, const std::vector<uint64_t> &shape,
                                   uint64_t total) {
  uint64_t x = settings().validate_seed;
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  auto mix = [&h](uint64_t byte) { h = (h ^ byte) * 1099511628211ULL; };
  for (char c : name) mix(static_cast<unsigned char>(c));
  for (uint64_t v : shape)
    for (int i = 0; i < 8; ++i) mix((v >> (8 * i)) & 0xff);
  x ^= h;
  std::vector<uint64_t> counts(settings().validate_runs);
  for (uint64_t &g : counts) {
    double u = double(splitmix64(x) >> 11) * 0x1p-53;  // [0, 1)
    g = std::min(total, 1 + uint64_t(u * double(total)));
  }
  return counts;
}

// Measures the counts on one device and compares each with the stored model's prediction.
void validateOn(Command *cmd, Bench &b, int slot, const cc::NDRange &nd, const pf::Features &f,
                const std::vector<uint64_t> &counts) {
  auto model = storedTimeModel(kernelIdentity(cmd->kernel), deviceIdentity(b.ds->dev));
  pf::Predictor pred;
  if (model) pred = model->bind(f);
  const char *kind = !model ? "none"
                     : model->kind() == pf::TimeModel::Kind::Regression ? "regression"
                                                                        : "nearest";
  auto predictMs = [&](uint64_t g) { return model ? pred(g) * 1e3 : NAN; };
  uint64_t total = nd.totalGroups();
  runGroups(b, nd, 1);  // JIT and buffer placement, as before the ladder
  double whole = timeGroups(b, nd, total) * 1e3;
  double wholePredicted = predictMs(total);
  std::string head = recordHead(cmd, slot) + ",\"work_dim\":" + std::to_string(nd.work_dim);
  for (const char *what : {"global", "local"}) {
    const uint64_t *v = what[0] == 'g' ? nd.global_size : nd.local_size;
    head += std::string(",\"") + what + "\":[" + std::to_string(v[0]) + "," + std::to_string(v[1]) +
            "," + std::to_string(v[2]) + "]";
  }
  head += ",\"total_groups\":" + std::to_string(total) + ",\"model\":\"" + kind +
          "\",\"model_samples\":" + std::to_string(model ? model->sampleCount() : 0) +
          ",\"whole_ms\":" + jsonNumber(whole > 0 ? whole : NAN) +
          ",\"whole_predicted_ms\":" + jsonNumber(wholePredicted) +
          ",\"seed\":" + std::to_string(settings().validate_seed);
  // The launch's features too, so that model variants can be judged offline against
  // these measurements (profiles/README.md).
  head += ",\"features\":{";
  for (auto it = f.begin(); it != f.end(); ++it) {
    std::string key;
    for (char c : it->first) key += (c == '"' || c == '\\') ? '_' : c;
    head += (it == f.begin() ? "\"" : ",\"") + key + "\":" + jsonNumber(it->second);
  }
  head += "}";
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    std::vector<double> runs;
    double measured = timeGroups(b, nd, counts[i], &runs) * 1e3;
    if (!(measured > 0)) measured = NAN;  // the run failed
    double predicted = predictMs(counts[i]);
    double err = (predicted - measured) / measured;
    // What SKMD predicts once it has timed a whole launch (TUTTI_MODEL_CORRECTION).
    double corrected = predicted * (whole > 0 && wholePredicted > 0 ? whole / wholePredicted : NAN);
    if (std::isfinite(err)) sum += std::fabs(err), ++n;
    std::string runsMs;
    for (double r : runs) runsMs += (runsMs.empty() ? "" : ",") + jsonNumber(r >= 0 ? r * 1e3 : NAN);
    writeRecord(head + ",\"run\":" + std::to_string(i) + ",\"groups\":" + std::to_string(counts[i]) +
                ",\"measured_ms\":" + jsonNumber(measured) + ",\"predicted_ms\":" +
                jsonNumber(predicted) + ",\"rel_error\":" + jsonNumber(err) +
                ",\"corrected_ms\":" + jsonNumber(corrected) + ",\"runs_ms\":[" +
                runsMs + "]}");
  }
  TUTTI_LOG(Info, "validated '%s' (%llu groups) on %s: %s model, mean |error| %.2f%% over %zu runs",
            cmd->kernel->name.c_str(), (unsigned long long)total, b.ds->dev->label().c_str(), kind,
            n ? 100 * sum / double(n) : NAN, n);
}

// The ladders (or validation runs) of one new launch shape, on every device with a kernel.
void profileShape(Command *cmd, Prepared &p, const pf::Features &f, const std::vector<uint64_t> &shape,
                  bool validate) {
  _cl_context *ctx = cmd->q->ctx;
  const cc::NDRange &nd = p.nd;
  if (validate) {
    std::vector<uint64_t> counts = randomCounts(cmd->kernel->name, shape, nd.totalGroups());
    for (size_t s = 0; s < ctx->slots.size(); ++s) {
      if (!p.benches[s].k) reportSkip(cmd, int(s), "no partition-ready kernel on this device");
      else if (!bindScratch(cmd, p.benches[s])) reportSkip(cmd, int(s), "scratch buffers failed");
      else validateOn(cmd, p.benches[s], int(s), nd, f, counts);
    }
    return;
  }
  for (int s : p.slots) measureTransfers(ctx->slots[s]);
  measureHostMemory();
  for (int s : p.slots) {
    if (!bindScratch(cmd, p.benches[s])) continue;
    size_t n = ladderOn(cmd, p.benches[s], s, nd, f);
    TUTTI_LOG(Info, "profiled '%s' (%llu groups) on %s: %zu samples", cmd->kernel->name.c_str(),
              (unsigned long long)nd.totalGroups(), ctx->slots[s].dev->label().c_str(), n);
  }
  flushProfileSamples();
}

}  // namespace

bool profileLaunch(Command *cmd) {
  ProfileMode mode = settings().profile;
  bool validate = mode == ProfileMode::Validate;
  if (mode == ProfileMode::Off || cmd->kind != CmdKind::Kernel || !profileDbEnabled()) return false;
  _cl_kernel *k = cmd->kernel;
  _cl_context *ctx = cmd->q->ctx;
  auto p = std::make_shared<Prepared>(ctx->slots.size());
  if (!prepare(cmd, *p)) {
    if (validate) reportSkip(cmd, -1, p->why);
    return false;
  }
  static std::set<std::pair<std::string, std::vector<uint64_t>>> done;  // under the API lock
  auto key = std::make_pair(kernelIdentity(k), launchShape(cmd, p->nd, p->scalars));
  if (done.count(key)) return false;
  bool ready = true;
  for (auto &a : cmd->args)
    if (a.kind == ArgValue::Mem && a.mem) ready &= ensureHost(ctx, *rootOf(a.mem)->store, a.mem->range(), cmd);
  if (!ready) return true;
  done.insert(key);
  pf::Features f = launchFeatures(cmd, *p->info, p->nd, p->scalars);
  // The ladder waits for the drivers for seconds: it runs on the host-work thread with
  // the API lock released, and the launch is issued once it is over. The scratch buffers
  // are copies of the homes, which commands that write them wait for this one to leave.
  // A driver that must not be called beside the lock runs it here instead.
  bool outside = std::all_of(ctx->slots.begin(), ctx->slots.end(),
                             [](const DeviceSlot &d) { return d.dev->callsOutsideLock; });
  if (!outside) {
    profileShape(cmd, *p, f, key.second, validate);
    return false;
  }
  cmd->hostWork = [cmd, p, f = std::move(f), shape = std::move(key.second), validate] {
    profileShape(cmd, *p, f, shape, validate);
    return CL_SUCCESS;
  };
  return true;
}

}  // namespace tutti
