// api_kernel.cpp - kernels: one real kernel per backing device, arguments kept virtual.
#include <cstring>
#include <map>

#include "api.h"
#include "backend_kernel.h"

using namespace tutti;

namespace {

// Size of a built-in scalar or vector type named by CL_KERNEL_ARG_TYPE_NAME, or 0 when
// the type is not built in (structs: the driver checks those).
size_t builtinTypeSize(std::string t) {
  static const std::pair<const char *, size_t> base[] = {
      {"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"int", 4}, {"uint", 4},
      {"long", 8}, {"ulong", 8}, {"float", 4}, {"double", 8}, {"half", 2}, {"bool", 1},
      {"unsigned char", 1}, {"unsigned short", 2}, {"unsigned int", 4}, {"unsigned long", 8}};
  size_t digits = t.find_first_of("0123456789");
  size_t width = 1;
  if (digits != std::string::npos) {
    width = std::stoul(t.substr(digits));
    t = t.substr(0, digits);
    if (width == 3) width = 4;  // 3-component vectors take the space of 4
  }
  for (auto &b : base)
    if (t == b.first) return b.second * width;
  return 0;
}

// Size of a by-value argument type only the compiler knows (structs, typedefs), or 0
// when it cannot be learned. Some drivers accept any size for such arguments, so Tutti
// asks the compiler: a probe kernel's required work-group size encodes sizeof(type).
// The probe is a driver build (hundreds of ms), so it runs with the API lock released
// (issue 16) while an internal reference keeps k alive. *gone: the app released k
// meanwhile (k is freed on return).
size_t probedTypeSize(ApiLock &lock, _cl_kernel *k, cl_uint arg, bool *gone) REQUIRES(apiMutex) {
  static std::map<std::string, size_t> cache;  // by options, type and source; API lock held
  *gone = false;
  _cl_program *p = k->program;
  const std::string &type = k->argInfo[arg].typeName;
  if (p->source.empty() || type.empty()) return 0;
  std::string key = p->options + '\0' + type + '\0' + p->source;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  size_t slot = 0;
  while (slot < k->real.size() && !k->real[slot]) ++slot;
  if (slot == k->real.size()) return 0;
  // The kernel keeps its program, the program its context: their slots stay valid.
  const DeviceSlot &ds = p->ctx->slots[slot];
  std::string source = p->source, options = p->options, t = type;
  runtime().retain(k);
  lock.unlock();
  size_t size = probeTypeSize(ds, source, options, t);
  lock.lock();
  cache[key] = size;
  *gone = k->refs == 0;
  runtime().release(k);
  return size;
}

// That real kernel now holds `v` as argument i (nullptr: unknown after a failure), which
// the next launch there need not set again (issue.cpp setKernelArgs).
void rememberRealArg(_cl_kernel *k, cl_kernel rk, cl_uint i, const ArgValue *v) {
  for (size_t s = 0; s < k->realArgs.size(); ++s) {
    auto &args = k->realArgs[s].args;
    if (k->real[s] != rk || i >= args.size()) continue;
    args[i].kind = v ? v->kind : ArgValue::Unset;
    if (v) args[i].bytes = v->bytes;
  }
}

_cl_kernel *makeKernel(_cl_program *p, const char *name, cl_int *errcode) REQUIRES(apiMutex) {
  auto *k = new _cl_kernel();
  k->program = p;
  k->name = name;
  k->real.assign(p->slots.size(), nullptr);
  cl_int lastErr = CL_INVALID_KERNEL_NAME;
  for (size_t i = 0; i < p->slots.size(); ++i) {
    const ProgramSlot &s = p->slots[i];
    if (!s.prog || s.binaryType != CL_PROGRAM_BINARY_TYPE_EXECUTABLE) continue;
    cl_int err = CL_SUCCESS;
    cl_kernel rk = realCreateKernel(s.prog, name, &err);
    if (err == CL_SUCCESS) k->real[i] = rk;
    else lastErr = err;
  }
  cl_kernel rk = firstReal(k);
  if (!rk) {
    delete k;
    setErr(errcode, lastErr == CL_INVALID_KERNEL_DEFINITION ? lastErr : CL_INVALID_KERNEL_NAME);
    return nullptr;
  }
  cl_uint n = realKernelNumArgs(rk);
  k->args.resize(n);
  k->argInfo.resize(n);
  k->numArgs = n;
  // Argument info may be missing on some drivers (programs from clLinkProgram): ask
  // every real kernel before settling for none (empty type names, see clSetKernelArg).
  for (cl_kernel r : k->real)
    if (r && n && !realKernelArgTypeName(r, 0).empty()) {
      rk = r;
      break;
    }
  for (cl_uint i = 0; i < n; ++i) k->argInfo[i] = realKernelArgInfo(rk, i);
  k->attributes = realKernelAttributes(rk);
  ++p->kernelsAttached;
  runtime().retain(p);
  runtime().add(k, ObjType::Kernel);
  setErr(errcode, CL_SUCCESS);
  return k;
}

}  // namespace

TUTTI_API cl_kernel CL_API_CALL clCreateKernel(cl_program p, const char *name, cl_int *errcode) {
  ApiLock lock;
  if (!validProgram(p)) return setErr(errcode, CL_INVALID_PROGRAM), nullptr;
  if (!name) return setErr(errcode, CL_INVALID_VALUE), nullptr;
  bool built = std::any_of(p->slots.begin(), p->slots.end(), [](auto &s) {
    return s.binaryType == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  });
  if (!built || p->building) return setErr(errcode, CL_INVALID_PROGRAM_EXECUTABLE), nullptr;
  return makeKernel(p, name, errcode);
}

TUTTI_API cl_int CL_API_CALL clCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *kernels,
                                                      cl_uint *num) {
  ApiLock lock;
  if (!validProgram(p)) return CL_INVALID_PROGRAM;
  bool built = std::any_of(p->slots.begin(), p->slots.end(), [](auto &s) {
    return s.binaryType == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  });
  if (!built || p->building) return CL_INVALID_PROGRAM_EXECUTABLE;
  if (kernels && n < p->kernelNames.size()) return CL_INVALID_VALUE;
  if (num) *num = cl_uint(p->kernelNames.size());
  if (!kernels) return CL_SUCCESS;
  std::vector<_cl_kernel *> made;
  for (auto &name : p->kernelNames) {
    cl_int err;
    _cl_kernel *k = makeKernel(p, name.c_str(), &err);
    if (!k) {
      for (auto *m : made) runtime().releaseApp(m);
      return err;
    }
    made.push_back(k);
  }
  for (size_t i = 0; i < made.size(); ++i) kernels[i] = made[i];
  return CL_SUCCESS;
}

