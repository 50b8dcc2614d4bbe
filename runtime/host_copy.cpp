// host_copy.cpp - large host memcpys on several threads.
//
// Homes are allocated lazily, so the first copy into one also faults its pages in; one
// thread gets ~4 GB/s through that, below the ~10 GB/s of a pageable PCIe copy it often
// replaces. Faults on disjoint pages proceed in parallel, and so does the copying.
#include <algorithm>
#include <cstring>

#include "host_copy.h"
#include "worker_pool.h"

namespace tutti {

void hostCopy(void *dst, const void *src, size_t n, size_t minPart) {
  if (!n) return;  // dst and src may then be null, which memcpy does not allow
  auto *d = static_cast<char *>(dst);
  auto *s = static_cast<const char *>(src);
  inPoolTurns(n, minPart, [&](size_t off, size_t len) { std::memcpy(d + off, s + off, len); });
}

void inPoolTurns(size_t n, size_t minPart, const std::function<void(size_t, size_t)> &fn) {
  // Below minPart a part's hand-off is not repaid (a staging round, already pipelined
  // against DMA, takes smaller parts than a lone copy).
  const size_t parts = std::min<size_t>(n / std::max<size_t>(minPart, 1), poolThreads());
  if (parts < 2) {
    if (n) fn(0, n);
    return;
  }
  // The pool serves one caller at a time: a 256 MB copy or merge in one turn held every
  // other thread's copies for its whole length (a split launch's merge stalled another
  // thread's reads for 130 ms on the VM). Turns of at most kTurnPart per thread, in
  // page-aligned parts.
  constexpr size_t kTurnPart = 8u << 20;
  const size_t chunk = std::min((n / parts + 4095) & ~size_t(4095), kTurnPart);
  const size_t perTurn = chunk * std::max(1u, poolThreads());
  for (size_t base = 0; base < n; base += perTurn) {
    const size_t len = std::min(perTurn, n - base);
    parallelFor((len + chunk - 1) / chunk, [&](size_t i) {
      size_t off = base + i * chunk;
      fn(off, std::min(chunk, base + len - off));
    });
  }
}

void hostCopyRows(char *dst, size_t dstPitch, const char *src, size_t srcPitch, size_t n, size_t rows,
                  size_t minPart) {
  if (rows == 1 || (dstPitch == n && srcPitch == n)) return hostCopy(dst, src, n * rows, minPart);
  size_t parts = std::min<size_t>({n * rows / std::max<size_t>(minPart, 1), poolThreads(), rows});
  auto copy = [&](size_t r0, size_t r1) {
    for (size_t r = r0; r < r1; ++r) std::memcpy(dst + r * dstPitch, src + r * srcPitch, n);
  };
  if (parts < 2) return copy(0, rows);
  parallelFor(parts, [&](size_t i) { copy(rows * i / parts, rows * (i + 1) / parts); });
}

}  // namespace tutti
