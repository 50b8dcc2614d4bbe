// test_buffer.cpp - buffers, sub-buffers, memory object info, destructor callbacks.
#include "fixture.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <thread>

using namespace api;

namespace {

class Buffer : public ClTest {
 protected:
  size_t alignBytes() { return deviceInfo<cl_uint>(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8; }

  std::vector<int> readAll(cl_mem m, size_t n) {
    std::vector<int> out(n, -12345);
    EXPECT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, n * sizeof(int), out.data(), 0,
                                     nullptr, nullptr));
    return out;
  }
};


template <class T>
T memInfo(cl_mem m, cl_mem_info p) {
  T v{};
  clGetMemObjectInfo(m, p, sizeof v, &v, nullptr);
  return v;
}

struct DtorLog {
  std::atomic<int> n{0};
  int order[8] = {0};
};
struct DtorArg {
  DtorLog *log;
  int id;
};
void CL_CALLBACK memDtorCb(cl_mem, void *user) {
  auto *a = static_cast<DtorArg *>(user);
  int i = a->log->n.fetch_add(1);
  if (i < 8) a->log->order[i] = a->id;
}


}  // namespace

// ---------------------------------------------------------------------------
// Creation flags
// ---------------------------------------------------------------------------
TEST_F(Buffer, ValidFlagCombinations) {
  std::vector<int> host(256, 7);
  struct Case {
    cl_mem_flags flags;
    bool needsHost;
  } cases[] = {
      {CL_MEM_READ_WRITE, false},
      {CL_MEM_READ_ONLY, false},
      {CL_MEM_WRITE_ONLY, false},
      {CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, false},
      {CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, true},
      {CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, true},
      {CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, true},
      {CL_MEM_READ_WRITE | CL_MEM_HOST_WRITE_ONLY, false},
      {CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY, false},
      {CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, false},
      {CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS | CL_MEM_COPY_HOST_PTR, true},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.flags);
    cl_int err = 1;
    cl_mem m = clCreateBuffer(ctx, c.flags, host.size() * sizeof(int),
                              c.needsHost ? host.data() : nullptr, &err);
    ASSERT_CL_OK(err);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(memInfo<cl_mem_flags>(m, CL_MEM_FLAGS), c.flags);
    EXPECT_EQ(memInfo<size_t>(m, CL_MEM_SIZE), host.size() * sizeof(int));
    EXPECT_EQ(memInfo<cl_mem_object_type>(m, CL_MEM_TYPE), (cl_mem_object_type)CL_MEM_OBJECT_BUFFER);
    EXPECT_CL_OK(clReleaseMemObject(m));
  }
  // flags == 0 means CL_MEM_READ_WRITE.
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, 0, 64, nullptr, &err);
  ASSERT_CL_OK(err);
  cl_mem_flags f = memInfo<cl_mem_flags>(m, CL_MEM_FLAGS);
  EXPECT_TRUE(f == 0 || f == CL_MEM_READ_WRITE) << f;
  clReleaseMemObject(m);
}

TEST_F(Buffer, ConflictingFlags) {
  std::vector<int> host(64);
  const cl_mem_flags bad[] = {
      CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
      CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY,
      CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
      CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR,
      CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR,
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY,
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS,
      CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
      (cl_mem_flags)1 << 40,
  };
  for (cl_mem_flags f : bad) {
    SCOPED_TRACE(f);
    cl_int err = CL_SUCCESS;
    void *hp = (f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) ? host.data() : nullptr;
    EXPECT_EQ(clCreateBuffer(ctx, f, 256, hp, &err), nullptr);
    EXPECT_CL(CL_INVALID_VALUE, err);
  }
}

TEST_F(Buffer, HostPtrRules) {
  std::vector<int> host(64);
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 256, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_HOST_PTR, err);
  EXPECT_EQ(clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, 256, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_HOST_PTR, err);
  EXPECT_EQ(clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256, host.data(), &err), nullptr);
  EXPECT_CL(CL_INVALID_HOST_PTR, err);
  EXPECT_EQ(clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, 256, host.data(), &err), nullptr);
  EXPECT_CL(CL_INVALID_HOST_PTR, err);
}

TEST_F(Buffer, SizeRules) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_BUFFER_SIZE, err);
  cl_ulong maxAlloc = deviceInfo<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  EXPECT_EQ(clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)maxAlloc + 1, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_BUFFER_SIZE, err);
  EXPECT_EQ(clCreateBuffer(ctx, CL_MEM_READ_WRITE, SIZE_MAX, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_BUFFER_SIZE, err);
}

