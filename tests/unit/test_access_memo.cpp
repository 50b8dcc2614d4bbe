// test_access_memo.cpp - the command graph's access ranges of a launch come from the
// compiler's analysis, evaluated once per launch shape (skmd.cpp accessMemoOf): launches of
// one kernel with other scalars or another NDRange get their own ranges, a repeated shape
// gets the kept ones.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <tutti/compiler.h>

#include "access.h"
#include "skmd.h"

namespace tutti {
namespace {

namespace cc = compiler;

struct AccessMemoTest : ::testing::Test {
  _cl_program prog;
  _cl_kernel kernel;
  _cl_mem buf;
  void SetUp() override {
    cc::CompileRequest req;
    req.source =
        "__kernel void put(__global uint *a, const uint off, const uint v) { a[off + get_global_id(0)] = v; }\n";
    auto r = std::make_shared<cc::CompileResult>(cc::compile(req));
    ASSERT_TRUE(r->ok) << r->error;
    auto sp = std::make_shared<SkmdProgram>();
    sp->ok = true;
    sp->results.push_back(r);
    prog.skmd = sp;
    kernel.program = &prog;
    kernel.name = "put";
    buf.size = 8192 * 4;
  }
  // The bytes of buf that put(off, v) over n work-items writes, as the graph sees them.
  Range written(cl_uint off, size_t n, size_t local = 64) {
    Command c;
    c.kind = CmdKind::Kernel;
    c.kernel = &kernel;
    c.dim = 1;
    c.global[0] = n;
    c.local[0] = local;
    c.hasLocal = true;
    ArgValue m;
    m.kind = ArgValue::Mem;
    m.mem = &buf;
    ArgValue s, v;
    s.kind = v.kind = ArgValue::Bytes;
    s.bytes.assign(reinterpret_cast<const unsigned char *>(&off), reinterpret_cast<const unsigned char *>(&off + 1));
    cl_uint one = 1;
    v.bytes.assign(reinterpret_cast<const unsigned char *>(&one), reinterpret_cast<const unsigned char *>(&one + 1));
    c.args = {m, s, v};
    std::vector<Access> out;
    std::lock_guard<Mutex> g(apiMutex);
    EXPECT_TRUE(skmdLaunchAccess(&c, out));
    for (const Access &a : out)
      if (a.write) return a.r;
    ADD_FAILURE() << "no write access";
    return {};
  }
  size_t shapesKept() {
    std::lock_guard<Mutex> g(apiMutex);
    return kernel.accessMemo.size();
  }
};

TEST_F(AccessMemoTest, EachLaunchShapeGetsItsOwnRanges) {
  const size_t half = 4096;
  EXPECT_EQ(written(half, half).begin, half * 4);
  EXPECT_EQ(written(half, half).end, 2 * half * 4);
  EXPECT_EQ(shapesKept(), 1u) << "a repeated shape evaluated its ranges again";
  Range lo = written(0, half);  // another scalar: another shape
  EXPECT_EQ(lo.begin, 0u);
  EXPECT_EQ(lo.end, half * 4);
  Range part = written(0, 1024);  // another NDRange
  EXPECT_EQ(part.end, 1024u * 4);
  Range local = written(0, 1024, 32);  // another local size
  EXPECT_EQ(local.end, 1024u * 4);
  EXPECT_EQ(shapesKept(), 4u);
  EXPECT_EQ(written(half, half).begin, half * 4) << "the first shape's ranges were lost or mixed up";
  EXPECT_EQ(shapesKept(), 4u);
  // A bounded number of shapes is kept: an app that launches ever new ones does not grow it.
  for (cl_uint off = 0; off < 64; ++off) EXPECT_EQ(written(off, 1024).begin, off * 4u);
  EXPECT_LE(shapesKept(), 8u);
}

}  // namespace
}  // namespace tutti
