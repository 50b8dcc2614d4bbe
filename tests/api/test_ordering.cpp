// test_ordering.cpp - a command never starts or completes before the events it waits for.
//
// Issue 21, item 2: a command on a second queue that waits for a long kernel on the
// first queue reported CL_RUNNING, and a read Tutti served from host memory reported
// CL_COMPLETE at once. Each test below reads the dependent command's status first and
// the kernel's second: whenever the kernel was still unfinished at the second read, the
// dependent command must not have started at the first.
#include <cstdint>
#include <vector>

#include "fixture.h"

namespace api {
namespace {

class Ordering : public ClTest {
 protected:
  // Starts a kernel that runs for a good while on `q`; returns its event.
  cl_event longKernel(cl_command_queue q) {
    cl_kernel k = commonKernel("spin");
    const size_t n = 4096;
    std::vector<int> init(n, 1);
    cl_mem m = makeBuffer(n * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.data());
    int iters = 400000;
    EXPECT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
    EXPECT_CL_OK(clSetKernelArg(k, 1, sizeof iters, &iters));
    cl_event e = nullptr;
    EXPECT_CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
    EXPECT_CL_OK(clFlush(q));
    track(e);
    return e;
  }

  // The spin kernel over n ints of a new buffer *x (initially 1), set to run `iters` rounds.
  cl_kernel spinOn(size_t n, int iters, cl_mem *x) {
    cl_kernel k = commonKernel("spin");
    std::vector<int> init(n, 1);
    *x = makeBuffer(n * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.data());
    EXPECT_CL_OK(clSetKernelArg(k, 0, sizeof *x, x));
    EXPECT_CL_OK(clSetKernelArg(k, 1, sizeof iters, &iters));
    return k;
  }

  static cl_int status(cl_event e) {
    cl_int s = CL_COMPLETE;
    EXPECT_CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr));
    return s;
  }

  // The dependent event's status, then the kernel's: fails when the kernel was unfinished
  // yet the dependent command had already started.
  void expectNotBefore(cl_event dependent, cl_event kernel, const char *what) {
    cl_int d = status(dependent);
    cl_int k = status(kernel);
    if (k != CL_COMPLETE)
      EXPECT_GT(d, CL_RUNNING) << what << " started while the kernel it waits for was "
                               << (k == CL_RUNNING ? "running" : "queued");
  }
};

// A barrier or marker behind a kernel on the same device is issued chained there (issue
// 17: no driver callback per barrier), but it must not report running or complete before
// that kernel has, nor may a command after it on another queue start before it completes;
// a kernel after it on its own queue still sees the long kernel's result.
TEST_F(Ordering, ChainedBarrierAndMarkerCompleteOnlyAfterTheKernelBeforeThem) {
  cl_mem x;
  cl_kernel spin = spinOn(4096, 400000, &x);
  size_t n = 4096;
  cl_event k = nullptr, b = nullptr, m = nullptr, a = nullptr, r = nullptr;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, spin, 1, nullptr, &n, nullptr, 0, nullptr, &k));
  track(k);
  ASSERT_CL_OK(clEnqueueBarrierWithWaitList(queue, 0, nullptr, &b));
  track(b);
  ASSERT_CL_OK(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &m));
  track(m);
  cl_kernel add = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(add, 0, sizeof x, &x));
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, add, 1, nullptr, &n, nullptr, 0, nullptr, &a));
  track(a);
  ASSERT_CL_OK(clFlush(queue));
  cl_command_queue q2 = makeQueue();
  std::vector<int> out(n, 0);
  ASSERT_CL_OK(clEnqueueReadBuffer(q2, x, CL_FALSE, 0, n * sizeof(int), out.data(), 1, &m, &r));
  track(r);
  ASSERT_CL_OK(clFlush(q2));
  expectNotBefore(b, k, "the barrier");
  expectNotBefore(m, k, "the marker");
  expectNotBefore(a, k, "the kernel after the barrier");
  expectNotBefore(r, k, "the read on another queue waiting for the marker");
  ASSERT_CL_OK(clWaitForEvents(1, &r));
  EXPECT_EQ(status(k), CL_COMPLETE);
  EXPECT_EQ(status(b), CL_COMPLETE);
  EXPECT_EQ(status(m), CL_COMPLETE);
  ASSERT_CL_OK(clFinish(queue));
  std::vector<int> fin(n, 0);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, x, CL_TRUE, 0, n * sizeof(int), fin.data(), 0, nullptr, nullptr));
  // What spin leaves from 1, plus one from add_one: add_one ran after spin, never before
  // (the other order leaves what spin makes of 2).
  uint32_t acc = 1;
  for (int i = 0; i < 400000; ++i) acc = acc * 1103515245u + 12345u;
  EXPECT_EQ(fin, std::vector<int>(n, int(acc + 1u)));
}

TEST_F(Ordering, ReadOfUnrelatedBufferOnOtherQueueWaitsForKernel) {
  cl_command_queue q2 = makeQueue();
  std::vector<int> init(1024, 7), out(1024, 0);
  cl_mem other = makeBuffer(init.size() * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            init.data());
  cl_event k = longKernel(queue);
  cl_event r = nullptr;
  ASSERT_CL_OK(clEnqueueReadBuffer(q2, other, CL_FALSE, 0, out.size() * sizeof(int), out.data(), 1,
                                   &k, &r));
  track(r);
  expectNotBefore(r, k, "the read");
  ASSERT_CL_OK(clWaitForEvents(1, &r));
  EXPECT_EQ(status(k), CL_COMPLETE) << "the read completed before the kernel it waits for";
  EXPECT_EQ(out, init);
}

