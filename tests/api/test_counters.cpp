// test_counters.cpp - end-to-end data movement checked through Tutti's transfer counters
// (tuttiGetDeviceCounters / tuttiResetCounters / tuttiGetEventDevice).
//
// Some tests need a particular placement policy, chosen by TUTTI_PLACEMENT when the
// process starts (ctest runs this file under device:0, device:1 and roundrobin);
// they skip under other policies.
#include "fixture.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace api;

namespace {

class Counters : public ClTest {
 protected:
  void SetUp() override {
    if (!isTutti()) GTEST_SKIP() << "Tutti-specific: platform is '" << env().platformName << "'";
    ClTest::SetUp();
    if (HasFatalFailure()) return;
    get = tuttiFn<tuttiGetDeviceCounters_fn>("tuttiGetDeviceCounters");
    reset = tuttiFn<tuttiResetCounters_fn>("tuttiResetCounters");
    evDev = tuttiFn<tuttiGetEventDevice_fn>("tuttiGetEventDevice");
    ASSERT_NE(get, nullptr);
    ASSERT_NE(reset, nullptr);
    ASSERT_NE(evDev, nullptr);
    cl_uint n = 0;
    ASSERT_CL_OK(get(0, nullptr, &n));
    ASSERT_GE(n, 1u);
    numDevices = n;
  }

  std::vector<tutti_device_counters> snap() {
    std::vector<tutti_device_counters> c(numDevices);
    cl_uint n = 0;
    EXPECT_CL_OK(get(numDevices, c.data(), &n));
    EXPECT_EQ(n, numDevices);
    return c;
  }
  static cl_ulong sumH2D(const std::vector<tutti_device_counters> &c) {
    cl_ulong s = 0;
    for (auto &x : c) s += x.h2d_bytes;
    return s;
  }
  static cl_ulong sumD2H(const std::vector<tutti_device_counters> &c) {
    cl_ulong s = 0;
    for (auto &x : c) s += x.d2h_bytes;
    return s;
  }
  static cl_ulong sumKernels(const std::vector<tutti_device_counters> &c) {
    cl_ulong s = 0;
    for (auto &x : c) s += x.kernels;
    return s;
  }
  int deviceOf(cl_event e) {
    cl_int d = -2;
    EXPECT_CL_OK(evDev(e, &d));
    return d;
  }
  // Placement index for TUTTI_PLACEMENT=device:N, else -1.
  static int fixedPlacement() {
    std::string p = getEnv("TUTTI_PLACEMENT");
    if (p.rfind("device:", 0) != 0) return -1;
    return std::atoi(p.c_str() + 7);
  }
  // TUTTI_STAGING=on: staging memory is allocated in the background when the context is
  // made, and until it is there copies take the driver's path. Writes src to m until a
  // write is staged on device fp; with TUTTI_EXPECT_NO_STAGING (TUTTI_STAGING_MB too large
  // to allocate) checks that none ever is. The bytes a staged copy counts, per byte.
  uint64_t awaitStaging(int fp, cl_mem m, const void *src, size_t bytes) {
    const bool never = !getEnv("TUTTI_EXPECT_NO_STAGING").empty();
    for (int i = 0; i < (never ? 3 : 500) && snap()[fp].staged_bytes == 0; ++i) {
      EXPECT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bytes, src, 0, nullptr, nullptr));
      if (snap()[fp].staged_bytes == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(snap()[fp].staged_bytes == 0, never);
    return never ? 0 : 1;
  }
  // Maps m for reading (blocking) and checks that its ints are base's plus `plus`.
  void checkMapped(cl_mem m, const std::vector<int> &base, int plus) {
    cl_int err = CL_SUCCESS;
    auto *p = static_cast<int *>(clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0,
                                                    base.size() * sizeof(int), 0, nullptr, nullptr, &err));
    ASSERT_CL_OK(err);
    for (size_t i = 0; i < base.size(); ++i) ASSERT_EQ(p[i], base[i] + plus) << i;
    ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
  }
  // add_one over the whole buffer, blocking, returning the kernel event.
  cl_event launch(cl_kernel k, cl_mem m, size_t n) {
    EXPECT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
    cl_event e = nullptr;
    EXPECT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
    EXPECT_CL_OK(clFinish(queue));
    if (e) track(e);
    return e;
  }

