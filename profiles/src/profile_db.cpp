// profile_db.cpp: SQLite-backed ProfileDB.
// WAL lets readers run beside one writer and the busy timeout queues concurrent profiling
// processes; BEGIN IMMEDIATE takes the write lock up front so two writers never deadlock
// upgrading read locks, and a crash mid-write leaves the last committed state.
#include "tutti/profile_db.h"

#include <sqlite3.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <thread>

#include "feature_codec.h"
#include "json_writer.h"

namespace tutti::profiles {
namespace {

constexpr int kBusyTimeoutMs = 15000;

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '1');
CREATE TABLE IF NOT EXISTS kernel_samples(
  id INTEGER PRIMARY KEY,
  kernel_id TEXT NOT NULL, kernel_name TEXT NOT NULL, device_id TEXT NOT NULL,
  work_dim INTEGER NOT NULL,
  g0 INTEGER NOT NULL, g1 INTEGER NOT NULL, g2 INTEGER NOT NULL,
  l0 INTEGER NOT NULL, l1 INTEGER NOT NULL, l2 INTEGER NOT NULL,
  total_groups INTEGER NOT NULL, groups INTEGER NOT NULL,
  features TEXT NOT NULL, seconds REAL NOT NULL, timestamp INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS kernel_samples_key ON kernel_samples(kernel_id, device_id);
CREATE TABLE IF NOT EXISTS transfer_samples(
  id INTEGER PRIMARY KEY,
  device_id TEXT NOT NULL, direction TEXT NOT NULL CHECK(direction IN ('h2d', 'd2h')),
  pinned INTEGER NOT NULL, bytes INTEGER NOT NULL, seconds REAL NOT NULL,
  timestamp INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS transfer_samples_dev ON transfer_samples(device_id);
CREATE TABLE IF NOT EXISTS fitted_models(
  kernel_id TEXT NOT NULL, device_id TEXT NOT NULL, fit_key TEXT NOT NULL, model TEXT NOT NULL,
  PRIMARY KEY(kernel_id, device_id));
)sql";

const char* kKernelColumns =
    "kernel_id, kernel_name, device_id, work_dim, g0, g1, g2, l0, l1, l2, total_groups, "
    "groups, features, seconds, timestamp";

int64_t nowSeconds() { return static_cast<int64_t>(std::time(nullptr)); }

// Finalizes on scope exit so early returns never leak a statement (which would keep the
// database locked).
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK) s_ = nullptr;
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  explicit operator bool() const { return s_ != nullptr; }
  sqlite3_stmt* get() const { return s_; }
  void bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void bind(int i, double v) { sqlite3_bind_double(s_, i, v); }
  int step() { return sqlite3_step(s_); }
  bool reset() { return sqlite3_reset(s_) == SQLITE_OK; }
  std::string text(int c) const {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s_, c))) : std::string();
  }
  int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
  double dbl(int c) const { return sqlite3_column_double(s_, c); }

 private:
  sqlite3_stmt* s_ = nullptr;
};

// A WHERE clause with its positional text parameters, built from optional filters.
struct Where {
  std::string sql;
  std::vector<std::string> params;
  void add(const char* column, const std::string& value) {
    if (value.empty()) return;
    sql += sql.empty() ? " WHERE " : " AND ";
    sql += column;
    sql += " = ?";
    params.push_back(value);
  }
  void bindTo(Stmt& s) const {
    for (size_t i = 0; i < params.size(); ++i) s.bind(static_cast<int>(i + 1), params[i]);
  }
};

KernelSample readKernel(const Stmt& s) {
  KernelSample k;
  k.kernelId = s.text(0);
  k.kernelName = s.text(1);
  k.deviceId = s.text(2);
  k.workDim = static_cast<uint32_t>(s.i64(3));
  for (int d = 0; d < 3; ++d) {
    k.global[d] = static_cast<uint64_t>(s.i64(4 + d));
    k.local[d] = static_cast<uint64_t>(s.i64(7 + d));
  }
  k.totalGroups = static_cast<uint64_t>(s.i64(10));
  k.groups = static_cast<uint64_t>(s.i64(11));
  k.features = decodeFeatures(s.text(12));
  k.seconds = s.dbl(13);
  k.timestamp = s.i64(14);
  return k;
}

std::vector<KernelSample> queryKernels(sqlite3* db, const Where& w) {
  std::vector<KernelSample> out;
  Stmt s(db, std::string("SELECT ") + kKernelColumns + " FROM kernel_samples" + w.sql +
                 " ORDER BY id");
  if (!s) return out;
  w.bindTo(s);
  while (s.step() == SQLITE_ROW) out.push_back(readKernel(s));
  return out;
}

