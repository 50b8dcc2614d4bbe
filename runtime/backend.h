// backend.h - the real platforms and devices that back the virtual device.
#pragma once
#include <CL/cl.h>

#include <atomic>
#include <string>
#include <vector>

#include "settings.h"  // DeviceList

namespace tutti {

// What a transfer was, for Counters::record.
enum class Transfer { HostToDevice, DeviceToHost, DeviceCopy, Staged };

struct Counters {
  std::atomic<uint64_t> h2dBytes{0}, d2hBytes{0}, h2dTransfers{0}, d2hTransfers{0};
  std::atomic<uint64_t> kernels{0}, kernelNs{0}, deviceCopies{0}, splitPieces{0};
  std::atomic<uint64_t> workItems{0};  // run here, whole launches and split pieces alike
  std::atomic<uint64_t> stagedBytes{0};  // of h2d/d2h, through pinned staging (staging.cpp)
  std::atomic<uint64_t> failures{0};  // enqueues and allocations here that failed (failover.cpp)
  std::atomic<uint64_t> writesAside{0};  // the app's writes uploaded beside the queue (issue.cpp)
  void reset() {
    h2dBytes = d2hBytes = h2dTransfers = d2hTransfers = kernels = kernelNs = deviceCopies = splitPieces = workItems = 0;
    stagedBytes = failures = writesAside = 0;
  }
  // Records one transfer, so no call site updates the fields by hand: h2d and d2h add
  // their bytes and one transfer, a device copy counts one copy (bytes not kept), and
  // staged adds bytes of an h2d or d2h that was (or will be) recorded on its own.
  void record(Transfer t, uint64_t bytes = 0) {
    switch (t) {
      case Transfer::HostToDevice: h2dBytes += bytes, ++h2dTransfers; break;
      case Transfer::DeviceToHost: d2hBytes += bytes, ++d2hTransfers; break;
      case Transfer::DeviceCopy: ++deviceCopies; break;
      case Transfer::Staged: stagedBytes += bytes; break;
    }
  }
};

// One real device. Immutable after discovery except the counters.
struct BackingDevice {
  int index = 0;
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_device_type type = 0;
  std::string name, vendor, platformName, platformVersion, driverVersion, version, cVersion;
  std::vector<std::string> extensions;
  cl_uint computeUnits = 1, clockMHz = 0, addressBits = 64, baseAddrAlign = 1024;
  cl_ulong globalMem = 0, maxAlloc = 0, localMem = 0;  // TUTTI_MEM_LIMIT applied
  bool memLimited = false;  // TUTTI_MEM_LIMIT names it
  size_t maxWorkGroup = 1;
  bool imageSupport = false, compilerAvailable = true, linkerAvailable = true;
  // Whether the driver may be called for this device from a thread that does not hold
  // the API lock while other threads call it under the lock (blocking transfers run
  // outside the lock only then). PoCL's "basic" device runs its commands inside whichever
  // thread flushes or waits, and PoCL 3.1 deadlocked in pocl_update_event_running when a
  // blocking read there ran beside the dispatcher's calls (MersenneTwister, roundrobin).
  bool callsOutsideLock = true;
  // Failed TUTTI_RETIRE_AFTER times in a row: gets no new work, and what it alone holds
  // is still read back from it (failover.cpp).
  std::atomic<bool> retired{false};
  std::atomic<unsigned> failuresInARow{0};
  Counters counters;

  // Whether this device, at `slot`, may get new work from a command that failed on the
  // slots in `avoid` (bit s: slot s): not one of those, and not retired.
  bool takesWork(int slot, uint32_t avoid) const {
    return !(slot >= 0 && slot < 32 && (avoid >> slot & 1u)) && !retired;
  }
  bool isGpu() const { return type & CL_DEVICE_TYPE_GPU; }
  bool isCpu() const { return type & CL_DEVICE_TYPE_CPU; }
  bool hasExtension(const std::string &e) const;
  double strength() const;  // static estimate of throughput, for ranking
  std::string label() const;  // "0: pthread-... (Portable Computing Language)"
  // Records that the driver refused work here with err (failover.cpp), retiring the
  // device after TUTTI_RETIRE_AFTER failures in a row.
  void noteFailure(cl_int err);
};

class Backend {
 public:
  // Discovers once. Returns false with a message when nothing can back Tutti.
  bool ensure(std::string *error = nullptr);
  bool discovering() const;
  const std::vector<BackingDevice *> &devices() const { return devices_; }
  BackingDevice *strongest() const;
  bool anyGpu() const;

 private:
  bool discover(std::string &error);
  std::vector<BackingDevice *> devices_;
  std::string error_;
  std::atomic<int> state_{0};  // 0 new, 1 discovering, 2 done ok, 3 failed
};

Backend &backend();

// Whether p is Tutti's own platform (which discovery must skip when Tutti is also an ICD).
bool isOwnPlatform(cl_platform_id p);

// Matches TUTTI_DEVICES' picks against a device list; false with a message on a pick
// that matches nothing. The text form parses first (for the unit tests).
bool selectDevices(const DeviceList &picks, const std::vector<BackingDevice *> &all,
                   std::vector<BackingDevice *> &chosen, std::string &error);
bool selectDevices(const std::string &spec, const std::vector<BackingDevice *> &all,
                   std::vector<BackingDevice *> &chosen, std::string &error);

}  // namespace tutti
