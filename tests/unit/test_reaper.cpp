// test_reaper.cpp - the reaper (runtime/reaper.h) runs its jobs in order off the caller's
// thread after a grace period, makes a caller wait behind a backlog, and at exit waits for
// the job it runs but drops the ones not begun, running their exit parts instead.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "reaper.h"

using namespace tutti;
using namespace std::chrono_literals;

TEST(Reaper, JobsRunInOrderOffTheCallersThread) {
  std::mutex mu;
  std::vector<int> ran;
  std::atomic<bool> onCaller{false};
  const auto caller = std::this_thread::get_id();
  for (int i = 0; i < 40; ++i)
    reapLater([&, i] {
      if (std::this_thread::get_id() == caller) onCaller = true;
      std::lock_guard<std::mutex> l(mu);
      ran.push_back(i);
    });
  reapAll();
  std::lock_guard<std::mutex> l(mu);
  ASSERT_EQ(ran.size(), 40u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(ran[size_t(i)], i);
  EXPECT_FALSE(onCaller.load());
}

TEST(Reaper, ABacklogHoldsTheCallerBack) {
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  reapLater([gate] { gate.wait(); });
  std::atomic<int> posted{0}, ran{0};
  std::thread poster([&] {
    for (int i = 0; i < 20; ++i) {
      reapLater([&] { ++ran; });
      ++posted;
    }
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_LT(posted.load(), 20) << "20 jobs queued behind a stuck one without waiting";
  EXPECT_EQ(ran.load(), 0);
  open.set_value();
  poster.join();
  reapAll();
  EXPECT_EQ(ran.load(), 20);
}

TEST(Reaper, ExitWaitsForTheRunningJobAndDropsTheRest) {
  // The child runs the test binary afresh: a fork of a process with threads (the reaper's,
  // the other tests') may not start threads under ThreadSanitizer.
  const std::string style = GTEST_FLAG_GET(death_test_style);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string dir = ::testing::TempDir();
  const std::string first = dir + "tutti_reaper_first";
  const std::string second = dir + "tutti_reaper_second";
  const std::string secondAtExit = dir + "tutti_reaper_second_at_exit";
  std::remove(first.c_str());
  std::remove(second.c_str());
  std::remove(secondAtExit.c_str());
  auto touch = [](const std::string &path) {
    if (FILE *f = std::fopen(path.c_str(), "w")) std::fclose(f);
  };
  EXPECT_EXIT(
      {
        std::atomic<bool> started{false};
        reapLater([&] {
          started = true;
          std::this_thread::sleep_for(300ms);
          touch(first);
        });
        reapLater([&] { touch(second); }, [&] { touch(secondAtExit); });
        while (!started) std::this_thread::sleep_for(1ms);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(access(first.c_str(), F_OK), 0) << "exit did not wait for the job under way";
  EXPECT_NE(access(second.c_str(), F_OK), 0) << "a job not begun ran at exit";
  EXPECT_EQ(access(secondAtExit.c_str(), F_OK), 0) << "a dropped job's exit part did not run";
  std::remove(first.c_str());
  std::remove(second.c_str());
  std::remove(secondAtExit.c_str());
  GTEST_FLAG_SET(death_test_style, style);
}

TEST(Reaper, AJobWaitsItsGraceUnlessSomeoneWaitsForIt) {
  std::atomic<bool> ran{false};
  const auto t0 = std::chrono::steady_clock::now();
  std::atomic<long> tookMs{-1};
  reapLater([&] {
    tookMs = long(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
    ran = true;
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(ran.load()) << "ran within 20 ms of being posted";
  reapAll();  // hurries it
  EXPECT_TRUE(ran.load());
  EXPECT_LT(tookMs.load(), 90) << "reapAll waited out the grace period";
  std::atomic<bool> later{false};
  reapLater([&] { later = true; });
  for (int i = 0; i < 300 && !later; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(later.load()) << "a job never ran without reapAll";
}