std::vector<TransferSample> queryTransfers(sqlite3* db, const Where& w) {
  std::vector<TransferSample> out;
  Stmt s(db, "SELECT device_id, direction, pinned, bytes, seconds, timestamp FROM "
             "transfer_samples" + w.sql + " ORDER BY id");
  if (!s) return out;
  w.bindTo(s);
  while (s.step() == SQLITE_ROW) {
    TransferSample t;
    t.deviceId = s.text(0);
    parseDirection(s.text(1), &t.direction);
    t.pinned = s.i64(2) != 0;
    t.bytes = static_cast<uint64_t>(s.i64(3));
    t.seconds = s.dbl(4);
    t.timestamp = s.i64(5);
    out.push_back(std::move(t));
  }
  return out;
}

bool isBusy(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }

}  // namespace

ProfileDB::ProfileDB() = default;
ProfileDB::~ProfileDB() { close(); }

bool ProfileDB::isOpen() const {
  std::lock_guard<std::mutex> g(mu_);
  return db_ != nullptr;
}

std::string ProfileDB::lastError() const {
  std::lock_guard<std::mutex> g(mu_);
  return err_;
}

void ProfileDB::close() {
  std::lock_guard<std::mutex> g(mu_);
  if (db_) sqlite3_close_v2(db_);
  db_ = nullptr;
}

bool ProfileDB::fail(const char* what) {
  err_ = std::string(what) + ": " + (db_ ? sqlite3_errmsg(db_) : "database not open");
  return false;
}

bool ProfileDB::exec(const char* sql) {
  // The busy handler does not cover every lock wait (e.g. switching to WAL while another
  // process holds the database), so retry those by hand for as long as the busy timeout.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return true;
    if (!isBusy(rc) || std::chrono::steady_clock::now() > deadline) return fail(sql);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool ProfileDB::open(const std::string& path) {
  close();
  std::lock_guard<std::mutex> g(mu_);
  path_ = path;
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) {
    err_ = "cannot create " + parent.string() + ": " + ec.message();
    return false;
  }
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    fail(("open " + path).c_str());
    sqlite3_close_v2(db_);
    db_ = nullptr;
    return false;
  }
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  // NORMAL is crash-safe in WAL mode (a crash loses at most the last commits, never the
  // file) and avoids an fsync per profile sample.
  bool ok = exec("PRAGMA journal_mode=WAL") && exec("PRAGMA synchronous=NORMAL") &&
            writeTransaction([&] { return exec(kSchema); }) && intact();
  if (!ok) {
    std::string e = err_;
    sqlite3_close_v2(db_);
    db_ = nullptr;
    err_ = e;
  }
  return ok;
}

// A damaged file reads back wrong samples as often as none: a copy that met an old
// write-ahead log of its name gave models that put mk_Lyapunov's 4096^2 products on the
// CPU (7 s against 21 ms on an H200). quick_check reads every page once (about a
// millisecond for a database of a few thousand samples).
bool ProfileDB::intact() {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "PRAGMA quick_check(1)", -1, &st, nullptr) != SQLITE_OK) return fail("quick_check");
  std::string verdict;
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
    verdict = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return fail("quick_check");
  if (verdict == "ok") return true;
  err_ = "the database is damaged (" + verdict + ")";
  return false;
}

template <class Fn>
bool ProfileDB::writeTransaction(Fn&& body) {
  if (!db_) return fail("write");
  if (!exec("BEGIN IMMEDIATE")) return false;
  if (body() && exec("COMMIT")) return true;
  std::string e = err_;
  sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  err_ = e;
  return false;
}

bool ProfileDB::addKernelSample(const KernelSample& s) { return addKernelSamples({s}); }

