// skmd_program.cpp - compiles a program's partition-ready variants for each backing device.
#include <cstdlib>
#include <mutex>
#include <thread>

#include <tutti/compiler.h>

#include "backend.h"
#include "clock.h"
#include "icd.h"
#include "log.h"
#include "profile_store.h"
#include "settings.h"
#include "skmd.h"
#include "trace.h"
#include "transfer_probe.h"
#include "worker_pool.h"

namespace tutti {

namespace cc = tutti::compiler;

namespace {

std::string cacheDir() {
  const std::string &s = settings().kernel_cache;
  if (s == "off") return "";
  if (!s.empty()) return s;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tutti/kernels";
  if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tutti/kernels";
  return "";
}

// NVIDIA's OpenCL takes our PTX; PoCL takes SPIR bitcode. Other drivers get nothing
// transformed, so their slots do not take part in split launches.
bool targetFor(BackingDevice *d, cc::Target &t, std::string &arch) {
  if (d->platformName.find("Portable Computing Language") != std::string::npos) {
    t = cc::Target::Spir64;
    return true;
  }
  if (d->isGpu() && d->vendor.find("NVIDIA") != std::string::npos) {
    cl_uint major = 0, minor = 0;
    const cl_device_info kMajor = 0x4000, kMinor = 0x4001;  // CL_DEVICE_COMPUTE_CAPABILITY_*_NV
    icd(d->id).clGetDeviceInfo(d->id, kMajor, sizeof major, &major, nullptr);
    icd(d->id).clGetDeviceInfo(d->id, kMinor, sizeof minor, &minor, nullptr);
    if (major == 0) return false;
    t = cc::Target::Nvptx64;
    // LLVM 15's PTX for sm_90 does not assemble in NVIDIA's driver; sm_80 PTX is
    // JIT-compiled for newer GPUs (checked on the H100, FACTS.md).
    unsigned cc = major * 10 + minor;
    arch = "sm_" + std::to_string(cc >= 80 ? 80u : cc);
    return true;
  }
  return false;
}

cl_program buildOn(DeviceSlot &ds, const cc::CompileResult &r, std::string &why) {
  const unsigned char *bin = r.binary.data();
  size_t len = r.binary.size();
  cl_int st = CL_SUCCESS, err = CL_SUCCESS;
  const cl_icd_dispatch &d = icd(ds.ctx);
  cl_program p = d.clCreateProgramWithBinary(ds.ctx, 1, &ds.dev->id, &len, &bin, &st, &err);
  if (err != CL_SUCCESS) {
    why = std::string("clCreateProgramWithBinary: ") + clErrorName(err);
    return nullptr;
  }
  err = d.clBuildProgram(p, 1, &ds.dev->id, r.build_options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t n = 0;
    d.clGetProgramBuildInfo(p, ds.dev->id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    if (n) d.clGetProgramBuildInfo(p, ds.dev->id, CL_PROGRAM_BUILD_LOG, n, &log[0], nullptr);
    why = std::string("clBuildProgram: ") + clErrorName(err) + ": " + log.substr(0, 400);
    d.clReleaseProgram(p);
    return nullptr;
  }
  return p;
}

}  // namespace

SkmdProgram::~SkmdProgram() {
  for (auto &k : kernels)
    for (cl_kernel rk : k.second)
      if (rk) icd(rk).clReleaseKernel(rk);
  for (cl_program p : progs)
    if (p) icd(p).clReleaseProgram(p);
}

namespace {

// Clang and LLVM are run by one thread at a time: builds now compile with the runtime
// lock released, so two threads' builds could otherwise enter the compiler together.
std::mutex g_compileMu;

// Compiles and builds the partition-ready variants of source for every slot of ctx.
// Reads only ctx's slots, which never change, so it needs no runtime lock.
std::shared_ptr<SkmdProgram> compileSkmd(_cl_context *ctx, const std::string &source,
                                         const std::string &options) {
  auto sp = std::make_shared<SkmdProgram>();
  sp->source = source;
  sp->options = options;
  sp->id = std::to_string(std::hash<std::string>()(source)) + '-' +
           std::to_string(std::hash<std::string>()(options));
  if (source.empty()) {
    sp->why = "the program has no source (linked or built from a driver binary)";
    return sp;
  }
  std::map<std::string, std::shared_ptr<const cc::CompileResult>> byTarget;
  size_t n = ctx->slots.size(), usable = 0;
  sp->progs.assign(n, nullptr);
  sp->results.assign(n, nullptr);
  std::vector<std::shared_ptr<const cc::CompileResult>> res(n);
  for (size_t s = 0; s < n; ++s) {
    DeviceSlot &ds = ctx->slots[s];
    cc::CompileRequest req;
    std::string arch;
    if (!targetFor(ds.dev, req.target, arch)) continue;
    req.source = source;
    req.options = options;
    req.gpu_arch = arch;
    req.cache_dir = cacheDir();
    // VAST's paged-access variants cost compile time: only where a device may need them
    // (a GPU, a TUTTI_MEM_LIMIT) or TUTTI_VAST=force asks.
    const Settings &set = settings();
    // Every device gets them then: a CPU device runs the inspector for a GPU's slices.
    req.emit_vast_variants = set.vast == VastMode::Force ||
                             (set.vast == VastMode::Auto && (backend().anyGpu() || !set.mem_limit.limits.empty()));
    std::string key = std::string(cc::targetName(req.target)) + arch + (req.emit_vast_variants ? "+vast" : "");
    auto &r = byTarget[key];
    if (!r) {
      const uint64_t t0 = tracing() ? nowNs() : 0;
      std::shared_ptr<cc::CompileResult> c;
      {
        std::lock_guard<std::mutex> g(g_compileMu);
        c = std::make_shared<cc::CompileResult>(cc::compile(req));
      }
      if (t0) traceSpan(-1, "tutti", "compile partition-ready program", t0, nowNs(), 0);
      TUTTI_LOG(Info, "compiled program for %s in %.1f ms%s", key.c_str(), c->compile_ms,
                c->from_cache ? " (cached)" : "");
      if (!c->ok) TUTTI_LOG(Warn, "kernel compiler (%s): %s", key.c_str(), c->error.c_str());
      r = c;
    }
    if (r->ok) res[s] = r;
  }
  // The drivers build in parallel: the program costs the slowest driver's build, not the
  // sum (PoCL's LLVM next to NVIDIA's PTX JIT).
  std::vector<std::string> why(n);
  auto build = [&](size_t s) {
    const uint64_t t0 = tracing() ? nowNs() : 0;
    sp->progs[s] = buildOn(ctx->slots[s], *res[s], why[s]);
    if (t0) traceSpan(ctx->slots[s].dev->index, "tutti", "build partition-ready program", t0, nowNs(), 0);
  };
  std::vector<size_t> built;
  for (size_t s = 0; s < n; ++s)
    if (res[s]) built.push_back(s);
  eachOnOwnThread(built, build);
  for (size_t s = 0; s < n; ++s) {
    if (!res[s]) continue;
    if (!sp->progs[s]) {
      TUTTI_LOG(Warn, "%s: partition-ready program does not build: %s", ctx->slots[s].dev->label().c_str(),
                why[s].c_str());
      continue;
    }
    sp->results[s] = res[s];
    ++usable;
  }
  sp->ok = usable >= 2;
  if (!sp->ok) sp->why = "fewer than two backing devices can run partition-ready kernels";
  return sp;
}

// VAST's variants of one kernel on one slot, made and asked their work-group size before
// the first launch needs them: the driver's first look at a kernel may load (or JIT) it.
void createVastKernels(SkmdProgram &sp, int slot, const cc::KernelInfo &ki, cl_device_id dev) {
  for (const std::string *v : {&ki.paged_kernel, &ki.rebased_kernel, &ki.inspector_kernel}) {
    if (v->empty()) continue;
    cl_kernel rk = skmdVariantKernel(sp, slot, *v, *v);
    size_t n = 0;
    if (rk) icd(rk).clGetKernelWorkGroupInfo(rk, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof n, &n, nullptr);
  }
}

}  // namespace

SkmdProgram *skmdProgram(_cl_program *p) {
  // Asked at every launch under SKMD. A program's source is set once, when it is made, so
  // only a rebuild with other options makes the variants stale; the sizes guard the rest
  // without comparing a whole program's text each time.
  if (p->skmd && p->skmd->source.size() == p->source.size() && p->skmd->options == p->options)
    return p->skmd.get();
  p->skmd = compileSkmd(p->ctx, p->source, p->options);
  return p->skmd.get();
}

std::shared_ptr<SkmdProgram> skmdPrepare(_cl_context *ctx, const std::string &source,
                                         const std::string &options,
                                         const std::vector<std::string> &kernelNames) {
  // Profiling mode times the partition-ready kernels of whole launches too: built here,
  // with the API lock released, not at the first launch under it. So are VAST's variants
  // where the settings make paging likely (TUTTI_VAST=force, a TUTTI_MEM_LIMIT): a GPU's
  // PTX JIT and PoCL's build of every variant cost FDTD3d's first launch 108 ms on an
  // H200, which the app's own build is where it would pay natively.
  const Settings &set = settings();
  const bool vastLikely =
      set.vast == VastMode::Force || (set.vast == VastMode::Auto && !set.mem_limit.limits.empty());
  if ((set.mode == KernelMode::Whole && set.profile == ProfileMode::Off && !vastLikely) || source.empty())
    return nullptr;
  uint64_t t0 = nowNs();
  std::shared_ptr<SkmdProgram> sp = compileSkmd(ctx, source, options);
  if (!sp->ok) return sp;
  skmdCreateKernels(kernelNames, *sp);
  for (size_t s = 0; s < ctx->slots.size(); ++s)
    for (const std::string &name : kernelNames)
      if (const cc::KernelInfo *ki = skmdKernelInfo(*sp, int(s), name)) {
        cc::warmAnalyses(*ki);
        if (vastLikely) createVastKernels(*sp, int(s), *ki, ctx->slots[s].dev->id);
      }
  if (!profileDbEnabled()) return sp;
  for (const std::string &name : kernelNames)
    for (auto &ds : ctx->slots) storedTimeModel(sp->id + '-' + name, deviceIdentity(ds.dev));
  for (auto &ds : ctx->slots) storedTransferModel(deviceIdentity(ds.dev));
  storedTransferModel(kHostMemoryId);
  TUTTI_LOG(Info, "partition-ready program and time models ready in %.1f ms", (nowNs() - t0) / 1e6);
  return sp;
}

}  // namespace tutti