  tuttiGetDeviceCounters_fn get = nullptr;
  tuttiResetCounters_fn reset = nullptr;
  tuttiGetEventDevice_fn evDev = nullptr;
  cl_uint numDevices = 0;
};

const size_t kInts = 256 * 1024;
const cl_ulong kBytes = kInts * sizeof(int);

// TUTTI_DIRECT_MIN (default 1 MiB): copies this large go between the app's memory and
// a device without the host home, so a repeated read moves its bytes again.
bool directCopies(cl_ulong bytes) {
  std::string v = getEnv("TUTTI_DIRECT_MIN");
  cl_ulong min = v.empty() ? (1u << 20) : std::stoull(v);
  return min && bytes >= min;
}

}  // namespace

TEST_F(Counters, DeviceListAndReset) {
  if (getEnv("POCL_DEVICES") == "pthread basic") EXPECT_EQ(numDevices, 2u);
  auto c = snap();
  for (cl_uint i = 0; i < numDevices; ++i) {
    std::string name(c[i].name, strnlen(c[i].name, TUTTI_DEVICE_NAME_MAX));
    EXPECT_EQ(name.rfind(std::to_string(i) + ": ", 0), 0u) << name;
    EXPECT_NE(c[i].type, 0u);
  }
  // Some traffic, then reset.
  cl_kernel k = commonKernel("add_one");
  std::vector<int> init(1024, 1);
  cl_mem m = makeBuffer(4096, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.data());
  launch(k, m, 1024);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 4096, init.data(), 0, nullptr, nullptr));
  auto before = snap();
  EXPECT_GE(sumKernels(before), 1u);
  ASSERT_CL_OK(reset());
  auto after = snap();
  for (cl_uint i = 0; i < numDevices; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(after[i].h2d_bytes, 0u);
    EXPECT_EQ(after[i].d2h_bytes, 0u);
    EXPECT_EQ(after[i].h2d_transfers, 0u);
    EXPECT_EQ(after[i].d2h_transfers, 0u);
    EXPECT_EQ(after[i].kernels, 0u);
    EXPECT_EQ(after[i].kernel_ns, 0u);
    EXPECT_EQ(after[i].device_copies, 0u);
    EXPECT_STREQ(after[i].name, before[i].name);
  }
}

TEST_F(Counters, PartialFillAndArgumentErrors) {
  tutti_device_counters one[1];
  cl_uint n = 0;
  ASSERT_CL_OK(get(1, one, &n));
  EXPECT_EQ(n, numDevices);
  EXPECT_EQ(std::string(one[0].name).rfind("0: ", 0), 0u);
  ASSERT_CL_OK(get(1, one, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, get(1, nullptr, &n));
}

TEST_F(Counters, EventDeviceQuery) {
  cl_kernel k = commonKernel("add_one");
  std::vector<int> init(1024, 0);
  cl_mem m = makeBuffer(4096, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.data());
  ASSERT_CL_OK(reset());
  cl_event e = launch(k, m, 1024);
  int d = deviceOf(e);
  ASSERT_GE(d, 0);
  ASSERT_LT(d, (int)numDevices);
  auto c = snap();
  EXPECT_EQ(c[d].kernels, 1u);
  EXPECT_EQ(sumKernels(c), 1u);
  int fp = fixedPlacement();
  if (fp >= 0) EXPECT_EQ(d, fp) << "TUTTI_PLACEMENT=" << getEnv("TUTTI_PLACEMENT");
  // Non-kernel commands and user events have no device.
  cl_event w;
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 16, init.data(), 0, nullptr, &w));
  track(w);
  EXPECT_EQ(deviceOf(w), -1);
  cl_event u = makeUserEvent();
  EXPECT_EQ(deviceOf(u), -1);
  ASSERT_CL_OK(clSetUserEventStatus(u, CL_COMPLETE));
  cl_int idx;
  EXPECT_CL(CL_INVALID_VALUE, evDev(e, nullptr));
  EXPECT_CL(CL_INVALID_EVENT, evDev(nullptr, &idx));
  Garbage g;
  EXPECT_CL(CL_INVALID_EVENT, evDev(g.as<cl_event>(), &idx));
}

