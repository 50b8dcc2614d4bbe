// test_lock_release.cpp - one thread's long program build does not stall another's enqueues (issue 16).
#include "fixture.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

using namespace api;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Many kernels with loops and branches: seconds of compiling in every backing driver and,
// under TUTTI_MODE=skmd, in Tutti's own compiler. The nonce keeps every kernel cache cold.
std::string bigSource(int kernels) {
  std::string nonce = std::to_string(Clock::now().time_since_epoch().count() % 1000000007);
  std::string s;
  for (int k = 0; k < kernels; ++k) {
    std::string n = std::to_string(k);
    s += "__kernel void k" + n + "(__global float *a, __global const float *b, int m) {\n"
         "  int i = get_global_id(0);\n"
         "  float acc = " + nonce + ".0f + " + n + ";\n"
         "  for (int j = 0; j < m; ++j) {\n"
         "    float x = b[(i + j) % 64];\n"
         "    if (x > acc) acc = acc * 0.5f + sin(x) * " + n + ".25f;\n"
         "    else acc = acc + cos(x * acc) / (1.0f + x * x);\n"
         "    acc += exp(-fabs(x)) * (j & 3) + pow(fabs(x), 1.5f);\n"
         "  }\n"
         "  a[i] = acc;\n"
         "}\n";
  }
  return s;
}

// One of thread B's small round trips: fill `bytes` of buf with `pat`, read them back
// blocking; false when either fails or the bytes are wrong.
bool fillAndReadBack(cl_command_queue q, cl_mem buf, size_t bytes, unsigned char pat,
                     std::vector<unsigned char> &back) {
  return clEnqueueFillBuffer(q, buf, &pat, 1, 0, bytes, 0, nullptr, nullptr) == CL_SUCCESS &&
         clEnqueueReadBuffer(q, buf, CL_TRUE, 0, bytes, back.data(), 0, nullptr, nullptr) ==
             CL_SUCCESS &&
         back[bytes - 1] == pat;
}

class LockRelease : public ClTest {
 protected:
  // An unbuilt program of bigSource(kernels) on a context of its own.
  cl_program bigProgram(int kernels) {
    cl_context c = makeContext();
    if (HasFatalFailure()) return nullptr;
    std::string src = bigSource(kernels);
    const char *s = src.c_str();
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(c, 1, &s, nullptr, &err);
    EXPECT_CL_OK(err);
    return prog;
  }

  // The spin kernel over n ints of a new buffer *x, on `queue`: hundreds of ms on PoCL, so
  // that a blocking call queued behind it waits long enough to show a stall.
  cl_kernel longKernel(size_t n, cl_mem *x) {
    cl_kernel spin = commonKernel("spin");
    std::vector<int> init(n, 1);
    *x = makeBuffer(n * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.data());
    int iters = 400000;
    EXPECT_CL_OK(clSetKernelArg(spin, 0, sizeof *x, x));
    EXPECT_CL_OK(clSetKernelArg(spin, 1, sizeof iters, &iters));
    return spin;
  }