TEST_F(Buffer, InvalidContext) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateBuffer(nullptr, CL_MEM_READ_WRITE, 64, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
}

TEST_F(Buffer, InvalidContextGarbage) {
  TUTTI_ONLY();
  cl_int err = CL_SUCCESS;
  Garbage g;
  EXPECT_EQ(clCreateBuffer(g.as<cl_context>(), CL_MEM_READ_WRITE, 64, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
}

TEST_F(Buffer, CopyHostPtrCopiesAtCreation) {
  std::vector<int> host(1000);
  std::iota(host.begin(), host.end(), 0);
  cl_mem m = makeBuffer(host.size() * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        host.data());
  ASSERT_NE(m, nullptr);
  std::vector<int> expect = host;
  std::fill(host.begin(), host.end(), -1);  // later changes do not reach the buffer
  EXPECT_EQ(readAll(m, expect.size()), expect);
  EXPECT_EQ(memInfo<void *>(m, CL_MEM_HOST_PTR), nullptr);
}

TEST_F(Buffer, UseHostPtrSyncViaMap) {
  const size_t n = 4096;
  int *hostp = static_cast<int *>(hostAlloc(n * sizeof(int)));
  struct {
    int *p;
    int *get() const { return p; }
  } host{hostp};
  for (size_t i = 0; i < n; ++i) host.get()[i] = (int)i;
  cl_mem m = makeBuffer(n * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, host.get());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(memInfo<void *>(m, CL_MEM_HOST_PTR), host.get());
  cl_kernel k = commonKernel("add_one");
  ASSERT_NE(k, nullptr);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  ASSERT_CL_OK(run1D(k, n));
  // After a blocking map for read, host_ptr holds the latest bits, and the mapped
  // pointer is derived from host_ptr.
  cl_int err;
  int *p = (int *)clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, n * sizeof(int), 0,
                                     nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  EXPECT_EQ(p, host.get());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(host.get()[i], (int)i + 1) << i;
  EXPECT_EQ(memInfo<cl_uint>(m, CL_MEM_MAP_COUNT), 1u);
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
  // Mapped region with an offset is host_ptr + offset.
  size_t off = 256 * sizeof(int);
  p = (int *)clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_WRITE, off, 512 * sizeof(int), 0,
                                nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  EXPECT_EQ(p, host.get() + 256);
  for (size_t i = 0; i < 512; ++i) p[i] = 1000;
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
  // The device sees the host write after unmap.
  ASSERT_CL_OK(run1D(k, n));
  p = (int *)clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, n * sizeof(int), 0, nullptr,
                                nullptr, &err);
  ASSERT_CL_OK(err);
  for (size_t i = 0; i < n; ++i) {
    int want = (i >= 256 && i < 768) ? 1001 : (int)i + 2;
    ASSERT_EQ(p[i], want) << i;
    ASSERT_EQ(host.get()[i], want) << i;
  }
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
}

TEST_F(Buffer, UseHostPtrReadWriteCommands) {
  const size_t n = 1024;
  int *hostp = static_cast<int *>(hostAlloc(n * sizeof(int)));
  struct {
    int *p;
    int *get() const { return p; }
  } host{hostp};
  std::fill(host.get(), host.get() + n, 5);
  cl_mem m = makeBuffer(n * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, host.get());
  std::vector<int> src(n, 9);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, n * sizeof(int), src.data(), 0, nullptr,
                                    nullptr));
  EXPECT_EQ(readAll(m, n), src);
}

TEST_F(Buffer, AllocHostPtrMapRoundTrip) {
  const size_t n = 2048;
  cl_mem m = makeBuffer(n * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
  ASSERT_NE(m, nullptr);
  cl_int err;
  int *p = (int *)clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0,
                                     n * sizeof(int), 0, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_NE(p, nullptr);
  for (size_t i = 0; i < n; ++i) p[i] = (int)(3 * i);
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
  cl_kernel k = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  ASSERT_CL_OK(run1D(k, n));
  auto out = readAll(m, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], (int)(3 * i) + 1) << i;
}

