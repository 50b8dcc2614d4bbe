// On-disk cache of CompileResults (no LLVM). One file per key:
//   <dir>/<32 hex digits>.tcc
// holding the dependencies (included headers with content hashes, checked on
// every hit) and the serialized result. Files are written to a temporary name
// and renamed, so concurrent processes never see partial entries.
#include "Cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "Expr.h"

namespace tutti::compiler::detail {

// ---------------------------------------------------------------------------
// Hashing: two independent 64-bit streams (FNV-1a core + murmur finalizer)
// ---------------------------------------------------------------------------
static uint64_t fmix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

void Hasher::add(const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  for (size_t i = 0; i < n; ++i) {
    a = (a ^ p[i]) * 0x100000001b3ULL;
    b = (b ^ p[i]) * 0x100000001b3ULL;
    b ^= b >> 29;
  }
  len += n;
}

void Hasher::addStr(const std::string &s) {
  uint64_t n = s.size();
  add(&n, sizeof n);
  add(s.data(), s.size());
}

std::string Hasher::hex() const {
  uint64_t x = fmix(a ^ len), y = fmix(b + 0x9e3779b97f4a7c15ULL * len);
  char buf[33];
  snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)x, (unsigned long long)y);
  return buf;
}

bool readFile(const std::string &path, std::string &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

std::string hashOfFile(const std::string &path) {
  std::string s;
  if (!readFile(path, s)) return "";
  Hasher h;
  h.addStr(s);
  return h.hex();
}

// ---------------------------------------------------------------------------
// Serialization
// ---------------------------------------------------------------------------
namespace {
struct W {
  std::string o;
  template <class T> void pod(const T &v) { o.append((const char *)&v, sizeof v); }
  void str(const std::string &s) {
    pod<uint32_t>((uint32_t)s.size());
    o += s;
  }
  void b(bool v) { pod<uint8_t>(v ? 1 : 0); }
};
struct R {
  const uint8_t *p, *e;
  bool ok = true;
  template <class T> T pod() {
    T v{};
    if ((size_t)(e - p) < sizeof v) { ok = false; return v; }
    std::memcpy(&v, p, sizeof v);
    p += sizeof v;
    return v;
  }
  std::string str() {
    uint32_t n = pod<uint32_t>();
    if (!ok || (size_t)(e - p) < n) { ok = false; return ""; }
    std::string s((const char *)p, n);
    p += n;
    return s;
  }
  bool b() { return pod<uint8_t>() != 0; }
};

void putKernel(W &w, const KernelInfo &k) {
  w.str(k.name);
  w.pod(k.num_args);
  w.pod<uint32_t>((uint32_t)k.args.size());
  for (const ArgInfo &a : k.args) {
    w.str(a.name); w.str(a.type_name);
    w.pod(a.kind); w.pod(a.scalar_size); w.b(a.is_unsigned);
    w.b(a.read); w.b(a.written); w.b(a.atomic); w.b(a.escapes);
    w.pod(a.combine); w.pod(a.atomic_width); w.str(a.atomic_ops);
    w.b(a.read_range_known); w.b(a.write_range_known);
    w.pod<uint32_t>((uint32_t)a.sites.size());
    for (const AccessSite &s : a.sites) {
      w.pod(s.kind); w.b(s.range_known); w.pod(s.size); w.str(s.offset);
    }
  }
  w.pod(k.max_dim);
  w.b(k.partitionable); w.str(k.whole_reason); w.pod(k.contiguity);
  w.str(k.partition_kernel); w.str(k.merge_kernel); w.str(k.merge_reason);
  w.pod<uint32_t>((uint32_t)k.merge_partial_args.size());
  for (uint32_t x : k.merge_partial_args) w.pod(x);
  w.str(k.trace_kernel); w.b(k.original_in_binary);
  w.str(k.paged_kernel); w.str(k.paged_reason); w.str(k.inspector_kernel); w.str(k.inspector_reason);
  w.str(k.rebased_kernel);
  for (const auto *v : {&k.vast_buffer_args, &k.inspector_data_args}) {
    w.pod<uint32_t>((uint32_t)v->size());
    for (uint32_t x : *v) w.pod(x);
  }
  const Hazards &h = k.hazards;
  for (bool v : {h.barrier, h.mem_fence, h.local_memory, h.global_atomics, h.local_atomics, h.images,
                 h.image_writes, h.printf, h.subgroups, h.device_enqueue, h.program_globals,
                 h.unknown_calls})
    w.b(v);
  w.pod(h.workitem_fns); w.pod(h.virtualized_fns);
  w.pod<uint32_t>((uint32_t)h.notes.size());
  for (auto &n : h.notes) w.str(n);
  w.b(k.cost_known); w.str(k.cost_expr); w.str(k.trip_counts);
  std::string ex;
  if (k.exprs) k.exprs->serialize(ex);
  w.b(k.exprs != nullptr);
  w.str(ex);
}

bool getKernel(R &r, KernelInfo &k) {
  k.name = r.str();
  k.num_args = r.pod<uint32_t>();
  uint32_t na = r.pod<uint32_t>();
  if (!r.ok || na > 100000) return false;
  for (uint32_t i = 0; i < na && r.ok; ++i) {
    ArgInfo a;
    a.name = r.str(); a.type_name = r.str();
    a.kind = r.pod<ArgKind>(); a.scalar_size = r.pod<uint32_t>(); a.is_unsigned = r.b();
    a.read = r.b(); a.written = r.b(); a.atomic = r.b(); a.escapes = r.b();
    a.combine = r.pod<AtomicCombine>(); a.atomic_width = r.pod<uint32_t>(); a.atomic_ops = r.str();
    a.read_range_known = r.b(); a.write_range_known = r.b();
    uint32_t ns = r.pod<uint32_t>();
    if (!r.ok || ns > 1000000) return false;
    for (uint32_t j = 0; j < ns && r.ok; ++j) {
      AccessSite s;
      s.kind = r.pod<AccessSite::Kind>(); s.range_known = r.b(); s.size = r.pod<uint32_t>();
      s.offset = r.str();
      a.sites.push_back(s);
    }
    k.args.push_back(std::move(a));
  }
  k.max_dim = r.pod<uint32_t>();
  k.partitionable = r.b(); k.whole_reason = r.str(); k.contiguity = r.pod<Contiguity>();
  k.partition_kernel = r.str(); k.merge_kernel = r.str(); k.merge_reason = r.str();
  uint32_t nm = r.pod<uint32_t>();
  if (!r.ok || nm > 100000) return false;
  for (uint32_t i = 0; i < nm; ++i) k.merge_partial_args.push_back(r.pod<uint32_t>());
  k.trace_kernel = r.str(); k.original_in_binary = r.b();
  k.paged_kernel = r.str(); k.paged_reason = r.str(); k.inspector_kernel = r.str(); k.inspector_reason = r.str();
  k.rebased_kernel = r.str();
  for (auto *v : {&k.vast_buffer_args, &k.inspector_data_args}) {
    uint32_t nv = r.pod<uint32_t>();
    if (!r.ok || nv > 100000) return false;
    for (uint32_t i = 0; i < nv; ++i) v->push_back(r.pod<uint32_t>());
  }
  Hazards &h = k.hazards;
  bool *flags[] = {&h.barrier, &h.mem_fence, &h.local_memory, &h.global_atomics, &h.local_atomics,
                   &h.images, &h.image_writes, &h.printf, &h.subgroups, &h.device_enqueue,
                   &h.program_globals, &h.unknown_calls};
  for (bool *f : flags) *f = r.b();
  h.workitem_fns = r.pod<uint32_t>(); h.virtualized_fns = r.pod<uint32_t>();
  uint32_t nn = r.pod<uint32_t>();
  if (!r.ok || nn > 100000) return false;
  for (uint32_t i = 0; i < nn; ++i) h.notes.push_back(r.str());
  k.cost_known = r.b(); k.cost_expr = r.str(); k.trip_counts = r.str();
  bool hasEx = r.b();
  std::string ex = r.str();
  if (!r.ok) return false;
  if (hasEx) {
    auto d = std::make_shared<ExprData>();
    const uint8_t *p = (const uint8_t *)ex.data();
    if (!d->deserialize(p, p + ex.size())) return false;
    d->prepare();
    k.exprs = d;
  }
  return r.ok;
}
}  // namespace

std::string serializeResult(const CompileResult &res) {
  W w;
  w.b(res.ok); w.str(res.error); w.str(res.log);
  w.pod(res.target);
  w.pod<uint32_t>((uint32_t)res.kernels.size());
  for (const KernelInfo &k : res.kernels) putKernel(w, k);
  w.str(std::string(res.binary.begin(), res.binary.end()));
  w.str(res.build_options);
  w.str(res.ir_text);
  return w.o;
}

bool deserializeResult(const std::string &data, CompileResult &res) {
  R r{(const uint8_t *)data.data(), (const uint8_t *)data.data() + data.size()};
  res.ok = r.b(); res.error = r.str(); res.log = r.str();
  res.target = r.pod<Target>();
  uint32_t nk = r.pod<uint32_t>();
  if (!r.ok || nk > 100000) return false;
  for (uint32_t i = 0; i < nk; ++i) {
    KernelInfo k;
    if (!getKernel(r, k)) return false;
    res.kernels.push_back(std::move(k));
  }
  std::string bin = r.str();
  res.binary.assign(bin.begin(), bin.end());
  res.build_options = r.str();
  res.ir_text = r.str();
  return r.ok && r.p == r.e;
}

}  // namespace tutti::compiler::detail

