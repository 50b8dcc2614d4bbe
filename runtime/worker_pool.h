// worker_pool.h - a process-wide pool of threads for splitting host copies.
#pragma once

#include <cstddef>
#include <functional>

namespace tutti {

// Runs fn(0) .. fn(parts-1) on the pool's threads and the caller's, and returns when
// all have run. Concurrent callers take turns. Starting a thread per copy cost more than
// a staged round's copy (tens of microseconds each), hence a pool.
void parallelFor(size_t parts, const std::function<void(size_t)> &fn);

// Threads a parallelFor uses, the caller's included (TUTTI_COPY_THREADS, or the cores, at most 16).
unsigned poolThreads();

}  // namespace tutti