TEST_F(Counters, KernelTimeAccumulates) {
  cl_kernel k = commonKernel("spin");
  std::vector<int> init(4096, 1);
  cl_mem m = makeBuffer(init.size() * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        init.data());
  int iters = 5000;
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof iters, &iters));
  ASSERT_CL_OK(reset());
  size_t n = init.size();
  cl_event e;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
  track(e);
  ASSERT_CL_OK(clFinish(queue));
  int d = deviceOf(e);
  ASSERT_GE(d, 0);
  auto c = snap();
  EXPECT_EQ(c[d].kernels, 1u);
  EXPECT_GT(c[d].kernel_ns, 0u);
}

// write, run twice on the same device, read twice: no redundant movement.
TEST_F(Counters, SameDeviceNoRedundantTransfers) {
  int fp = fixedPlacement();
  if (fp < 0) GTEST_SKIP() << "needs TUTTI_PLACEMENT=device:N";
  ASSERT_LT(fp, (int)numDevices);
  cl_kernel k = commonKernel("add_one");
  cl_mem m = makeBuffer(kBytes);
  std::vector<int> src(kInts);
  for (size_t i = 0; i < kInts; ++i) src[i] = (int)i;
  ASSERT_CL_OK(reset());
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, kBytes, src.data(), 0, nullptr, nullptr));

  cl_event e1 = launch(k, m, kInts);
  EXPECT_EQ(deviceOf(e1), fp);
  auto c1 = snap();
  EXPECT_EQ(c1[fp].h2d_bytes, kBytes) << "first launch must bring the buffer to the device once";
  EXPECT_EQ(c1[fp].kernels, 1u);
  for (cl_uint i = 0; i < numDevices; ++i)
    if ((int)i != fp) {
      EXPECT_EQ(c1[i].h2d_bytes + c1[i].d2h_bytes + c1[i].kernels, 0u) << "device " << i;
    }

  cl_event e2 = launch(k, m, kInts);
  EXPECT_EQ(deviceOf(e2), fp);
  auto c2 = snap();
  EXPECT_EQ(c2[fp].h2d_bytes - c1[fp].h2d_bytes, 0u) << "second launch on the same device moved data";
  EXPECT_EQ(sumD2H(c2) - sumD2H(c1), 0u);
  EXPECT_EQ(c2[fp].kernels, 2u);

  std::vector<int> out(kInts);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < kInts; ++i) ASSERT_EQ(out[i], (int)i + 2) << i;
  auto c3 = snap();
  EXPECT_EQ(c3[fp].d2h_bytes - c2[fp].d2h_bytes, kBytes) << "first read must fetch the buffer once";

  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
  auto c4 = snap();
  EXPECT_EQ(sumD2H(c4) - sumD2H(c3), directCopies(kBytes) ? kBytes : 0u)
      << "a second read moves the data again only when reads bypass the host home";
  EXPECT_EQ(sumH2D(c4) - sumH2D(c3), 0u);
  for (size_t i = 0; i < kInts; ++i) ASSERT_EQ(out[i], (int)i + 2) << i;
}

// A buffer created without content holds undefined bytes: a kernel that writes it
// needs nothing uploaded, only its input moves.
TEST_F(Counters, UndefinedOutputNeverUploaded) {
  int fp = fixedPlacement();
  if (fp < 0) GTEST_SKIP() << "needs TUTTI_PLACEMENT=device:N";
  cl_kernel k = commonKernel("copy_buf");
  std::vector<int> src(kInts);
  for (size_t i = 0; i < kInts; ++i) src[i] = int(i * 7);
  ASSERT_CL_OK(reset());
  cl_mem in = makeBuffer(kBytes, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, src.data());
  cl_mem out = makeBuffer(kBytes, CL_MEM_WRITE_ONLY);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof in, &in));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof out, &out));
  size_t n = kInts;
  cl_event e;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 0, nullptr, &e));
  track(e);
  ASSERT_CL_OK(clFinish(queue));
  EXPECT_EQ(deviceOf(e), fp);
  auto c1 = snap();
  EXPECT_EQ(sumH2D(c1), kBytes) << "only the input may cross";
  EXPECT_EQ(c1[fp].h2d_bytes, kBytes);
  std::vector<int> r(kInts, -1);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, kBytes, r.data(), 0, nullptr, nullptr));
  EXPECT_EQ(r, src);
  auto c2 = snap();
  EXPECT_EQ(sumD2H(c2) - sumD2H(c1), kBytes);
  EXPECT_EQ(c2[fp].d2h_bytes - c1[fp].d2h_bytes, kBytes);
}

