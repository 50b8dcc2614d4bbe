// api_program.cpp - programs: built for every backing device with the app's options.
#include <cstring>
#include <thread>

#include "api.h"
#include "backend_program.h"
#include "program_binary.h"
#include "skmd.h"
#include "worker_pool.h"

using namespace tutti;

namespace {

std::string deviceKey(BackingDevice *d) {
  return d->platformName + "|" + d->name + "|" + d->driverVersion;
}

bool asksArgInfo(const std::string &options) {
  return options.find("-cl-kernel-arg-info") != std::string::npos;
}

// Tutti needs argument info (address space, const) for coherence, on every driver.
std::string realOptions(const std::string &app) {
  if (asksArgInfo(app)) return app;
  return app.empty() ? "-cl-kernel-arg-info" : app + " -cl-kernel-arg-info";
}

// A program another thread is building has no executable yet (its kernel names, logs
// and slots are published when the build ends).
bool anyBuilt(const _cl_program *p) {
  if (p->building) return false;
  for (auto &s : p->slots)
    if (s.binaryType == CL_PROGRAM_BINARY_TYPE_EXECUTABLE) return true;
  return false;
}

_cl_program *newProgram(cl_context ctx) {
  auto *p = new _cl_program();
  p->ctx = ctx;
  p->slots.resize(ctx->slots.size());
  runtime().retain(ctx);
  runtime().add(p, ObjType::Program);
  return p;
}

void createFromSource(_cl_program *p) {
  for (size_t i = 0; i < p->slots.size(); ++i) {
    if (p->slots[i].prog) continue;
    p->slots[i].prog = realProgramWithSource(p->ctx->slots[i].ctx, p->source);
  }
}

// A slot whose program came from the build cache gets a program from the app's source
// again before the app rebuilds or compiles it (other options may give other code).
void sourceAgain(_cl_program *p) {
  for (size_t i = 0; i < p->slots.size(); ++i) {
    ProgramSlot &s = p->slots[i];
    if (!s.fromBuildCache) continue;
    if (s.prog) realReleaseProgram(s.prog);
    s.prog = nullptr;
    s.fromBuildCache = false;
  }
  createFromSource(p);
}

// What a build's slots bring back from the unlocked phase, published under the lock.
struct BuildOutcome {
  std::vector<cl_program> progs;   // per slot: the real program (clLinkProgram makes new ones)
  std::vector<cl_int> res;         // per slot: the driver's answer
  std::vector<std::string> logs;   // per slot: its build log
  std::vector<std::string> kernelNames;
  std::shared_ptr<SkmdProgram> skmd;  // skmd mode: partition-ready variants, fitted models
};

// Runs fn(slot index, real program (by reference: a link puts its new one there), real
// device) -> cl_int for every slot with the API
// lock released, the slots in parallel: a build costs the slowest driver's time, not the
// sum (PoCL's LLVM compile next to NVIDIA's was most of Tutti's fixed cost per run on the
// H100), and another thread's enqueues do not wait for it (issue 16). The build logs, the
// kernel names and, when `executable`, the partition-ready variants (skmdPrepare: Clang,
// driver builds, model fits) are made in the same unlocked phase. Meanwhile p is marked
// building (a second build: CL_INVALID_OPERATION, clCreateKernel:
// CL_INVALID_PROGRAM_EXECUTABLE) and p and `hold` (headers, link inputs: their real
// programs are used) carry an internal reference, so a release cannot free them under
// the driver. The caller publishes the outcome and calls finishUnlocked.
template <typename F>
BuildOutcome buildUnlocked(ApiLock &lock, _cl_program *p, const std::vector<_cl_program *> &hold,
                           bool executable, F fn) REQUIRES(apiMutex) {
  p->building = true;
  runtime().retain(p);
  for (_cl_program *h : hold) runtime().retain(h);
  _cl_context *ctx = p->ctx;  // the program's reference keeps it; its slots never change
  std::string source = p->source, options = p->options;
  BuildOutcome out;
  size_t n = p->slots.size();
  for (size_t i = 0; i < n; ++i) out.progs.push_back(p->slots[i].prog);
  out.res.assign(n, CL_SUCCESS);
  out.logs.resize(n);
  lock.unlock();
  auto one = [&](size_t i) {
    cl_device_id d = ctx->slots[i].dev->id;
    out.res[i] = fn(i, out.progs[i], d);
    if (out.progs[i]) out.logs[i] = realBuildLog(out.progs[i], d);
  };
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  eachOnOwnThread(all, one);
  if (executable) {
    bool any = false;
    for (size_t i = 0; i < n && out.kernelNames.empty(); ++i)
      if (out.progs[i] && out.res[i] == CL_SUCCESS) {
        any = true;
        if (realKernelNames(out.progs[i], out.kernelNames)) break;
      }
    if (any) out.skmd = skmdPrepare(ctx, source, options, out.kernelNames);
  }
  lock.lock();
  return out;
}

// Ends buildUnlocked's phase (lock held): p may be freed here if the app released it.
void finishUnlocked(_cl_program *p, const std::vector<_cl_program *> &hold) {
  for (_cl_program *h : hold) runtime().release(h);
  p->building = false;
  runtime().release(p);
}

void notifyBuild(ApiLock &lock, _cl_program *p, void(CL_CALLBACK *fn)(cl_program, void *), void *user) {
  if (!fn) return;
  (void)lock;
  runtime().afterUnlock([fn, p, user] { fn(p, user); });
}

std::string combinedLog(_cl_program *p) {
  std::string out;
  for (size_t i = 0; i < p->slots.size(); ++i) {
    const std::string &l = p->slots[i].log;
    if (l.empty()) continue;
    if (p->slots.size() > 1) out += "[" + p->ctx->slots[i].dev->label() + "]\n";
    out += l + "\n";
  }
  return out;
}

}  // namespace

