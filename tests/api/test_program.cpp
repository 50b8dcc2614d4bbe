// test_program.cpp - programs: source builds, failures and logs, options, compile/link
// with headers, binaries, kernel names, info queries.
#include "fixture.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <sstream>
#include <thread>

using namespace api;

namespace {

class Program : public ClTest {
 protected:
  cl_program source(const char *src, cl_context c = nullptr) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(c ? c : ctx, 1, &src, nullptr, &err);
    EXPECT_CL_OK(err);
    if (p) track(p);
    return p;
  }
  template <class T>
  T buildInfo(cl_program p, cl_program_build_info what) {
    T v{};
    clGetProgramBuildInfo(p, device, what, sizeof v, &v, nullptr);
    return v;
  }
  template <class T>
  T progInfo(cl_program p, cl_program_info what) {
    T v{};
    clGetProgramInfo(p, what, sizeof v, &v, nullptr);
    return v;
  }
  std::string progString(cl_program p, cl_program_info what) {
    size_t n = 0;
    if (clGetProgramInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || !n) return {};
    std::string s(n, '\0');
    clGetProgramInfo(p, what, n, &s[0], nullptr);
    s.resize(strnlen(s.c_str(), n));
    return s;
  }
  std::string buildString(cl_program p, cl_program_build_info what) {
    size_t n = 0;
    if (clGetProgramBuildInfo(p, device, what, 0, nullptr, &n) != CL_SUCCESS || !n) return {};
    std::string s(n, '\0');
    clGetProgramBuildInfo(p, device, what, n, &s[0], nullptr);
    s.resize(strnlen(s.c_str(), n));
    return s;
  }
  // Runs kernel `name` (signature: __global int *out) over n items and returns out.
  std::vector<int> runIntKernel(cl_program p, const char *name, size_t n) {
    std::vector<int> out(n, -1);
    cl_kernel k = makeKernel(p, name);
    if (!k) return out;
    cl_mem m = makeBuffer(n * sizeof(int));
    EXPECT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
    EXPECT_CL_OK(run1D(k, n));
    EXPECT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, n * sizeof(int), out.data(), 0, nullptr,
                                     nullptr));
    return out;
  }
  std::vector<unsigned char> binaryOf(cl_program p) {
    size_t sz = 0;
    EXPECT_CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof sz, &sz, nullptr));
    std::vector<unsigned char> bin(sz);
    unsigned char *ptr = bin.data();
    if (sz) EXPECT_CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr));
    return bin;
  }
};

const char *kTwoKernels = R"CLC(
__kernel void k_first(__global int *o) { o[get_global_id(0)] = 1; }
__kernel void k_second(__global int *o) { o[get_global_id(0)] = 2; }
int helper(int x) { return x * 3; }
__kernel void k_third(__global int *o) { o[get_global_id(0)] = helper((int)get_global_id(0)); }
)CLC";

std::set<std::string> splitNames(const std::string &s) {
  std::set<std::string> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ';'))
    if (!tok.empty()) out.insert(tok);
  return out;
}

std::atomic<int> g_buildCbCalls{0};
void CL_CALLBACK buildCb(cl_program, void *user) {
  g_buildCbCalls.fetch_add(1);
  static_cast<std::atomic<int> *>(user)->fetch_add(1);
}


}  // namespace