TEST_F(Ordering, MapAndWriteOnOtherQueueWaitForKernel) {
  cl_command_queue q2 = makeQueue();
  std::vector<int> init(1024, 3);
  cl_mem other = makeBuffer(init.size() * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            init.data());
  cl_event k = longKernel(queue);
  cl_event w = nullptr, m = nullptr;
  std::vector<int> five(16, 5);
  ASSERT_CL_OK(clEnqueueWriteBuffer(q2, other, CL_FALSE, 0, five.size() * sizeof(int), five.data(), 1,
                                    &k, &w));
  track(w);
  cl_int err = CL_SUCCESS;
  int *p = static_cast<int *>(clEnqueueMapBuffer(q2, other, CL_FALSE, CL_MAP_READ, 0,
                                                 init.size() * sizeof(int), 1, &k, &m, &err));
  ASSERT_CL_OK(err);
  track(m);
  expectNotBefore(w, k, "the write");
  expectNotBefore(m, k, "the map");
  ASSERT_CL_OK(clWaitForEvents(1, &m));
  EXPECT_EQ(status(k), CL_COMPLETE) << "the map completed before the kernel it waits for";
  EXPECT_EQ(p[0], 5);
  EXPECT_EQ(p[1023], 3);
  ASSERT_CL_OK(clEnqueueUnmapMemObject(q2, other, p, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(q2));
}

TEST_F(Ordering, KernelOnOtherQueueWaitsForKernel) {
  cl_command_queue q2 = makeQueue();
  cl_kernel add = commonKernel("add_one");
  std::vector<int> init(256, 1), out(256, 0);
  cl_mem b = makeBuffer(init.size() * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        init.data());
  ASSERT_CL_OK(clSetKernelArg(add, 0, sizeof b, &b));
  cl_event k = longKernel(queue);
  cl_event a = nullptr;
  size_t n = init.size();
  ASSERT_CL_OK(clEnqueueNDRangeKernel(q2, add, 1, nullptr, &n, nullptr, 1, &k, &a));
  track(a);
  ASSERT_CL_OK(clFlush(q2));
  expectNotBefore(a, k, "the second kernel");
  ASSERT_CL_OK(clEnqueueReadBuffer(q2, b, CL_TRUE, 0, n * sizeof(int), out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(status(k), CL_COMPLETE);
  EXPECT_EQ(out, std::vector<int>(256, 2));
}

// Found by Soak.ThreadsMixedCommandsMatchTheModel. On an in-order queue a write may run
// ahead of an earlier fill whose bytes it does not touch, but not ahead of what that fill
// waits for: here a kernel on another queue that writes the whole buffer, the write's
// bytes included. In queue order the write comes after the kernel, so its bytes are what
// the buffer holds at the end. Tutti used to apply the write at once and let the kernel
// overwrite it.
TEST_F(Ordering, WriteDoesNotOvertakeWhatAnEarlierCommandWaitsFor) {
  const size_t n = 4096, half = n / 2;
  cl_command_queue q2 = makeQueue();
  cl_mem x = nullptr;
  cl_kernel spin = spinOn(n, 20000, &x);
  ASSERT_FALSE(HasFailure());
  cl_event k = nullptr, f = nullptr;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(q2, spin, 1, nullptr, &n, nullptr, 0, nullptr, &k));
  track(k);
  ASSERT_CL_OK(clFlush(q2));
  int pattern = -7;
  ASSERT_CL_OK(clEnqueueFillBuffer(queue, x, &pattern, sizeof pattern, 0, half * sizeof(int), 1, &k, &f));
  track(f);
  std::vector<int> data(n - half);
  for (size_t i = 0; i < data.size(); ++i) data[i] = int(i) * 31 + 5;
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, x, CL_FALSE, half * sizeof(int), data.size() * sizeof(int),
                                    data.data(), 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
  EXPECT_EQ(status(k), CL_COMPLETE);
  std::vector<int> got(n);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, x, CL_TRUE, 0, n * sizeof(int), got.data(), 0, nullptr, nullptr));
  EXPECT_EQ(std::vector<int>(half, pattern), std::vector<int>(got.begin(), got.begin() + half));
  EXPECT_EQ(data, std::vector<int>(got.begin() + half, got.end())) << "the kernel overwrote the later write";
}

// The same through an event: a copy that waits for a write of an in-order queue waits for
// what the app sees, the write complete, and so for every command before it there: here
// a kernel on the buffer the copy writes, which the write (of another buffer) may
// overtake but not complete before.
TEST_F(Ordering, WaitingForAnEventWaitsForEverythingBeforeItInItsQueue) {
  const size_t n = 4096, half = n / 2;
  cl_command_queue q3 = makeQueue();
  cl_mem x = nullptr;
  cl_kernel spin = spinOn(n, 20000, &x);
  cl_mem y = makeBuffer(n * sizeof(int));
  ASSERT_FALSE(HasFailure());
  cl_event w = nullptr;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, spin, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  std::vector<int> data(n, 3);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, y, CL_FALSE, 0, n * sizeof(int), data.data(), 0, nullptr, &w));
  track(w);
  ASSERT_CL_OK(clEnqueueCopyBuffer(q3, y, x, half * sizeof(int), half * sizeof(int), half * sizeof(int),
                                   1, &w, nullptr));
  ASSERT_CL_OK(clFinish(q3));
  ASSERT_CL_OK(clFinish(queue));
  std::vector<int> got(n);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, x, CL_TRUE, 0, n * sizeof(int), got.data(), 0, nullptr, nullptr));
  EXPECT_NE(got[0], 1) << "the kernel did not run";
  EXPECT_EQ(std::vector<int>(n - half, 3), std::vector<int>(got.begin() + half, got.end()))
      << "the kernel queued ahead of the write the copy waited for overwrote the copy";
}

}  // namespace
}  // namespace api
