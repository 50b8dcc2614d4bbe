// worker_pool.h - a process-wide pool of threads for splitting host copies.
#pragma once

#include <cstddef>
#include <functional>

namespace tutti {

// Runs fn(0) .. fn(parts-1) on the pool's threads and the caller's, and returns when
// all have run. Concurrent callers take turns. Starting a thread per copy cost more than
// a staged round's copy (tens of microseconds each), hence a pool.
void parallelFor(size_t parts, const std::function<void(size_t)> &fn);

// Starts the pool's threads now (a context's creation) rather than in the first large
// copy, which the app may be timing (about 1 ms for 15 threads on the H100 machine).
void warmPool();

// Threads a parallelFor uses, the caller's included (TUTTI_COPY_THREADS, or the cores, at most 16).
unsigned poolThreads();

}  // namespace tutti