// ---------------------------------------------------------------------------
// Host access flags
// ---------------------------------------------------------------------------
TEST_F(Buffer, HostNoAccessEnforced) {
  cl_mem m = makeBuffer(256, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS);
  ASSERT_NE(m, nullptr);
  char buf[256] = {0};
  cl_int err = CL_SUCCESS;
  EXPECT_CL(CL_INVALID_OPERATION,
            clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 16, buf, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_OPERATION,
            clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 16, buf, 0, nullptr, nullptr));
  size_t o[3] = {0, 0, 0}, r[3] = {16, 1, 1};
  EXPECT_CL(CL_INVALID_OPERATION, clEnqueueReadBufferRect(queue, m, CL_TRUE, o, o, r, 0, 0, 0, 0,
                                                          buf, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_OPERATION, clEnqueueWriteBufferRect(queue, m, CL_TRUE, o, o, r, 0, 0, 0, 0,
                                                           buf, 0, nullptr, nullptr));
  EXPECT_EQ(clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, err);
  err = CL_SUCCESS;
  EXPECT_EQ(clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_WRITE, 0, 16, 0, nullptr, nullptr, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, err);
  // Device-side commands are fine.
  int pat = 3;
  EXPECT_CL_OK(clEnqueueFillBuffer(queue, m, &pat, sizeof pat, 0, 256, 0, nullptr, nullptr));
  cl_mem other = makeBuffer(256);
  EXPECT_CL_OK(clEnqueueCopyBuffer(queue, m, other, 0, 0, 256, 0, nullptr, nullptr));
  std::vector<int> out(64);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, other, CL_TRUE, 0, 256, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, std::vector<int>(64, 3));
}

TEST_F(Buffer, HostReadOnlyEnforced) {
  std::vector<int> init(64, 4);
  cl_mem m = makeBuffer(256, CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        init.data());
  ASSERT_NE(m, nullptr);
  char buf[256] = {0};
  cl_int err = CL_SUCCESS;
  EXPECT_CL(CL_INVALID_OPERATION,
            clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 16, buf, 0, nullptr, nullptr));
  size_t o[3] = {0, 0, 0}, r[3] = {16, 1, 1};
  EXPECT_CL(CL_INVALID_OPERATION, clEnqueueWriteBufferRect(queue, m, CL_TRUE, o, o, r, 0, 0, 0, 0,
                                                           buf, 0, nullptr, nullptr));
  EXPECT_EQ(clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_WRITE, 0, 16, 0, nullptr, nullptr, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, err);
  err = CL_SUCCESS;
  EXPECT_EQ(clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, 16, 0,
                               nullptr, nullptr, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, err);
  EXPECT_EQ(readAll(m, 64), init);
  void *p = clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err);
  EXPECT_CL_OK(err);
  if (p) EXPECT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
}

TEST_F(Buffer, HostWriteOnlyEnforced) {
  cl_mem m = makeBuffer(256, CL_MEM_READ_WRITE | CL_MEM_HOST_WRITE_ONLY);
  ASSERT_NE(m, nullptr);
  char buf[256] = {0};
  cl_int err = CL_SUCCESS;
  EXPECT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 16, buf, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_OPERATION,
            clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 16, buf, 0, nullptr, nullptr));
  size_t o[3] = {0, 0, 0}, r[3] = {16, 1, 1};
  EXPECT_CL(CL_INVALID_OPERATION, clEnqueueReadBufferRect(queue, m, CL_TRUE, o, o, r, 0, 0, 0, 0,
                                                          buf, 0, nullptr, nullptr));
  EXPECT_EQ(clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, 16, 0, nullptr, nullptr, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, err);
  void *p = clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_WRITE, 0, 16, 0, nullptr, nullptr, &err);
  EXPECT_CL_OK(err);
  if (p) EXPECT_CL_OK(clEnqueueUnmapMemObject(queue, m, p, 0, nullptr, nullptr));
}

// ---------------------------------------------------------------------------
// clCreateBufferWithProperties
// ---------------------------------------------------------------------------
TEST_F(Buffer, CreateWithProperties) {
  cl_int err;
  cl_mem m = clCreateBufferWithProperties(ctx, nullptr, CL_MEM_READ_WRITE, 128, nullptr, &err);
  ASSERT_CL_OK(err);
  size_t sz = 99;
  ASSERT_CL_OK(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, 0, nullptr, &sz));
  EXPECT_EQ(sz, 0u);
  clReleaseMemObject(m);
  cl_mem_properties empty[] = {0};
  m = clCreateBufferWithProperties(ctx, empty, CL_MEM_READ_WRITE, 128, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, 0, nullptr, &sz));
  EXPECT_TRUE(sz == 0 || sz == sizeof(cl_mem_properties)) << sz;
  clReleaseMemObject(m);
}