// Partial host writes only re-send the written bytes; partial reads never exceed the buffer.
TEST_F(Counters, ByteRangeTracking) {
  int fp = fixedPlacement();
  if (fp < 0) GTEST_SKIP() << "needs TUTTI_PLACEMENT=device:N";
  cl_kernel k = commonKernel("add_one");
  std::vector<int> src(kInts, 10);
  ASSERT_CL_OK(reset());  // a large COPY_HOST_PTR buffer may go to its device at creation
  cl_mem m = makeBuffer(kBytes, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, src.data());
  launch(k, m, kInts);
  auto c1 = snap();
  EXPECT_EQ(c1[fp].h2d_bytes, kBytes);
  // Host overwrites the first quarter; the next launch re-sends just that quarter.
  std::vector<int> q(kInts / 4, 100);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, kBytes / 4, q.data(), 0, nullptr, nullptr));
  launch(k, m, kInts);
  auto c2 = snap();
  EXPECT_EQ(c2[fp].h2d_bytes - c1[fp].h2d_bytes, kBytes / 4);
  // Reading a quarter moves at most the buffer; reading it again moves nothing;
  // a full read then brings the total to exactly one buffer.
  std::vector<int> out(kInts);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, kBytes / 2, kBytes / 4, out.data(), 0,
                                   nullptr, nullptr));
  auto c3 = snap();
  cl_ulong part = sumD2H(c3) - sumD2H(c2);
  EXPECT_GE(part, kBytes / 4);
  EXPECT_LE(part, kBytes);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, kBytes / 2, kBytes / 4, out.data(), 0,
                                   nullptr, nullptr));
  auto c4 = snap();
  EXPECT_EQ(sumD2H(c4) - sumD2H(c3), 0u);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
  auto c5 = snap();
  EXPECT_EQ(sumD2H(c5) - sumD2H(c2), kBytes);
  for (size_t i = 0; i < kInts; ++i) ASSERT_EQ(out[i], i < kInts / 4 ? 101 : 12) << i;
}

// Launch on one device, then on another: the buffer moves exactly once each way.
TEST_F(Counters, CrossDeviceMovesBufferOnce) {
  if (getEnv("TUTTI_PLACEMENT") != "roundrobin") GTEST_SKIP() << "needs TUTTI_PLACEMENT=roundrobin";
  if (numDevices < 2) GTEST_SKIP() << "needs two backing devices";
  cl_kernel k = commonKernel("add_one");
  std::vector<int> src(kInts);
  for (size_t i = 0; i < kInts; ++i) src[i] = (int)(i * 3);
  cl_mem m = makeBuffer(kBytes);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, kBytes, src.data(), 0, nullptr, nullptr));
  ASSERT_CL_OK(reset());
  cl_event e1 = launch(k, m, kInts);
  int a = deviceOf(e1);
  auto c1 = snap();
  ASSERT_GE(a, 0);
  EXPECT_EQ(c1[a].h2d_bytes, kBytes);
  cl_event e2 = launch(k, m, kInts);
  int b = deviceOf(e2);
  ASSERT_GE(b, 0);
  ASSERT_NE(a, b) << "round-robin placed two consecutive launches on the same device";
  auto c2 = snap();
  EXPECT_EQ(c2[a].d2h_bytes - c1[a].d2h_bytes, kBytes) << "device " << a << " -> host";
  EXPECT_EQ(c2[b].h2d_bytes - c1[b].h2d_bytes, kBytes) << "host -> device " << b;
  EXPECT_EQ(c2[a].h2d_bytes - c1[a].h2d_bytes, 0u);
  EXPECT_EQ(c2[b].d2h_bytes - c1[b].d2h_bytes, 0u);
  EXPECT_EQ(c2[a].kernels, 1u);
  EXPECT_EQ(c2[b].kernels, 1u);
  std::vector<int> out(kInts);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < kInts; ++i) ASSERT_EQ(out[i], (int)(i * 3) + 2) << i;
  auto c3 = snap();
  EXPECT_EQ(c3[b].d2h_bytes - c2[b].d2h_bytes, kBytes);
  EXPECT_EQ(sumH2D(c3) - sumH2D(c2), 0u);
}