  // What a stall test saw (times in ms since its start).
  struct Stall {
    cl_int aErr = CL_SUCCESS;
    double aStart = 0, aEnd = 0;  // the part of A's work that blocks
    double worst = 0, first50 = 0;  // B: its longest round, and when 50 were done
    double worstInside = 0;  // B: its longest round of those begun from aStart on
    bool bFailed = false;
  };
  // Thread A runs `work` (it returns A's error and may move *start to where the part
  // that blocks begins); thread B, on a context and queue of its own, makes small round
  // trips (fillAndReadBack) until A is done, at least 50, each timed so that it can be
  // compared with A's wait.
  Stall runBeside(const std::function<cl_int(Clock::time_point t0, double *start)> &work) {
    Stall s;
    const size_t kBytes = 4096;
    cl_context cB = makeContext();
    cl_command_queue qB = makeQueue(0, cB);
    cl_mem bufB = makeBuffer(kBytes, CL_MEM_READ_WRITE, nullptr, cB);
    if (HasFailure()) return s;
    Clock::time_point t0 = Clock::now();
    std::atomic<bool> aDone{false};
    std::vector<std::pair<double, double>> rounds;  // B's: begin, length
    std::thread a([&] {
      s.aStart = msSince(t0);
      s.aErr = work(t0, &s.aStart);
      s.aEnd = msSince(t0);
      aDone = true;
    });
    std::thread b([&] {
      std::vector<unsigned char> back(kBytes);
      for (int r = 0; (r < 50 || !aDone) && !s.bFailed && r < 100000; ++r) {
        double c0 = msSince(t0);
        if (!fillAndReadBack(qB, bufB, kBytes, static_cast<unsigned char>(r), back)) s.bFailed = true;
        rounds.push_back({c0, msSince(t0) - c0});
        s.worst = std::max(s.worst, rounds.back().second);
        if (r == 49) s.first50 = msSince(t0);
        if (r >= 50) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
    a.join();
    b.join();
    for (auto [begin, length] : rounds)
      if (begin >= s.aStart) s.worstInside = std::max(s.worstInside, length);
    return s;
  }

  // Thread A's work in the tests below: k over n items, then a blocking read of x.
  Stall launchAndReadBeside(cl_kernel k, size_t n, const size_t *local, cl_mem x, std::vector<int> &out) {
    return runBeside([&](Clock::time_point, double *) {
      cl_int err = clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, local, 0, nullptr, nullptr);
      if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, x, CL_TRUE, 0, n * sizeof(int), out.data(), 0, nullptr, nullptr);
      return err;
    });
  }

  // A blocked long enough to show a stall, and none of B's rounds waited for it.
  void expectNoStall(const Stall &s, const char *what) {
    ASSERT_CL_OK(s.aErr);
    ASSERT_FALSE(s.bFailed) << "B's fill/read round trips went wrong";
    double aTime = s.aEnd - s.aStart;
    printf("[ lock    ] A %s %.0f ms; B's first 50 rounds done at %.0f ms, worst round %.1f ms\n",
           what, aTime, s.first50, s.worst);
    ASSERT_GT(aTime, 300.0) << "A's " << what << " ran too briefly to show a stall; make it longer";
    EXPECT_LT(s.first50, s.aEnd) << "B's small commands did not finish while A waited";
    EXPECT_LT(s.worst, aTime / 5) << "one of B's rounds waited for A's " << what;
  }
};

// Thread A builds a program whose build takes seconds; thread B, on its own context and
// queue, enqueues and finishes small commands meanwhile. Before issue 16 the build's
// compile work ran under the API lock and B's next call waited for all of it.
TEST_F(LockRelease, BuildDoesNotStallOtherThreadsEnqueues) {
  // Without TUTTI_MODE=skmd the build is the drivers' alone, which ran unlocked before too
  // (ctest tutti_api_lock_release_skmd runs this with the in-process compiler).
  if (getEnv("TUTTI_MODE") != "skmd") GTEST_SKIP() << "checks the compile of TUTTI_MODE=skmd";
  cl_program prog = bigProgram(120);
  ASSERT_TRUE(prog);
  track(prog);
  cl_int err = CL_SUCCESS;

  cl_context ctxB = makeContext();
  ASSERT_FALSE(HasFatalFailure());
  cl_command_queue qB = makeQueue(0, ctxB);
  ASSERT_FALSE(HasFatalFailure());
  const size_t kBytes = 4096;
  cl_mem buf = makeBuffer(kBytes, CL_MEM_READ_WRITE, nullptr, ctxB);
  ASSERT_FALSE(HasFatalFailure());

  const Clock::time_point t0 = Clock::now();
  std::atomic<bool> aStarted{false}, aDone{false};
  double aStart = 0, aEnd = 0;
  cl_int aErr = CL_SUCCESS;
  std::thread a([&] {
    aStart = msSince(t0);
    aStarted = true;
    aErr = clBuildProgram(prog, 0, nullptr, nullptr, nullptr, nullptr);
    aEnd = msSince(t0);
    aDone = true;
  });

  // B: a fixed amount of small work, each piece enqueued and finished, then more of the
  // same until A is done, so that B also calls in during every phase of A's build.
  const int kRounds = 200;
  double bStart = 0, bDone = 0, worst = 0;
  int bTotal = 0;
  bool bFailed = false;
  cl_int spec2ndBuild = CL_SUCCESS, specKernel = CL_SUCCESS;
  cl_build_status specStatus = CL_BUILD_NONE;
  bool specSeen = false;
  std::thread b([&] {
    while (!aStarted) std::this_thread::yield();
    // Let A get past validation into the build proper.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    bStart = msSince(t0);
    std::vector<unsigned char> back(kBytes);
    // While A still builds, the program is busy: the spec's answers for that state.
    auto specCheck = [&] {
      if (aDone) return;
      cl_int e = CL_SUCCESS;
      cl_kernel k = clCreateKernel(prog, "k0", &e);
      if (k) clReleaseKernel(k);
      clGetProgramBuildInfo(prog, env().device, CL_PROGRAM_BUILD_STATUS, sizeof specStatus,
                            &specStatus, nullptr);
      cl_int e2 = clBuildProgram(prog, 0, nullptr, nullptr, nullptr, nullptr);
      if (aDone) return;  // finished meanwhile: the answers may be a built program's
      specSeen = true;
      specKernel = e;
      spec2ndBuild = e2;
    };
    for (int r = 0; (r < kRounds || !aDone) && !bFailed; ++r) {
      double c0 = msSince(t0);
      if (!fillAndReadBack(qB, buf, kBytes, static_cast<unsigned char>(r), back)) bFailed = true;
      worst = std::max(worst, msSince(t0) - c0);
      if (r == kRounds - 1) {
        bDone = msSince(t0);
        specCheck();
      }
      bTotal = r + 1;
      // A little room between rounds, so B keeps calling in without hogging a core.
      if (r >= kRounds) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  a.join();
  b.join();

  ASSERT_CL_OK(aErr);
  ASSERT_FALSE(bFailed) << "B's fill/read round trips went wrong";
  double aTime = aEnd - aStart;
  printf("[ lock    ] A build %.0f ms (%.0f..%.0f); B %d rounds %.0f..%.0f ms, %d in all, "
         "worst round %.1f ms\n",
         aTime, aStart, aEnd, kRounds, bStart, bDone, bTotal, worst);
  // The build must be long enough for the comparison to mean something.
  ASSERT_GT(aTime, 1000.0) << "the program built too fast to show a stall; make it bigger";
  EXPECT_LT(bDone, aEnd) << "B's small commands did not finish while A was building";
  // Before issue 16 the compile phases under the lock took a sixth of the build or more;
  // now a round takes milliseconds.
  EXPECT_LT(worst, aTime / 10) << "one of B's rounds waited for a good part of A's build";
  printf("[ lock    ] spec answers while building %s\n", specSeen ? "checked" : "not seen");
  if (specSeen) {
    EXPECT_CL(CL_INVALID_PROGRAM_EXECUTABLE, specKernel);
    EXPECT_CL(CL_INVALID_OPERATION, spec2ndBuild);
    EXPECT_EQ(CL_BUILD_IN_PROGRESS, specStatus);
  }
  cl_kernel k = clCreateKernel(prog, "k0", &err);
  EXPECT_CL_OK(err);
  if (k) clReleaseKernel(k);
}

// The app releases its program while another thread builds it: the build keeps its own
// reference, finishes, and nothing is freed under it.
TEST_F(LockRelease, ReleaseWhileBuilding) {
  cl_program prog = bigProgram(20);
  ASSERT_TRUE(prog);
  std::atomic<bool> started{false};
  cl_int buildErr = CL_SUCCESS;
  std::thread a([&] {
    started = true;
    buildErr = clBuildProgram(prog, 0, nullptr, nullptr, nullptr, nullptr);
  });
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_CL_OK(clReleaseProgram(prog));
  a.join();
  // Almost always the build got in first; should the release win, the handle is gone.
  EXPECT_CL_ANY(({CL_SUCCESS, CL_INVALID_PROGRAM}), buildErr);
}

}  // namespace

// Thread A reads a buffer a long kernel is writing, with a blocking read: A waits for the
// kernel. Thread B, on its own context, enqueues and finishes small commands meanwhile.
// Before issue 16 the read waited for the device inside the API lock, and every call of B
// waited with it. The suite's default placement runs the kernel on PoCL's pthread device;
// on its basic device, which runs commands in the calling thread, the wait stays under the
// lock on purpose (BackingDevice::callsOutsideLock), so this test is not run placed there.
TEST_F(LockRelease, BlockingReadDoesNotStallOtherThreadsEnqueues) {
  TUTTI_ONLY();
  const size_t n = 4096;
  std::vector<int> out(n, 0);
  cl_mem x = nullptr;
  cl_kernel spin = longKernel(n, &x);
  ASSERT_FALSE(HasFailure());
  Stall s = launchAndReadBeside(spin, n, nullptr, x, out);
  ASSERT_FALSE(HasFailure());
  expectNoStall(s, "kernel + blocking read");
  // The read waited for the kernel: each int went through the kernel's recurrence.
  EXPECT_NE(out[0], 1);
  EXPECT_EQ(out[0], out[n - 1]);
}

// Thread A creates a large buffer with CL_MEM_COPY_HOST_PTR while a long kernel runs on
// the device its content goes to: the blocking upload waits for the kernel on that
// device's in-order queue. Thread B, on its own context, enqueues and finishes small
// commands meanwhile. The upload used to run inside the API lock, and every call of B
// waited with it. The content goes straight to a device only where that device does not
// share the home (TUTTI_ZERO_COPY=0), and the upload leaves the lock only on PoCL's
// pthread device (BackingDevice::callsOutsideLock): ctest tutti_api_lock_release_upload
// runs this placed there.
TEST_F(LockRelease, CopyHostPtrUploadDoesNotStallOtherThreadsEnqueues) {
  TUTTI_ONLY();
  if (getEnv("TUTTI_PLACEMENT") != "device:1" || getEnv("TUTTI_ZERO_COPY") != "0")
    GTEST_SKIP() << "needs the upload on the pthread device (ctest tutti_api_lock_release_upload)";
  const size_t n = 4096;
  cl_mem x = nullptr;
  cl_kernel spin = longKernel(n, &x);
  // Above TUTTI_DIRECT_MIN (1 MiB by default): the content goes to the device, not a home.
  const size_t kBig = 16u << 20;
  std::vector<unsigned char> big(kBig, 7);
  ASSERT_FALSE(HasFailure());
  cl_mem y = nullptr;
  Stall s = runBeside([&](Clock::time_point t0, double *start) {
    cl_int err = clEnqueueNDRangeKernel(queue, spin, 1, nullptr, &n, nullptr, 0, nullptr, nullptr);
    *start = msSince(t0);  // timed: clCreateBuffer alone
    if (err == CL_SUCCESS)
      y = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kBig, big.data(), &err);
    return err;
  });
  if (y) track(y);
  ASSERT_FALSE(HasFailure());
  ASSERT_CL_OK(s.aErr);
  ASSERT_FALSE(s.bFailed) << "B's fill/read round trips went wrong";
  double aTime = s.aEnd - s.aStart;
  printf("[ lock    ] A clCreateBuffer(COPY_HOST_PTR, %zu MiB) behind a kernel %.0f ms; B's first "
         "50 rounds done at %.0f ms, worst round %.1f ms\n", kBig >> 20, aTime, s.first50, s.worst);
  ASSERT_GT(aTime, 300.0) << "the upload did not wait long enough to show a stall; make the kernel longer";
  EXPECT_LT(s.first50, s.aEnd) << "B's small commands did not finish while A's upload waited";
  EXPECT_LT(s.worst, aTime / 5) << "one of B's rounds waited for A's upload";
  // The content arrived: its last bytes read back as they were given.
  const size_t kTail = 4096;
  std::vector<unsigned char> tail(kTail, 0);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, y, CL_TRUE, kBig - kTail, kTail, tail.data(), 0, nullptr,
                                   nullptr));
  EXPECT_EQ(tail, std::vector<unsigned char>(kTail, 7));
}