TEST_F(Buffer, CreateWithPropertiesUnknownProperty) {
  TUTTI_ONLY();
  cl_int err = CL_SUCCESS;
  cl_mem_properties bad[] = {0x7777, 1, 0};
  EXPECT_EQ(clCreateBufferWithProperties(ctx, bad, CL_MEM_READ_WRITE, 128, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_PROPERTY, err);
}

// ---------------------------------------------------------------------------
// Memory object info
// ---------------------------------------------------------------------------
TEST_F(Buffer, MemObjectInfo) {
  struct {
    int *p;
    int *data() const { return p; }
  } host{static_cast<int *>(hostAlloc(256))};
  cl_mem m = makeBuffer(256, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, host.data());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(memInfo<cl_mem_object_type>(m, CL_MEM_TYPE), (cl_mem_object_type)CL_MEM_OBJECT_BUFFER);
  EXPECT_EQ(memInfo<cl_mem_flags>(m, CL_MEM_FLAGS), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR);
  EXPECT_EQ(memInfo<size_t>(m, CL_MEM_SIZE), 256u);
  EXPECT_EQ(memInfo<void *>(m, CL_MEM_HOST_PTR), host.data());
  EXPECT_EQ(memInfo<cl_uint>(m, CL_MEM_MAP_COUNT), 0u);
  EXPECT_EQ(memInfo<cl_uint>(m, CL_MEM_REFERENCE_COUNT), 1u);
  EXPECT_EQ(memInfo<cl_context>(m, CL_MEM_CONTEXT), ctx);
  EXPECT_EQ(memInfo<cl_mem>(m, CL_MEM_ASSOCIATED_MEMOBJECT), nullptr);
  EXPECT_EQ(memInfo<size_t>(m, CL_MEM_OFFSET), 0u);
  EXPECT_EQ(memInfo<cl_bool>(m, CL_MEM_USES_SVM_POINTER), CL_FALSE);
  struct {
    cl_mem_info p;
    size_t size;
  } sizes[] = {{CL_MEM_TYPE, sizeof(cl_mem_object_type)},
               {CL_MEM_FLAGS, sizeof(cl_mem_flags)},
               {CL_MEM_SIZE, sizeof(size_t)},
               {CL_MEM_HOST_PTR, sizeof(void *)},
               {CL_MEM_MAP_COUNT, sizeof(cl_uint)},
               {CL_MEM_REFERENCE_COUNT, sizeof(cl_uint)},
               {CL_MEM_CONTEXT, sizeof(cl_context)},
               {CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(cl_mem)},
               {CL_MEM_OFFSET, sizeof(size_t)},
               {CL_MEM_USES_SVM_POINTER, sizeof(cl_bool)}};
  for (auto &s : sizes) {
    SCOPED_TRACE(s.p);
    size_t sz = 0;
    ASSERT_CL_OK(clGetMemObjectInfo(m, s.p, 0, nullptr, &sz));
    EXPECT_EQ(sz, s.size);
    char buf[16];
    EXPECT_CL(CL_INVALID_VALUE, clGetMemObjectInfo(m, s.p, s.size - 1, buf, nullptr));
  }
  char buf[16];
  EXPECT_CL(CL_INVALID_VALUE, clGetMemObjectInfo(m, 0x7777, sizeof buf, buf, nullptr));
  // A buffer is not an image (PoCL 3.1 answers anyway).
  if (isTutti())
    EXPECT_CL(CL_INVALID_MEM_OBJECT, clGetImageInfo(m, CL_IMAGE_WIDTH, sizeof buf, buf, nullptr));
}

TEST_F(Buffer, RetainReleaseCount) {
  cl_mem m = makeBuffer(64);
  ASSERT_CL_OK(clRetainMemObject(m));
  EXPECT_EQ(memInfo<cl_uint>(m, CL_MEM_REFERENCE_COUNT), 2u);
  ASSERT_CL_OK(clReleaseMemObject(m));
  EXPECT_EQ(memInfo<cl_uint>(m, CL_MEM_REFERENCE_COUNT), 1u);
}

TEST_F(Buffer, DestructorCallbacksReverseOrder) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_CL_OK(err);
  DtorLog log;
  DtorArg a1{&log, 1}, a2{&log, 2};
  ASSERT_CL_OK(clSetMemObjectDestructorCallback(m, memDtorCb, &a1));
  ASSERT_CL_OK(clSetMemObjectDestructorCallback(m, memDtorCb, &a2));
  EXPECT_CL(CL_INVALID_VALUE, clSetMemObjectDestructorCallback(m, nullptr, nullptr));
  ASSERT_CL_OK(clRetainMemObject(m));
  ASSERT_CL_OK(clReleaseMemObject(m));
  // Determined now, no need to wait and see: no command uses m, so a release that
  // destroyed it would have run the callbacks before returning (Tutti runs them as the
  // releasing call ends). The object must still be there, with one reference.
  EXPECT_EQ(log.n.load(), 0);
  EXPECT_EQ(memInfo<cl_uint>(m, CL_MEM_REFERENCE_COUNT), 1u);
  ASSERT_CL_OK(clReleaseMemObject(m));
  ASSERT_TRUE(waitFor([&] { return log.n.load() >= 2; }));
  EXPECT_EQ(log.order[0], 2);
  EXPECT_EQ(log.order[1], 1);
}

