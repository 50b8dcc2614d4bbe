// profile_store.cpp - identities, features, the batched database writer and model cache.
#include "profile_store.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <tutti/compiler.h>
#include <tutti/profile_db.h>

#include "backend.h"
#include "log.h"
#include "settings.h"
#include "skmd.h"

namespace tutti {

namespace cc = tutti::compiler;
namespace pf = tutti::profiles;

namespace {

// Samples wait here until a batch is worth a transaction. Allocated once and never freed:
// the writer thread may still hold it while the process runs its exit handlers.
struct Writer {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<pf::KernelSample> kernels;
  std::vector<pf::TransferSample> transfers;
  pf::ProfileDB db;
  bool tried = false, ok = false, threadUp = false;
};

constexpr size_t kBatch = 64;

Writer &writer() {
  static Writer *w = new Writer;
  return *w;
}

void writerLoop();
bool readOnly();

// Opens the database once (caller holds w.mu).
bool openLocked(Writer &w) {
  if (w.tried) return w.ok;
  w.tried = true;
  const std::string &setting = settings().profile_db;
  if (setting == "off") return false;
  std::string path = setting.empty() ? pf::defaultDbPath() : setting;
  w.ok = w.db.open(path);
  if (!w.ok)
    TUTTI_LOG(Warn, "profile database %s: %s (profiles are neither read nor stored)", path.c_str(),
              w.db.lastError().c_str());
  else
    std::atexit(flushProfileSamples);
  // The writer starts with the database, not with the first sample: that one is queued by
  // the path that learns of completions, where starting a thread put K-means's final read
  // under TUTTI_MODE=mkmd about 30 us behind on an H200.
  if (w.ok && !readOnly() && !w.threadUp) {
    w.threadUp = true;
    std::thread(writerLoop).detach();
  }
  return w.ok;
}

void writeBatch(Writer &w) {
  std::vector<pf::KernelSample> ks;
  std::vector<pf::TransferSample> ts;
  {
    std::lock_guard<std::mutex> g(w.mu);
    ks.swap(w.kernels);
    ts.swap(w.transfers);
  }
  if (!ks.empty() && !w.db.addKernelSamples(ks))
    TUTTI_LOG(Warn, "profile database: %zu kernel samples lost: %s", ks.size(), w.db.lastError().c_str());
  if (!ts.empty() && !w.db.addTransferSamples(ts))
    TUTTI_LOG(Warn, "profile database: %zu transfer samples lost: %s", ts.size(), w.db.lastError().c_str());
}

// Completion callbacks queue samples; SQLite runs here, off the launch path.
void writerLoop() {
  Writer &w = writer();
  for (;;) {
    {
      std::unique_lock<std::mutex> g(w.mu);
      w.cv.wait(g, [&] { return w.kernels.size() >= kBatch; });
    }
    writeBatch(w);
  }
}

std::string scalarName(unsigned i) { return "arg" + std::to_string(i); }

// A fit takes the newest kPerPoint samples at each point: runs repeat their launches,
// mostly at the same few points, and more would only slow the fit.
constexpr int kPerPoint = 3;
using Point = std::pair<uint64_t, pf::Features>;
using PairKey = std::pair<std::string, std::string>;  // (kernel, device) identities

std::vector<pf::KernelSample> fewPerPoint(std::vector<pf::KernelSample> v) {
  std::stable_sort(v.begin(), v.end(), [](const pf::KernelSample &a, const pf::KernelSample &b) {
    return a.timestamp > b.timestamp;
  });
  std::map<Point, int> seen;
  std::vector<pf::KernelSample> out;
  for (auto &s : v)
    if (++seen[{s.groups, s.features}] <= kPerPoint) out.push_back(std::move(s));
  return out;
}

// Samples per point in the database, and queued since, of each (kernel, device) whose model
// this process read (queueOnlineSample).
struct PointCounts {
  std::mutex mu;
  std::map<PairKey, std::map<Point, int>> counts;
};

PointCounts &pointCounts() {
  static PointCounts *p = new PointCounts;  // completion threads may use it during exit
  return *p;
}

// Fits whose input changed since the stored one, made one after another on a thread of the
// lowest priority, each stored for the next run. Allocated once and never freed: the
// thread may still run while the process exits (a fit cut short is made by the next run).
struct Refit {
  std::string kernelId, deviceId, fitKey;
  std::vector<pf::KernelSample> samples;
};

struct Refits {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Refit> todo;
  bool threadUp = false;
};

void refitLoop(Refits *r) {
  setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), 19);
  for (;;) {
    Refit job;
    {
      std::unique_lock<std::mutex> g(r->mu);
      r->cv.wait(g, [&] { return !r->todo.empty(); });
      job = std::move(r->todo.front());
      r->todo.pop_front();
    }
    pf::TimeModel tm = pf::TimeModel::fit(job.samples);
    writer().db.storeFittedModel(job.kernelId, job.deviceId, job.fitKey, tm.save());
  }
}

