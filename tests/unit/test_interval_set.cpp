// Validity tracker: the byte-range set every replica's coherence rests on.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "interval_set.h"

using tutti::IntervalSet;
using tutti::Range;

TEST(IntervalSet, AddMergesAdjacentAndOverlapping) {
  IntervalSet s;
  s.add({0, 10});
  s.add({10, 20});
  s.add({30, 40});
  s.add({35, 50});
  auto r = s.ranges();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (Range{0, 20}));
  EXPECT_EQ(r[1], (Range{30, 50}));
  EXPECT_EQ(s.bytes(), 40u);
}

TEST(IntervalSet, RemoveSplits) {
  IntervalSet s;
  s.add({0, 100});
  s.remove({40, 60});
  auto r = s.ranges();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (Range{0, 40}));
  EXPECT_EQ(r[1], (Range{60, 100}));
  EXPECT_TRUE(s.contains({0, 40}));
  EXPECT_FALSE(s.contains({39, 61}));
  EXPECT_TRUE(s.intersects({59, 61}));
  EXPECT_FALSE(s.intersects({40, 60}));
}

TEST(IntervalSet, MissingAndPresentPartitionTheQuery) {
  IntervalSet s;
  s.add({10, 20});
  s.add({30, 40});
  auto m = s.missing({0, 50});
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], (Range{0, 10}));
  EXPECT_EQ(m[1], (Range{20, 30}));
  EXPECT_EQ(m[2], (Range{40, 50}));
  auto p = s.present({15, 35});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], (Range{15, 20}));
  EXPECT_EQ(p[1], (Range{30, 35}));
  EXPECT_TRUE(s.missing({10, 20}).empty());
  EXPECT_EQ(s.presentBytes({15, 35}), 10u);
  EXPECT_EQ(s.presentBytes({0, 50}), 20u);
  EXPECT_EQ(s.presentBytes({20, 30}), 0u);
  EXPECT_EQ(s.presentBytes({12, 12}), 0u);
}

TEST(IntervalSet, EmptyRangesAreNoOps) {
  IntervalSet s;
  s.add({5, 5});
  EXPECT_TRUE(s.empty());
  EXPECT_TRUE(s.contains({7, 7}));
  s.add({0, 8});
  s.remove({3, 3});
  EXPECT_EQ(s.bytes(), 8u);
}

// Against a byte-per-bit model, with random operations.
TEST(IntervalSet, MatchesBitmapModel) {
  std::mt19937 rng(42);
  const size_t N = 512;
  for (int round = 0; round < 50; ++round) {
    IntervalSet s;
    std::vector<bool> model(N, false);
    for (int op = 0; op < 200; ++op) {
      size_t a = rng() % N, b = rng() % N;
      if (a > b) std::swap(a, b);
      if (rng() % 2) {
        s.add({a, b});
        for (size_t i = a; i < b; ++i) model[i] = true;
      } else {
        s.remove({a, b});
        for (size_t i = a; i < b; ++i) model[i] = false;
      }
      size_t qa = rng() % N, qb = rng() % N;
      if (qa > qb) std::swap(qa, qb);
      bool all = true, any = false;
      for (size_t i = qa; i < qb; ++i) all &= model[i], any |= model[i];
      ASSERT_EQ(s.contains({qa, qb}), all);
      ASSERT_EQ(s.intersects({qa, qb}), any);
      size_t missing = 0;
      for (auto r : s.missing({qa, qb})) missing += r.size();
      size_t modelMissing = 0;
      for (size_t i = qa; i < qb; ++i) modelMissing += !model[i];
      ASSERT_EQ(missing, modelMissing);
    }
    size_t bytes = 0;
    for (bool v : model) bytes += v;
    ASSERT_EQ(s.bytes(), bytes);
    auto r = s.ranges();
    for (size_t i = 1; i < r.size(); ++i) ASSERT_LT(r[i - 1].end, r[i].begin);  // coalesced
  }
}
