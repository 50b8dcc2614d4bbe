// host_copy.cpp - large host memcpys on several threads.
//
// Homes are allocated lazily, so the first copy into one also faults its pages in; one
// thread gets ~4 GB/s through that, below the ~10 GB/s of a pageable PCIe copy it often
// replaces. Faults on disjoint pages proceed in parallel, and so does the copying.
#include <algorithm>
#include <cstring>

#include "execute.h"
#include "worker_pool.h"

namespace tutti {

void hostCopy(void *dst, const void *src, size_t n) {
  if (!n) return;  // dst and src may then be null, which memcpy does not allow
  constexpr size_t kPerPart = 2u << 20;  // below this a part's hand-off is not repaid
  size_t parts = std::min<size_t>(n / kPerPart, poolThreads());
  if (parts < 2) {
    std::memcpy(dst, src, n);
    return;
  }
  size_t chunk = (n / parts + 4095) & ~size_t(4095);  // page-aligned shares
  auto *d = static_cast<char *>(dst);
  auto *s = static_cast<const char *>(src);
  parallelFor((n + chunk - 1) / chunk, [&](size_t i) {
    size_t off = i * chunk;
    std::memcpy(d + off, s + off, std::min(chunk, n - off));
  });
}

}  // namespace tutti
