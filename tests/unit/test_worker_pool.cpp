// test_worker_pool.cpp - parallelFor runs every part exactly once, also with callers in
// several threads at once, and hostCopy built on it copies every byte.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "host_copy.h"
#include "worker_pool.h"

using namespace tutti;

TEST(WorkerPool, EveryPartRunsOnce) {
  for (size_t parts : {0u, 1u, 2u, 7u, 64u, 1000u}) {
    std::vector<std::atomic<int>> hits(parts);
    parallelFor(parts, [&](size_t i) { hits[i].fetch_add(1); });
    for (size_t i = 0; i < parts; ++i) ASSERT_EQ(hits[i].load(), 1) << parts << " parts, part " << i;
  }
}

TEST(WorkerPool, ConcurrentCallersTakeTurns) {
  constexpr int kCallers = 4, kRounds = 200;
  std::vector<std::atomic<long>> sums(kCallers);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int r = 0; r < kRounds; ++r) parallelFor(33, [&](size_t i) { sums[c].fetch_add(long(i)); });
    });
  for (auto &t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) EXPECT_EQ(sums[c].load(), long(kRounds) * (32 * 33 / 2)) << c;
}

TEST(WorkerPool, HostCopyCopiesEveryByte) {
  for (size_t n : {size_t(0), size_t(4099), size_t(5u << 20) + 13, size_t(33u << 20) + 4095}) {
    std::vector<unsigned char> src(n), dst(n, 0);
    for (size_t i = 0; i < n; ++i) src[i] = (unsigned char)(i * 131 + (i >> 12));
    hostCopy(dst.data(), src.data(), n);
    ASSERT_EQ(dst, src) << n;
  }
}
