// host_copy.cpp - large host memcpys on several threads.
//
// Homes are allocated lazily, so the first copy into one also faults its pages in; one
// thread gets ~4 GB/s through that, below the ~10 GB/s of a pageable PCIe copy it often
// replaces. Faults on disjoint pages proceed in parallel, and so does the copying.
#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "execute.h"

namespace tutti {

void hostCopy(void *dst, const void *src, size_t n) {
  constexpr size_t kPerThread = 8u << 20;  // below this a thread's start-up is not repaid
  static const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  size_t parts = std::min<size_t>({n / kPerThread, hw, 16});
  if (parts < 2) {
    std::memcpy(dst, src, n);
    return;
  }
  size_t chunk = (n / parts + 4095) & ~size_t(4095);  // page-aligned shares
  auto *d = static_cast<char *>(dst);
  auto *s = static_cast<const char *>(src);
  std::vector<std::thread> pool;
  for (size_t off = chunk; off < n; off += chunk) {
    size_t len = std::min(chunk, n - off);
    try {
      pool.emplace_back([=] { std::memcpy(d + off, s + off, len); });
    } catch (...) {  // no thread to be had: copy it here
      std::memcpy(d + off, s + off, len);
    }
  }
  std::memcpy(d, s, std::min(chunk, n));
  for (auto &t : pool) t.join();
}

}  // namespace tutti