class SplitMerge : public ClTest {};

// For launches split in two and merged on the host: ctest tutti_api_lock_release_merge
// and tutti_api_lock_release_merge_pthreads force the split.
#define FORCED_SPLIT_ONLY()                                                            \
  do {                                                                                 \
    TUTTI_ONLY();                                                                      \
    if (getEnv("TUTTI_MODE") != "skmd" || getEnv("TUTTI_PARTITION") != "fixed:1,1")    \
      GTEST_SKIP() << "needs a forced split (ctest tutti_api_lock_release_merge)";    \
  } while (0)

// Thread A launches a histogram split across both backing devices (TUTTI_MODE=skmd,
// TUTTI_PARTITION=fixed:1,1) and waits for it. Its counts are atomics, so each device
// counts into its own copy of the whole histogram, and once both pieces are done the
// copies are added up on the host: a read of each device's copy and a pass over every
// bin, hundreds of ms for this one. Thread B, on its own context, makes small round trips
// meanwhile. The merge used to run in the dispatcher with the API lock held, and every
// call of B waited for it. A's enqueue is not timed: on PoCL's basic device (ctest
// tutti_api_lock_release_merge) the upload of the histogram's pre-launch content runs in
// whichever thread flushes, under the lock (BackingDevice::callsOutsideLock); on two
// pthread devices without zero-copy replicas (tutti_api_lock_release_merge_pthreads),
// where both pieces' results are read back, none of the launch holds the lock.
TEST_F(LockRelease, SplitMergeDoesNotStallOtherThreadsEnqueues) {
  FORCED_SPLIT_ONLY();
  const char *src =
      "__kernel void count(__global const uint *keys, __global uint *hist, uint bins) {\n"
      "  atomic_inc(&hist[keys[get_global_id(0)] % bins]);\n"
      "}\n";
  cl_kernel count = makeKernel(makeProgram(src), "count");
  // Few work-items, a large histogram: the pieces are quick, the merge is not.
  const size_t items = 4096;
  const cl_uint bins = 64u << 20;
  std::vector<cl_uint> keys(items);
  for (size_t i = 0; i < items; ++i) keys[i] = cl_uint(i * 2654435761u) % bins;
  cl_mem keyBuf = makeBuffer(items * sizeof(cl_uint), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             keys.data());
  cl_mem hist = makeBuffer(size_t(bins) * sizeof(cl_uint), CL_MEM_READ_WRITE);
  ASSERT_FALSE(HasFailure());
  cl_uint zero = 0;
  ASSERT_CL_OK(clEnqueueFillBuffer(queue, hist, &zero, sizeof zero, 0, size_t(bins) * sizeof zero,
                                   0, nullptr, nullptr));
  ASSERT_CL_OK(clSetKernelArg(count, 0, sizeof keyBuf, &keyBuf));
  ASSERT_CL_OK(clSetKernelArg(count, 1, sizeof hist, &hist));
  ASSERT_CL_OK(clSetKernelArg(count, 2, sizeof bins, &bins));
  ASSERT_CL_OK(clFinish(queue));
  auto counters = tuttiFn<tuttiGetDeviceCounters_fn>("tuttiGetDeviceCounters");
  auto reset = tuttiFn<tuttiResetCounters_fn>("tuttiResetCounters");
  ASSERT_TRUE(counters && reset);
  ASSERT_CL_OK(reset());
  Stall s = runBeside([&](Clock::time_point t0, double *start) {
    cl_int err = clEnqueueNDRangeKernel(queue, count, 1, nullptr, &items, nullptr, 0, nullptr, nullptr);
    *start = msSince(t0);  // timed: the wait for the pieces and the merge
    if (err == CL_SUCCESS) err = clFinish(queue);
    return err;
  });
  ASSERT_FALSE(HasFailure());
  ASSERT_CL_OK(s.aErr);
  ASSERT_FALSE(s.bFailed) << "B's fill/read round trips went wrong";
  // Split: A's kernel ran on both devices (B's commands run no kernels).
  tutti_device_counters c[2];
  cl_uint n = 0;
  ASSERT_CL_OK(counters(2, c, &n));
  ASSERT_EQ(2u, n);
  ASSERT_EQ(1u, c[0].kernels) << "the launch was not split";
  ASSERT_EQ(1u, c[1].kernels) << "the launch was not split";
  double aTime = s.aEnd - s.aStart;
  printf("[ lock    ] A split launch: enqueue %.0f ms, finish %.0f ms; B's worst round %.1f ms "
         "(%.1f ms of those begun during A's finish)\n", s.aStart, aTime, s.worst, s.worstInside);
  ASSERT_GT(aTime, 200.0) << "the merge was too quick to show a stall; make the histogram larger";
  EXPECT_LT(s.worstInside, aTime / 5) << "one of B's rounds waited for A's merge";
  std::vector<cl_uint> got(bins);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, hist, CL_TRUE, 0, size_t(bins) * sizeof(cl_uint),
                                   got.data(), 0, nullptr, nullptr));
  std::vector<cl_uint> want(bins, 0);
  for (cl_uint k : keys) ++want[k];
  EXPECT_TRUE(got == want) << "the merged histogram is wrong";
}