// ---------------------------------------------------------------------------
// Source programs
// ---------------------------------------------------------------------------
TEST_F(Program, BuildFromSourceAndInfo) {
  cl_program p = source(kTwoKernels);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(buildInfo<cl_build_status>(p, CL_PROGRAM_BUILD_STATUS), CL_BUILD_NONE);
  EXPECT_EQ(buildInfo<cl_program_binary_type>(p, CL_PROGRAM_BINARY_TYPE),
            (cl_program_binary_type)CL_PROGRAM_BINARY_TYPE_NONE);
  ASSERT_CL_OK(clBuildProgram(p, 1, &device, "-DUNUSED=1", nullptr, nullptr));
  EXPECT_EQ(buildInfo<cl_build_status>(p, CL_PROGRAM_BUILD_STATUS), CL_BUILD_SUCCESS);
  EXPECT_EQ(buildInfo<cl_program_binary_type>(p, CL_PROGRAM_BINARY_TYPE),
            (cl_program_binary_type)CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  EXPECT_EQ(buildString(p, CL_PROGRAM_BUILD_OPTIONS), "-DUNUSED=1");
  size_t sz = 0;
  ASSERT_CL_OK(clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &sz));
  EXPECT_GE(sz, 1u);
  ASSERT_CL_OK(
      clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, 0, nullptr, &sz));
  EXPECT_EQ(sz, sizeof(size_t));
  EXPECT_EQ(progInfo<cl_uint>(p, CL_PROGRAM_REFERENCE_COUNT), 1u);
  EXPECT_EQ(progInfo<cl_context>(p, CL_PROGRAM_CONTEXT), ctx);
  EXPECT_EQ(progInfo<cl_uint>(p, CL_PROGRAM_NUM_DEVICES), 1u);
  EXPECT_EQ(progInfo<cl_device_id>(p, CL_PROGRAM_DEVICES), device);
  EXPECT_EQ(progString(p, CL_PROGRAM_SOURCE), std::string(kTwoKernels));
  ASSERT_CL_OK(clGetProgramInfo(p, CL_PROGRAM_IL, 0, nullptr, &sz));
  EXPECT_EQ(sz, 0u);
  EXPECT_EQ(progInfo<cl_bool>(p, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT), CL_FALSE);
  EXPECT_EQ(progInfo<cl_bool>(p, CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT), CL_FALSE);
  char buf[8];
  EXPECT_CL(CL_INVALID_VALUE, clGetProgramInfo(p, 0x7777, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, 1, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetProgramInfo(p, CL_PROGRAM_SOURCE, 4, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetProgramBuildInfo(p, device, 0x7777, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_STATUS, 1, buf, nullptr));
}

TEST_F(Program, KernelNamesAndCount) {
  cl_program p = source(kTwoKernels);
  ASSERT_NE(p, nullptr);
  size_t n = 0;
  char buf[256];
  EXPECT_CL(CL_INVALID_PROGRAM_EXECUTABLE,
            clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof n, &n, nullptr));
  EXPECT_CL(CL_INVALID_PROGRAM_EXECUTABLE,
            clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof buf, buf, nullptr));
  ASSERT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  ASSERT_CL_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof n, &n, nullptr));
  EXPECT_EQ(n, 3u);
  size_t sz = 0;
  ASSERT_CL_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, 0, nullptr, &sz));
  EXPECT_EQ(sz, sizeof(size_t));
  EXPECT_EQ(splitNames(progString(p, CL_PROGRAM_KERNEL_NAMES)),
            (std::set<std::string>{"k_first", "k_second", "k_third"}));
  EXPECT_CL(CL_INVALID_VALUE, clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, 3, buf, nullptr));
  // Kernels by name, and all at once.
  cl_int err;
  cl_kernel k = clCreateKernel(p, "k_second", &err);
  ASSERT_CL_OK(err);
  clReleaseKernel(k);
  EXPECT_EQ(clCreateKernel(p, "helper", &err), nullptr);
  EXPECT_CL(CL_INVALID_KERNEL_NAME, err);
  EXPECT_EQ(clCreateKernel(p, "nope", &err), nullptr);
  EXPECT_CL(CL_INVALID_KERNEL_NAME, err);
  EXPECT_EQ(clCreateKernel(p, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  cl_uint nk = 0;
  ASSERT_CL_OK(clCreateKernelsInProgram(p, 0, nullptr, &nk));
  EXPECT_EQ(nk, 3u);
  cl_kernel ks[3];
  cl_kernel one[1];
  EXPECT_CL(CL_INVALID_VALUE, clCreateKernelsInProgram(p, 1, one, nullptr));
  ASSERT_CL_OK(clCreateKernelsInProgram(p, 3, ks, &nk));
  std::set<std::string> names;
  for (cl_kernel kk : ks) {
    char nm[64] = {0};
    ASSERT_CL_OK(clGetKernelInfo(kk, CL_KERNEL_FUNCTION_NAME, sizeof nm, nm, nullptr));
    names.insert(nm);
    clReleaseKernel(kk);
  }
  EXPECT_EQ(names, (std::set<std::string>{"k_first", "k_second", "k_third"}));
}

TEST_F(Program, MultipleStringsAndLengths) {
  const char *parts[] = {"__kernel void k(__global int *o) {",
                         " o[get_global_id(0)] = 40 + 2; }GARBAGE_NOT_INCLUDED", "\n"};
  size_t lens[] = {0, strlen(" o[get_global_id(0)] = 40 + 2; }"), 0};
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 3, parts, lens, &err);
  ASSERT_CL_OK(err);
  track(p);
  ASSERT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr))
      << programBuildLog(p, device);
  EXPECT_EQ(runIntKernel(p, "k", 4), std::vector<int>(4, 42));
  std::string srcBack = progString(p, CL_PROGRAM_SOURCE);
  EXPECT_EQ(srcBack, std::string(parts[0]) + " o[get_global_id(0)] = 40 + 2; }" + "\n");
}