// A read-only input used by kernels on both devices is sent to each once and never fetched back.
TEST_F(Counters, ReadOnlyInputNotWrittenBack) {
  if (getEnv("TUTTI_PLACEMENT") != "roundrobin") GTEST_SKIP() << "needs TUTTI_PLACEMENT=roundrobin";
  if (numDevices < 2) GTEST_SKIP() << "needs two backing devices";
  cl_kernel k = commonKernel("copy_buf");
  std::vector<int> src(kInts, 7);
  cl_mem in = makeBuffer(kBytes, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, src.data());
  cl_mem out1 = makeBuffer(kBytes, CL_MEM_WRITE_ONLY);
  cl_mem out2 = makeBuffer(kBytes, CL_MEM_WRITE_ONLY);
  ASSERT_CL_OK(reset());
  size_t n = kInts;
  cl_event e[2];
  cl_mem outs[2] = {out1, out2};
  for (int i = 0; i < 2; ++i) {
    ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof in, &in));
    ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof outs[i], &outs[i]));
    ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 0, nullptr, &e[i]));
    track(e[i]);
  }
  ASSERT_CL_OK(clFinish(queue));
  int a = deviceOf(e[0]), b = deviceOf(e[1]);
  ASSERT_NE(a, b);
  auto c = snap();
  // `in` reaches both devices; nothing comes back to the host before a read.
  EXPECT_GE(c[a].h2d_bytes, kBytes);
  EXPECT_GE(c[b].h2d_bytes, kBytes);
  EXPECT_EQ(sumD2H(c), 0u);
  std::vector<int> r(kInts);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, out2, CL_TRUE, 0, kBytes, r.data(), 0, nullptr, nullptr));
  EXPECT_EQ(r, src);
  auto c2 = snap();
  EXPECT_EQ(sumD2H(c2), kBytes) << "only the read output comes back";
}

// TUTTI_ZERO_COPY: the CPU device placed on works on the home itself, so host writes,
// launches and reads there move no bytes to it, and every result is still current.
TEST_F(Counters, ZeroCopyCpuMovesNothing) {
  int fp = fixedPlacement();
  std::string zc = getEnv("TUTTI_EXPECT_ZERO_COPY");
  if (fp < 0 || zc.empty() || std::atoi(zc.c_str()) != fp)
    GTEST_SKIP() << "needs TUTTI_PLACEMENT=device:N and TUTTI_EXPECT_ZERO_COPY=N";
  cl_kernel k = commonKernel("add_one");
  cl_mem m = makeBuffer(kBytes);
  std::vector<int> src(kInts), out(kInts);
  for (size_t i = 0; i < kInts; ++i) src[i] = (int)i;
  ASSERT_CL_OK(reset());
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, kBytes, src.data(), 0, nullptr, nullptr));
  EXPECT_EQ(deviceOf(launch(k, m, kInts)), fp);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < kInts; ++i) ASSERT_EQ(out[i], (int)i + 1) << i;

  // A partial host write lands in the memory the device works on.
  std::vector<int> q(kInts / 4, 100);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, kBytes / 4, kBytes / 4, q.data(), 0, nullptr,
                                    nullptr));
  launch(k, m, kInts);
  // Mapped, changed and unmapped by the host, then launched again.
  cl_int err = CL_SUCCESS;
  int *p = static_cast<int *>(clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                                 kBytes, 0, nullptr, nullptr, &err));
  ASSERT_CL_OK(err);
  ASSERT_NE(p, nullptr);
  for (size_t i = 0; i < kInts; ++i) {
    int want = (i >= kInts / 4 && i < kInts / 2) ? 101 : (int)i + 2;
    ASSERT_EQ(p[i], want) << i;
  }
  p[0] = -5;
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
  launch(k, m, kInts);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, kBytes, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out[0], -4);
  for (size_t i = 1; i < kInts; ++i) {
    int want = (i >= kInts / 4 && i < kInts / 2) ? 102 : (int)i + 3;
    ASSERT_EQ(out[i], want) << i;
  }
  auto c = snap();
  EXPECT_EQ(c[fp].h2d_bytes, 0u) << "the device's replica is the home";
  EXPECT_EQ(c[fp].kernels, 3u);
}