bool ProfileDB::addKernelSamples(const std::vector<KernelSample>& samples) {
  std::lock_guard<std::mutex> g(mu_);
  return writeTransaction([&] {
    Stmt st(db_, std::string("INSERT INTO kernel_samples(") + kKernelColumns +
                     ") VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st) return fail("prepare insert kernel sample");
    for (const auto& k : samples) {
      if (k.kernelId.empty() || k.deviceId.empty()) {
        err_ = "kernel sample without kernel or device id";
        return false;
      }
      st.reset();
      st.bind(1, k.kernelId);
      st.bind(2, k.kernelName);
      st.bind(3, k.deviceId);
      st.bind(4, static_cast<int64_t>(k.workDim));
      for (int d = 0; d < 3; ++d) {
        st.bind(5 + d, static_cast<int64_t>(k.global[d]));
        st.bind(8 + d, static_cast<int64_t>(k.local[d]));
      }
      st.bind(11, static_cast<int64_t>(k.totalGroups));
      st.bind(12, static_cast<int64_t>(k.groups));
      st.bind(13, encodeFeatures(k.features));
      st.bind(14, k.seconds);
      st.bind(15, k.timestamp ? k.timestamp : nowSeconds());
      if (st.step() != SQLITE_DONE) return fail("insert kernel sample");
    }
    return true;
  });
}

bool ProfileDB::addTransferSample(const TransferSample& s) { return addTransferSamples({s}); }

bool ProfileDB::addTransferSamples(const std::vector<TransferSample>& samples) {
  std::lock_guard<std::mutex> g(mu_);
  return writeTransaction([&] {
    Stmt st(db_, "INSERT INTO transfer_samples(device_id, direction, pinned, bytes, seconds, "
                 "timestamp) VALUES(?,?,?,?,?,?)");
    if (!st) return fail("prepare insert transfer sample");
    for (const auto& t : samples) {
      if (t.deviceId.empty()) {
        err_ = "transfer sample without device id";
        return false;
      }
      st.reset();
      st.bind(1, t.deviceId);
      st.bind(2, std::string(directionName(t.direction)));
      st.bind(3, static_cast<int64_t>(t.pinned));
      st.bind(4, static_cast<int64_t>(t.bytes));
      st.bind(5, t.seconds);
      st.bind(6, t.timestamp ? t.timestamp : nowSeconds());
      if (st.step() != SQLITE_DONE) return fail("insert transfer sample");
    }
    return true;
  });
}

std::vector<KernelSample> ProfileDB::kernelSamples(const std::string& kernelId,
                                                   const std::string& deviceId) const {
  std::lock_guard<std::mutex> g(mu_);
  if (!db_ || kernelId.empty() || deviceId.empty()) return {};
  Where w;
  w.add("kernel_id", kernelId);
  w.add("device_id", deviceId);
  return queryKernels(db_, w);
}

std::vector<KernelSummary> ProfileDB::kernels() const {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<KernelSummary> out;
  if (!db_) return out;
  Stmt s(db_, "SELECT kernel_id, MAX(kernel_name), device_id, COUNT(*), MAX(timestamp) "
              "FROM kernel_samples GROUP BY kernel_id, device_id ORDER BY 2, 1, 3");
  while (s && s.step() == SQLITE_ROW)
    out.push_back({s.text(0), s.text(1), s.text(2), static_cast<size_t>(s.i64(3)), s.i64(4)});
  return out;
}

std::vector<DeviceSummary> ProfileDB::devices() const {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<DeviceSummary> out;
  if (!db_) return out;
  Stmt s(db_, "SELECT d, SUM(k), SUM(t) FROM ("
              " SELECT device_id d, 1 k, 0 t FROM kernel_samples UNION ALL"
              " SELECT device_id d, 0 k, 1 t FROM transfer_samples) GROUP BY d ORDER BY d");
  while (s && s.step() == SQLITE_ROW)
    out.push_back({s.text(0), static_cast<size_t>(s.i64(1)), static_cast<size_t>(s.i64(2))});
  return out;
}

std::vector<TransferSample> ProfileDB::transferSamples(const std::string& deviceId) const {
  std::lock_guard<std::mutex> g(mu_);
  if (!db_) return {};
  Where w;
  w.add("device_id", deviceId);
  return queryTransfers(db_, w);
}

std::string ProfileDB::exportJson(const ExportFilter& f) const {
  std::lock_guard<std::mutex> g(mu_);
  Where kw, tw;
  kw.add("kernel_id", f.kernelId);
  kw.add("device_id", f.deviceId);
  tw.add("device_id", f.deviceId);
  // Read both tables in one snapshot so the export is consistent while others write.
  if (db_) sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr);
  auto ks = db_ ? queryKernels(db_, kw) : std::vector<KernelSample>{};
  auto ts = db_ ? queryTransfers(db_, tw) : std::vector<TransferSample>{};
  if (db_) sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);

  JsonWriter j;
  j.beginObject().key("format").value("tutti-profiles").key("version").value(1LL);
  j.key("kernel_samples").beginArray();
  for (const auto& k : ks) {
    j.beginObject();
    j.key("kernel_id").value(k.kernelId).key("kernel_name").value(k.kernelName);
    j.key("device_id").value(k.deviceId).key("work_dim").value(static_cast<long long>(k.workDim));
    j.key("global").beginArray();
    for (auto v : k.global) j.value(static_cast<long long>(v));
    j.endArray().key("local").beginArray();
    for (auto v : k.local) j.value(static_cast<long long>(v));
    j.endArray();
    j.key("total_groups").value(static_cast<long long>(k.totalGroups));
    j.key("groups").value(static_cast<long long>(k.groups));
    j.key("features").beginObject();
    for (const auto& [name, v] : k.features) j.key(name).value(v);
    j.endObject();
    j.key("seconds").value(k.seconds).key("timestamp").value(static_cast<long long>(k.timestamp));
    j.endObject();
  }
  j.endArray().key("transfer_samples").beginArray();
  for (const auto& t : ts) {
    j.beginObject().key("device_id").value(t.deviceId);
    j.key("direction").value(directionName(t.direction)).key("pinned").value(t.pinned);
    j.key("bytes").value(static_cast<long long>(t.bytes)).key("seconds").value(t.seconds);
    j.key("timestamp").value(static_cast<long long>(t.timestamp)).endObject();
  }
  j.endArray().endObject();
  return j.str();
}