TUTTI_API cl_kernel CL_API_CALL clCloneKernel(cl_kernel src, cl_int *errcode) {
  ApiLock lock;
  if (!validKernel(src)) return setErr(errcode, CL_INVALID_KERNEL), nullptr;
  _cl_kernel *k = makeKernel(src->program, src->name.c_str(), errcode);
  if (!k) return nullptr;
  k->args = src->args;
  return k;
}

TUTTI_API cl_int CL_API_CALL clRetainKernel(cl_kernel k) {
  ApiLock lock;
  if (!validKernel(k)) return CL_INVALID_KERNEL;
  ++k->refs;
  return CL_SUCCESS;
}

TUTTI_API cl_int CL_API_CALL clReleaseKernel(cl_kernel k) {
  ApiLock lock;
  if (!validKernel(k)) return CL_INVALID_KERNEL;
  runtime().releaseApp(k);
  return CL_SUCCESS;
}

namespace {

constexpr cl_int kAskUnderLock = 1;  // not a CL code: the fast path leaves the call to the lock

// Rare (an argument's first value): kept out of the fast path's frame.
__attribute__((noinline)) void clearArg(ArgValue &a) { a = ArgValue{}; }

// clSetKernelArg of a buffer or a __local size, without the API lock. Apps set arguments
// before every launch (several per launch), and the lock with two handle lookups made the
// call cost 3-4x the driver's (call_cost: 24-31 ns against 8). OpenCL does not make
// clSetKernelArg thread-safe for one kernel (3.0 section A.2), so the kernel's arguments need
// no lock against other API calls on it; Tutti's own threads never read them (a launch
// copies them under the lock). The handles are checked by the registry's lock-free read,
// and every case this path does not settle with certainty (another kind of argument, a
// handle it cannot vouch for, any error) goes to the locked path, which answers as before.
// kHitsOnly: the first try, which calls nothing (no frame to set up), answers only from the
// per-thread cache of valid handles and when the argument keeps its kind; the second, out
// of line, looks handles up.
template <bool kHitsOnly>
cl_int setKernelArgUnlocked(cl_kernel k, cl_uint i, size_t size, const void *value)
    NO_THREAD_SAFETY_ANALYSIS {
  const Runtime *rtp;
  if (kHitsOnly) {  // nothing made yet is a miss too: the calls that make them need a frame
    const Settings *s = detail::g_settings.load(std::memory_order_acquire);
    rtp = detail::g_runtime.load(std::memory_order_acquire);
    if (!s || !s->trace.empty() || !rtp) return kAskUnderLock;
  } else {
    if (tracing()) return kAskUnderLock;  // the trace shows each API call as a span
    rtp = &runtime();
  }
  const Runtime &rt = *rtp;
  auto valid = [&rt](const void *h, ObjType t) {
    return kHitsOnly ? rt.validInCache(h, t) : rt.validCached(h, t) == 1;
  };
  if (!valid(k, ObjType::Kernel) || i >= k->numArgs) return kAskUnderLock;
  ArgValue &a = k->args[i];
  switch (k->argInfo[i].setPath) {
    case ArgInfo::SetPath::Local:
      if (value || size == 0) return kAskUnderLock;
      if (kHitsOnly && a.kind != ArgValue::Local) return kAskUnderLock;
      if (a.kind != ArgValue::Local) clearArg(a);
      a.kind = ArgValue::Local;
      a.localSize = size;
      return CL_SUCCESS;
    case ArgInfo::SetPath::Buffer: {
      if (size != sizeof(cl_mem)) return kAskUnderLock;
      cl_mem m = value ? *static_cast<const cl_mem *>(value) : nullptr;
      if (m && (!valid(m, ObjType::Mem) || m->isImage() || m->ctx != k->program->ctx))
        return kAskUnderLock;
      if (kHitsOnly && a.kind != ArgValue::Mem) return kAskUnderLock;
      if (a.kind != ArgValue::Mem) clearArg(a);
      a.kind = ArgValue::Mem;
      a.mem = m;
      return CL_SUCCESS;
    }
    case ArgInfo::SetPath::Locked: break;
  }
  return kAskUnderLock;
}

// Out of line: its frame (the API lock, argument info, a probe build) would otherwise be
// set up on the unlocked path too.
__attribute__((noinline)) cl_int setKernelArgLocked(cl_kernel k, cl_uint i, size_t size, const void *value);

__attribute__((noinline)) cl_int setKernelArgMissed(cl_kernel k, cl_uint i, size_t size, const void *value) {
  if (setKernelArgUnlocked<false>(k, i, size, value) == CL_SUCCESS) return CL_SUCCESS;
  return setKernelArgLocked(k, i, size, value);
}

}  // namespace

