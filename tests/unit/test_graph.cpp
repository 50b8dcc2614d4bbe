// test_graph.cpp - the command graph's dependencies (runtime/graph.cpp), on hand-made
// commands: byte ranges decide order inside an in-order queue, and a barrier's cost does
// not grow with the commands before it (issue 17: 1,500 kernel+barrier pairs made each
// barrier wait for every earlier command).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "access.h"
#include "graph.h"

namespace tutti {
namespace {

struct GraphTest : ::testing::Test {
  _cl_command_queue q;
  std::vector<std::unique_ptr<_cl_event>> events;
  std::vector<std::unique_ptr<Command>> cmds;
  std::vector<std::unique_ptr<_cl_mem>> mems;

  _cl_mem *buffer(size_t size) {
    mems.push_back(std::make_unique<_cl_mem>());
    mems.back()->size = size;
    return mems.back().get();
  }
  Command *command(CmdKind kind) {
    cmds.push_back(std::make_unique<Command>());
    events.push_back(std::make_unique<_cl_event>());
    Command *c = cmds.back().get();
    c->kind = kind;
    c->q = &q;
    c->ev = events.back().get();
    c->ev->cmd = c;
    c->ev->queue = &q;
    return c;
  }
  Command *write(_cl_mem *m, size_t off, size_t n) {
    Command *c = command(CmdKind::Write);
    c->dst = m, c->dstOff = off, c->size = n;
    return c;
  }
  Command *read(_cl_mem *m, size_t off, size_t n) {
    Command *c = command(CmdKind::Read);
    c->src = m, c->srcOff = off, c->size = n;
    return c;
  }
  Command *barrier() {
    Command *c = command(CmdKind::Marker);
    c->waitsAll = c->blocksLater = true;
    return c;
  }
  std::vector<_cl_event *> deps(Command *c) {
    std::vector<_cl_event *> d;
    graphDependencies(c, d);
    return d;
  }
  void TearDown() override { setLaunchAccess(nullptr); }
};

TEST_F(GraphTest, DisjointBytesOfOneBufferNeedNoOrder) {
  _cl_mem *m = buffer(1024);
  Command *w1 = write(m, 0, 512);
  EXPECT_TRUE(deps(w1).empty());
  Command *w2 = write(m, 512, 512);
  EXPECT_TRUE(deps(w2).empty()) << "writes of disjoint halves were ordered";
  Command *r = read(m, 500, 20);  // overlaps both
  auto d = deps(r);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0], w1->ev);
  EXPECT_EQ(d[1], w2->ev);
  Command *r2 = read(m, 0, 100);  // read after read: only the write before it
  d = deps(r2);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], w1->ev);
}

TEST_F(GraphTest, FinishedCommandsOrderNothing) {
  _cl_mem *m = buffer(64);
  Command *w = write(m, 0, 64);
  deps(w);
  w->ev->done = true;
  EXPECT_TRUE(deps(read(m, 0, 64)).empty());
}

TEST_F(GraphTest, KernelsUseTheAnalysisByteRanges) {
  _cl_mem *m = buffer(4096);
  // What the compiler says: kernel `a` writes the first half, `b` the second, `c` reads all.
  static _cl_mem *s_m;
  s_m = m;
  setLaunchAccess([](const Command *c, std::vector<Access> &out) {
    if (c->kernel->name == "a") out.push_back({s_m, {0, 2048}, true});
    if (c->kernel->name == "b") out.push_back({s_m, {2048, 4096}, true});
    if (c->kernel->name == "c") out.push_back({s_m, {0, 4096}, false});
    return true;
  });
  _cl_kernel ka, kb, kc;
  ka.name = "a", kb.name = "b", kc.name = "c";
  auto launch = [&](_cl_kernel *k) {
    Command *c = command(CmdKind::Kernel);
    c->kernel = k;
    ArgValue v;
    v.kind = ArgValue::Mem;
    v.mem = m;
    c->args.push_back(v);
    return c;
  };
  Command *a = launch(&ka), *b = launch(&kb), *c = launch(&kc);
  EXPECT_TRUE(deps(a).empty());
  EXPECT_TRUE(deps(b).empty()) << "kernels writing disjoint halves were ordered";
  EXPECT_EQ(deps(c).size(), 2u);
  // Without the analysis a kernel may touch every byte of a writable buffer argument.
  setLaunchAccess(nullptr);
  Command *a2 = launch(&ka);
  auto d = deps(a2);
  EXPECT_EQ(d.size(), 3u) << "an unanalysed kernel must wait for every earlier access";
}

TEST_F(GraphTest, BarrierWaitsOnlyForWhatCameAfterThePreviousOne) {
  _cl_mem *m = buffer(64);
  size_t most = 0;
  for (int i = 0; i < 3000; ++i) {
    deps(write(m, 0, 64));
    auto d = deps(barrier());
    most = std::max(most, d.size());
  }
  // The previous barrier and the one write after it: never more, however long the queue.
  EXPECT_EQ(most, 2u);
}