ProfileDB::StoredFit ProfileDB::fittedModel(const std::string& kernelId, const std::string& deviceId) const {
  std::lock_guard<std::mutex> g(mu_);
  if (!db_) return {};
  Stmt s(db_, "SELECT fit_key, model FROM fitted_models WHERE kernel_id = ? AND device_id = ?");
  if (!s) return {};
  s.bind(1, kernelId);
  s.bind(2, deviceId);
  if (s.step() != SQLITE_ROW) return {};
  return {s.text(0), s.text(1)};
}

bool ProfileDB::storeFittedModel(const std::string& kernelId, const std::string& deviceId,
                                 const std::string& fitKey, const std::string& model) {
  std::lock_guard<std::mutex> g(mu_);
  return writeTransaction([&] {
    Stmt s(db_, "INSERT OR REPLACE INTO fitted_models(kernel_id, device_id, fit_key, model) VALUES(?,?,?,?)");
    if (!s) return fail("prepare store fitted model");
    s.bind(1, kernelId);
    s.bind(2, deviceId);
    s.bind(3, fitKey);
    s.bind(4, model);
    return s.step() == SQLITE_DONE || fail("store fitted model");
  });
}

int64_t ProfileDB::prune(const PruneSpec& p) {
  std::lock_guard<std::mutex> g(mu_);
  if (!p.all && p.kernelId.empty() && p.deviceId.empty() && p.olderThanDays < 0) {
    err_ = "prune: nothing selected (give a kernel, a device, an age or all)";
    return -1;
  }
  int64_t deleted = 0;
  auto run = [&](const char* table, bool hasKernel) {
    if (!hasKernel && !p.kernelId.empty() && !p.all) return true;  // kernel-only filter
    Where w;
    if (!p.all) {
      if (hasKernel) w.add("kernel_id", p.kernelId);
      w.add("device_id", p.deviceId);
    }
    std::string sql = std::string("DELETE FROM ") + table + w.sql;
    if (!p.all && p.olderThanDays >= 0)
      sql += (w.sql.empty() ? " WHERE" : " AND") + std::string(" timestamp < ?");
    Stmt s(db_, sql);
    if (!s) return fail("prepare prune");
    w.bindTo(s);
    if (!p.all && p.olderThanDays >= 0)
      s.bind(static_cast<int>(w.params.size() + 1),
             nowSeconds() - static_cast<int64_t>(p.olderThanDays * 86400.0));
    if (s.step() != SQLITE_DONE) return fail("prune");
    deleted += sqlite3_changes(db_);
    return true;
  };
  // A fit is only good for the samples it was made of (its key says which); those whose
  // samples are all gone go too, so a pruned database holds nothing of them.
  bool ok = writeTransaction([&] {
    return run("kernel_samples", true) && run("transfer_samples", false) &&
           exec("DELETE FROM fitted_models WHERE NOT EXISTS (SELECT 1 FROM kernel_samples k WHERE "
                "k.kernel_id = fitted_models.kernel_id AND k.device_id = fitted_models.device_id)");
  });
  return ok ? deleted : -1;
}

}  // namespace tutti::profiles