void refitLater(Refit job) {
  static Refits *r = new Refits;
  std::lock_guard<std::mutex> g(r->mu);
  r->todo.push_back(std::move(job));
  if (!r->threadUp) {
    r->threadUp = true;
    std::thread(refitLoop, r).detach();
  }
  r->cv.notify_one();
}

}  // namespace

std::string kernelIdentity(_cl_kernel *k) {
  return (k->program->skmd ? k->program->skmd->id : std::string()) + '-' + k->name;
}

void launchShapeInto(Command *cmd, const cc::NDRange &nd, const cc::ScalarArgs &scalars,
                     std::vector<uint64_t> &v) {
  v.clear();
  v.push_back(nd.work_dim);
  for (unsigned d = 0; d < 3; ++d) v.insert(v.end(), {nd.global_size[d], nd.local_size[d]});
  for (auto &a : cmd->args) v.push_back(a.kind == ArgValue::Mem && a.mem ? a.mem->size : 0);
  v.insert(v.end(), scalars.bits.begin(), scalars.bits.end());
}

std::vector<uint64_t> launchShape(Command *cmd, const cc::NDRange &nd, const cc::ScalarArgs &scalars) {
  std::vector<uint64_t> v;
  launchShapeInto(cmd, nd, scalars, v);
  return v;
}

std::string deviceIdentity(const BackingDevice *d) {
  // Asked at every decision: built once per device. Builds ask too, with the runtime
  // lock released (skmdPrepare), so the cache has a lock of its own.
  static std::mutex mu;
  static std::map<const BackingDevice *, std::string> known;
  std::lock_guard<std::mutex> g(mu);
  auto it = known.find(d);
  if (it != known.end()) return it->second;
  std::string id = d->name + " | " + d->driverVersion + " | " + d->platformName;
  int same = 0;
  for (BackingDevice *o : backend().devices()) {
    if (o == d) break;
    if (o->name == d->name && o->driverVersion == d->driverVersion && o->platformName == d->platformName)
      ++same;
  }
  return known[d] = same ? id + " #" + std::to_string(same) : id;
}

pf::Features launchFeatures(Command *cmd, const cc::KernelInfo &info, const cc::NDRange &nd,
                            const cc::ScalarArgs &scalars) {
  pf::Features f;
  double items = 1;
  for (unsigned d = 0; d < 3; ++d) items *= double(nd.global_size[d]);
  f["items"] = items;
  for (unsigned i = 0; i < cmd->args.size(); ++i) {
    const ArgValue &a = cmd->args[i];
    if (a.kind == ArgValue::Mem && a.mem) f[scalarName(i) + ".bytes"] = double(a.mem->size);
    if (a.kind != ArgValue::Bytes || i >= info.args.size() || i >= scalars.bits.size()) continue;
    const cc::ArgInfo &ai = info.args[i];
    // Integers only: loop bounds and sizes; a float's bits say nothing about the work.
    bool integer = ai.kind == cc::ArgKind::Scalar && ai.scalar_size <= 8 &&
                   ai.type_name.find("float") == std::string::npos &&
                   ai.type_name.find("double") == std::string::npos &&
                   ai.type_name.find("half") == std::string::npos &&
                   ai.type_name.find("struct") == std::string::npos;
    if (!integer) continue;
    uint64_t v = scalars.bits[i];
    if (!ai.is_unsigned && ai.scalar_size < 8 && ai.scalar_size > 0 &&
        (v >> (8 * ai.scalar_size - 1) & 1))
      continue;  // negative: not a size
    f[scalarName(i)] = double(v);
  }
  if (auto c = cc::costPerWorkItem(info, nd, scalars)) f["cost"] = *c;
  return f;
}

pf::KernelSample kernelSample(Command *cmd, int slot, const cc::NDRange &nd,
                              const pf::Features &f, uint64_t groups, double seconds) {
  pf::KernelSample s;
  s.kernelId = kernelIdentity(cmd->kernel);
  s.kernelName = cmd->kernel->name;
  s.deviceId = deviceIdentity(cmd->q->ctx->slots[slot].dev);
  s.workDim = nd.work_dim;
  for (unsigned d = 0; d < 3; ++d) s.global[d] = nd.global_size[d], s.local[d] = nd.local_size[d];
  s.totalGroups = nd.totalGroups();
  s.groups = groups;
  s.features = f;
  s.seconds = seconds;
  return s;
}

bool profileDbEnabled() {
  Writer &w = writer();
  std::lock_guard<std::mutex> g(w.mu);
  return openLocked(w);
}

// Validation runs measure against the database as it was: they store nothing, not even
// the online samples of split launches.
namespace {
bool readOnly() { return settings().profile == ProfileMode::Validate; }
}  // namespace

void queueKernelSample(pf::KernelSample s) {
  if (readOnly()) return;
  Writer &w = writer();
  std::lock_guard<std::mutex> g(w.mu);
  if (!openLocked(w)) return;  // which starts the writer thread
  w.kernels.push_back(std::move(s));
  if (w.kernels.size() >= kBatch) w.cv.notify_one();
}