namespace tutti::compiler {
std::vector<uint8_t> saveResult(const CompileResult &r) {
  std::string s = detail::serializeResult(r);
  return std::vector<uint8_t>(s.begin(), s.end());
}
bool loadResult(const void *data, size_t size, CompileResult &out) {
  CompileResult r;
  if (!detail::deserializeResult(std::string((const char *)data, size), r)) return false;
  out = std::move(r);
  return true;
}
}  // namespace tutti::compiler

namespace tutti::compiler::detail {

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------
static const char kMagic[8] = {'T', 'U', 'T', 'T', 'I', 'C', 'C', '2'};

static bool mkdirs(const std::string &dir) {
  std::string cur;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      if (!cur.empty() && ::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
    if (i < dir.size()) cur += dir[i];
  }
  return true;
}

bool cacheLoad(const std::string &dir, const std::string &key, CompileResult &out) {
  std::string data;
  if (!readFile(dir + "/" + key + ".tcc", data)) return false;
  R r{(const uint8_t *)data.data(), (const uint8_t *)data.data() + data.size()};
  if (data.size() < 8 || std::memcmp(data.data(), kMagic, 8) != 0) return false;
  r.p += 8;
  if (r.str() != key) return false;
  uint32_t nd = r.pod<uint32_t>();
  if (!r.ok || nd > 100000) return false;
  for (uint32_t i = 0; i < nd; ++i) {
    std::string path = r.str(), h = r.str();
    if (!r.ok || hashOfFile(path) != h) return false;  // header changed: recompile
  }
  std::string payload = r.str();
  if (!r.ok) return false;
  CompileResult res;
  if (!deserializeResult(payload, res)) return false;
  out = std::move(res);
  return true;
}

bool cacheStore(const std::string &dir, const std::string &key, const std::vector<std::string> &deps,
                const CompileResult &res) {
  if (!mkdirs(dir)) return false;
  W w;
  w.o.append(kMagic, 8);
  w.str(key);
  w.pod<uint32_t>((uint32_t)deps.size());
  for (const std::string &d : deps) {
    w.str(d);
    w.str(hashOfFile(d));
  }
  w.str(serializeResult(res));
  std::random_device rd;
  std::string tmp = dir + "/." + key + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) return false;
    f.write(w.o.data(), (std::streamsize)w.o.size());
    if (!f) {
      ::unlink(tmp.c_str());
      return false;
    }
  }
  if (::rename(tmp.c_str(), (dir + "/" + key + ".tcc").c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace tutti::compiler::detail