TUTTI_API cl_program CL_API_CALL clCreateProgramWithSource(cl_context ctx, cl_uint count,
                                                           const char **strings,
                                                           const size_t *lengths, cl_int *errcode) {
  ApiLock lock;
  if (!validContext(ctx)) return setErr(errcode, CL_INVALID_CONTEXT), nullptr;
  if (count == 0 || !strings) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  std::string src;
  for (cl_uint i = 0; i < count; ++i) {
    if (!strings[i]) return setErr(errcode, CL_INVALID_VALUE), nullptr;
    if (lengths && lengths[i]) src.append(strings[i], lengths[i]);
    else src.append(strings[i]);
  }
  _cl_program *p = newProgram(ctx);
  p->source = src;
  p->fromSource = true;
  createFromSource(p);
  setErr(errcode, CL_SUCCESS);
  return p;
}

TUTTI_API cl_program CL_API_CALL clCreateProgramWithBinary(cl_context ctx, cl_uint n,
                                                           const cl_device_id *devices,
                                                           const size_t *lengths,
                                                           const unsigned char **binaries,
                                                           cl_int *status, cl_int *errcode) {
  ApiLock lock;
  if (!validContext(ctx)) return setErr(errcode, CL_INVALID_CONTEXT), nullptr;
  if (n == 0 || !devices) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  cl_int err = checkDeviceList(n, devices);
  if (err != CL_SUCCESS) return setErr(errcode, err), nullptr;
  if (!lengths || !binaries) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  for (cl_uint i = 0; i < n; ++i)
    if (!lengths[i] || !binaries[i]) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  ProgramBinary pb;
  if (!pb.parse(binaries[0], lengths[0])) {
    if (status) status[0] = CL_INVALID_BINARY;
    return setErr(errcode, CL_INVALID_BINARY), nullptr;
  }
  if (status)
    for (cl_uint i = 0; i < n; ++i) status[i] = CL_SUCCESS;
  _cl_program *p = newProgram(ctx);
  p->fromBinary = true;
  p->source = pb.source;
  p->options = pb.options;
  p->argInfo = asksArgInfo(pb.options);
  for (size_t i = 0; i < p->slots.size(); ++i) {
    BackingDevice *d = ctx->slots[i].dev;
    for (auto &e : pb.entries) {
      if (e.deviceKey != deviceKey(d) || e.bytes.empty()) continue;
      if (cl_program rp = realProgramWithBinary(ctx->slots[i].ctx, d->id, e.bytes)) {
        p->slots[i].prog = rp;
        p->slots[i].binaryType = e.binaryType;
      }
      break;
    }
  }
  // Devices without a matching binary rebuild from the source the container carries.
  if (!p->source.empty()) createFromSource(p);
  setErr(errcode, CL_SUCCESS);
  return p;
}

