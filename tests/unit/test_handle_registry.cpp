// test_handle_registry.cpp - the handle registry's lock-free read (clSetKernelArg's fast
// path): exact answers when quiet, and never a wrong one while a writer changes the table.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "runtime.h"

using namespace tutti;

namespace {

// Distinct, aligned fake handles: the registry only compares and hashes them.
void *handle(size_t i) { return reinterpret_cast<void *>(uintptr_t(0x10000) + 16 * i); }


}  // namespace

TEST(HandleRegistry, AnswersExactlyWhenQuiet) {
  HandleRegistry r;
  EXPECT_EQ(r.validUnlocked(handle(1), ObjType::Mem), 0);  // no table yet
  for (size_t i = 0; i < 1000; ++i) r.add(handle(i), i % 2 ? ObjType::Mem : ObjType::Kernel);
  for (size_t i = 0; i < 1000; i += 3) r.remove(handle(i));
  EXPECT_EQ(r.size(), 1000u - 334u);
  for (size_t i = 0; i < 1200; ++i) {
    bool live = i < 1000 && i % 3 != 0;
    ObjType t = i % 2 ? ObjType::Mem : ObjType::Kernel;
    ObjType other = i % 2 ? ObjType::Kernel : ObjType::Mem;
    ASSERT_EQ(r.valid(handle(i), t), live) << i;
    ASSERT_EQ(r.validUnlocked(handle(i), t), live ? 1 : 0) << i;
    ASSERT_EQ(r.validUnlocked(handle(i), other), 0) << i;  // right handle, wrong type
  }
  EXPECT_EQ(r.validUnlocked(nullptr, ObjType::Mem), 0);
}

// validCached's per-thread cache answers exactly what a lookup would: any removal of a
// cached kind ends every entry (an address may come back as another object), events are
// neither cached nor end entries, and two registries never share an answer.
TEST(HandleRegistry, CachedAnswersFollowRemovals) {
  HandleRegistry r, other;
  void *m = handle(1), *k = handle(2), *e = handle(3);
  r.add(m, ObjType::Mem);
  r.add(k, ObjType::Kernel);
  EXPECT_FALSE(r.validInCache(m, ObjType::Mem));  // not asked yet
  EXPECT_EQ(r.validCached(m, ObjType::Mem), 1);
  EXPECT_EQ(r.validCached(k, ObjType::Kernel), 1);
  EXPECT_TRUE(r.validInCache(m, ObjType::Mem));
  EXPECT_FALSE(r.validInCache(m, ObjType::Kernel));
  EXPECT_EQ(r.validCached(m, ObjType::Kernel), 0);
  EXPECT_FALSE(other.validInCache(m, ObjType::Mem));
  EXPECT_EQ(other.validCached(m, ObjType::Mem), 0);

  r.add(e, ObjType::Event);  // launches add and remove events all the time
  EXPECT_EQ(r.validCached(e, ObjType::Event), 1);
  EXPECT_FALSE(r.validInCache(e, ObjType::Event));
  r.remove(e);
  EXPECT_EQ(r.validCached(e, ObjType::Event), 0);
  EXPECT_TRUE(r.validInCache(m, ObjType::Mem));

  r.remove(k);  // the kernel goes: no cached answer survives
  EXPECT_FALSE(r.validInCache(m, ObjType::Mem));
  EXPECT_EQ(r.validCached(k, ObjType::Kernel), 0);
  r.add(k, ObjType::Mem);  // its address comes back as a buffer
  EXPECT_EQ(r.validCached(k, ObjType::Kernel), 0);
  EXPECT_EQ(r.validCached(k, ObjType::Mem), 1);
  EXPECT_EQ(r.validCached(m, ObjType::Mem), 1);

  std::thread([&] {  // another thread's removal ends this thread's entries
    r.remove(m);
  }).join();
  EXPECT_FALSE(r.validInCache(m, ObjType::Mem));
  EXPECT_EQ(r.validCached(m, ObjType::Mem), 0);
}

// Handles that share one home slot in every table of up to 2^16 slots: one probe run,
// so each removal shifts the entries behind it.
static std::vector<void *> collidingHandles(size_t n) {
  std::vector<void *> out;
  const size_t want = HandleRegistry::hash(handle(0)) & 0xffff;
  for (size_t i = 0; out.size() < n; ++i)
    if ((HandleRegistry::hash(handle(i)) & 0xffff) == want) out.push_back(handle(i));
  return out;
}

// One writer (the API lock's holder) removes and re-adds handles of one probe run in a
// shuffled order, so live entries shift under the readers all the time; each handle has a
// generation number, odd while it is being changed. A reader whose handle's generation did
// not move during its read knows the true answer: it may be told "ask under the lock" (-1),
// never a wrong answer. Without the sequence check both torn slots and entries in mid-shift
// answer wrongly here. Under ThreadSanitizer it also checks that the reads are race-free.
TEST(HandleRegistry, LockFreeReadsNeverAnswerWrongDuringChanges) {
  HandleRegistry r;
  const std::vector<void *> h = collidingHandles(48);
  std::vector<std::atomic<unsigned>> gen(h.size());
  for (void *x : h) r.add(x, ObjType::Mem);
  for (size_t i = 0; i < 500; ++i) r.add(handle(size_t(1) << 32 | i), ObjType::Event);  // other runs
  std::atomic<bool> stop{false};
  std::atomic<size_t> wrong{0}, checked{0}, deferred{0};
  auto reader = [&](size_t start) {
    for (size_t i = start; !stop.load(std::memory_order_relaxed); ++i) {
      size_t k = i % h.size();
      unsigned g0 = gen[k].load(std::memory_order_acquire);
      int got = r.validUnlocked(h[k], ObjType::Mem);
      if (gen[k].load(std::memory_order_acquire) != g0 || (g0 & 1)) continue;  // it changed
      if (got < 0) deferred.fetch_add(1, std::memory_order_relaxed);
      else if (got != 1) wrong.fetch_add(1, std::memory_order_relaxed);
      checked.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> readers;
  for (size_t t = 0; t < 2; ++t) readers.emplace_back(reader, t * 7);
  uint64_t rng = 42;
  while (checked.load() < 1000000) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    size_t k = (rng >> 33) % h.size();
    gen[k].fetch_add(1, std::memory_order_acq_rel);
    r.remove(h[k]);
    r.add(h[k], ObjType::Mem);  // back at the run's end: the next removals shift it
    gen[k].fetch_add(1, std::memory_order_release);
  }
  stop = true;
  for (auto &t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0u) << "of " << checked.load() << " checked reads";
  EXPECT_EQ(r.size(), h.size() + 500);
  for (void *x : h) ASSERT_EQ(r.validUnlocked(x, ObjType::Mem), 1);
  std::printf("checked lock-free reads: %zu, deferred to the lock: %zu\n", checked.load(), deferred.load());
}
