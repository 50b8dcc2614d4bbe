// transfer_probe.cpp - copy bandwidth and latency of one backing device, into the profile DB.
#include "transfer_probe.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include <tutti/profile_types.h>

#include "backend.h"
#include "clock.h"
#include "icd.h"
#include "log.h"
#include "profile_store.h"
#include "staging.h"

namespace tutti {

namespace pf = tutti::profiles;

namespace {

// The two largest give the model of large copies (TransferModel::kLargeBytes).
constexpr size_t kSizes[] = {4u << 10, 64u << 10, 1u << 20, 16u << 20, 128u << 20};

// Best of three blocking copies, host clock (latency included, as the model wants it).
// From pageable memory (staged), a copy goes the way Tutti makes it: through the slot's
// pinned staging where that is wanted for its size, as the app's large copies and Tutti's
// own (uploads from the homes, fills into them) are, else the driver's path. The models
// price those copies: the driver's pageable path ran at 11-14 GB/s on the H100, staged
// ones at 28-38.
double timeCopy(DeviceSlot &ds, cl_mem buf, void *host, size_t bytes, bool toDevice, bool staged) {
  const cl_icd_dispatch &d = icd(ds.queue());
  double best = -1;
  for (int rep = 0; rep < 3; ++rep) {
    uint64_t t0 = nowNs();
    cl_int err = CL_SUCCESS;
    bool done = staged && (toDevice ? stagedWrite(ds, buf, 0, bytes, host, &err)
                                    : stagedRead(ds, buf, 0, bytes, host, &err));
    if (!done)
      err = toDevice
                ? d.clEnqueueWriteBuffer(ds.queue(), buf, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr)
                : d.clEnqueueReadBuffer(ds.queue(), buf, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr);
    double s = double(nowNs() - t0) * 1e-9;
    if (err != CL_SUCCESS) return -1;
    if (best < 0 || s < best) best = s;
  }
  return best;
}

void measureInto(DeviceSlot &ds, const std::string &id, cl_mem buf, void *host, size_t maxBytes,
                 bool pinned) {
  for (size_t bytes : kSizes) {
    if (bytes > maxBytes) break;
    for (pf::Direction dir : {pf::Direction::H2D, pf::Direction::D2H}) {
      double s = timeCopy(ds, buf, host, bytes, dir == pf::Direction::H2D, !pinned);
      if (s <= 0) continue;
      pf::TransferSample t;
      t.deviceId = id;
      t.direction = dir;
      t.pinned = pinned;
      t.bytes = bytes;
      t.seconds = s;
      queueTransferSample(t);
    }
  }
}

}  // namespace

const char *const kHostMemoryId = "host memory (memcpy)";

void measureHostMemory() {
  static std::atomic<bool> done{false};  // profiling runs on the host-work thread too
  if (done.exchange(true) || !profileDbEnabled() || storedTransferSamples(kHostMemoryId) > 0) return;
  std::vector<char> a(16u << 20, 1), b(16u << 20, 2);
  for (size_t bytes : {size_t(1) << 20, size_t(16) << 20}) {
    double best = -1;
    for (int rep = 0; rep < 3; ++rep) {
      uint64_t t0 = nowNs();
      std::memcpy(b.data(), a.data(), bytes);
      double s = double(nowNs() - t0) * 1e-9;
      if (best < 0 || s < best) best = s;
    }
    pf::TransferSample t;
    t.deviceId = kHostMemoryId;
    t.bytes = bytes;
    t.seconds = best;
    queueTransferSample(t);
  }
}

void measureTransfers(DeviceSlot &ds) {
  static std::mutex mu;  // profiling runs on the host-work thread too
  static std::set<std::string> done;
  std::string id = deviceIdentity(ds.dev);
  bool fresh;
  {
    std::lock_guard<std::mutex> g(mu);
    fresh = done.insert(id).second;
  }
  if (!fresh || !profileDbEnabled() || storedTransferSamples(id) > 0) return;
  size_t maxBytes = kSizes[std::size(kSizes) - 1];
  if (ds.dev->maxAlloc) maxBytes = std::min<size_t>(maxBytes, size_t(ds.dev->maxAlloc / 4));
  const cl_icd_dispatch &d = icd(ds.queue());
  cl_int err = CL_SUCCESS;
  cl_mem buf = d.clCreateBuffer(ds.ctx, CL_MEM_READ_WRITE, maxBytes, nullptr, &err);
  if (err != CL_SUCCESS) {
    TUTTI_LOG(Warn, "%s: no buffer to measure transfers: %s", ds.dev->label().c_str(), clErrorName(err));
    return;
  }
  std::vector<char> pageable(maxBytes, 1);
  awaitStaging(ds);  // the copies it will stage must not go the driver's way here
  measureInto(ds, id, buf, pageable.data(), maxBytes, false);
  // Pinned host memory as the driver hands it out: an ALLOC_HOST_PTR buffer, mapped.
  cl_mem pin = d.clCreateBuffer(ds.ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, maxBytes, nullptr, &err);
  void *p = nullptr;
  if (err == CL_SUCCESS)
    p = d.clEnqueueMapBuffer(ds.queue(), pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, maxBytes, 0,
                             nullptr, nullptr, &err);
  if (p) {
    measureInto(ds, id, buf, p, maxBytes, true);
    d.clEnqueueUnmapMemObject(ds.queue(), pin, p, 0, nullptr, nullptr);
    d.clFinish(ds.queue());
  }
  if (pin) d.clReleaseMemObject(pin);
  d.clReleaseMemObject(buf);
  TUTTI_LOG(Info, "%s: transfer times measured for the profile database", ds.dev->label().c_str());
}

}  // namespace tutti