TEST_F(Program, CreateWithSourceErrors) {
  TUTTI_ONLY();  // PoCL 3.1 crashes on a NULL string entry
  cl_int err = CL_SUCCESS;
  const char *src = "__kernel void k() {}";
  EXPECT_EQ(clCreateProgramWithSource(ctx, 0, &src, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateProgramWithSource(ctx, 1, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  const char *withNull[] = {src, nullptr};
  EXPECT_EQ(clCreateProgramWithSource(ctx, 2, withNull, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateProgramWithSource(nullptr, 1, &src, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
}

TEST_F(Program, BuildFailureGivesLog) {
  cl_program p = source("__kernel void broken(__global int *o) { o[0] = undeclared_thing; }");
  ASSERT_NE(p, nullptr);
  EXPECT_CL(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(buildInfo<cl_build_status>(p, CL_PROGRAM_BUILD_STATUS), CL_BUILD_ERROR);
  std::string log = programBuildLog(p, device);
  EXPECT_NE(log.find("undeclared_thing"), std::string::npos) << "log: " << log;
  cl_int err;
  EXPECT_EQ(clCreateKernel(p, "broken", &err), nullptr);
  EXPECT_CL(CL_INVALID_PROGRAM_EXECUTABLE, err);
  // A failed program can be rebuilt? No: the source is still broken.
  EXPECT_CL(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
}

TEST_F(Program, KernelBeforeBuild) {
  cl_program p = source(kTwoKernels);
  cl_int err;
  EXPECT_EQ(clCreateKernel(p, "k_first", &err), nullptr);
  EXPECT_CL(CL_INVALID_PROGRAM_EXECUTABLE, err);
  cl_uint nk;
  EXPECT_CL(CL_INVALID_PROGRAM_EXECUTABLE, clCreateKernelsInProgram(p, 0, nullptr, &nk));
}

TEST_F(Program, BuildOptionsDefinesAndStd) {
  cl_program p = source("__kernel void k(__global int *o) { o[get_global_id(0)] = VAL * 2; }");
  ASSERT_CL_OK(clBuildProgram(p, 0, nullptr, "-D VAL=21 -cl-mad-enable -w", nullptr, nullptr))
      << programBuildLog(p, device);
  EXPECT_EQ(runIntKernel(p, "k", 3), std::vector<int>(3, 42));
  for (const char *std : {"-cl-std=CL1.2", "-cl-std=CL1.1"}) {
    cl_program q = source("__kernel void k(__global int *o) { o[get_global_id(0)] = 7; }");
    EXPECT_CL_OK(clBuildProgram(q, 0, nullptr, std, nullptr, nullptr)) << std;
  }
  // CL3.0 only if the device lists OpenCL C 3.0.
  size_t sz = 0;
  ASSERT_CL_OK(clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, nullptr, &sz));
  std::vector<cl_name_version> cv(sz / sizeof(cl_name_version));
  ASSERT_CL_OK(clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, sz, cv.data(), nullptr));
  for (auto &v : cv)
    if (CL_VERSION_MAJOR(v.version) == 3) {
      cl_program q = source("__kernel void k(__global int *o) { o[get_global_id(0)] = 7; }");
      EXPECT_CL_OK(clBuildProgram(q, 0, nullptr, "-cl-std=CL3.0", nullptr, nullptr))
          << programBuildLog(q, device);
    }
}

// A second build of the same source and options may come from Tutti's build cache
// (issue 17): it must give what the first gave (log, names, argument info, results), and
// the same program rebuilt or compiled with other options afterwards must not keep the
// cached code. The source carries a default-on warning, so the log is not empty.
TEST_F(Program, RepeatedBuildGivesWhatTheFirstGave) {
  const char *src = R"CLC(
    __kernel void k(__global int *o) {
      __global float *f = o;  /* incompatible pointer types: a warning in the log */
      o[get_global_id(0)] = VAL * 2 + (f != 0 ? 0 : 1);
    }
  )CLC";
  auto describe = [&](cl_program p) {
    std::string d = progString(p, CL_PROGRAM_KERNEL_NAMES) + "|" + buildString(p, CL_PROGRAM_BUILD_LOG);
    cl_kernel k = makeKernel(p, "k");
    if (!k) return d + "|no kernel";
    char buf[256] = "";
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof buf, buf, nullptr);
    d += std::string("|") + buf;
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof buf, buf, nullptr);
    d += std::string("|") + buf;
    cl_kernel_arg_address_qualifier aq = 0;
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, nullptr);
    d += "|" + std::to_string(aq);
    return d;
  };
  const char *opts = "-D VAL=21 -cl-kernel-arg-info";
  cl_program first = source(src);
  ASSERT_CL_OK(clBuildProgram(first, 0, nullptr, opts, nullptr, nullptr)) << programBuildLog(first, device);
  std::string want = describe(first);
  EXPECT_EQ(runIntKernel(first, "k", 3), std::vector<int>(3, 42));
  for (int round = 0; round < 2; ++round) {
    cl_program again = source(src);
    ASSERT_CL_OK(clBuildProgram(again, 0, nullptr, opts, nullptr, nullptr));
    EXPECT_EQ(describe(again), want) << "round " << round;
    EXPECT_EQ(runIntKernel(again, "k", 3), std::vector<int>(3, 42));
  }
  // Rebuilt with another value: the new code, not the cached build's.
  cl_program re = source(src);
  ASSERT_CL_OK(clBuildProgram(re, 0, nullptr, opts, nullptr, nullptr));
  ASSERT_CL_OK(clBuildProgram(re, 0, nullptr, "-D VAL=5", nullptr, nullptr));
  EXPECT_EQ(runIntKernel(re, "k", 3), std::vector<int>(3, 10));
  // Compiled and linked after a build: the source, not the cached binary, is compiled.
  cl_program co = source(src);
  ASSERT_CL_OK(clBuildProgram(co, 0, nullptr, opts, nullptr, nullptr));
  ASSERT_CL_OK(clCompileProgram(co, 0, nullptr, "-D VAL=4", 0, nullptr, nullptr, nullptr, nullptr));
  cl_int err;
  cl_program linked = clLinkProgram(ctx, 0, nullptr, "", 1, &co, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  track(linked);
  EXPECT_EQ(runIntKernel(linked, "k", 3), std::vector<int>(3, 8));
}

// A header program built a second time comes from the build cache, as a program made from
// a binary, with no source in the driver: clCompileProgram must still include its source.
TEST_F(Program, HeaderBuiltFromTheCacheStillIncludes) {
  const char *hsrc = "int plus_seventeen(int x) { return x + 17; }\n";
  cl_program h1 = source(hsrc);
  ASSERT_CL_OK(clBuildProgram(h1, 0, nullptr, "", nullptr, nullptr));
  cl_program h2 = source(hsrc);
  ASSERT_CL_OK(clBuildProgram(h2, 0, nullptr, "", nullptr, nullptr));
  cl_program p = source("#include \"h.h\"\n"
                        "__kernel void k(__global int *o) { o[get_global_id(0)] = plus_seventeen(25); }\n");
  const char *name = "h.h";
  ASSERT_CL_OK(clCompileProgram(p, 0, nullptr, "", 1, &h2, &name, nullptr, nullptr)) << programBuildLog(p, device);
  cl_int err;
  cl_program linked = clLinkProgram(ctx, 0, nullptr, "", 1, &p, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  track(linked);
  EXPECT_EQ(runIntKernel(linked, "k", 3), std::vector<int>(3, 42));
}

TEST_F(Program, InvalidBuildOptions) {
  TUTTI_ONLY();
  cl_program p = source("__kernel void k(__global int *o) { o[0] = 1; }");
  EXPECT_CL(CL_INVALID_BUILD_OPTIONS,
            clBuildProgram(p, 0, nullptr, "-cl-this-option-does-not-exist", nullptr, nullptr));
  cl_program q = source("__kernel void k(__global int *o) { o[0] = 1; }");
  EXPECT_CL(CL_INVALID_BUILD_OPTIONS,
            clBuildProgram(q, 0, nullptr, "-cl-std=CL9.9", nullptr, nullptr));
  // The program is still buildable with good options afterwards.
  EXPECT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
}

TEST_F(Program, BuildArgumentErrors) {
  cl_program p = source(kTwoKernels);
  int dummy;
  EXPECT_CL(CL_INVALID_VALUE, clBuildProgram(p, 0, nullptr, nullptr, nullptr, &dummy));
  EXPECT_CL(CL_INVALID_VALUE, clBuildProgram(p, 1, nullptr, nullptr, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clBuildProgram(p, 0, &device, nullptr, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_PROGRAM, clBuildProgram(nullptr, 0, nullptr, nullptr, nullptr, nullptr));
}

TEST_F(Program, BuildArgumentErrorsGarbageDevice) {
  TUTTI_ONLY();
  cl_program p = source(kTwoKernels);
  Garbage g;
  cl_device_id bad = g.as<cl_device_id>();
  EXPECT_CL(CL_INVALID_DEVICE, clBuildProgram(p, 1, &bad, nullptr, nullptr, nullptr));
  char buf[8];
  EXPECT_CL(CL_INVALID_DEVICE,
            clGetProgramBuildInfo(p, bad, CL_PROGRAM_BUILD_STATUS, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_DEVICE,
            clGetProgramBuildInfo(p, nullptr, CL_PROGRAM_BUILD_STATUS, sizeof buf, buf, nullptr));
}

TEST_F(Program, BuildCallback) {
  cl_program p = source(kTwoKernels);
  std::atomic<int> calls{0};
  cl_int err = clBuildProgram(p, 1, &device, nullptr, buildCb, &calls);
  ASSERT_CL_OK(err);
  ASSERT_TRUE(waitFor([&] { return calls.load() == 1; }));
  EXPECT_EQ(buildInfo<cl_build_status>(p, CL_PROGRAM_BUILD_STATUS), CL_BUILD_SUCCESS);
  EXPECT_EQ(runIntKernel(p, "k_first", 2), std::vector<int>(2, 1));
}

TEST_F(Program, RebuildWithAttachedKernelsFails) {
  cl_program p = source(kTwoKernels);
  ASSERT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  cl_kernel k = makeKernel(p, "k_first");
  ASSERT_NE(k, nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_OPERATION,
            clCompileProgram(p, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr));
}

TEST_F(Program, RetainReleaseAndKernelKeepsProgram) {
  cl_int err;
  const char *src = "__kernel void k(__global int *o) { o[get_global_id(0)] = 5; }";
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clRetainProgram(p));
  EXPECT_EQ(progInfo<cl_uint>(p, CL_PROGRAM_REFERENCE_COUNT), 2u);
  ASSERT_CL_OK(clReleaseProgram(p));
  ASSERT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  cl_kernel k = clCreateKernel(p, "k", &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clReleaseProgram(p));  // kernel keeps the program alive
  cl_program back = nullptr;
  ASSERT_CL_OK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof back, &back, nullptr));
  EXPECT_EQ(back, p);
  cl_mem m = makeBuffer(4 * sizeof(int));
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  ASSERT_CL_OK(run1D(k, 4));
  int out[4];
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, sizeof out, out, 0, nullptr, nullptr));
  for (int v : out) EXPECT_EQ(v, 5);
  clReleaseKernel(k);
}

// ---------------------------------------------------------------------------
// Separate compilation and linking
// ---------------------------------------------------------------------------
TEST_F(Program, CompileAndLinkWithHeaders) {
  cl_program hdrA = source("#define FACTOR 6\nint scale_it(int x);\n");
  cl_program hdrB = source("#define OFFSET 100\n");
  const char *mainSrc = R"CLC(
    #include "a.h"
    #include "sub/b.h"
    __kernel void linked(__global int *o) {
      int i = (int)get_global_id(0);
      o[i] = scale_it(i) + OFFSET;
    }
  )CLC";
  const char *libSrc = R"CLC(
    #include "a.h"
    int scale_it(int x) { return x * FACTOR; }
  )CLC";
  cl_program mainP = source(mainSrc);
  cl_program libP = source(libSrc);
  cl_program headers[] = {hdrA, hdrB};
  const char *names[] = {"a.h", "sub/b.h"};
  ASSERT_CL_OK(clCompileProgram(mainP, 1, &device, nullptr, 2, headers, names, nullptr, nullptr))
      << programBuildLog(mainP, device);
  ASSERT_CL_OK(clCompileProgram(libP, 0, nullptr, nullptr, 1, headers, names, nullptr, nullptr))
      << programBuildLog(libP, device);
  EXPECT_EQ(buildInfo<cl_program_binary_type>(mainP, CL_PROGRAM_BINARY_TYPE),
            (cl_program_binary_type)CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
  // Kernels cannot come from a compiled object (PoCL 3.1 says CL_INVALID_KERNEL_NAME).
  cl_int err;
  EXPECT_EQ(clCreateKernel(mainP, "linked", &err), nullptr);
  if (isTutti()) EXPECT_CL(CL_INVALID_PROGRAM_EXECUTABLE, err);

  // Library first, then the executable.
  cl_program lib = clLinkProgram(ctx, 1, &device, "-create-library", 1, &libP, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  track(lib);
  EXPECT_EQ(buildInfo<cl_program_binary_type>(lib, CL_PROGRAM_BINARY_TYPE),
            (cl_program_binary_type)CL_PROGRAM_BINARY_TYPE_LIBRARY);
  cl_program inputs[] = {mainP, lib};
  cl_program exe = clLinkProgram(ctx, 0, nullptr, nullptr, 2, inputs, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  track(exe);
  EXPECT_EQ(buildInfo<cl_program_binary_type>(exe, CL_PROGRAM_BINARY_TYPE),
            (cl_program_binary_type)CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  EXPECT_EQ(buildInfo<cl_build_status>(exe, CL_PROGRAM_BUILD_STATUS), CL_BUILD_SUCCESS);
  auto out = runIntKernel(exe, "linked", 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], i * 6 + 100) << i;
  // Direct object + object link too.
  cl_program objs[] = {mainP, libP};
  cl_program exe2 = clLinkProgram(ctx, 1, &device, nullptr, 2, objs, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  track(exe2);
  out = runIntKernel(exe2, "linked", 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], i * 6 + 100) << i;
}

TEST_F(Program, CompileLinkErrors) {
  TUTTI_ONLY();  // PoCL 3.1 crashes on some of these
  cl_program p = source("__kernel void k(__global int *o) { o[0] = 1; }");
  cl_program h = source("#define X 1\n");
  const char *name = "x.h";
  EXPECT_CL(CL_INVALID_VALUE,
            clCompileProgram(p, 0, nullptr, nullptr, 1, nullptr, &name, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clCompileProgram(p, 0, nullptr, nullptr, 1, &h, nullptr, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clCompileProgram(p, 0, nullptr, nullptr, 0, &h, &name, nullptr, nullptr));
  int dummy;
  EXPECT_CL(CL_INVALID_VALUE,
            clCompileProgram(p, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, &dummy));
  cl_program bad = source("__kernel void k(__global int *o) { o[0] = nope; }");
  EXPECT_CL(CL_COMPILE_PROGRAM_FAILURE,
            clCompileProgram(bad, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(buildInfo<cl_build_status>(bad, CL_PROGRAM_BUILD_STATUS), CL_BUILD_ERROR);
  EXPECT_FALSE(programBuildLog(bad, device).empty());

  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clLinkProgram(ctx, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clLinkProgram(ctx, 0, nullptr, nullptr, 1, nullptr, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  ASSERT_CL_OK(clCompileProgram(p, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(clLinkProgram(ctx, 0, nullptr, nullptr, 1, &p, nullptr, &dummy, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clLinkProgram(nullptr, 0, nullptr, nullptr, 1, &p, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
}

TEST_F(Program, LinkUnresolvedSymbolFails) {
  cl_program p = source(R"CLC(
    int missing_fn(int);
    __kernel void k(__global int *o) { o[0] = missing_fn(3); }
  )CLC");
  ASSERT_CL_OK(clCompileProgram(p, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr));
  cl_int err = CL_SUCCESS;
  cl_program exe = clLinkProgram(ctx, 0, nullptr, nullptr, 1, &p, nullptr, nullptr, &err);
  if (exe) track(exe);
  EXPECT_CL(CL_LINK_PROGRAM_FAILURE, err);
  if (exe) {
    EXPECT_EQ(buildInfo<cl_build_status>(exe, CL_PROGRAM_BUILD_STATUS), CL_BUILD_ERROR);
  }
}

TEST_F(Program, InvalidCompilerAndLinkerOptions) {
  TUTTI_ONLY();
  cl_program p = source("__kernel void k(__global int *o) { o[0] = 1; }");
  EXPECT_CL(CL_INVALID_COMPILER_OPTIONS,
            clCompileProgram(p, 0, nullptr, "-cl-no-such-compiler-option", 0, nullptr, nullptr,
                             nullptr, nullptr));
  ASSERT_CL_OK(clCompileProgram(p, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr));
  cl_int err = CL_SUCCESS;
  cl_program exe =
      clLinkProgram(ctx, 0, nullptr, "-cl-no-such-linker-option", 1, &p, nullptr, nullptr, &err);
  if (exe) track(exe);
  EXPECT_CL(CL_INVALID_LINKER_OPTIONS, err);
}

TEST_F(Program, LinkSourceOnlyProgramRejected) {
  TUTTI_ONLY();
  cl_program p = source("__kernel void k(__global int *o) { o[0] = 1; }");
  cl_int err = CL_SUCCESS;
  cl_program exe = clLinkProgram(ctx, 0, nullptr, nullptr, 1, &p, nullptr, nullptr, &err);
  if (exe) track(exe);
  EXPECT_CL_ANY(({CL_INVALID_OPERATION, CL_INVALID_PROGRAM, CL_LINK_PROGRAM_FAILURE}), err);
}

// ---------------------------------------------------------------------------
// Binaries
// ---------------------------------------------------------------------------
TEST_F(Program, BinaryRoundTrip) {
  cl_program p = source(kTwoKernels);
  ASSERT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  std::vector<unsigned char> bin = binaryOf(p);
  ASSERT_FALSE(bin.empty());
  const unsigned char *bp = bin.data();
  size_t len = bin.size();
  cl_int status = 1, err = 1;
  cl_program q = clCreateProgramWithBinary(ctx, 1, &device, &len, &bp, &status, &err);
  ASSERT_CL_OK(err);
  track(q);
  EXPECT_CL_OK(status);
  EXPECT_EQ(buildInfo<cl_program_binary_type>(q, CL_PROGRAM_BINARY_TYPE),
            (cl_program_binary_type)CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  ASSERT_CL_OK(clBuildProgram(q, 0, nullptr, nullptr, nullptr, nullptr)) << programBuildLog(q, device);
  EXPECT_EQ(runIntKernel(q, "k_second", 5), std::vector<int>(5, 2));
  auto third = runIntKernel(q, "k_third", 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(third[i], 3 * i);
  size_t nk = 0;
  ASSERT_CL_OK(clGetProgramInfo(q, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, nullptr));
  EXPECT_EQ(nk, 3u);
  // A binary-built program gives back a binary again.
  EXPECT_FALSE(binaryOf(q).empty());
}

TEST_F(Program, BinaryOfCompiledObjectLinks) {
  cl_program p = source("__kernel void k(__global int *o) { o[get_global_id(0)] = 9; }");
  ASSERT_CL_OK(clCompileProgram(p, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr));
  std::vector<unsigned char> bin = binaryOf(p);
  ASSERT_FALSE(bin.empty());
  const unsigned char *bp = bin.data();
  size_t len = bin.size();
  cl_int status, err;
  cl_program q = clCreateProgramWithBinary(ctx, 1, &device, &len, &bp, &status, &err);
  ASSERT_CL_OK(err);
  track(q);
  EXPECT_EQ(buildInfo<cl_program_binary_type>(q, CL_PROGRAM_BINARY_TYPE),
            (cl_program_binary_type)CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
  cl_program exe = clLinkProgram(ctx, 0, nullptr, nullptr, 1, &q, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  track(exe);
  EXPECT_EQ(runIntKernel(exe, "k", 3), std::vector<int>(3, 9));
}

TEST_F(Program, BinarySizesBeforeBuild) {
  TUTTI_ONLY();  // PoCL 3.1 answers CL_INVALID_PROGRAM
  cl_program p = source(kTwoKernels);
  size_t sz = 123;
  ASSERT_CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof sz, &sz, nullptr));
  EXPECT_EQ(sz, 0u);
}

TEST_F(Program, RandomBlobIsInvalidBinary) {
  TUTTI_ONLY();
  std::vector<unsigned char> blob(4096);
  std::mt19937 rng(1234);
  for (auto &b : blob) b = (unsigned char)rng();
  const unsigned char *bp = blob.data();
  size_t len = blob.size();
  cl_int status = 1, err = CL_SUCCESS;
  cl_program q = clCreateProgramWithBinary(ctx, 1, &device, &len, &bp, &status, &err);
  if (q) track(q);
  EXPECT_EQ(q, nullptr);
  EXPECT_CL(CL_INVALID_BINARY, err);
  EXPECT_CL(CL_INVALID_BINARY, status);
  // A truncated real binary is invalid too.
  cl_program p = source(kTwoKernels);
  ASSERT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  std::vector<unsigned char> bin = binaryOf(p);
  ASSERT_GT(bin.size(), 32u);
  bp = bin.data();
  len = 16;
  q = clCreateProgramWithBinary(ctx, 1, &device, &len, &bp, &status, &err);
  if (q) track(q);
  EXPECT_EQ(q, nullptr);
  EXPECT_CL(CL_INVALID_BINARY, err);
}

TEST_F(Program, CreateWithBinaryArgumentErrors) {
  TUTTI_ONLY();  // PoCL 3.1 crashes on some of these
  unsigned char byte = 0;
  const unsigned char *bp = &byte;
  const unsigned char *nullBin = nullptr;
  size_t len = 1, zero = 0;
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateProgramWithBinary(ctx, 0, &device, &len, &bp, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateProgramWithBinary(ctx, 1, nullptr, &len, &bp, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateProgramWithBinary(ctx, 1, &device, nullptr, &bp, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateProgramWithBinary(ctx, 1, &device, &len, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateProgramWithBinary(ctx, 1, &device, &zero, &bp, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateProgramWithBinary(ctx, 1, &device, &len, &nullBin, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateProgramWithBinary(nullptr, 1, &device, &len, &bp, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
}

TEST_F(Program, CreateWithBinaryForeignDevice) {
  TUTTI_ONLY();
  unsigned char byte = 0;
  const unsigned char *bp = &byte;
  size_t len = 1;
  cl_int err = CL_SUCCESS;
  Garbage g;
  cl_device_id bad = g.as<cl_device_id>();
  EXPECT_EQ(clCreateProgramWithBinary(ctx, 1, &bad, &len, &bp, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_DEVICE, err);
}

// ---------------------------------------------------------------------------
// Built-in kernels, release callbacks, specialization constants
// ---------------------------------------------------------------------------
TEST_F(Program, BuiltInKernels) {
  std::string names = deviceString(device, CL_DEVICE_BUILT_IN_KERNELS);
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateProgramWithBuiltInKernels(ctx, 1, &device, "no_such_builtin_kernel", &err),
            nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateProgramWithBuiltInKernels(ctx, 1, &device, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateProgramWithBuiltInKernels(ctx, 0, &device, "x", &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  if (!names.empty()) {
    std::string first = names.substr(0, names.find(';'));
    cl_program p = clCreateProgramWithBuiltInKernels(ctx, 1, &device, first.c_str(), &err);
    EXPECT_CL_OK(err);
    if (p) clReleaseProgram(p);
  }
}

TEST_F(Program, ReleaseCallbackAndSpecConstantsUnsupported) {
  TUTTI_ONLY();
  cl_program p = source(kTwoKernels);
  EXPECT_CL(CL_INVALID_OPERATION,
            clSetProgramReleaseCallback(p, [](cl_program, void *) {}, nullptr));
  int v = 1;
  if (env().tutti)
    EXPECT_CL(CL_INVALID_OPERATION, clSetProgramSpecializationConstant(p, 0, sizeof v, &v));
  else
    EXPECT_CL_ANY(({CL_INVALID_OPERATION, CL_INVALID_PROGRAM}),
                  clSetProgramSpecializationConstant(p, 0, sizeof v, &v));
}

TEST_F(Program, InvalidHandle) {
  TUTTI_ONLY();
  Garbage g;
  cl_uint v;
  EXPECT_CL(CL_INVALID_PROGRAM, clGetProgramInfo(g.as<cl_program>(), CL_PROGRAM_REFERENCE_COUNT,
                                                 sizeof v, &v, nullptr));
  EXPECT_CL(CL_INVALID_PROGRAM, clBuildProgram(g.as<cl_program>(), 0, nullptr, nullptr, nullptr,
                                               nullptr));
  EXPECT_CL(CL_INVALID_PROGRAM, clRetainProgram(g.as<cl_program>()));
  EXPECT_CL(CL_INVALID_PROGRAM, clReleaseProgram(g.as<cl_program>()));
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateKernel(g.as<cl_program>(), "k", &err), nullptr);
  EXPECT_CL(CL_INVALID_PROGRAM, err);
  cl_program in = g.as<cl_program>();
  EXPECT_EQ(clLinkProgram(ctx, 0, nullptr, nullptr, 1, &in, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_PROGRAM, err);
  // A header that is not a program.
  cl_program p = source("#include \"h.h\"\n__kernel void k(__global int *o) { o[0] = 1; }");
  const char *name = "h.h";
  // (The spec lists no code for a bad header object; either of these is reasonable.)
  EXPECT_CL_ANY(({CL_INVALID_PROGRAM, CL_INVALID_VALUE}),
                clCompileProgram(p, 0, nullptr, nullptr, 1, &in, &name, nullptr, nullptr));
}

TEST_F(Program, CompileBinaryProgramRejected) {
  TUTTI_ONLY();
  cl_program p = source(kTwoKernels);
  ASSERT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  std::vector<unsigned char> bin = binaryOf(p);
  const unsigned char *bp = bin.data();
  size_t len = bin.size();
  cl_int err;
  cl_program q = clCreateProgramWithBinary(ctx, 1, &device, &len, &bp, nullptr, &err);
  ASSERT_CL_OK(err);
  track(q);
  // clCompileProgram needs source.
  EXPECT_CL(CL_INVALID_OPERATION,
            clCompileProgram(q, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr));
  // CL_PROGRAM_BINARIES with too small a buffer array.
  unsigned char *none = nullptr;
  EXPECT_CL(CL_INVALID_VALUE, clGetProgramInfo(p, CL_PROGRAM_BINARIES, 1, &none, nullptr));
  size_t sz = 0;
  ASSERT_CL_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, 0, nullptr, &sz));
  EXPECT_EQ(sz, sizeof(unsigned char *));
}

// A program made from an empty source string has source: the spec rejects only NULL
// strings, and clCompileProgram's CL_INVALID_OPERATION is for programs without source or
// IL. PoCL compiles, links and builds it (no kernels); Tutti took the empty text for no
// source and answered CL_INVALID_OPERATION.
TEST_F(Program, EmptySourceCompilesLinksAndBuilds) {
  cl_program p = source("");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(progString(p, CL_PROGRAM_SOURCE), "");
  ASSERT_CL_OK(clCompileProgram(p, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(buildInfo<cl_build_status>(p, CL_PROGRAM_BUILD_STATUS), CL_BUILD_SUCCESS);
  EXPECT_EQ(buildInfo<cl_program_binary_type>(p, CL_PROGRAM_BINARY_TYPE),
            (cl_program_binary_type)CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
  cl_int err = CL_SUCCESS;
  cl_program linked = clLinkProgram(ctx, 0, nullptr, nullptr, 1, &p, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  track(linked);
  EXPECT_EQ(progInfo<size_t>(linked, CL_PROGRAM_NUM_KERNELS), 0u);

  cl_program b = source("");
  ASSERT_NE(b, nullptr);
  ASSERT_CL_OK(clBuildProgram(b, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(progInfo<size_t>(b, CL_PROGRAM_NUM_KERNELS), 0u);
  EXPECT_EQ(progString(b, CL_PROGRAM_KERNEL_NAMES), "");
}