// Out of order, a marker without a wait list waits for everything before it but holds back
// nothing after it. The next such marker waits for it and what came after it only: 3,000
// markers made each wait for every kernel still pending (dep_chain ooo-marker, issue 17).
TEST_F(GraphTest, OutOfOrderMarkersWaitOnlyForWhatCameAfterThePreviousOne) {
  q.props = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
  _cl_mem *m = buffer(64);
  size_t most = 0;
  Command *prev = nullptr;
  for (int i = 0; i < 3000; ++i) {
    Command *w = write(m, 0, 64);
    deps(w);
    Command *mk = command(CmdKind::Marker);
    mk->waitsAll = true;
    auto d = deps(mk);
    most = std::max(most, d.size());
    // Still waits for everything before it: the write, and through the previous marker
    // every earlier command.
    EXPECT_NE(std::find(d.begin(), d.end(), w->ev), d.end());
    if (prev) EXPECT_NE(std::find(d.begin(), d.end(), prev->ev), d.end());
    prev = mk;
  }
  EXPECT_EQ(most, 2u) << "a marker's dependencies grew with the commands before it";
  // A barrier after them waits for the last marker and nothing older.
  auto d = deps(barrier());
  EXPECT_EQ(d, std::vector<_cl_event *>{prev->ev});
}

// What completes leaves the queue's tracking lists, however many commands came before.
TEST_F(GraphTest, CompletedCommandsLeaveEveryTrackingList) {
  _cl_command_queue other;
  events.push_back(std::make_unique<_cl_event>());
  _cl_event *k = events.back().get();  // pending, on another queue
  k->queue = &other;
  std::vector<Command *> all;
  for (int i = 0; i < 500; ++i) {
    Command *w = write(buffer(64), 0, 64);  // every one a different buffer: no write covers another
    std::vector<_cl_event *> d{k};
    graphDependencies(w, d);
    all.push_back(w);
  }
  EXPECT_EQ(q.accesses.size(), 500u);
  k->done = true;
  for (Command *c : all) {
    c->ev->done = true;
    graphForget(&q, c->ev);
  }
  EXPECT_TRUE(q.accesses.empty());
  EXPECT_TRUE(q.externalWaits.empty());
  EXPECT_TRUE(q.sinceBarrier.empty());
}

// Records are kept per buffer: a read looks only at the writes of the buffers it reads, so
// a matrix that a long solver reads on every iteration and never writes costs nothing
// (mk_BiCGSTAB enqueueing 16,000 commands without a wait: 27 % of the process in
// graphDependencies when every record of the queue was scanned). A write still waits for
// every pending read, and a command forgotten out of order leaves only its own records.
TEST_F(GraphTest, ReadsLookOnlyAtWritesOfTheirBuffers) {
  _cl_mem *a = buffer(4096), *x = buffer(64);
  std::vector<Command *> reads;
  for (int i = 0; i < 1000; ++i) {
    reads.push_back(read(a, 0, 4096));
    EXPECT_TRUE(deps(reads.back()).empty()) << "a read waited for a read";
  }
  Command *wx = write(x, 0, 64);
  EXPECT_TRUE(deps(wx).empty()) << "another buffer's reads ordered a write";
  EXPECT_EQ(deps(read(x, 0, 64)), std::vector<_cl_event *>{wx->ev});
  // Out of order: the 500th read completes first.
  reads[500]->ev->done = true;
  graphForget(&q, reads[500]->ev);
  EXPECT_EQ(q.accesses[a].reads.size(), 999u) << "the completed read's record outlived it";
  Command *w = write(a, 0, 16);
  auto d = deps(w);
  EXPECT_EQ(d.size(), 999u) << "a write must wait for every pending read of its bytes";
  EXPECT_EQ(std::find(d.begin(), d.end(), reads[500]->ev), d.end());
  EXPECT_EQ(q.accesses.count(a), 1u);
}

// An in-order queue's command may overtake an earlier one whose bytes it does not touch,
// but not what that one waits for on another queue (Soak.ThreadsMixedCommandsMatchTheModel).
TEST_F(GraphTest, OvertakingCommandStillWaitsForWhatEarlierOnesWaitFor) {
  _cl_command_queue other;
  events.push_back(std::make_unique<_cl_event>());
  _cl_event *k = events.back().get();  // pending, on another queue
  k->queue = &other;
  _cl_mem *m = buffer(64);
  Command *f = write(m, 0, 32);
  std::vector<_cl_event *> fd{k};
  graphDependencies(f, fd);
  auto d = deps(write(m, 32, 32));
  EXPECT_EQ(d, std::vector<_cl_event *>{k}) << "the disjoint write must wait for k, not for f";
  k->done = true;
  EXPECT_TRUE(deps(write(m, 32, 8)).size() == 1u) << "k is done: only the overlapping write is left";
}

TEST_F(GraphTest, MarkerWithoutBarrierWaitsForEverythingPending) {
  q.props = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
  _cl_mem *m = buffer(64);
  Command *w1 = write(m, 0, 32), *w2 = write(m, 32, 32);
  deps(w1), deps(w2);
  w1->ev->done = true;
  Command *mk = command(CmdKind::Marker);
  mk->waitsAll = true;
  auto d = deps(mk);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], w2->ev);
  graphForget(&q, w1->ev);
  graphForget(&q, w2->ev);
  EXPECT_TRUE(q.sinceBarrier.size() == 1u && q.sinceBarrier.front() == mk->ev);
}

}  // namespace
}  // namespace tutti
