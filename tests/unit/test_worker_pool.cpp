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

// Strided rows both ways, split over the pool or not: every row's bytes land, and the gaps
// between rows on the destination side stay as they were.
TEST(WorkerPool, HostCopyRowsCopiesEveryRowAndNothingElse) {
  struct Shape {
    size_t n, rows, srcPitch, dstPitch;
  };
  for (Shape s : {Shape{64, 1, 64, 64}, Shape{4096, 300, 8192, 4096}, Shape{65536, 97, 65536, 131072 + 8},
                  Shape{3000, 4000, 3001, 5000}}) {
    std::vector<unsigned char> src((s.rows - 1) * s.srcPitch + s.n), dst((s.rows - 1) * s.dstPitch + s.n, 0xEE);
    for (size_t i = 0; i < src.size(); ++i) src[i] = (unsigned char)(i * 7 + (i >> 9));
    hostCopyRows(reinterpret_cast<char *>(dst.data()), s.dstPitch, reinterpret_cast<const char *>(src.data()),
                 s.srcPitch, s.n, s.rows, 4096);
    for (size_t i = 0; i < dst.size(); ++i) {
      const size_t r = i / s.dstPitch, c = i % s.dstPitch;
      const unsigned char want = c < s.n ? src[r * s.srcPitch + c] : 0xEE;
      ASSERT_EQ(dst[i], want) << "n=" << s.n << " rows=" << s.rows << " byte " << i;
    }
  }
}