TEST_F(Buffer, DestructorAfterPendingUse) {
  // Release while a command using the buffer is blocked: the callback must not run
  // until the command has finished with the buffer.
  cl_int err;
  const size_t n = 256;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(int), nullptr, &err);
  ASSERT_CL_OK(err);
  DtorLog log;
  DtorArg a{&log, 1};
  ASSERT_CL_OK(clSetMemObjectDestructorCallback(m, memDtorCb, &a));
  cl_event gate = makeUserEvent();
  std::vector<int> src(n, 77), dst(n, 0);
  cl_event wr, rd;
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_FALSE, 0, n * sizeof(int), src.data(), 1, &gate,
                                    &wr));
  track(wr);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_FALSE, 0, n * sizeof(int), dst.data(), 0, nullptr,
                                   &rd));
  track(rd);
  ASSERT_CL_OK(clReleaseMemObject(m));
  // The gate holds both commands, so they still use m whenever this runs: the callback
  // must not have run, and the commands cannot have started.
  EXPECT_EQ(log.n.load(), 0);
  cl_int st = CL_COMPLETE;
  ASSERT_CL_OK(clGetEventInfo(rd, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr));
  EXPECT_TRUE(st == CL_QUEUED || st == CL_SUBMITTED) << "ran before its dependency: " << st;
  ASSERT_CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  ASSERT_CL_OK(clWaitForEvents(1, &rd));
  EXPECT_EQ(dst, src);
  EXPECT_TRUE(waitFor([&] { return log.n.load() == 1; }));
}

// ---------------------------------------------------------------------------
// Sub-buffers
// ---------------------------------------------------------------------------
TEST_F(Buffer, SubBufferBasics) {
  size_t al = alignBytes();
  const size_t total = al * 8;
  std::vector<unsigned char> init(total);
  for (size_t i = 0; i < total; ++i) init[i] = (unsigned char)(i * 7);
  cl_mem parent = makeBuffer(total, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.data());
  ASSERT_NE(parent, nullptr);
  cl_buffer_region reg{al * 2, al * 3};
  cl_int err;
  cl_mem sub =
      clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
  ASSERT_CL_OK(err);
  track(sub);
  EXPECT_EQ(memInfo<cl_mem>(sub, CL_MEM_ASSOCIATED_MEMOBJECT), parent);
  EXPECT_EQ(memInfo<size_t>(sub, CL_MEM_OFFSET), reg.origin);
  EXPECT_EQ(memInfo<size_t>(sub, CL_MEM_SIZE), reg.size);
  EXPECT_EQ(memInfo<cl_context>(sub, CL_MEM_CONTEXT), ctx);
  // Reading the sub-buffer sees the parent's bytes.
  std::vector<unsigned char> out(reg.size);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, sub, CL_TRUE, 0, reg.size, out.data(), 0, nullptr,
                                   nullptr));
  for (size_t i = 0; i < reg.size; ++i) ASSERT_EQ(out[i], init[reg.origin + i]) << i;
  // Writing through the sub-buffer shows in the parent.
  std::vector<unsigned char> w(al, 0xEE);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, sub, CL_TRUE, al, al, w.data(), 0, nullptr, nullptr));
  std::vector<unsigned char> all(total);
  ASSERT_CL_OK(
      clEnqueueReadBuffer(queue, parent, CL_TRUE, 0, total, all.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < total; ++i) {
    unsigned char want = (i >= reg.origin + al && i < reg.origin + 2 * al) ? 0xEE : init[i];
    ASSERT_EQ(all[i], want) << i;
  }
}

TEST_F(Buffer, SubBufferKernelWritesVisibleInParent) {
  size_t al = alignBytes();
  const size_t n = al;  // ints
  std::vector<int> init(n * 2, 1);
  cl_mem parent =
      makeBuffer(n * 2 * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.data());
  cl_buffer_region reg{n * sizeof(int), n * sizeof(int)};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
  ASSERT_CL_OK(err);
  track(sub);
  EXPECT_EQ(memInfo<cl_mem_flags>(sub, CL_MEM_FLAGS) & CL_MEM_READ_WRITE,
            (cl_mem_flags)CL_MEM_READ_WRITE);  // inherited
  cl_kernel k = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof sub, &sub));
  ASSERT_CL_OK(run1D(k, n));
  std::vector<int> out(2 * n);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, parent, CL_TRUE, 0, out.size() * sizeof(int), out.data(),
                                   0, nullptr, nullptr));
  for (size_t i = 0; i < 2 * n; ++i) ASSERT_EQ(out[i], i < n ? 1 : 2) << i;
}

