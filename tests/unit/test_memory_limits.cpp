// What the virtual device reports as its global memory and largest allocation.
#include <gtest/gtest.h>

#include "info.h"

namespace {

constexpr cl_ulong kMiB = cl_ulong(1) << 20, kGiB = cl_ulong(1) << 30;
using tutti::MemoryLimits;
using tutti::virtualMemoryLimits;

}  // namespace

// The dev VM: 24 GiB of RAM, PoCL's CPU devices report 13.6 GiB with 4 GiB allocations.
TEST(MemoryLimits, PoclOnlyMachineReportsWhatPoclHolds) {
  MemoryLimits pocl{13590 * kMiB, 4 * kGiB};
  MemoryLimits v = virtualMemoryLimits(24 * kGiB, {pocl, pocl}, 0);
  EXPECT_EQ(v.global, 13590 * kMiB);
  EXPECT_EQ(v.maxAlloc, 4 * kGiB);
}

// Host memory less a quarter for the app and the OS, even where a device claims more.
TEST(MemoryLimits, LeavesAQuarterOfHostMemory) {
  MemoryLimits cpu{200 * kGiB, 50 * kGiB}, gpu{80 * kGiB, 20 * kGiB};
  MemoryLimits v = virtualMemoryLimits(128 * kGiB, {gpu, cpu}, 0);
  EXPECT_EQ(v.global, 96 * kGiB);
  EXPECT_EQ(v.maxAlloc, 50 * kGiB) << "the largest allocation a backing device serves";
  EXPECT_LT(v.global, 128 * kGiB);
}

// A GPU alone: a launch runs whole there, so its buffers must fit its memory.
TEST(MemoryLimits, NoMoreThanTheLargestDevice) {
  MemoryLimits v = virtualMemoryLimits(512 * kGiB, {{80 * kGiB, 20 * kGiB}}, 0);
  EXPECT_EQ(v.global, 80 * kGiB);
  EXPECT_EQ(v.maxAlloc, 20 * kGiB);
}

// VAST pages launches through the GPU (issue 18): host memory less the reserve, and one
// buffer may take all of it (its frames on the GPU are what must fit there).
TEST(MemoryLimits, PagedThroughAGpuReportsHostMemory) {
  MemoryLimits v = virtualMemoryLimits(128 * kGiB, {{80 * kGiB, 20 * kGiB}}, 0, true);
  EXPECT_EQ(v.global, 96 * kGiB);
  EXPECT_EQ(v.maxAlloc, 96 * kGiB);
  v = virtualMemoryLimits(128 * kGiB, {{80 * kGiB, 20 * kGiB}}, 32 * kGiB, true);
  EXPECT_EQ(v.global, 32 * kGiB) << "TUTTI_GLOBAL_MEM_MB still decides";
}

// Small hosts keep at least 1 GiB; the allocation limit never drops below the spec's
// minimum, max(min(1 GiB, global / 4), 32 MiB), nor rises above global.
TEST(MemoryLimits, SmallHostsAndSpecMinimum) {
  MemoryLimits v = virtualMemoryLimits(2 * kGiB, {{4 * kGiB, 16 * kMiB}}, 0);
  EXPECT_EQ(v.global, 1 * kGiB);
  EXPECT_EQ(v.maxAlloc, 256 * kMiB);
  v = virtualMemoryLimits(kGiB, {}, 0);
  EXPECT_EQ(v.global, 512 * kMiB);
  EXPECT_EQ(v.maxAlloc, 128 * kMiB);
  v = virtualMemoryLimits(64 * kGiB, {{40 * kGiB, 0}}, 0);
  EXPECT_EQ(v.global, 40 * kGiB);
  EXPECT_EQ(v.maxAlloc, 10 * kGiB) << "a device without a limit: a quarter, as real devices";
}

// TUTTI_GLOBAL_MEM_MB replaces the automatic global size; allocations follow it.
TEST(MemoryLimits, SettingOverridesGlobal) {
  MemoryLimits pocl{13590 * kMiB, 4 * kGiB};
  MemoryLimits v = virtualMemoryLimits(24 * kGiB, {pocl}, 2 * kGiB);
  EXPECT_EQ(v.global, 2 * kGiB);
  EXPECT_EQ(v.maxAlloc, 2 * kGiB);
  v = virtualMemoryLimits(24 * kGiB, {pocl}, 64 * kGiB);
  EXPECT_EQ(v.global, 64 * kGiB);
  EXPECT_EQ(v.maxAlloc, 4 * kGiB);
}
