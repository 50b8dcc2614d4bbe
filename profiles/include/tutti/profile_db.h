// profile_db.h: the SQLite store of kernel and transfer profile samples.
// Several processes may profile at once (WAL + busy timeout); every write is one transaction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tutti/profile_types.h"

struct sqlite3;

namespace tutti::profiles {

// $TUTTI_PROFILE_DB, else $XDG_CACHE_HOME/tutti/profiles.sqlite, else ~/.cache/tutti/profiles.sqlite.
std::string defaultDbPath();

struct KernelSummary {
  std::string kernelId, kernelName, deviceId;
  size_t samples = 0;
  int64_t lastTimestamp = 0;
};

struct DeviceSummary {
  std::string deviceId;
  size_t kernelSamples = 0, transferSamples = 0;
};

struct ExportFilter {
  std::string kernelId;  // empty: any
  std::string deviceId;  // empty: any
};

struct PruneSpec {
  std::string kernelId;        // delete this kernel's samples (all devices unless deviceId too)
  std::string deviceId;        // delete this device's kernel and transfer samples
  double olderThanDays = -1;   // >= 0: delete samples older than this
  bool all = false;            // delete everything
};

// One connection. Methods are thread-safe (serialised by an internal mutex); for real
// parallelism open one ProfileDB per thread or process. Errors never throw: writes return
// false, reads return what they could, and lastError() says why.
class ProfileDB {
 public:
  ProfileDB();
  ~ProfileDB();
  ProfileDB(const ProfileDB&) = delete;
  ProfileDB& operator=(const ProfileDB&) = delete;

  bool open(const std::string& path);  // creates parent directories and the schema
  void close();
  bool isOpen() const;
  const std::string& path() const { return path_; }
  std::string lastError() const;

  bool addKernelSample(const KernelSample& s);
  bool addKernelSamples(const std::vector<KernelSample>& s);  // one transaction for all
  bool addTransferSample(const TransferSample& s);
  bool addTransferSamples(const std::vector<TransferSample>& s);

  std::vector<KernelSample> kernelSamples(const std::string& kernelId,
                                          const std::string& deviceId) const;
  std::vector<KernelSummary> kernels() const;  // one row per (kernel, device)
  std::vector<DeviceSummary> devices() const;
  std::vector<TransferSample> transferSamples(const std::string& deviceId) const;

  // The fit cache: a (kernel, device)'s last fitted model (TimeModel::save) and the key of
  // its fit's input (TimeModel::fitKey); both empty when none is stored.
  struct StoredFit {
    std::string fitKey, model;
  };
  StoredFit fittedModel(const std::string& kernelId, const std::string& deviceId) const;
  bool storeFittedModel(const std::string& kernelId, const std::string& deviceId,
                        const std::string& fitKey, const std::string& model);

  std::string exportJson(const ExportFilter& f = {}) const;
  // Returns the number of rows deleted, or -1 on error (or a spec that selects nothing).
  int64_t prune(const PruneSpec& p);

 private:
  bool exec(const char* sql);
  bool intact();  // PRAGMA quick_check; false (err_ says why) when the file is damaged
  bool fail(const char* what);
  template <class Fn>
  bool writeTransaction(Fn&& body);

  sqlite3* db_ = nullptr;
  std::string path_;
  mutable std::mutex mu_;
  mutable std::string err_;
};

}  // namespace tutti::profiles