// Profiling mode (TUTTI_PROFILE=1) runs a new launch shape's ladder of work-group counts on
// every device before the launch itself: seconds of driver waits. Thread A launches such a
// shape; thread B, on its own context, makes small round trips meanwhile. The ladder used
// to run while the launch was issued, with the API lock held. ctest
// tutti_api_lock_release_profile runs this on two pthread devices (PoCL's basic device
// keeps its calls under the lock: BackingDevice::callsOutsideLock).
TEST_F(LockRelease, ProfilingLadderDoesNotStallOtherThreadsEnqueues) {
  TUTTI_ONLY();
  if (getEnv("TUTTI_PROFILE") != "1") GTEST_SKIP() << "needs TUTTI_PROFILE=1";
  const size_t local = 64;
  cl_kernel spin = commonKernel("spin");
  ASSERT_FALSE(HasFailure());
  // A stall shows only if A blocks long enough; fast machines ran the first size in
  // ~200 ms (CI, stop 27), so each try doubles the work, with a new global size so that
  // the launch shape is new and its ladder runs again.
  for (int attempt = 0;; ++attempt) {
    const size_t n = 4096 + 64 * size_t(attempt);
    const int iters = 20000 << attempt;
    std::vector<int> init(n);
    for (size_t i = 0; i < n; ++i) init[i] = int(i);
    cl_mem x = makeBuffer(n * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.data());
    ASSERT_CL_OK(clSetKernelArg(spin, 0, sizeof x, &x));
    ASSERT_CL_OK(clSetKernelArg(spin, 1, sizeof iters, &iters));
    ASSERT_FALSE(HasFailure());
    std::vector<int> out(n, 0);
    Stall s = launchAndReadBeside(spin, n, &local, x, out);
    ASSERT_FALSE(HasFailure());
    if (s.aEnd - s.aStart <= 300.0 && attempt < 4 && s.aErr == CL_SUCCESS) continue;
    expectNoStall(s, "profiled launch (ladder) + blocking read");
    // The ladder ran on scratch copies: the app's buffer went through the recurrence once.
    for (size_t i : {size_t(0), n / 2, n - 1}) {
      int acc = int(i);
      for (int k = 0; k < iters; ++k) acc = int(unsigned(acc) * 1103515245u + 12345u);
      EXPECT_EQ(acc, out[i]) << "item " << i;
    }
    break;
  }
}