TUTTI_API cl_int CL_API_CALL clSetKernelArg(cl_kernel k, cl_uint i, size_t size, const void *value) {
  if (setKernelArgUnlocked<true>(k, i, size, value) == CL_SUCCESS) return CL_SUCCESS;
  return setKernelArgMissed(k, i, size, value);
}

namespace {

cl_int setKernelArgLocked(cl_kernel k, cl_uint i, size_t size, const void *value) {
  ApiLock lock;
  if (!validKernel(k)) return CL_INVALID_KERNEL;
  if (i >= k->args.size()) return CL_INVALID_ARG_INDEX;
  const ArgInfo &ai = k->argInfo[i];
  ArgValue v;
  // Without argument info, a Tutti memory handle of cl_mem size can only be a buffer or
  // image argument: passing it on as bytes would hand the driver a handle it never made.
  bool unknown = ai.typeName.empty();
  bool memHandle =
      unknown && size == sizeof(cl_mem) && value && validMem(*static_cast<const cl_mem *>(value));
  bool samplerHandle = unknown && size == sizeof(cl_sampler) && value &&
                       validSampler(*static_cast<const cl_sampler *>(value));
  if (ai.isPointer() || ai.isImage() || ai.typeName.find("pipe") == 0 || memHandle) {
    if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
    cl_mem m = value ? *static_cast<const cl_mem *>(value) : nullptr;
    if (memHandle) {
      if (m->ctx != k->program->ctx) return CL_INVALID_MEM_OBJECT;
    } else if (ai.isImage()) {
      if (!m) return CL_INVALID_ARG_VALUE;
      if (!validMem(m) || !m->isImage() || m->ctx != k->program->ctx) return CL_INVALID_MEM_OBJECT;
    } else if (m && (!validMem(m) || m->isImage() || m->ctx != k->program->ctx)) {
      return CL_INVALID_MEM_OBJECT;
    }
    v.kind = ArgValue::Mem;
    v.mem = m;
  } else if (ai.isSampler() || samplerHandle) {
    if (size != sizeof(cl_sampler)) return CL_INVALID_ARG_SIZE;
    cl_sampler s = value ? *static_cast<const cl_sampler *>(value) : nullptr;
    if (!validSampler(s) || s->ctx != k->program->ctx) return CL_INVALID_SAMPLER;
    v.kind = ArgValue::Sampler;
    v.sampler = s;
  } else if (ai.addr == CL_KERNEL_ARG_ADDRESS_LOCAL || (unknown && !value)) {
    if (value) return CL_INVALID_ARG_VALUE;
    if (size == 0) return CL_INVALID_ARG_SIZE;
    v.kind = ArgValue::Local;
    v.localSize = size;
  } else {
    if (!value) return CL_INVALID_ARG_VALUE;
    ArgInfo &info = k->argInfo[i];
    if (!info.sizeKnown) {
      info.size = builtinTypeSize(ai.typeName);
      if (!info.size) {
        bool gone = false;
        info.size = probedTypeSize(lock, k, i, &gone);
        if (gone) return CL_INVALID_KERNEL;
      }
      info.sizeKnown = true;
    }
    size_t expect = info.size;
    if (expect && size != expect) return CL_INVALID_ARG_SIZE;
    // The driver knows the size of other types: let one real kernel check it too.
    cl_kernel rk = firstReal(k);
    cl_int err = realSetKernelArg(rk, i, size, value);
    v.kind = ArgValue::Bytes;
    v.bytes.assign(static_cast<const unsigned char *>(value),
                   static_cast<const unsigned char *>(value) + size);
    rememberRealArg(k, rk, i, err == CL_SUCCESS ? &v : nullptr);
    if (err != CL_SUCCESS) return err;
  }
  k->args[i] = std::move(v);
  return CL_SUCCESS;
}

}  // namespace