// TUTTI_STAGING=on: large blocking copies go through pinned staging regions in rounds.
// Sizes and offsets that are not multiples of a round, data a kernel changed in between,
// and a buffer's initial content must all arrive intact, and the bytes must have been
// staged (TUTTI_STAGING_MB=4 makes 1 MiB regions, so these copies take many rounds).
TEST_F(Counters, StagedCopiesArriveIntact) {
  int fp = fixedPlacement();
  if (fp < 0 || getEnv("TUTTI_STAGING") != "on")
    GTEST_SKIP() << "needs TUTTI_PLACEMENT=device:N and TUTTI_STAGING=on";
  const size_t n = (5u << 20) / sizeof(int) + 3087, bytes = n * sizeof(int);
  std::vector<int> src(n), out(n);
  for (size_t i = 0; i < n; ++i) src[i] = int(i * 2654435761u);
  cl_kernel k = commonKernel("add_one");
  cl_mem m = makeBuffer(bytes);
  // Copies that cannot be staged must still arrive intact.
  const uint64_t unit = awaitStaging(fp, m, src.data(), bytes);
  const bool never = unit == 0;
  ASSERT_FALSE(HasFailure());
  ASSERT_CL_OK(reset());
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bytes, src.data(), 0, nullptr, nullptr));
  EXPECT_EQ(deviceOf(launch(k, m, n)), fp);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], src[i] + 1) << i;
  EXPECT_EQ(snap()[fp].staged_bytes, unit * 2 * bytes);

  // Byte-granular ranges over the kernel's result.
  std::vector<unsigned char> part(3 * 1024 * 1024 + 7);
  for (size_t i = 0; i < part.size(); ++i) part[i] = (unsigned char)(i * 31 + 5);
  const size_t off = 4093;
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, off, part.size(), part.data(), 0, nullptr, nullptr));
  std::vector<unsigned char> want(bytes), got(bytes - 1);
  for (size_t i = 0; i < n; ++i) {
    int v = src[i] + 1;
    std::memcpy(&want[i * sizeof(int)], &v, sizeof v);
  }
  std::memcpy(&want[off], part.data(), part.size());
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 1, got.size(), got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i + 1]) << i;

  // Initial content (CL_MEM_COPY_HOST_PTR), read back without blocking (the driver's path).
  cl_mem c = makeBuffer(bytes, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, src.data());
  std::fill(out.begin(), out.end(), 0);
  cl_event e;
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, c, CL_FALSE, 0, bytes, out.data(), 0, nullptr, &e));
  ASSERT_CL_OK(clWaitForEvents(1, &e));
  clReleaseEvent(e);
  EXPECT_EQ(out, src);
  EXPECT_EQ(snap()[fp].staged_bytes, unit * (3 * bytes + part.size() + got.size()));

  // Non-blocking writes take the regions that are free and send the rest directly.
  const uint64_t before = snap()[fp].staged_bytes;
  std::vector<int> next(n);
  for (size_t i = 0; i < n; ++i) next[i] = int(i) * 7 - 3;
  const size_t half = n / 2;
  cl_event w[2];
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_FALSE, 0, half * sizeof(int), next.data(), 0, nullptr, &w[0]));
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_FALSE, half * sizeof(int), (n - half) * sizeof(int),
                                    next.data() + half, 0, nullptr, &w[1]));
  EXPECT_EQ(deviceOf(launch(k, m, n)), fp);
  ASSERT_CL_OK(clWaitForEvents(2, w));
  clReleaseEvent(w[0]);
  clReleaseEvent(w[1]);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_FALSE, 0, bytes, out.data(), 0, nullptr, &e));
  ASSERT_CL_OK(clWaitForEvents(1, &e));
  clReleaseEvent(e);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], next[i] + 1) << i;
  if (never) EXPECT_EQ(snap()[fp].staged_bytes, before);
  else EXPECT_GE(snap()[fp].staged_bytes, before + (1u << 20)) << "the first write finds every region free";
  // Where the device's driver may be called beside the API lock (PoCL's pthread device),
  // both writes waited for nothing and went beside the queue, whole through the regions.
  if (!never && getEnv("TUTTI_EXPECT_WRITES_ASIDE") == "1") {
    EXPECT_EQ(snap()[fp].writes_aside, 2u);
    EXPECT_EQ(snap()[fp].staged_bytes, before + bytes);
  }
  // A non-blocking write over bytes the home holds too (a map for reading put them there),
  // mapped again at once (maps show the home): the map sees the write's bytes.
  cl_mem h = makeBuffer(bytes, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, src.data());
  ASSERT_NO_FATAL_FAILURE(checkMapped(h, src, 0));
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, h, CL_FALSE, 0, bytes, next.data(), 0, nullptr, nullptr));
  ASSERT_NO_FATAL_FAILURE(checkMapped(h, next, 0));
  if (!never && getEnv("TUTTI_EXPECT_WRITES_ASIDE") == "1") EXPECT_EQ(snap()[fp].writes_aside, 3u);
}

