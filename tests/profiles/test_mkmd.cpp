// test_mkmd.cpp: MKMD's graph, coarse list scheduling and fine-grain partitioning, checked
// on hand-made graphs with known best schedules and, for invariants, on random graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "tutti/mkmd.h"

namespace tutti::profiles::mkmd {
namespace {

Device gpu(const std::string &name, int link, double gbps = 25) {
  Device d;
  d.name = name;
  d.link = link;
  d.h2dBandwidth = d.d2hBandwidth = gbps * 1e9;
  d.latency = 10e-6;
  return d;
}

Device cpu() {
  Device d;
  d.name = "cpu";
  d.host = true;
  d.link = -1;
  return d;
}

// Seconds per group on each device, plus a fixed launch cost.
std::function<double(int, uint64_t)> linear(std::vector<double> perGroup, double fixed = 20e-6) {
  return [perGroup, fixed](int d, uint64_t n) { return fixed + perGroup[size_t(d)] * double(n); };
}

Kernel kernel(const std::string &name, uint64_t groups, std::vector<int> reads, std::vector<int> writes,
              std::function<double(int, uint64_t)> time) {
  Kernel k;
  k.name = name;
  k.groups = groups;
  k.reads = std::move(reads);
  k.writes = std::move(writes);
  k.time = std::move(time);
  return k;
}

Buffer buffer(const std::string &name, uint64_t bytes, bool in, bool out) {
  Buffer b;
  b.name = name;
  b.bytes = bytes;
  b.fromHost = in;
  b.toHost = out;
  return b;
}

uint64_t groupsOf(const Schedule &s, int k) {
  uint64_t n = 0;
  for (const Task &t : s.tasks)
    if (t.kind == Task::Compute && t.kernel == k) n += t.groups;
  return n;
}

// Every schedule: all groups run, nothing overlaps on a device or on a link direction, no
// kernel piece starts before its predecessors end, and a kernel ends after its pieces.
void checkInvariants(const Schedule &s, const Graph &g, const std::vector<Device> &devs) {
  auto preds = predecessors(g);
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> busy;  // (resource, kind)
  for (const Task &t : s.tasks) {
    ASSERT_LE(t.start, t.end);
    if (t.kind == Task::Merge) continue;
    int resource = t.kind == Task::Compute ? t.device : 1000 + devs[size_t(t.device)].link;
    busy[{resource, int(t.kind)}].push_back({t.start, t.end});
    if (t.kind != Task::Compute) continue;
    for (int p : preds[size_t(t.kernel)]) EXPECT_GE(t.start + 1e-12, s.kernelEnd[size_t(p)]) << g.kernels[size_t(t.kernel)].name;
    EXPECT_LE(t.end, s.kernelEnd[size_t(t.kernel)] + 1e-12);
  }
  for (auto &r : busy) {
    auto v = r.second;
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i) EXPECT_LE(v[i - 1].second, v[i].first + 1e-12) << "overlap on resource " << r.first.first;
  }
  for (size_t k = 0; k < g.kernels.size(); ++k) EXPECT_EQ(groupsOf(s, int(k)), g.kernels[k].groups);
  EXPECT_LE(s.idleFraction, 1.0);
  EXPECT_GE(s.idleFraction, 0.0);
}

TEST(Mkmd, DependenciesComeFromBufferHazardsAndEvents) {
  Graph g;
  for (int i = 0; i < 4; ++i) g.buffers.push_back(buffer("b" + std::to_string(i), 64, true, false));
  auto t = linear({1e-3});
  g.kernels.push_back(kernel("w0", 1, {}, {0}, t));       // 0 writes b0
  g.kernels.push_back(kernel("r0", 1, {0}, {1}, t));      // 1 reads b0 (RAW on 0)
  g.kernels.push_back(kernel("w0again", 1, {2}, {0}, t)); // 2 writes b0 (WAW on 0, WAR on 1)
  g.kernels.push_back(kernel("free", 1, {3}, {}, t));     // 3 independent
  g.kernels.push_back(kernel("evt", 1, {3}, {}, t));      // 4 after 1 by an event
  g.kernels.back().after = {1};
  auto p = predecessors(g);
  EXPECT_EQ(p[0], std::vector<int>{});
  EXPECT_EQ(p[1], std::vector<int>{0});
  EXPECT_EQ(p[2], (std::vector<int>{0, 1}));
  EXPECT_EQ(p[3], std::vector<int>{});
  EXPECT_EQ(p[4], std::vector<int>{1});
}

TEST(Mkmd, RankIsLongestPathToTheEnd) {
  Graph g;
  g.buffers = {buffer("a", 0, false, false), buffer("b", 0, false, true)};
  g.kernels.push_back(kernel("k0", 1, {}, {0}, linear({2e-3, 4e-3}, 0)));
  g.kernels.push_back(kernel("k1", 1, {0}, {1}, linear({1e-3, 1e-3}, 0)));
  std::vector<Device> devs = {gpu("g0", 0), gpu("g1", 1)};
  auto r = upwardRank(g, devs);
  EXPECT_DOUBLE_EQ(r[1], 1e-3);
  EXPECT_DOUBLE_EQ(r[0], 3e-3 + 1e-3);  // mean of 2 and 4 ms, then k1; empty buffers cost nothing
}

TEST(Mkmd, IndependentKernelsGoToDifferentDevices) {
  Graph g;
  for (int i = 0; i < 4; ++i) g.buffers.push_back(buffer("o" + std::to_string(i), 4096, false, true));
  for (int i = 0; i < 4; ++i) {
    g.kernels.push_back(kernel("k" + std::to_string(i), 64, {}, {i}, linear({1e-4, 1e-4})));
    g.kernels.back().splittable = false;
  }
  std::vector<Device> devs = {gpu("g0", 0), gpu("g1", 1)};
  Schedule in = inOrder(g, devs, 0);
  Options coarseOnly;
  coarseOnly.partition = false;
  Schedule c = schedule(g, devs, coarseOnly);
  checkInvariants(c, g, devs);
  EXPECT_NEAR(c.makespan / in.makespan, 0.5, 0.02);
  EXPECT_EQ(std::count(c.deviceOf.begin(), c.deviceOf.end(), 0), 2);
  EXPECT_LT(c.idleFraction, 0.05);
}

TEST(Mkmd, OneBigKernelIsSplitOverEqualGpus) {
  Graph g;
  g.buffers = {buffer("in", 1 << 20, true, false), buffer("out", 1 << 20, false, true)};
  g.kernels.push_back(kernel("big", 1000, {0}, {1}, linear({1e-5, 1e-5})));
  g.kernels.back().partialRead = {true};
  std::vector<Device> devs = {gpu("g0", 0), gpu("g1", 1)};
  Options coarseOnly;
  coarseOnly.partition = false;
  Schedule c = schedule(g, devs, coarseOnly);
  Schedule m = schedule(g, devs);
  checkInvariants(m, g, devs);
  EXPECT_EQ(c.splitKernels, 0);
  EXPECT_EQ(m.splitKernels, 1);
  EXPECT_NEAR(m.makespan / c.makespan, 0.5, 0.05);
}

TEST(Mkmd, SplitMustSaveMinSplitSeconds) {
  // 1000 groups, 40 us whole: two equal GPUs would end it about 20 us sooner, which is 50 %
  // of its time but less than the absolute minimum a split must save.
  Graph g;
  g.buffers = {buffer("in", 1 << 10, true, false), buffer("out", 1 << 10, false, true)};
  g.kernels.push_back(kernel("small", 1000, {0}, {1}, linear({4e-8, 4e-8})));
  g.kernels.back().partialRead = {true};
  std::vector<Device> devs = {gpu("g0", 0), gpu("g1", 1)};
  Schedule unbounded = schedule(g, devs);
  EXPECT_EQ(unbounded.splitKernels, 1) << "without the minimum the split is taken (the case it is for)";
  Options opt;
  opt.minSplitSeconds = 250e-6;
  Schedule m = schedule(g, devs, opt);
  checkInvariants(m, g, devs);
  EXPECT_EQ(m.splitKernels, 0);
  // A kernel long enough to save more than the minimum is still split.
  g.kernels.back().time = linear({1e-5, 1e-5});
  EXPECT_EQ(schedule(g, devs, opt).splitKernels, 1);
}

TEST(Mkmd, TransferBoundKernelStaysWhole) {
  // 1 GB in, 2 us of work: moving any part to the other GPU costs more than it saves.
  Graph g;
  g.buffers = {buffer("in", 1ull << 30, false, false), buffer("out", 1 << 20, false, true)};
  g.kernels.push_back(kernel("init", 100, {}, {0}, linear({1e-4, 1e-4})));
  g.kernels.back().splittable = false;
  g.kernels.push_back(kernel("sum", 100, {0}, {1}, linear({2e-8, 2e-8}, 1e-6)));
  std::vector<Device> devs = {gpu("g0", 0), gpu("g1", 1)};
  Schedule m = schedule(g, devs);
  checkInvariants(m, g, devs);
  EXPECT_EQ(m.splitKernels, 0);
  EXPECT_EQ(m.deviceOf[1], m.deviceOf[0]);
}

TEST(Mkmd, NeverWorseThanOneDeviceWhenGreedyChoicesStrandData) {
  // An iterative solver's chain: each step reads a 64 MiB matrix the host holds. The first
  // step finishes sooner on the CPU (no copy), and then every step does, one by one, at
  // CPU speed: 20 x 0.5 ms, where the GPU takes the copy once and 20 x 20 us.
  Graph g;
  g.buffers = {buffer("A", 64 << 20, true, false), buffer("x", 16384, true, true)};
  for (int i = 0; i < 20; ++i) {
    g.kernels.push_back(kernel("step" + std::to_string(i), 64, {0, 1}, {1}, linear({0.5e-3 / 64, 20e-6 / 64}, 0)));
    g.kernels.back().splittable = false;
  }
  std::vector<Device> devs = {cpu(), gpu("gpu", 0, 50)};
  Schedule m = schedule(g, devs);
  checkInvariants(m, g, devs);
  EXPECT_LE(m.makespan, inOrder(g, devs, 1).makespan);  // HEFT alone: 10 ms against 1.7
  EXPECT_EQ(m.deviceOf.back(), 1);
}

TEST(Mkmd, ColdHomesCostTheirFirstTouch) {
  // A GPU's 64 MiB output read by a kernel the CPU runs in 1 ms and the GPU in 5: at the
  // link's 25 GB/s the copy (2.7 ms) pays, into a cold home at 1 GB/s (67 ms) it does not.
  // The sink's copy goes into the app's memory: never slowed.
  Graph g;
  g.buffers = {buffer("x", 64 << 20, false, false), buffer("y", 4096, false, true)};
  g.kernels.push_back(kernel("produce", 64, {}, {0}, linear({1, 1e-6}, 0)));
  g.kernels.back().splittable = false;
  g.kernels.push_back(kernel("consume", 64, {0}, {1}, linear({1e-3 / 64, 5e-3 / 64}, 0)));
  g.kernels.back().splittable = false;
  std::vector<Device> devs = {cpu(), gpu("gpu", 0)};
  Schedule warm = schedule(g, devs);
  checkInvariants(warm, g, devs);
  EXPECT_EQ(warm.deviceOf[0], 1);
  EXPECT_EQ(warm.deviceOf[1], 0);
  devs[0].fillBandwidth = 1e9;
  EXPECT_EQ(schedule(g, devs).deviceOf[1], 0) << "a home already there stays fast";
  g.buffers[0].cold = true;
  Schedule cold = schedule(g, devs);
  checkInvariants(cold, g, devs);
  EXPECT_EQ(cold.deviceOf[1], 1);
  g.kernels.pop_back();  // x read by the app after the graph
  g.buffers[0].toHost = true;
  Schedule sink = schedule(g, devs);
  double d2h = 0;
  for (const Task &t : sink.tasks)
    if (t.kind == Task::D2H) d2h = t.end - t.start;
  EXPECT_LT(d2h, 5e-3);
}

TEST(Mkmd, UploadsQueueBehindTheDevicesKernels) {
  // The Triple Commutator's case on one H200 (issue 19): a 0.1 ms add beside a 20 ms
  // product. On the CPU (5 ms) its 64 MiB result goes up during the product on a link of
  // its own, which saves the GPU 0.1 ms. Behind the product on the GPU's in-order queue,
  // as the runtime issues it, the upload costs 2.7 ms after it: the add stays on the GPU.
  Graph g;
  g.buffers = {buffer("a", 64 << 20, true, false), buffer("x", 64 << 20, true, false),
               buffer("b", 64 << 20, false, false), buffer("y", 64 << 20, false, false),
               buffer("c", 4096, false, true)};
  g.buffers[0].on = g.buffers[1].on = {1};
  g.kernels.push_back(kernel("product", 64, {0}, {2}, linear({2.0 / 64, 20e-3 / 64}, 0)));
  g.kernels.push_back(kernel("add", 64, {1}, {3}, linear({5e-3 / 64, 0.1e-3 / 64}, 0)));
  g.kernels.push_back(kernel("product2", 64, {2, 3}, {4}, linear({2.0 / 64, 20e-3 / 64}, 0)));
  for (Kernel &k : g.kernels) k.splittable = false;
  std::vector<Device> devs = {cpu(), gpu("gpu", 0)};
  Schedule beside = schedule(g, devs);
  checkInvariants(beside, g, devs);
  EXPECT_EQ(beside.deviceOf[1], 0) << "copies on their own engines: the CPU's add pays";
  devs[1].queuedUploads = true;
  Schedule queued = schedule(g, devs);
  checkInvariants(queued, g, devs);
  EXPECT_EQ(queued.deviceOf[1], 1);
  EXPECT_NEAR(queued.makespan, 40.1e-3 + 4096 / 25e9 + 10e-6, 1e-6);
  // Forced onto the CPU, the upload waits for the product and the second product for it.
  g.kernels[1].time = linear({5e-3 / 64, 1.0}, 0);
  Schedule forced = schedule(g, devs);
  checkInvariants(forced, g, devs);
  ASSERT_EQ(forced.deviceOf[1], 0);
  double productEnd = 0, upStart = -1, secondStart = 0;
  for (const Task &t : forced.tasks) {
    if (t.kind == Task::Compute && t.kernel == 0) productEnd = t.end;
    if (t.kind == Task::H2D && t.buffer == 3) upStart = t.start;
    if (t.kind == Task::Compute && t.kernel == 2) secondStart = t.start;
  }
  EXPECT_GE(upStart, productEnd - 1e-12);
  EXPECT_GE(secondStart, upStart + double(64 << 20) / 25e9);
}

TEST(Mkmd, SliversOfASplitGoToItsLargestPiece) {
  // Two GPUs and a CPU 300x slower: the balanced split gives the CPU 0.17 %, which its
  // model's error and fixed costs outweigh.
  Graph g;
  g.buffers = {buffer("in", 1 << 20, true, false), buffer("out", 1 << 20, false, true)};
  g.kernels.push_back(kernel("big", 60000, {0}, {1}, linear({3e-6, 1e-8, 1e-8})));
  g.kernels.back().partialRead = {true};
  std::vector<Device> devs = {cpu(), gpu("g0", 0), gpu("g1", 1)};
  Schedule m = schedule(g, devs);
  checkInvariants(m, g, devs);
  EXPECT_EQ(m.splitKernels, 1);
  uint64_t onCpu = 0;
  for (const Task &t : m.tasks)
    if (t.kind == Task::Compute && t.device == 0) onCpu += t.groups;
  EXPECT_EQ(onCpu, 0u);
  Options keep;
  keep.minPieceShare = 0;
  Schedule sliver = schedule(g, devs, keep);
  onCpu = 0;
  for (const Task &t : sliver.tasks)
    if (t.kind == Task::Compute && t.device == 0) onCpu += t.groups;
  EXPECT_GT(onCpu, 0u) << "without the rule the CPU takes a sliver (the case the rule is for)";
}

TEST(Mkmd, MergedOutputsPayTheirMergeCost) {
  Graph g;
  g.buffers = {buffer("hist", 1 << 16, false, true)};
  g.kernels.push_back(kernel("histogram", 1000, {}, {0}, linear({1e-6, 1e-6})));
  g.kernels.back().mergeOutputs = true;
  g.kernels.back().mergeSecondsPerDevice = 5e-3;  // more than the 0.5 ms a split saves
  std::vector<Device> devs = {gpu("g0", 0), gpu("g1", 1)};
  Schedule m = schedule(g, devs);
  EXPECT_EQ(m.splitKernels, 0);
  g.kernels.back().mergeSecondsPerDevice = 1e-5;
  m = schedule(g, devs);
  checkInvariants(m, g, devs);
  EXPECT_EQ(m.splitKernels, 1);
  bool merged = std::any_of(m.tasks.begin(), m.tasks.end(), [](const Task &t) { return t.kind == Task::Merge; });
  EXPECT_TRUE(merged);
}

TEST(Mkmd, DataFollowTheProducer) {
  // k1 reads what k0 wrote on another device: it waits for the copy (d2h then h2d).
  Graph g;
  g.buffers = {buffer("x", 100 << 20, false, false), buffer("y", 4096, false, true), buffer("z", 4096, false, true)};
  g.kernels.push_back(kernel("produce", 10, {}, {0}, linear({1e-3, 1e-1})));  // fast on g0
  g.kernels.back().splittable = false;
  g.kernels.push_back(kernel("consume", 10, {0}, {1}, linear({1e-1, 1e-3})));  // fast on g1
  g.kernels.back().splittable = false;
  std::vector<Device> devs = {gpu("g0", 0, 10), gpu("g1", 1, 10)};
  Schedule m = schedule(g, devs);
  checkInvariants(m, g, devs);
  ASSERT_EQ(m.deviceOf[0], 0);
  ASSERT_EQ(m.deviceOf[1], 1);
  double copied = 0, consumeStart = 0;
  for (const Task &t : m.tasks) {
    if (t.kind == Task::H2D && t.buffer == 0) copied = std::max(copied, t.end);
    if (t.kind == Task::Compute && t.kernel == 1) consumeStart = t.start;
  }
  EXPECT_GT(copied, 0.02);  // 100 MiB each way at 10 GB/s
  EXPECT_GE(consumeStart, copied);
}

TEST(Mkmd, KernelsGoWhereTheirDataAlreadyAre) {
  // Two equal GPUs; the input is already on g1 and not on the host (an earlier window's
  // kernel wrote it there): the reader runs on g1 and nothing crosses a link for it.
  Graph g;
  g.buffers = {buffer("x", 256 << 20, true, false), buffer("y", 4096, false, true)};
  g.buffers[0].on = {1};
  g.buffers[0].notOnHost = true;
  g.kernels.push_back(kernel("read", 16, {0}, {1}, linear({1e-3, 1e-3})));
  g.kernels.back().splittable = false;
  std::vector<Device> devs = {gpu("g0", 0, 10), gpu("g1", 1, 10)};
  Schedule m = schedule(g, devs);
  checkInvariants(m, g, devs);
  EXPECT_EQ(m.deviceOf[0], 1);
  for (const Task &t : m.tasks) EXPECT_FALSE(t.buffer == 0 && t.kind != Task::Compute) << "x was copied";
  // Assumed on the host instead, it crosses a link to whichever GPU reads it (25.6 ms).
  g.buffers[0].on.clear();
  g.buffers[0].notOnHost = false;
  Schedule h = schedule(g, devs);
  EXPECT_GT(h.makespan, m.makespan + 0.02);
}

TEST(Mkmd, EarlierGraphsWorkHoldsDevicesAndData) {
  // A later window's graph: g0 still runs an earlier graph's kernels for 50 ms, and x, which
  // one of them writes there, is ready at 40 ms. Scheduled as if g0 were free, the reader
  // went to g0 at once.
  Graph g;
  g.buffers = {buffer("x", 1 << 20, true, false), buffer("y", 4096, false, true)};
  g.buffers[0].on = {0};
  g.buffers[0].notOnHost = true;
  g.kernels.push_back(kernel("read", 16, {0}, {1}, linear({1e-3, 1e-3})));
  g.kernels.back().splittable = false;
  std::vector<Device> devs = {gpu("g0", 0, 10), gpu("g1", 1, 10)};
  Schedule free = schedule(g, devs);
  ASSERT_EQ(free.deviceOf[0], 0) << "beside its data";
  EXPECT_LT(free.makespan, 0.02);
  devs[0].busyUntil = 0.05;
  g.buffers[0].readyAt = 0.04;
  Schedule busy = schedule(g, devs);
  checkInvariants(busy, g, devs);
  EXPECT_EQ(busy.deviceOf[0], 1) << "waited for g0 where g1 was free once x was ready";
  for (const Task &t : busy.tasks) {
    if (t.buffer == 0 && t.kind == Task::D2H) EXPECT_GE(t.start, 0.04) << "x copied before it was written";
    if (t.kind == Task::Compute) EXPECT_GE(t.start, 0.04);
  }
  EXPECT_LT(busy.makespan, 0.05 + 0.016) << "no sooner than waiting for g0";
  // With g1 busy longer still, the reader waits for g0.
  devs[1].busyUntil = 0.2;
  Schedule both = schedule(g, devs);
  EXPECT_EQ(both.deviceOf[0], 0);
  for (const Task &t : both.tasks)
    if (t.kind == Task::Compute) EXPECT_GE(t.start, 0.05) << "ran on g0 before its earlier work ended";
}

// Thesis Fig. 5.1: A^2 B B^T C B on a CPU and two unequal GPUs (Table 5.2's mix).
Graph fig51(std::vector<Device> &devs) {
  devs = {cpu(), gpu("gtx760", 0, 7.88), gpu("gtx750ti", 1, 7.88)};
  const uint64_t m1k = 1024ull * 1024 * 4, m1k8k = 1024ull * 8192 * 4;
  Graph g;
  g.buffers = {buffer("A", m1k, true, false),     buffer("B", m1k8k, true, false), buffer("C", m1k, true, false),
               buffer("AA", m1k, false, false),   buffer("BBt", m1k, false, false), buffer("AAB", m1k8k, false, false),
               buffer("CB", m1k8k, false, false), buffer("X", m1k, false, false),   buffer("R", m1k8k, false, true)};
  // Matmul cost per group (a 16x16 tile of the output), per device: CPU ~8x slower than
  // the faster GPU, the 750 Ti ~1.7x slower.
  auto mm = [](double kdim) { return linear({8e-6 * kdim / 1024, 1e-6 * kdim / 1024, 1.7e-6 * kdim / 1024}); };
  const uint64_t g1k = 64 * 64, g1k8k = 64 * 512;
  g.kernels.push_back(kernel("AA", g1k, {0}, {3}, mm(1024)));
  g.kernels.push_back(kernel("BBt", g1k, {1}, {4}, mm(8192)));
  g.kernels.push_back(kernel("AAB", g1k8k, {3, 1}, {5}, mm(1024)));
  g.kernels.push_back(kernel("X=AA*BBt", g1k, {3, 4}, {7}, mm(1024)));
  g.kernels.push_back(kernel("CB", g1k8k, {2, 1}, {6}, mm(1024)));
  g.kernels.push_back(kernel("R=X*CB", g1k8k, {7, 6}, {8}, mm(1024)));
  for (Kernel &k : g.kernels) k.partialRead.assign(k.reads.size(), false), k.partialRead[0] = true;
  return g;
}

TEST(Mkmd, ThesisFigure51GraphBeatsInOrderAndCoarse) {
  std::vector<Device> devs;
  Graph g = fig51(devs);
  Schedule in = inOrder(g, devs, 1);
  Options coarseOnly;
  coarseOnly.partition = false;
  Schedule c = schedule(g, devs, coarseOnly);
  Schedule m = schedule(g, devs);
  checkInvariants(c, g, devs);
  checkInvariants(m, g, devs);
  EXPECT_LT(c.makespan, in.makespan);
  EXPECT_LE(m.makespan, c.makespan);
  EXPECT_GT(m.splitKernels, 0);
  EXPECT_LT(m.idleFraction, c.idleFraction);
  // Deterministic: the same graph gives the same schedule.
  Schedule again = schedule(g, devs);
  EXPECT_EQ(again.makespan, m.makespan);
  EXPECT_EQ(again.tasks.size(), m.tasks.size());
}

TEST(Mkmd, RandomGraphsKeepInvariants) {
  std::mt19937 rng(7);
  for (int round = 0; round < 60; ++round) {
    std::vector<Device> devs = {cpu(), gpu("g0", 0, 12), gpu("g1", rng() % 2 ? 1 : 0, 12)};
    Graph g;
    int nb = 3 + int(rng() % 6), nk = 1 + int(rng() % 24);
    for (int b = 0; b < nb; ++b)
      g.buffers.push_back(buffer("b" + std::to_string(b), (1 + rng() % 64) << 16, rng() % 2, rng() % 3 == 0));
    for (int k = 0; k < nk; ++k) {
      std::vector<int> r, w;
      for (int b = 0; b < nb; ++b) {
        unsigned x = rng() % 5;
        if (x == 0) r.push_back(b);
        if (x == 1) w.push_back(b);
      }
      double base = 1e-6 * double(1 + rng() % 50);
      g.kernels.push_back(kernel("k" + std::to_string(k), 1 + rng() % 400, r, w,
                                 linear({base * 10, base, base * (1 + double(rng() % 3))})));
      g.kernels.back().splittable = rng() % 4 != 0;
      g.kernels.back().partialRead.assign(r.size(), rng() % 2);
      g.kernels.back().mergeOutputs = rng() % 5 == 0;
      g.kernels.back().mergeSecondsPerDevice = 1e-4;
    }
    Options coarseOnly;
    coarseOnly.partition = false;
    Schedule c = schedule(g, devs, coarseOnly);
    Schedule m = schedule(g, devs);
    SCOPED_TRACE("round " + std::to_string(round));
    checkInvariants(c, g, devs);
    checkInvariants(m, g, devs);
    EXPECT_LE(m.makespan, c.makespan);
  }
}

TEST(Mkmd, ReportsNameEveryDeviceAndKernel) {
  std::vector<Device> devs;
  Graph g = fig51(devs);
  Schedule m = schedule(g, devs);
  std::string chart = gantt(m, g, devs, 60);
  for (const Device &d : devs) EXPECT_NE(chart.find(d.name + " kernels"), std::string::npos) << chart;
  EXPECT_NE(chart.find("A=AA"), std::string::npos) << chart;
  std::string trace = chromeTrace(m, g, devs);
  EXPECT_EQ(trace.rfind("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", 0), 0u);
  size_t events = 0;
  for (size_t p = trace.find("\"ph\":\"X\""); p != std::string::npos; p = trace.find("\"ph\":\"X\"", p + 1)) ++events;
  EXPECT_EQ(events, m.tasks.size());
}

TEST(MkmdGraphFile, RoundTripsAndInstantiatesDeviceCopies) {
  const std::string text =
      "# two kernels\n"
      "device cpu host fill=1.5\n"
      "device gpu inorder link=3 h2d=12 d2h=11 latency=8\n"
      "buffer in bytes=1048576 in on=gpu nohost\n"
      "buffer mid bytes=4096 cold\n"
      "buffer out bytes=4096 out\n"
      "kernel first groups=128 reads=in* writes=mid time=cpu:0.05+2,gpu:0.01+0.25\n"
      "kernel second groups=8 reads=mid writes=out after=first whole merge=0.5 time=cpu:0+1,gpu:0+1\n";
  GraphFile f;
  std::string err;
  ASSERT_TRUE(parseGraph(text, f, err)) << err;
  ASSERT_EQ(f.models.size(), 2u);
  EXPECT_TRUE(f.models[0].host);
  EXPECT_EQ(f.models[1].link, 3);
  EXPECT_DOUBLE_EQ(f.models[1].d2hBandwidth, 11e9);
  EXPECT_TRUE(f.models[1].queuedUploads);
  EXPECT_FALSE(f.models[0].queuedUploads);
  ASSERT_EQ(f.graph.kernels.size(), 2u);
  EXPECT_EQ(f.graph.kernels[0].partialRead, std::vector<bool>{true});
  EXPECT_EQ(f.graph.kernels[1].after, std::vector<int>{0});
  EXPECT_FALSE(f.graph.kernels[1].splittable);
  EXPECT_TRUE(f.graph.kernels[1].mergeOutputs);
  EXPECT_EQ(f.graph.buffers[0].on, std::vector<int>{1});
  EXPECT_TRUE(f.graph.buffers[0].notOnHost);
  EXPECT_DOUBLE_EQ(f.models[0].fillBandwidth, 1.5e9);
  EXPECT_TRUE(f.graph.buffers[1].cold);
  EXPECT_FALSE(f.graph.buffers[0].cold);
  GraphFile again;
  ASSERT_TRUE(parseGraph(formatGraph(f), again, err)) << err;
  EXPECT_EQ(formatGraph(again), formatGraph(f));

  Graph g;
  std::vector<Device> devs;
  ASSERT_TRUE(instantiate(f, {"gpu", "gpu", "cpu"}, g, devs, err)) << err;
  ASSERT_EQ(devs.size(), 3u);
  EXPECT_EQ(devs[1].name, "gpu#2");
  EXPECT_NE(devs[0].link, devs[1].link);  // a second card has a link of its own
  EXPECT_DOUBLE_EQ(g.kernels[0].time(2, 128), 0.05e-3 + 128 * 2e-6);
  EXPECT_DOUBLE_EQ(g.kernels[0].time(1, 128), 0.01e-3 + 128 * 0.25e-6);
  EXPECT_EQ(g.buffers[0].on, std::vector<int>{0});  // the first gpu of the set
  ASSERT_TRUE(instantiate(f, {"cpu"}, g, devs, err)) << err;
  EXPECT_TRUE(g.buffers[0].on.empty());  // its model left out: from the host
  EXPECT_FALSE(g.buffers[0].notOnHost);
  EXPECT_FALSE(instantiate(f, {"tpu"}, g, devs, err));
}

TEST(MkmdGraphFile, ErrorsNameTheLine) {
  GraphFile f;
  std::string err;
  EXPECT_FALSE(parseGraph("device g\nbuffer b bytes=x\n", f, err));
  EXPECT_EQ(err.rfind("line 2:", 0), 0u) << err;
  EXPECT_FALSE(parseGraph("device g\nkernel k reads=nope time=g:0+1\n", f, err));
  EXPECT_NE(err.find("unknown 'nope'"), std::string::npos) << err;
  EXPECT_FALSE(parseGraph("device g\nkernel k time=g:1\n", f, err));
  EXPECT_FALSE(parseGraph("kernel k time=h:0+1\n", f, err));
  EXPECT_FALSE(parseGraph("frobnicate x\n", f, err));
  // A kernel without a time on a device of the set cannot be scheduled there.
  ASSERT_TRUE(parseGraph("device a\ndevice b\nkernel k time=a:0+1\n", f, err)) << err;
  Graph g;
  std::vector<Device> devs;
  EXPECT_FALSE(instantiate(f, {}, g, devs, err));
  EXPECT_NE(err.find("no time on b"), std::string::npos) << err;
}

}  // namespace
}  // namespace tutti::profiles::mkmd
