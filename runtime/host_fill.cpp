// host_fill.cpp - the first-touch rate of host memory, for MKMD's model of fills into homes.
#include "host_fill.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "clock.h"
#include "host_copy.h"
#include "log.h"
#include "settings.h"

namespace tutti {

namespace {

std::atomic<double> g_bandwidth{0};
std::once_flag g_probed;

double measure() {
  constexpr size_t kBytes = 8u << 20;
  void *src = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void *dst = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  double bw = 0;
  if (src != MAP_FAILED && dst != MAP_FAILED) {
    std::memset(src, 1, kBytes);
    uint64_t t0 = nowNs();
    hostCopy(dst, src, kBytes, 256u << 10);  // staging's parts (copyParts)
    uint64_t t1 = nowNs();
    bw = double(kBytes) / (double(std::max<uint64_t>(t1 - t0, 1)) * 1e-9);
  }
  if (src != MAP_FAILED) munmap(src, kBytes);
  if (dst != MAP_FAILED) munmap(dst, kBytes);
  return bw;
}

}  // namespace

void probeHostFill() {
  std::call_once(g_probed, [] {
    const uint64_t set = settings().mkmd_host_fill;
    double bw = set ? double(set) * 1e6 : measure();
    TUTTI_LOG(Info, "copies into fresh host memory: %.2f GB/s (%s)", bw / 1e9,
              set ? "TUTTI_MKMD_HOST_FILL" : "measured");
    g_bandwidth.store(bw, std::memory_order_release);
  });
}

double hostFillBandwidth() { return g_bandwidth.load(std::memory_order_acquire); }

}  // namespace tutti