TUTTI_API cl_program CL_API_CALL clCreateProgramWithIL(cl_context ctx, const void *il, size_t len,
                                                       cl_int *errcode) {
  ApiLock lock;
  if (!validContext(ctx)) return setErr(errcode, CL_INVALID_CONTEXT), nullptr;
  if (!il || !len) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  // CL_DEVICE_IL_VERSION is empty: no IL is supported on every backing device.
  return setErr(errcode, CL_INVALID_OPERATION), nullptr;
}

TUTTI_API cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(cl_context ctx, cl_uint n,
                                                                   const cl_device_id *devices,
                                                                   const char *names,
                                                                   cl_int *errcode) {
  ApiLock lock;
  if (!validContext(ctx)) return setErr(errcode, CL_INVALID_CONTEXT), nullptr;
  cl_int err = checkDeviceList(n, devices);
  if (err != CL_SUCCESS || n == 0) return setErr(errcode, err ? err : CL_INVALID_VALUE), nullptr;
  if (!names) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  return setErr(errcode, CL_INVALID_VALUE), nullptr;  // no built-in kernels
}

TUTTI_API cl_int CL_API_CALL clRetainProgram(cl_program p) {
  ApiLock lock;
  if (!validProgram(p)) return CL_INVALID_PROGRAM;
  ++p->refs;
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clReleaseProgram(cl_program p) {
  ApiLock lock;
  if (!validProgram(p)) return CL_INVALID_PROGRAM;
  runtime().releaseApp(p);
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clSetProgramReleaseCallback(cl_program p,
                                                         void(CL_CALLBACK *fn)(cl_program, void *),
                                                         void *user) {
  ApiLock lock;
  if (!validProgram(p)) return CL_INVALID_PROGRAM;
  if (!fn) return CL_INVALID_VALUE;
  // Deprecated in 3.0 and needs global destructors support, which the device lacks.
  (void)user;
  return CL_INVALID_OPERATION;
}

TUTTI_API cl_int CL_API_CALL clSetProgramSpecializationConstant(cl_program p, cl_uint, size_t,
                                                                const void *) {
  ApiLock lock;
  if (!validProgram(p)) return CL_INVALID_PROGRAM;
  return CL_INVALID_OPERATION;  // no device takes IL programs (3.0 appendix: IL programs)
}

TUTTI_API cl_int CL_API_CALL clBuildProgram(cl_program p, cl_uint n, const cl_device_id *devices,
                                            const char *options,
                                            void(CL_CALLBACK *notify)(cl_program, void *),
                                            void *user) {
  ApiLock lock;
  if (!validProgram(p)) return CL_INVALID_PROGRAM;
  cl_int err = checkDeviceList(n, devices);
  if (err != CL_SUCCESS) return err;
  if (!notify && user) return CL_INVALID_VALUE;
  if (p->building) return CL_INVALID_OPERATION;
  if (p->kernelsAttached) return CL_INVALID_OPERATION;
  bool haveCode = !p->source.empty() ||
                  std::any_of(p->slots.begin(), p->slots.end(), [](auto &s) { return s.prog; });
  if (!haveCode) return CL_INVALID_PROGRAM;
  p->options = options ? options : "";
  // A binary keeps the argument info its container says it was compiled with.
  p->argInfo = asksArgInfo(p->options) || (p->fromBinary && p->argInfo);
  std::string opts = realOptions(p->options);
  if (p->fromSource) sourceAgain(p);
  // Programs from the app's source may be built from the build cache (issue 17: PoCL
  // preprocessed the OpenCL C header for every backing device, one at a time); the app
  // sees the cached build's log, so nothing it sees changes.
  size_t slots = p->slots.size();
  std::vector<std::string> keys(slots), cachedLogs(slots);
  std::vector<char> cached(slots, 0);
  if (p->fromSource)
    for (size_t i = 0; i < slots; ++i) {
      BackingDevice *d = p->ctx->slots[i].dev;
      keys[i] = buildCacheKey(d->platformName, deviceKey(d), opts, p->source);
    }
  _cl_context *ctx = p->ctx;
  BuildOutcome o = buildUnlocked(lock, p, {}, true, [&](size_t i, cl_program &rp, cl_device_id d) {
    if (!rp) return cl_int(CL_INVALID_PROGRAM);
    bool hit = false;
    cl_int e = realBuildCached(ctx->slots[i].ctx, rp, d, opts, keys[i], &cachedLogs[i], &hit);
    cached[i] = hit;
    return e;
  });
  const std::vector<cl_int> &res = o.res;
  bool any = false;
  cl_int firstErr = CL_SUCCESS;
  for (size_t i = 0; i < p->slots.size(); ++i) {
    ProgramSlot &s = p->slots[i];
    if (o.progs[i] != s.prog) {  // built from the cache: the source program was released
      s.prog = o.progs[i];
      s.fromBuildCache = true;
    }
    if (cached[i]) o.logs[i] = std::move(cachedLogs[i]);
    s.log = std::move(o.logs[i]);
    s.status = res[i] == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
    s.binaryType = res[i] == CL_SUCCESS ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE : CL_PROGRAM_BINARY_TYPE_NONE;
    if (res[i] == CL_SUCCESS) any = true;
    else {
      if (firstErr == CL_SUCCESS) firstErr = res[i];
      TUTTI_LOG(Warn, "%s: clBuildProgram failed: %s", p->ctx->slots[i].dev->label().c_str(),
                clErrorName(res[i]));
    }
  }
  if (firstErr == CL_INVALID_BUILD_OPTIONS) {
    for (auto &s : p->slots) s.status = CL_BUILD_ERROR, s.binaryType = CL_PROGRAM_BINARY_TYPE_NONE;
    p->kernelNames.clear();
    notifyBuild(lock, p, notify, user);
    finishUnlocked(p, {});
    return CL_INVALID_BUILD_OPTIONS;
  }
  if (any && firstErr != CL_SUCCESS)
    TUTTI_LOG(Warn, "program built on some backing devices only; its kernels run there");
  p->kernelNames = std::move(o.kernelNames);
  if (o.skmd) p->skmd = std::move(o.skmd);
  notifyBuild(lock, p, notify, user);
  finishUnlocked(p, {});
  return any ? CL_SUCCESS : CL_BUILD_PROGRAM_FAILURE;
}

TUTTI_API cl_int CL_API_CALL clCompileProgram(cl_program p, cl_uint n, const cl_device_id *devices,
                                              const char *options, cl_uint numHeaders,
                                              const cl_program *headers, const char **headerNames,
                                              void(CL_CALLBACK *notify)(cl_program, void *),
                                              void *user) {
  ApiLock lock;
  if (!validProgram(p)) return CL_INVALID_PROGRAM;
  cl_int err = checkDeviceList(n, devices);
  if (err != CL_SUCCESS) return err;
  if (!notify && user) return CL_INVALID_VALUE;
  if ((numHeaders == 0) != (headers == nullptr) || (numHeaders == 0) != (headerNames == nullptr))
    return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < numHeaders; ++i)
    if (!headerNames[i]) return CL_INVALID_VALUE;
    else if (!validProgram(headers[i])) return CL_INVALID_PROGRAM;
  // Programs from binaries carry source for rebuilding, but the app gave no source. An
  // empty source string is still source (PoCL compiles it).
  if (!p->fromSource) return CL_INVALID_OPERATION;
  if (p->building || p->kernelsAttached) return CL_INVALID_OPERATION;
  sourceAgain(p);
  p->options = options ? options : "";
  p->argInfo = asksArgInfo(p->options);
  std::string opts = realOptions(p->options);
  std::vector<std::vector<cl_program>> hdr(p->slots.size());
  std::vector<_cl_program *> hold;
  for (cl_uint h = 0; h < numHeaders; ++h) hold.push_back(headers[h]);
  // A header built from the build cache came from a binary, so the driver has no source
  // for it to include: the compile gets a program made from the header's source, for as
  // long as it runs (the header's own program stays, its kernels depend on it).
  std::vector<cl_program> temps;
  for (size_t i = 0; i < p->slots.size(); ++i)
    for (cl_uint h = 0; h < numHeaders; ++h) {
      const ProgramSlot &hs = headers[h]->slots[i];
      cl_program rp = hs.prog;
      if (hs.fromBuildCache) temps.push_back(rp = realProgramWithSource(p->ctx->slots[i].ctx, headers[h]->source));
      hdr[i].push_back(rp);
    }
  BuildOutcome o = buildUnlocked(lock, p, hold, false, [&](size_t i, cl_program rp, cl_device_id d) {
    return rp ? realCompile(rp, d, opts, numHeaders, hdr[i].data(), headerNames)
              : CL_INVALID_PROGRAM;
  });
  for (cl_program t : temps)
    if (t) realReleaseProgram(t);
  const std::vector<cl_int> &res = o.res;
  bool any = false;
  cl_int firstErr = CL_SUCCESS;
  for (size_t i = 0; i < p->slots.size(); ++i) {
    ProgramSlot &s = p->slots[i];
    s.log = std::move(o.logs[i]);
    s.status = res[i] == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
    s.binaryType = res[i] == CL_SUCCESS ? CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT : CL_PROGRAM_BINARY_TYPE_NONE;
    any |= res[i] == CL_SUCCESS;
    if (res[i] != CL_SUCCESS && firstErr == CL_SUCCESS) firstErr = res[i];
  }
  notifyBuild(lock, p, notify, user);
  finishUnlocked(p, hold);
  if (firstErr == CL_INVALID_COMPILER_OPTIONS || firstErr == CL_INVALID_BUILD_OPTIONS)
    return CL_INVALID_COMPILER_OPTIONS;
  return any ? CL_SUCCESS : CL_COMPILE_PROGRAM_FAILURE;
}

TUTTI_API cl_program CL_API_CALL clLinkProgram(cl_context ctx, cl_uint n, const cl_device_id *devices,
                                               const char *options, cl_uint numInputs,
                                               const cl_program *inputs,
                                               void(CL_CALLBACK *notify)(cl_program, void *),
                                               void *user, cl_int *errcode) {
  ApiLock lock;
  if (!validContext(ctx)) return setErr(errcode, CL_INVALID_CONTEXT), nullptr;
  cl_int err = checkDeviceList(n, devices);
  if (err != CL_SUCCESS) return setErr(errcode, err), nullptr;
  if (!notify && user) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  if (numInputs == 0 || !inputs) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  for (cl_uint i = 0; i < numInputs; ++i) {
    if (!validProgram(inputs[i]) || inputs[i]->ctx != ctx) return setErr(errcode, CL_INVALID_PROGRAM), nullptr;
    if (!std::any_of(inputs[i]->slots.begin(), inputs[i]->slots.end(), [](auto &s) {
          return s.binaryType == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT ||
                 s.binaryType == CL_PROGRAM_BINARY_TYPE_LIBRARY;
        }))
      return setErr(errcode, CL_INVALID_OPERATION), nullptr;
  }
  _cl_program *p = newProgram(ctx);
  p->options = options ? options : "";
  // -cl-kernel-arg-info is a compile option: a kernel may come from any input.
  p->argInfo = std::any_of(inputs, inputs + numInputs, [](cl_program in) { return in->argInfo; });
  // Without argument info in the linked program Tutti cannot tell buffers from values.
  std::string opts = realOptions(p->options);
  bool library = opts.find("-create-library") != std::string::npos;
  std::vector<std::vector<cl_program>> in(p->slots.size());
  std::vector<_cl_program *> hold(inputs, inputs + numInputs);
  for (size_t i = 0; i < p->slots.size(); ++i)
    for (cl_uint k = 0; k < numInputs; ++k)
      if (inputs[k]->slots[i].prog) in[i].push_back(inputs[k]->slots[i].prog);
  // The linked programs come back in o.progs; the program is the app's only after this
  // call returns, so nothing reads its slots meanwhile.
  std::string fallback = p->options;
  BuildOutcome o = buildUnlocked(lock, p, hold, !library, [&](size_t i, cl_program &rp, cl_device_id d) {
    if (in[i].size() != numInputs) return cl_int(CL_INVALID_PROGRAM);
    cl_int e = CL_SUCCESS;
    // -cl-kernel-arg-info is a compile option; a driver may refuse it when linking.
    rp = realLink(ctx->slots[i].ctx, d, opts, fallback, in[i], &e);
    return e;
  });
  bool any = false;
  cl_int firstErr = CL_SUCCESS;
  for (size_t i = 0; i < p->slots.size(); ++i) {
    ProgramSlot &s = p->slots[i];
    s.prog = o.progs[i];
    s.log = std::move(o.logs[i]);
    bool ok = o.res[i] == CL_SUCCESS && s.prog;
    s.status = ok ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
    s.binaryType = ok ? (library ? CL_PROGRAM_BINARY_TYPE_LIBRARY : CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
                      : CL_PROGRAM_BINARY_TYPE_NONE;
    any |= ok;
    if (!ok && firstErr == CL_SUCCESS) firstErr = o.res[i] ? o.res[i] : CL_LINK_PROGRAM_FAILURE;
  }
  if (!library) p->kernelNames = std::move(o.kernelNames);
  notifyBuild(lock, p, notify, user);
  finishUnlocked(p, hold);
  if (firstErr == CL_INVALID_LINKER_OPTIONS) {
    setErr(errcode, firstErr);
    return p;
  }
  setErr(errcode, any ? CL_SUCCESS : CL_LINK_PROGRAM_FAILURE);
  return p;  // the spec returns the program even when linking failed, for its log
}

TUTTI_API cl_int CL_API_CALL clGetProgramInfo(cl_program p, cl_program_info param, size_t size,
                                              void *value, size_t *ret) {
  ApiLock lock;
  if (!validProgram(p)) return CL_INVALID_PROGRAM;
  auto A = [&](auto v) { return answer(v, size, value, ret); };
  switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT: return A(p->refs);
    case CL_PROGRAM_CONTEXT: return A(static_cast<cl_context>(p->ctx));
    case CL_PROGRAM_NUM_DEVICES: return A(cl_uint(1));
    case CL_PROGRAM_DEVICES: return A(static_cast<cl_device_id>(&g_device));
    case CL_PROGRAM_SOURCE: return A(p->source);
    case CL_PROGRAM_IL: return answerBytes(nullptr, 0, size, value, ret);
    case CL_PROGRAM_BINARY_SIZES:
    case CL_PROGRAM_BINARIES: {
      ProgramBinary pb;
      pb.source = p->source;
      pb.options = p->options;
      // The options a program is restored with say whether the app asked for argument
      // info; a linked program's come from its link, so they get the flag here.
      if (p->argInfo && !asksArgInfo(pb.options)) pb.options = realOptions(pb.options);
      for (size_t i = 0; i < p->slots.size(); ++i) {
        ProgramSlot &s = p->slots[i];
        if (!s.prog || s.binaryType == CL_PROGRAM_BINARY_TYPE_NONE) continue;
        ProgramBinary::Entry e;
        e.deviceKey = deviceKey(p->ctx->slots[i].dev);
        e.binaryType = uint32_t(s.binaryType);
        if (realBinary(s.prog, e.bytes)) pb.entries.push_back(std::move(e));
      }
      // No device has a binary yet (never built): the spec's size for that is 0.
      std::vector<unsigned char> bytes;
      if (!pb.entries.empty()) bytes = pb.serialize();
      if (param == CL_PROGRAM_BINARY_SIZES) return A(bytes.size());
      if (value) {
        if (size < sizeof(unsigned char *)) return CL_INVALID_VALUE;
        unsigned char *dst = *static_cast<unsigned char **>(value);
        if (dst && !bytes.empty()) std::memcpy(dst, bytes.data(), bytes.size());
      }
      if (ret) *ret = sizeof(unsigned char *);
      return CL_SUCCESS;
    }
    case CL_PROGRAM_NUM_KERNELS:
      if (!anyBuilt(p)) return CL_INVALID_PROGRAM_EXECUTABLE;
      return A(size_t(p->kernelNames.size()));
    case CL_PROGRAM_KERNEL_NAMES: {
      if (!anyBuilt(p)) return CL_INVALID_PROGRAM_EXECUTABLE;
      std::string s;
      for (size_t i = 0; i < p->kernelNames.size(); ++i) s += (i ? ";" : "") + p->kernelNames[i];
      return A(s);
    }
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
      return A(cl_bool(CL_FALSE));
    default: return CL_INVALID_VALUE;
  }
}

TUTTI_API cl_int CL_API_CALL clGetProgramBuildInfo(cl_program p, cl_device_id d,
                                                   cl_program_build_info param, size_t size,
                                                   void *value, size_t *ret) {
  ApiLock lock;
  if (!validProgram(p)) return CL_INVALID_PROGRAM;
  if (!validDevice(d)) return CL_INVALID_DEVICE;
  auto A = [&](auto v) { return answer(v, size, value, ret); };
  switch (param) {
    case CL_PROGRAM_BUILD_STATUS: {
      if (p->building) return A(cl_build_status(CL_BUILD_IN_PROGRESS));
      cl_build_status st = CL_BUILD_NONE;
      for (auto &s : p->slots) {
        if (s.status == CL_BUILD_SUCCESS) st = CL_BUILD_SUCCESS;
        else if (s.status == CL_BUILD_ERROR && st != CL_BUILD_SUCCESS) st = CL_BUILD_ERROR;
      }
      return A(st);
    }
    case CL_PROGRAM_BUILD_OPTIONS: return A(p->options);
    case CL_PROGRAM_BUILD_LOG: return A(combinedLog(p));
    case CL_PROGRAM_BINARY_TYPE: {
      cl_program_binary_type t = CL_PROGRAM_BINARY_TYPE_NONE;
      for (auto &s : p->slots)
        if (s.binaryType != CL_PROGRAM_BINARY_TYPE_NONE) { t = s.binaryType; break; }
      return A(t);
    }
    case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: {
      size_t total = 0;
      for (size_t i = 0; i < p->slots.size(); ++i)
        if (p->slots[i].prog && p->slots[i].binaryType == CL_PROGRAM_BINARY_TYPE_EXECUTABLE) {
          total = realGlobalVariableTotalSize(p->slots[i].prog, p->ctx->slots[i].dev->id);
          break;
        }
      return A(total);
    }
    default: return CL_INVALID_VALUE;
  }
}