// TUTTI_STAGING=on: Tutti's own copies into a buffer's host home (for a map, or a read
// too small to skip the home) come through the staging regions as well, in the
// background where the driver may be called beside the API lock.
TEST_F(Counters, StagedHomeFills) {
  int fp = fixedPlacement();
  if (fp < 0 || getEnv("TUTTI_STAGING") != "on")
    GTEST_SKIP() << "needs TUTTI_PLACEMENT=device:N and TUTTI_STAGING=on";
  const size_t n = (3u << 20) / sizeof(int) + 1001, bytes = n * sizeof(int);
  std::vector<int> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = int(i * 2246822519u);
  cl_kernel k = commonKernel("add_one");
  cl_mem m = makeBuffer(bytes);
  const uint64_t unit = awaitStaging(fp, m, src.data(), bytes);
  ASSERT_FALSE(HasFailure());
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bytes, src.data(), 0, nullptr, nullptr));
  ASSERT_CL_OK(reset());
  EXPECT_EQ(deviceOf(launch(k, m, n)), fp);

  // A blocking map for reading fills the home.
  ASSERT_NO_FATAL_FAILURE(checkMapped(m, src, 1));
  auto c1 = snap();
  EXPECT_EQ(c1[fp].d2h_bytes, bytes);
  EXPECT_EQ(c1[fp].staged_bytes, unit * bytes);

  // A non-blocking one, after the kernel ran again.
  EXPECT_EQ(deviceOf(launch(k, m, n)), fp);
  cl_event e = nullptr;
  cl_int err = CL_SUCCESS;
  auto *p = static_cast<int *>(clEnqueueMapBuffer(queue, m, CL_FALSE, CL_MAP_READ, 0, bytes, 0,
                                                  nullptr, &e, &err));
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clWaitForEvents(1, &e));
  clReleaseEvent(e);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(p[i], src[i] + 2) << i;
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
  EXPECT_EQ(snap()[fp].staged_bytes, unit * 2 * bytes);

  // A read below TUTTI_DIRECT_MIN (1 MiB) at an odd offset goes through the home: only
  // its own bytes come back.
  EXPECT_EQ(deviceOf(launch(k, m, n)), fp);
  std::vector<unsigned char> got(512 * 1024 + 5);
  const size_t off = 8191;
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, off, got.size(), got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < got.size(); ++i) {
    size_t at = off + i;
    int v = src[at / sizeof(int)] + 3;
    ASSERT_EQ(got[i], reinterpret_cast<unsigned char *>(&v)[at % sizeof(int)]) << i;
  }
  auto c3 = snap();
  EXPECT_EQ(c3[fp].d2h_bytes, 2 * bytes + got.size());
  EXPECT_EQ(c3[fp].staged_bytes, unit * (2 * bytes + got.size()));
}

