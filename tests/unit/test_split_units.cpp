// test_split_units.cpp - how an MKMD schedule's work-group shares are cut for a split launch.
#include <gtest/gtest.h>

#include "split_units.h"

using tutti::toWholeUnits;

// A cut inside a row of a 2-D launch's groups made mk_ABE's pieces overlap and merge on the host.
TEST(SplitUnits, ScheduleSharesAreCutAtWholeUnits) {
  EXPECT_EQ(toWholeUnits({0, 530, 494}, 32), (std::vector<uint64_t>{0, 544, 480}));
  EXPECT_EQ(toWholeUnits({10, 500, 514}, 32), (std::vector<uint64_t>{0, 512, 512}));
  EXPECT_EQ(toWholeUnits({40, 490, 494}, 32), (std::vector<uint64_t>{32, 480, 512}));
  // Every unit goes somewhere, and no share grows from nothing.
  EXPECT_EQ(toWholeUnits({0, 17, 15}, 16), (std::vector<uint64_t>{0, 16, 16}));
  EXPECT_EQ(toWholeUnits({0, 31, 1}, 16), (std::vector<uint64_t>{0, 32, 0}));
}

TEST(SplitUnits, SharesStayWhereUnitsDoNotApply) {
  EXPECT_EQ(toWholeUnits({3, 5, 7}, 1), (std::vector<uint64_t>{3, 5, 7}));
  EXPECT_EQ(toWholeUnits({3, 5, 7}, 0), (std::vector<uint64_t>{3, 5, 7}));
  EXPECT_EQ(toWholeUnits({3, 5, 7}, 4), (std::vector<uint64_t>{3, 5, 7}));  // 15 % 4 != 0
}