TEST_F(Buffer, SubBufferErrors) {
  size_t al = alignBytes();
  cl_mem parent = makeBuffer(al * 4);
  ASSERT_NE(parent, nullptr);
  cl_int err = CL_SUCCESS;
  cl_buffer_region oob{al * 2, al * 3};
  EXPECT_EQ(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &oob, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  cl_buffer_region zero{0, 0};
  EXPECT_EQ(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &zero, &err), nullptr);
  EXPECT_CL(CL_INVALID_BUFFER_SIZE, err);
  if (al > 1) {
    cl_buffer_region mis{1, 16};
    EXPECT_EQ(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &mis, &err), nullptr);
    EXPECT_CL(CL_MISALIGNED_SUB_BUFFER_OFFSET, err);
  }
  cl_buffer_region ok{0, al};
  EXPECT_EQ(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateSubBuffer(parent, 0, 0x7777, &ok, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  // Host-pointer flags may not be given for a sub-buffer.
  EXPECT_EQ(clCreateSubBuffer(parent, CL_MEM_USE_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(
      clCreateSubBuffer(parent, CL_MEM_ALLOC_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err),
      nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  // Nested sub-buffer.
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err);
  ASSERT_CL_OK(err);
  track(sub);
  cl_buffer_region inner{0, al / 2 ? al / 2 : 1};
  EXPECT_EQ(clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION, &inner, &err), nullptr);
  EXPECT_CL(CL_INVALID_MEM_OBJECT, err);
  EXPECT_EQ(clCreateSubBuffer(nullptr, 0, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err), nullptr);
  EXPECT_CL(CL_INVALID_MEM_OBJECT, err);
}

TEST_F(Buffer, SubBufferFlagsMustNotWidenParent) {
  size_t al = alignBytes();
  cl_buffer_region ok{0, al};
  cl_int err = CL_SUCCESS;
  cl_mem ro = makeBuffer(al * 2, CL_MEM_READ_ONLY);
  EXPECT_EQ(clCreateSubBuffer(ro, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateSubBuffer(ro, CL_MEM_WRITE_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  cl_mem wo = makeBuffer(al * 2, CL_MEM_WRITE_ONLY);
  EXPECT_EQ(clCreateSubBuffer(wo, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  cl_mem hwo = makeBuffer(al * 2, CL_MEM_READ_WRITE | CL_MEM_HOST_WRITE_ONLY);
  EXPECT_EQ(clCreateSubBuffer(hwo, CL_MEM_HOST_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  cl_mem hna = makeBuffer(al * 2, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS);
  EXPECT_EQ(clCreateSubBuffer(hna, CL_MEM_HOST_WRITE_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  // Narrowing is fine, and inherited host-access flags are enforced.
  cl_mem rw = makeBuffer(al * 2, CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY);
  cl_mem sub = clCreateSubBuffer(rw, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err);
  ASSERT_CL_OK(err);
  track(sub);
  int v = 0;
  EXPECT_CL(CL_INVALID_OPERATION,
            clEnqueueWriteBuffer(queue, sub, CL_TRUE, 0, sizeof v, &v, 0, nullptr, nullptr));
}

TEST_F(Buffer, SubBufferOfUseHostPtrMapsIntoHostPtr) {
  size_t al = alignBytes();
  const size_t total = al * 4;
  struct {
    int *p;
    int *get() const { return p; }
  } host{static_cast<int *>(hostAlloc(total))};
  cl_mem parent = makeBuffer(total, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, host.get());
  cl_buffer_region reg{al, al};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
  ASSERT_CL_OK(err);
  track(sub);
  EXPECT_EQ(memInfo<void *>(sub, CL_MEM_HOST_PTR), (void *)((char *)host.get() + al));
  void *p = clEnqueueMapBuffer(queue, sub, CL_TRUE, CL_MAP_READ, 0, al, 0, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  EXPECT_EQ(p, (void *)((char *)host.get() + al));
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, sub, p, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
}

TEST_F(Buffer, SubBufferKeepsParentAlive) {
  size_t al = alignBytes();
  cl_int err;
  std::vector<int> init(al * 2 / sizeof(int), 42);
  cl_mem parent = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, al * 2,
                                 init.data(), &err);
  ASSERT_CL_OK(err);
  DtorLog log;
  DtorArg a{&log, 1};
  ASSERT_CL_OK(clSetMemObjectDestructorCallback(parent, memDtorCb, &a));
  cl_buffer_region reg{al, al};
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clReleaseMemObject(parent));
  // Determined now: no command uses either buffer, so a release that destroyed the parent
  // would have run its callback before returning.
  EXPECT_EQ(log.n.load(), 0) << "parent destroyed while a sub-buffer still references it";
  std::vector<int> out(al / sizeof(int));
  EXPECT_CL_OK(clEnqueueReadBuffer(queue, sub, CL_TRUE, 0, al, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, std::vector<int>(al / sizeof(int), 42));
  ASSERT_CL_OK(clReleaseMemObject(sub));
  EXPECT_TRUE(waitFor([&] { return log.n.load() == 1; }));
}

TEST_F(Buffer, OverlappingSubBuffersStayCoherent) {
  size_t al = alignBytes();
  const size_t n = al;  // ints per sub-buffer region unit
  std::vector<int> zeros(4 * n, 0);
  cl_mem parent =
      makeBuffer(zeros.size() * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.data());
  cl_int err;
  cl_buffer_region r1{0, 2 * n * sizeof(int)};
  cl_buffer_region r2{n * sizeof(int), 2 * n * sizeof(int)};
  cl_mem s1 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
  ASSERT_CL_OK(err);
  track(s1);
  cl_mem s2 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
  ASSERT_CL_OK(err);
  track(s2);
  cl_kernel k = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof s1, &s1));
  ASSERT_CL_OK(run1D(k, 2 * n));
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof s2, &s2));
  ASSERT_CL_OK(run1D(k, 2 * n));
  std::vector<int> out(4 * n);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, parent, CL_TRUE, 0, out.size() * sizeof(int), out.data(),
                                   0, nullptr, nullptr));
  for (size_t i = 0; i < 4 * n; ++i) {
    int want = (i < n) ? 1 : (i < 2 * n) ? 2 : (i < 3 * n) ? 1 : 0;
    ASSERT_EQ(out[i], want) << i;
  }
}

// Two kernels without a dependency write two disjoint sub-buffers of one parent
// (legal concurrent use); with several backing devices they may run on different
// devices, and the parent must end up with both results.
TEST_F(Buffer, DisjointSubBuffersWrittenConcurrently) {
  size_t al = alignBytes();
  const size_t half = std::max<size_t>(al, 64 * 1024);  // bytes per half, aligned
  const size_t n = half / sizeof(int);
  std::vector<int> init(2 * n, -1);
  cl_mem parent = makeBuffer(2 * half, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.data());
  cl_buffer_region r1{0, half}, r2{half, half};
  cl_int err;
  cl_mem s1 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
  ASSERT_CL_OK(err);
  track(s1);
  cl_mem s2 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
  ASSERT_CL_OK(err);
  track(s2);
  cl_command_queue ooo = makeQueue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  ASSERT_NE(ooo, nullptr);
  cl_kernel k1 = commonKernel("fill_val");
  cl_kernel k2 = commonKernel("fill_val");
  int v1 = 111, v2 = 222;
  ASSERT_CL_OK(clSetKernelArg(k1, 0, sizeof s1, &s1));
  ASSERT_CL_OK(clSetKernelArg(k1, 1, sizeof v1, &v1));
  ASSERT_CL_OK(clSetKernelArg(k2, 0, sizeof s2, &s2));
  ASSERT_CL_OK(clSetKernelArg(k2, 1, sizeof v2, &v2));
  for (int round = 0; round < 3; ++round) {
    ASSERT_CL_OK(clEnqueueNDRangeKernel(ooo, k1, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    ASSERT_CL_OK(clEnqueueNDRangeKernel(ooo, k2, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
    ASSERT_CL_OK(clFinish(ooo));
    std::vector<int> out(2 * n);
    ASSERT_CL_OK(clEnqueueReadBuffer(queue, parent, CL_TRUE, 0, 2 * half, out.data(), 0, nullptr,
                                     nullptr));
    for (size_t i = 0; i < 2 * n; ++i) ASSERT_EQ(out[i], i < n ? v1 : v2) << "round " << round << " i " << i;
    ++v1;
    ++v2;
    ASSERT_CL_OK(clSetKernelArg(k1, 1, sizeof v1, &v1));
    ASSERT_CL_OK(clSetKernelArg(k2, 1, sizeof v2, &v2));
  }
}

// Kernels writing different ranges of one buffer in sequence (via global offsets);
// every launch may land on another device: no launch may clobber the other's bytes.
TEST_F(Buffer, SequentialPartialWritesKeepEarlierResults) {
  const size_t n = 64 * 1024;
  std::vector<int> init(n, -1);
  cl_mem m = makeBuffer(n * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.data());
  cl_kernel k = commonKernel("write_gid");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  const size_t parts = 4, len = n / parts;
  for (size_t p = 0; p < parts; ++p) {
    size_t off = p * len;
    ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, &off, &len, nullptr, 0, nullptr, nullptr));
    // Host also patches one element in a part not yet written by a kernel.
    if (p + 1 < parts) {
      int v = -100 - (int)p;
      ASSERT_CL_OK(clEnqueueWriteBuffer(queue, m, CL_TRUE, (n - 1 - p) * sizeof(int), sizeof v, &v,
                                        0, nullptr, nullptr));
    }
  }
  auto out = readAll(m, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], (int)i) << i;
}

TEST_F(Buffer, FillAndCopyOnSubBuffers) {
  size_t al = alignBytes();
  const size_t total = al * 4;
  std::vector<unsigned char> zeros(total, 0);
  cl_mem parent = makeBuffer(total, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.data());
  cl_buffer_region r{al, al};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  ASSERT_CL_OK(err);
  track(sub);
  unsigned char pat = 0x5A;
  ASSERT_CL_OK(clEnqueueFillBuffer(queue, sub, &pat, 1, 0, al, 0, nullptr, nullptr));
  // Copy the sub-buffer into the parent's last quarter.
  ASSERT_CL_OK(clEnqueueCopyBuffer(queue, sub, parent, 0, 3 * al, al, 0, nullptr, nullptr));
  std::vector<unsigned char> out(total);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, parent, CL_TRUE, 0, total, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < total; ++i) {
    bool set = (i >= al && i < 2 * al) || i >= 3 * al;
    ASSERT_EQ(out[i], set ? 0x5A : 0) << i;
  }
}

TEST_F(Buffer, LargeBuffer) {
  const size_t bytes = 64u << 20;
  cl_mem m = makeBuffer(bytes);
  ASSERT_NE(m, nullptr);
  int pat = 0x01020304;
  ASSERT_CL_OK(clEnqueueFillBuffer(queue, m, &pat, sizeof pat, 0, bytes, 0, nullptr, nullptr));
  cl_kernel k = commonKernel("add_one");
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  ASSERT_CL_OK(run1D(k, bytes / sizeof(int)));
  std::vector<int> tail(1024);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, bytes - 4096, 4096, tail.data(), 0, nullptr,
                                   nullptr));
  EXPECT_EQ(tail, std::vector<int>(1024, pat + 1));
}

// Independent kernels on an out-of-order queue share one read-only input, then a
// kernel overwrites that input only after both readers finished (WAR through events).
TEST_F(Buffer, SharedInputReadersThenWriter) {
  const size_t n = 32768;
  std::vector<int> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = (int)(i ^ 0x55);
  cl_mem in = makeBuffer(n * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, src.data());
  cl_mem o1 = makeBuffer(n * sizeof(int)), o2 = makeBuffer(n * sizeof(int));
  cl_command_queue q = makeQueue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  ASSERT_NE(q, nullptr);
  cl_program prog = makeProgram(kCommonSource);
  cl_kernel c1 = makeKernel(prog, "copy_buf"), c2 = makeKernel(prog, "copy_buf");
  cl_kernel w = makeKernel(prog, "fill_val");
  ASSERT_CL_OK(clSetKernelArg(c1, 0, sizeof in, &in));
  ASSERT_CL_OK(clSetKernelArg(c1, 1, sizeof o1, &o1));
  ASSERT_CL_OK(clSetKernelArg(c2, 0, sizeof in, &in));
  ASSERT_CL_OK(clSetKernelArg(c2, 1, sizeof o2, &o2));
  int v = -9;
  ASSERT_CL_OK(clSetKernelArg(w, 0, sizeof in, &in));
  ASSERT_CL_OK(clSetKernelArg(w, 1, sizeof v, &v));
  cl_event e[2];
  ASSERT_CL_OK(clEnqueueNDRangeKernel(q, c1, 1, nullptr, &n, nullptr, 0, nullptr, &e[0]));
  track(e[0]);
  ASSERT_CL_OK(clEnqueueNDRangeKernel(q, c2, 1, nullptr, &n, nullptr, 0, nullptr, &e[1]));
  track(e[1]);
  ASSERT_CL_OK(clEnqueueNDRangeKernel(q, w, 1, nullptr, &n, nullptr, 2, e, nullptr));
  ASSERT_CL_OK(clFinish(q));
  EXPECT_EQ(readAll(o1, n), src);
  EXPECT_EQ(readAll(o2, n), src);
  EXPECT_EQ(readAll(in, n), std::vector<int>(n, v));
}