// TUTTI_STAGING=on with round-robin placement: bytes that only one device holds go to the
// next device that needs them through pinned staging, a read on one and a write on the
// other, without passing through (or filling) the buffer's host home.
TEST_F(Counters, StagedMovesBetweenDevices) {
  if (getEnv("TUTTI_PLACEMENT") != "roundrobin" || getEnv("TUTTI_STAGING") != "on" || numDevices != 2)
    GTEST_SKIP() << "needs TUTTI_PLACEMENT=roundrobin, TUTTI_STAGING=on and two devices";
  const size_t n = (3u << 20) / sizeof(int) + 1001, bytes = n * sizeof(int);
  std::vector<int> src(n), out(n);
  for (size_t i = 0; i < n; ++i) src[i] = int(i * 2654435761u) ^ 0x5a5a;
  cl_kernel add = commonKernel("add_one"), copy = commonKernel("copy_buf");
  cl_mem m = makeBuffer(bytes), m2 = makeBuffer(bytes);
  // Staging memory is allocated in the background when the context is made. A blocking
  // write goes to the device of the buffer's last launch, staged once it is there: wait
  // until both devices have staged one.
  const bool never = !getEnv("TUTTI_EXPECT_NO_STAGING").empty();
  for (int i = 0; i < (never ? 2 : 500); ++i) {
    auto c = snap();
    if (!never && c[0].staged_bytes && c[1].staged_bytes) break;
    launch(add, m, n);
    ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bytes, src.data(), 0, nullptr, nullptr));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto c0 = snap();
  ASSERT_EQ(c0[0].staged_bytes && c0[1].staged_bytes, !never);
  const uint64_t unit = never ? 0 : 1;

  // add_one on device a leaves the bytes there alone; copy_buf on the other device b
  // reads them.
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bytes, src.data(), 0, nullptr, nullptr));
  int a = deviceOf(launch(add, m, n));
  ASSERT_GE(a, 0);
  const int b = 1 - a;
  c0 = snap();
  ASSERT_CL_OK(clSetKernelArg(copy, 1, sizeof m2, &m2));
  ASSERT_EQ(deviceOf(launch(copy, m, n)), b) << "round-robin placement alternates devices";
  auto c1 = snap();
  EXPECT_EQ(c1[a].d2h_bytes - c0[a].d2h_bytes, bytes);
  EXPECT_EQ(c1[a].d2h_transfers - c0[a].d2h_transfers, 1u);
  EXPECT_EQ(c1[b].h2d_bytes - c0[b].h2d_bytes, bytes);
  EXPECT_EQ(c1[b].h2d_transfers - c0[b].h2d_transfers, 1u);
  EXPECT_EQ(c1[a].h2d_bytes - c0[a].h2d_bytes, 0u);
  EXPECT_EQ(c1[b].d2h_bytes - c0[b].d2h_bytes, 0u);
  // Through the home, the write to b would not be staged.
  EXPECT_EQ(c1[a].staged_bytes - c0[a].staged_bytes, unit * bytes);
  EXPECT_EQ(c1[b].staged_bytes - c0[b].staged_bytes, unit * bytes);

  // The home was left stale: a map for reading must fetch the bytes from a device (with
  // no staging they came through the home, which is current now).
  ASSERT_NO_FATAL_FAILURE(checkMapped(m, src, 1));
  ASSERT_CL_OK(clFinish(queue));
  auto c2 = snap();
  EXPECT_EQ(sumD2H(c2) - sumD2H(c1), never ? 0 : bytes);

  // The app's reads of what b computed from the moved bytes, and of a part of them.
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m2, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], src[i] + 1) << i;
  std::vector<int> part(n / 3);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m2, CL_TRUE, 4 * 777, part.size() * sizeof(int), part.data(),
                                   0, nullptr, nullptr));
  for (size_t i = 0; i < part.size(); ++i) ASSERT_EQ(part[i], src[777 + i] + 1) << i;

  // Moves both ways: add_one alternates devices, each launch needing the other's result.
  for (int round = 0; round < 4; ++round) launch(add, m2, n);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m2, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], src[i] + 5) << i;
  auto c3 = snap();
  EXPECT_GE(c3[a].staged_bytes - c2[a].staged_bytes, unit * 2 * bytes);
  EXPECT_GE(c3[b].staged_bytes - c2[b].staged_bytes, unit * 2 * bytes);
}
