// host_copy.h - memcpy split over the copy pool for large copies.
#pragma once
#include <cstddef>
#include <functional>

namespace tutti {

// Host homes are often fresh pages whose first-touch faults dominate a single-threaded
// copy: large copies are split over the copy pool in parts of at least minPart bytes.
void hostCopy(void *dst, const void *src, size_t n, size_t minPart = 2u << 20);
// fn(offset, length) over [0, n): on this thread when n is less than two parts of minPart
// bytes, else in page-aligned parts (so no element of up to 4 KiB straddles two) on the
// copy pool, in turns short enough that other threads' copies are not held back for long.
void inPoolTurns(size_t n, size_t minPart, const std::function<void(size_t, size_t)> &fn);
// rows copies of n bytes, srcPitch apart in src and dstPitch apart in dst, the rows split
// over the copy pool the same way (a paged slice's strided rows through the pinned ring).
void hostCopyRows(char *dst, size_t dstPitch, const char *src, size_t srcPitch, size_t n, size_t rows,
                  size_t minPart = 2u << 20);

}  // namespace tutti