// A split launch's host merge writes only the bytes the launch may write: a later command
// that writes other bytes of the same buffer is not ordered after the launch and may run
// before the merge. Without replicas that are the homes (TUTTI_ZERO_COPY=0, ctest
// tutti_api_lock_release_merge_pthreads) the merge started again from the whole
// buffer's pre-launch content and undid such a write, or counted it twice.
TEST_F(SplitMerge, LeavesBytesItDoesNotWrite) {
  FORCED_SPLIT_ONLY();
  const char *src =
      "__kernel void bump(__global uint *h) {\n"
      "  atomic_inc(&h[get_local_id(0) % 64]);\n"
      "}\n";
  cl_kernel bump = makeKernel(makeProgram(src), "bump");
  const size_t n = 4096, global = 4096, local = 64;
  std::vector<cl_uint> zeros(n, 0), sevens(n - 64, 7), got(n, 0);
  cl_mem h = makeBuffer(n * sizeof(cl_uint), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.data());
  ASSERT_FALSE(HasFailure());
  ASSERT_CL_OK(clSetKernelArg(bump, 0, sizeof h, &h));
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, bump, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, h, CL_FALSE, 64 * sizeof(cl_uint), sevens.size() * sizeof(cl_uint),
                                    sevens.data(), 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, h, CL_TRUE, 0, n * sizeof(cl_uint), got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) {
    cl_uint want = i < 64 ? cl_uint(global / 64) : 7;
    if (got[i] != want) {
      ADD_FAILURE() << "h[" << i << "] is " << got[i] << ", not " << want;
      break;
    }
  }
}