TUTTI_API cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel k, cl_uint, const void *) {
  ApiLock lock;
  return validKernel(k) ? CL_INVALID_OPERATION : CL_INVALID_KERNEL;  // no SVM
}

TUTTI_API cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel k, cl_kernel_exec_info param,
                                                 size_t size, const void *value) {
  ApiLock lock;
  if (!validKernel(k)) return CL_INVALID_KERNEL;
  if (param != CL_KERNEL_EXEC_INFO_SVM_PTRS && param != CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM)
    return CL_INVALID_VALUE;
  // Both settings are about SVM, which no Tutti device offers: that comes first, whatever
  // the value (3.0 appendix: SVM; the CTS passes a null list).
  (void)size, (void)value;
  return CL_INVALID_OPERATION;
}

TUTTI_API cl_int CL_API_CALL clGetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size,
                                             void *value, size_t *ret) {
  ApiLock lock;
  if (!validKernel(k)) return CL_INVALID_KERNEL;
  switch (param) {
    case CL_KERNEL_FUNCTION_NAME: return answer(k->name, size, value, ret);
    case CL_KERNEL_NUM_ARGS: return answer(cl_uint(k->args.size()), size, value, ret);
    case CL_KERNEL_REFERENCE_COUNT: return answer(k->refs, size, value, ret);
    case CL_KERNEL_CONTEXT: return answer(static_cast<cl_context>(k->program->ctx), size, value, ret);
    case CL_KERNEL_PROGRAM: return answer(static_cast<cl_program>(k->program), size, value, ret);
    case CL_KERNEL_ATTRIBUTES: return answer(k->attributes, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

TUTTI_API cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel k, cl_uint i, cl_kernel_arg_info param,
                                                size_t size, void *value, size_t *ret) {
  ApiLock lock;
  if (!validKernel(k)) return CL_INVALID_KERNEL;
  if (i >= k->argInfo.size()) return CL_INVALID_ARG_INDEX;
  const ArgInfo &a = k->argInfo[i];
  if (!k->program->argInfo || a.typeName.empty()) return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
  switch (param) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER: return answer(a.addr, size, value, ret);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER: return answer(a.access, size, value, ret);
    case CL_KERNEL_ARG_TYPE_NAME: return answer(a.typeName, size, value, ret);
    case CL_KERNEL_ARG_TYPE_QUALIFIER: return answer(a.typeQual, size, value, ret);
    case CL_KERNEL_ARG_NAME:
      if (a.name.empty()) return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
      return answer(a.name, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

TUTTI_API cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d,
                                                      cl_kernel_work_group_info param, size_t size,
                                                      void *value, size_t *ret) {
  ApiLock lock;
  if (!validKernel(k)) return CL_INVALID_KERNEL;
  if (d && !validDevice(d)) return CL_INVALID_DEVICE;
  _cl_context *ctx = k->program->ctx;
  auto each = [&](auto &&fn) REQUIRES(apiMutex) {
    for (size_t s = 0; s < k->real.size(); ++s)
      if (k->real[s]) fn(k->real[s], ctx->slots[s].dev);
  };
  switch (param) {
    case CL_KERNEL_WORK_GROUP_SIZE: {
      return answer(maxWorkGroupSize(k), size, value, ret);
    }
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: {
      size_t v = 1;
      double best = -1;
      each([&](cl_kernel rk, BackingDevice *bd) {
        if (bd->strength() <= best) return;
        best = bd->strength();
        realWorkGroupInfo(rk, bd->id, param, sizeof v, &v);
      });
      return answer(v, size, value, ret);
    }
    case CL_KERNEL_LOCAL_MEM_SIZE:
    case CL_KERNEL_PRIVATE_MEM_SIZE: {
      cl_ulong v = 0;
      each([&](cl_kernel rk, BackingDevice *bd) REQUIRES(apiMutex) {
        // Local-memory arguments count too, and the real kernels only get their
        // arguments at launch: give them the app's current sizes first.
        if (param == CL_KERNEL_LOCAL_MEM_SIZE)
          for (cl_uint i = 0; i < k->args.size(); ++i)
            if (k->args[i].kind == ArgValue::Local)
              realSetKernelArg(rk, i, k->args[i].localSize, nullptr);
        cl_ulong x = 0;
        realWorkGroupInfo(rk, bd->id, param, sizeof x, &x);
        v = std::max(v, x);
      });
      return answer(v, size, value, ret);
    }
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
      size_t v[3];
      compileWorkGroupSize(k, v);
      return answerBytes(v, sizeof v, size, value, ret);
    }
    case CL_KERNEL_GLOBAL_WORK_SIZE: return CL_INVALID_VALUE;  // custom devices only
    default: return CL_INVALID_VALUE;
  }
}

TUTTI_API cl_int CL_API_CALL clGetKernelSubGroupInfo(cl_kernel k, cl_device_id d,
                                                     cl_kernel_sub_group_info, size_t, const void *,
                                                     size_t, void *, size_t *) {
  ApiLock lock;
  if (!validKernel(k)) return CL_INVALID_KERNEL;
  if (d && !validDevice(d)) return CL_INVALID_DEVICE;
  return CL_INVALID_OPERATION;  // sub-groups are not advertised by the virtual device
}

TUTTI_API cl_int CL_API_CALL clGetKernelSubGroupInfoKHR(cl_kernel k, cl_device_id d,
                                                        cl_kernel_sub_group_info p, size_t a,
                                                        const void *b, size_t c, void *e, size_t *f) {
  return clGetKernelSubGroupInfo(k, d, p, a, b, c, e, f);
}
