// host_copy.h - memcpy split over the copy pool for large copies.
#pragma once
#include <cstddef>

namespace tutti {

// Host homes are often fresh pages whose first-touch faults dominate a single-threaded
// copy: large copies are split over the copy pool in parts of at least minPart bytes.
void hostCopy(void *dst, const void *src, size_t n, size_t minPart = 2u << 20);

}  // namespace tutti