void queueOnlineSample(pf::KernelSample s) {
  {
    PointCounts &pc = pointCounts();
    std::lock_guard<std::mutex> g(pc.mu);
    auto it = pc.counts.find({s.kernelId, s.deviceId});
    if (it != pc.counts.end() && ++it->second[{s.groups, s.features}] > kPerPoint) return;
  }
  queueKernelSample(std::move(s));
}

void queueTransferSample(pf::TransferSample s) {
  if (readOnly()) return;
  Writer &w = writer();
  std::lock_guard<std::mutex> g(w.mu);
  if (openLocked(w)) w.transfers.push_back(std::move(s));
}

void flushProfileSamples() {
  Writer &w = writer();
  {
    std::lock_guard<std::mutex> g(w.mu);
    if (!w.ok) return;
  }
  writeBatch(w);
}

size_t storedTransferSamples(const std::string &deviceId) {
  if (!profileDbEnabled()) return 0;
  return writer().db.transferSamples(deviceId).size();
}

std::shared_ptr<const pf::TimeModel> storedTimeModel(const std::string &kernelId,
                                                     const std::string &deviceId) {
  // Builds fit models with the runtime lock released (skmdPrepare) while launches read
  // them under it: the cache has its own lock, not held during the fit, so a launch
  // never waits for another kernel's fit.
  static std::mutex mu;
  static std::map<std::pair<std::string, std::string>, std::shared_ptr<const pf::TimeModel>> cache;
  auto key = std::make_pair(kernelId, deviceId);
  {
    std::lock_guard<std::mutex> g(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  std::shared_ptr<const pf::TimeModel> m;
  if (profileDbEnabled()) {
    pf::ProfileDB &db = writer().db;
    std::vector<pf::KernelSample> all = db.kernelSamples(kernelId, deviceId);
    {
      PointCounts &pc = pointCounts();
      std::lock_guard<std::mutex> g(pc.mu);
      auto &points = pc.counts[key];
      points.clear();
      for (const auto &s : all) ++points[{s.groups, s.features}];
    }
    auto samples = fewPerPoint(std::move(all));
    if (!samples.empty()) {
      // A fit of 64 samples took ~100 ms per kernel and device inside clBuildProgram
      // (FDTD3d's build under SKMD on the dev VM: 209 ms against 3.5 whole), so the last fit
      // is stored under the key of its input. Runs that split a kernel add samples at new
      // points (their pieces' group counts), so its input changes from run to run: the last
      // run's fit then serves this build, and the new one is made off the build's path for
      // the next (validation runs, which must measure the database as it is, fit here). Not
      // when the samples hold a size the last fit did not: fitted at n = 1024 alone, the Triple
      // Commutator's products were predicted 4x short at 4096 by the runs after profiling at
      // 2048, until a background refit was stored (a short run ends before it).
      const std::string fitKey = pf::TimeModel::fitKey(samples);
      const pf::ProfileDB::StoredFit stored = db.fittedModel(kernelId, deviceId);
      pf::TimeModel tm;
      const char *how = "fitted";
      if (stored.fitKey == fitKey && pf::TimeModel::load(stored.model, samples, &tm)) {
        how = "stored fit";
      } else if (!readOnly() && pf::TimeModel::sameSizes(stored.fitKey, fitKey) &&
                 pf::TimeModel::load(stored.model, samples, &tm)) {
        how = "last run's fit, refitted in the background";
        refitLater({kernelId, deviceId, fitKey, samples});
      } else {
        tm = pf::TimeModel::fit(samples);
        if (!readOnly() && !db.storeFittedModel(kernelId, deviceId, fitKey, tm.save()))
          TUTTI_LOG(Debug, "profile database: fit not stored: %s", db.lastError().c_str());
      }
      m = std::make_shared<pf::TimeModel>(std::move(tm));
      TUTTI_LOG(Debug, "profile model for %s on %s (%s): %s", kernelId.c_str(), deviceId.c_str(), how,
                m->describe().c_str());
      if (!m->valid()) m.reset();
    }
  }
  std::lock_guard<std::mutex> g(mu);
  return cache.emplace(key, m).first->second;  // a racing fit of the same key: first wins
}

const pf::TransferModel &storedTransferModel(const std::string &deviceId) {
  // Same lock discipline as storedTimeModel; map entries never move, so the reference
  // stays good after the lock is dropped.
  static std::mutex mu;
  static std::map<std::string, pf::TransferModel> cache;
  {
    std::lock_guard<std::mutex> g(mu);
    auto it = cache.find(deviceId);
    if (it != cache.end()) return it->second;
  }
  pf::TransferModel m;
  if (profileDbEnabled()) m = pf::TransferModel::fit(writer().db.transferSamples(deviceId), deviceId);
  std::lock_guard<std::mutex> g(mu);
  return cache.emplace(deviceId, m).first->second;
}

}  // namespace tutti
