// test_kernel.cpp - kernels: info, argument setting rules, arg info, work-group info, clone.
#include "fixture.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <unistd.h>

using namespace api;

namespace {

class Kernel : public ClTest {
 protected:
  std::string kernelString(cl_kernel k, cl_kernel_info p) {
    size_t n = 0;
    if (clGetKernelInfo(k, p, 0, nullptr, &n) != CL_SUCCESS || !n) return {};
    std::string s(n, '\0');
    clGetKernelInfo(k, p, n, &s[0], nullptr);
    s.resize(strnlen(s.c_str(), n));
    return s;
  }
  std::string argString(cl_kernel k, cl_uint i, cl_kernel_arg_info p) {
    size_t n = 0;
    if (clGetKernelArgInfo(k, i, p, 0, nullptr, &n) != CL_SUCCESS || !n) return {};
    std::string s(n, '\0');
    clGetKernelArgInfo(k, i, p, n, &s[0], nullptr);
    s.resize(strnlen(s.c_str(), n));
    return s;
  }
  template <class T>
  T argInfo(cl_kernel k, cl_uint i, cl_kernel_arg_info p) {
    T v{};
    EXPECT_CL_OK(clGetKernelArgInfo(k, i, p, sizeof v, &v, nullptr));
    return v;
  }
  // A program made from src's binary and built, as an app restores a cached one.
  cl_program fromBinaryOf(cl_program src) {
    size_t sz = 0;
    EXPECT_CL_OK(clGetProgramInfo(src, CL_PROGRAM_BINARY_SIZES, sizeof sz, &sz, nullptr));
    std::vector<unsigned char> bin(sz);
    unsigned char *bp = bin.data();
    EXPECT_CL_OK(clGetProgramInfo(src, CL_PROGRAM_BINARIES, sizeof bp, &bp, nullptr));
    const unsigned char *cbp = bin.data();
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithBinary(ctx, 1, &device, &sz, &cbp, nullptr, &err);
    EXPECT_CL_OK(err);
    if (!p) return nullptr;
    track(p);
    EXPECT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
    return p;
  }
};

const char *kArgKernels = R"CLC(
__kernel void args_mix(__global const int *src, __global int *dst, __local float *scratch,
                       __constant int *tbl, int count, float4 vec) {
  dst[get_global_id(0)] = src[get_global_id(0)] + tbl[0] + count + (int)vec.x + (int)scratch[0] * 0;
}
__kernel void img_arg(__read_only image2d_t img, sampler_t s, __global float4 *o) {
  o[0] = read_imagef(img, s, (int2)(0, 0));
}
)CLC";

const char *kArgKernelsNoImages = R"CLC(
__kernel void args_mix(__global const int *src, __global int *dst, __local float *scratch,
                       __constant int *tbl, int count, float4 vec) {
  dst[get_global_id(0)] = src[get_global_id(0)] + tbl[0] + count + (int)vec.x + (int)scratch[0] * 0;
}
)CLC";

}  // namespace

TEST_F(Kernel, Info) {
  cl_kernel k = commonKernel("copy_buf");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(kernelString(k, CL_KERNEL_FUNCTION_NAME), "copy_buf");
  cl_uint nargs = 0, rc = 0;
  ASSERT_CL_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr));
  EXPECT_EQ(nargs, 2u);
  ASSERT_CL_OK(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof rc, &rc, nullptr));
  EXPECT_EQ(rc, 1u);
  cl_context c = nullptr;
  ASSERT_CL_OK(clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof c, &c, nullptr));
  EXPECT_EQ(c, ctx);
  cl_program p = nullptr;
  ASSERT_CL_OK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof p, &p, nullptr));
  EXPECT_EQ(p, common_);
  size_t sz = 0;
  ASSERT_CL_OK(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, 0, nullptr, &sz));
  EXPECT_GE(sz, 1u);
  char buf[4];
  EXPECT_CL(CL_INVALID_VALUE, clGetKernelInfo(k, 0x7777, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 2, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, 1, buf, nullptr));
  ASSERT_CL_OK(clRetainKernel(k));
  ASSERT_CL_OK(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof rc, &rc, nullptr));
  EXPECT_EQ(rc, 2u);
  ASSERT_CL_OK(clReleaseKernel(k));
}

TEST_F(Kernel, AttributesReportReqdWorkGroupSize) {
  cl_kernel k = commonKernel("wg_fixed");
  ASSERT_NE(k, nullptr);
  std::string attrs = kernelString(k, CL_KERNEL_ATTRIBUTES);
  EXPECT_NE(attrs.find("reqd_work_group_size"), std::string::npos) << attrs;
}

TEST_F(Kernel, SetArgIndexAndSizeErrors) {
  cl_kernel k = commonKernel("fill_val");  // (__global int *a, int v)
  ASSERT_NE(k, nullptr);
  cl_mem m = makeBuffer(64);
  int v = 1;
  EXPECT_CL(CL_INVALID_ARG_INDEX, clSetKernelArg(k, 2, sizeof v, &v));
  EXPECT_CL(CL_INVALID_ARG_INDEX, clSetKernelArg(k, 1000, sizeof v, &v));
  EXPECT_CL(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, 4, &m));
  EXPECT_CL(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, sizeof(cl_mem) + 1, &m));
  long long big = 1;
  short small = 1;
  EXPECT_CL(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, sizeof big, &big));
  EXPECT_CL(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, sizeof small, &small));
  EXPECT_CL(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, 0, &v));
  EXPECT_CL(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 1, sizeof v, nullptr));
  EXPECT_CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  EXPECT_CL_OK(clSetKernelArg(k, 1, sizeof v, &v));
}

TEST_F(Kernel, SetArgWrongObject) {
  TUTTI_ONLY();
  cl_kernel k = commonKernel("fill_val");
  ASSERT_NE(k, nullptr);
  Garbage g;
  cl_mem bad = g.as<cl_mem>();
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof bad, &bad));
  // A queue handle where a buffer is expected.
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof queue, &queue));
  // A released buffer, set twice before (so the unlocked path has vouched for it).
  cl_int err;
  cl_mem gone = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_CL_OK(err);
  EXPECT_CL_OK(clSetKernelArg(k, 0, sizeof gone, &gone));
  EXPECT_CL_OK(clSetKernelArg(k, 0, sizeof gone, &gone));
  ASSERT_CL_OK(clReleaseMemObject(gone));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 0, sizeof gone, &gone));
  // A released kernel, the same way.
  cl_program prog;
  ASSERT_CL_OK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof prog, &prog, nullptr));
  cl_kernel k2 = clCreateKernel(prog, "fill_val", &err);  // not tracked: released here
  ASSERT_CL_OK(err);
  cl_mem live = makeBuffer(64, CL_MEM_READ_WRITE);
  EXPECT_CL_OK(clSetKernelArg(k2, 0, sizeof live, &live));
  EXPECT_CL_OK(clSetKernelArg(k2, 0, sizeof live, &live));
  ASSERT_CL_OK(clRetainKernel(k2));
  ASSERT_CL_OK(clReleaseKernel(k2));
  EXPECT_CL_OK(clSetKernelArg(k2, 0, sizeof live, &live));  // still one reference
  ASSERT_CL_OK(clReleaseKernel(k2));
  EXPECT_CL(CL_INVALID_KERNEL, clSetKernelArg(k2, 0, sizeof live, &live));
  // A buffer from another context.
  cl_context other = makeContext();
  cl_mem foreign = makeBuffer(64, CL_MEM_READ_WRITE, nullptr, other);
  EXPECT_CL_ANY(({CL_INVALID_MEM_OBJECT, CL_INVALID_CONTEXT}),
                clSetKernelArg(k, 0, sizeof foreign, &foreign));
}

TEST_F(Kernel, NullBufferArgAllowed) {
  cl_kernel k = commonKernel("fill_val");
  ASSERT_NE(k, nullptr);
  EXPECT_CL_OK(clSetKernelArg(k, 0, sizeof(cl_mem), nullptr));
  cl_mem none = nullptr;
  EXPECT_CL_OK(clSetKernelArg(k, 0, sizeof none, &none));
}

TEST_F(Kernel, LocalArgRules) {
  cl_kernel k = commonKernel("local_sum");  // (in, out, __local int *tmp)
  ASSERT_NE(k, nullptr);
  int v = 0;
  EXPECT_CL(CL_INVALID_ARG_VALUE, clSetKernelArg(k, 2, sizeof v, &v));
  EXPECT_CL(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 2, 0, nullptr));
  EXPECT_CL_OK(clSetKernelArg(k, 2, 64 * sizeof(int), nullptr));
  // A global pointer argument given a NULL value with a local-style size is not a local arg.
  EXPECT_CL(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, 64, nullptr));
}

TEST_F(Kernel, LocalMemoryKernelRuns) {
  cl_kernel k = commonKernel("local_sum");
  ASSERT_NE(k, nullptr);
  const size_t n = 256, lsz = 16;
  std::vector<int> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = (int)i;
  cl_mem a = makeBuffer(n * sizeof(int), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.data());
  cl_mem b = makeBuffer(n / lsz * sizeof(int));
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof a, &a));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof b, &b));
  ASSERT_CL_OK(clSetKernelArg(k, 2, lsz * sizeof(int), nullptr));
  ASSERT_CL_OK(run1D(k, n, lsz));
  std::vector<int> out(n / lsz);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, out.size() * sizeof(int), out.data(), 0,
                                   nullptr, nullptr));
  for (size_t g = 0; g < n / lsz; ++g) {
    int want = 0;
    for (size_t j = 0; j < lsz; ++j) want += (int)(g * lsz + j);
    EXPECT_EQ(out[g], want) << g;
  }
}

TEST_F(Kernel, ScalarAndVectorArgs) {
  cl_kernel k = commonKernel("sum_args");  // (long *out, char, short, int, long, float, int4)
  ASSERT_NE(k, nullptr);
  cl_mem out = makeBuffer(sizeof(cl_long));
  cl_char c = -3;
  cl_short s = 1000;
  cl_int i = 100000;
  cl_long l = 5000000000LL;
  cl_float f = 2.0f;
  cl_int4 v = {{1, 2, 3, 4}};
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof out, &out));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof c, &c));
  ASSERT_CL_OK(clSetKernelArg(k, 2, sizeof s, &s));
  ASSERT_CL_OK(clSetKernelArg(k, 3, sizeof i, &i));
  ASSERT_CL_OK(clSetKernelArg(k, 4, sizeof l, &l));
  ASSERT_CL_OK(clSetKernelArg(k, 5, sizeof f, &f));
  if (isTutti())  // PoCL 3.1 accepts a 12-byte int4
    EXPECT_CL(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 6, 12, &v));
  ASSERT_CL_OK(clSetKernelArg(k, 6, sizeof v, &v));
  ASSERT_CL_OK(run1D(k, 1));
  cl_long res = 0;
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof res, &res, 0, nullptr, nullptr));
  EXPECT_EQ(res, (cl_long)-3 + 1000 + 100000 + 5000000000LL + 2 + 10);
}

TEST_F(Kernel, ArgsCapturedAtEnqueue) {
  cl_kernel k = commonKernel("fill_val");
  ASSERT_NE(k, nullptr);
  cl_mem a = makeBuffer(16 * sizeof(int));
  cl_mem b = makeBuffer(16 * sizeof(int));
  cl_event gate = makeUserEvent();
  size_t n = 16;
  int v = 1;
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof a, &a));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof v, &v));
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 1, &gate, nullptr));
  v = 2;
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof b, &b));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof v, &v));
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr));
  ASSERT_CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  std::vector<int> ra(16), rb(16);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, a, CL_TRUE, 0, 64, ra.data(), 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, 64, rb.data(), 0, nullptr, nullptr));
  EXPECT_EQ(ra, std::vector<int>(16, 1));
  EXPECT_EQ(rb, std::vector<int>(16, 2));
}

TEST_F(Kernel, SamplerAndImageArgErrors) {
  TUTTI_ONLY();  // PoCL 3.1 accepts any object for image and sampler args
  if (!deviceInfo<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT)) GTEST_SKIP() << "no images";
  cl_program p = makeProgram(kArgKernels);
  ASSERT_NE(p, nullptr);
  cl_kernel k = makeKernel(p, "img_arg");
  cl_mem buf = makeBuffer(64);
  EXPECT_CL_ANY(({CL_INVALID_MEM_OBJECT, CL_INVALID_ARG_VALUE}),
                clSetKernelArg(k, 0, sizeof buf, &buf));
  EXPECT_CL(CL_INVALID_SAMPLER, clSetKernelArg(k, 1, sizeof buf, &buf));
  cl_int err;
  cl_sampler s = clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
  ASSERT_CL_OK(err);
  track(s);
  EXPECT_CL(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 1, 4, &s));
  EXPECT_CL_OK(clSetKernelArg(k, 1, sizeof s, &s));
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clSetKernelArg(k, 2, sizeof s, &s));
}

TEST_F(Kernel, ArgInfoWithOption) {
  bool images = deviceInfo<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT);
  cl_program p = makeProgram(images ? kArgKernels : kArgKernelsNoImages, "-cl-kernel-arg-info");
  ASSERT_NE(p, nullptr);
  cl_kernel k = makeKernel(p, "args_mix");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(argInfo<cl_kernel_arg_address_qualifier>(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            (cl_kernel_arg_address_qualifier)CL_KERNEL_ARG_ADDRESS_GLOBAL);
  EXPECT_EQ(argInfo<cl_kernel_arg_address_qualifier>(k, 2, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            (cl_kernel_arg_address_qualifier)CL_KERNEL_ARG_ADDRESS_LOCAL);
  EXPECT_EQ(argInfo<cl_kernel_arg_address_qualifier>(k, 3, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            (cl_kernel_arg_address_qualifier)CL_KERNEL_ARG_ADDRESS_CONSTANT);
  EXPECT_EQ(argInfo<cl_kernel_arg_address_qualifier>(k, 4, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            (cl_kernel_arg_address_qualifier)CL_KERNEL_ARG_ADDRESS_PRIVATE);
  EXPECT_EQ(argInfo<cl_kernel_arg_access_qualifier>(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER),
            (cl_kernel_arg_access_qualifier)CL_KERNEL_ARG_ACCESS_NONE);
  EXPECT_TRUE(argInfo<cl_kernel_arg_type_qualifier>(k, 0, CL_KERNEL_ARG_TYPE_QUALIFIER) &
              CL_KERNEL_ARG_TYPE_CONST);
  EXPECT_FALSE(argInfo<cl_kernel_arg_type_qualifier>(k, 1, CL_KERNEL_ARG_TYPE_QUALIFIER) &
               CL_KERNEL_ARG_TYPE_CONST);
  EXPECT_EQ(argString(k, 0, CL_KERNEL_ARG_TYPE_NAME), "int*");
  EXPECT_EQ(argString(k, 4, CL_KERNEL_ARG_TYPE_NAME), "int");
  EXPECT_EQ(argString(k, 5, CL_KERNEL_ARG_TYPE_NAME), "float4");
  EXPECT_EQ(argString(k, 0, CL_KERNEL_ARG_NAME), "src");
  EXPECT_EQ(argString(k, 5, CL_KERNEL_ARG_NAME), "vec");
  char buf[64];
  EXPECT_CL(CL_INVALID_ARG_INDEX,
            clGetKernelArgInfo(k, 6, CL_KERNEL_ARG_NAME, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetKernelArgInfo(k, 0, 0x7777, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, 1, buf, nullptr));
  if (images) {
    cl_kernel ki = makeKernel(p, "img_arg");
    EXPECT_EQ(argInfo<cl_kernel_arg_access_qualifier>(ki, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER),
              (cl_kernel_arg_access_qualifier)CL_KERNEL_ARG_ACCESS_READ_ONLY);
    EXPECT_EQ(argString(ki, 1, CL_KERNEL_ARG_TYPE_NAME), "sampler_t");
  }
}

TEST_F(Kernel, ArgInfoWithoutOption) {
  cl_kernel k = commonKernel("copy_buf");
  ASSERT_NE(k, nullptr);
  char buf[64];
  cl_int err = clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof buf, buf, nullptr);
  if (isTutti()) EXPECT_CL(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, err);
  else EXPECT_CL_ANY(({CL_SUCCESS, CL_KERNEL_ARG_INFO_NOT_AVAILABLE}), err);  // PoCL: always
  EXPECT_CL_ANY(({CL_INVALID_ARG_INDEX, CL_KERNEL_ARG_INFO_NOT_AVAILABLE}),
                clGetKernelArgInfo(k, 9, CL_KERNEL_ARG_NAME, sizeof buf, buf, nullptr));
}

TEST_F(Kernel, ArgInfoFromBinaryNotAvailable) {
  TUTTI_ONLY();
  // Arg info is only guaranteed for source programs built with -cl-kernel-arg-info;
  // a binary-created program may answer CL_KERNEL_ARG_INFO_NOT_AVAILABLE but must not crash.
  cl_program p = makeProgram(kCommonSource, "-cl-kernel-arg-info");
  ASSERT_NE(p, nullptr);
  cl_program q = fromBinaryOf(p);
  ASSERT_FALSE(HasFailure());
  cl_kernel k = makeKernel(q, "copy_buf");
  char buf[64];
  EXPECT_CL_ANY(({CL_SUCCESS, CL_KERNEL_ARG_INFO_NOT_AVAILABLE}),
                clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof buf, buf, nullptr));
}

// Argument info is the app's only where it asked for it with -cl-kernel-arg-info (spec:
// CL_KERNEL_ARG_INFO_NOT_AVAILABLE otherwise). Tutti builds every program with the option
// for itself and answered every query; now it answers after a build, a compile and link,
// and a binary of either that asked, and for nothing else.
TEST_F(Kernel, ArgInfoOnlyWhereTheAppAskedForIt) {
  TUTTI_ONLY();  // PoCL 3.1 answers without the option too
  auto available = [&](cl_program p) {
    cl_kernel k = makeKernel(p, "copy_buf");
    if (!k) return CL_INVALID_KERNEL;
    cl_kernel_arg_address_qualifier q = 0;
    cl_int err = clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q, nullptr);
    if (err != CL_SUCCESS) return err;
    EXPECT_EQ(q, (cl_kernel_arg_address_qualifier)CL_KERNEL_ARG_ADDRESS_GLOBAL);
    EXPECT_EQ(argString(k, 1, CL_KERNEL_ARG_NAME), "dst");
    EXPECT_EQ(argString(k, 1, CL_KERNEL_ARG_TYPE_NAME), "int*");
    return CL_SUCCESS;
  };
  auto fromSource = [&]() {
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(ctx, 1, &kCommonSource, nullptr, &err);
    EXPECT_CL_OK(err);
    track(p);
    return p;
  };
  auto compiledAndLinked = [&](const char *compileOptions) {
    cl_program obj = fromSource();
    EXPECT_CL_OK(clCompileProgram(obj, 0, nullptr, compileOptions, 0, nullptr, nullptr, nullptr,
                                  nullptr));
    cl_int err = CL_SUCCESS;
    cl_program p = clLinkProgram(ctx, 0, nullptr, nullptr, 1, &obj, nullptr, nullptr, &err);
    EXPECT_CL_OK(err);
    track(p);
    return p;
  };
  cl_program with = makeProgram(kCommonSource, "-cl-kernel-arg-info");
  cl_program without = makeProgram(kCommonSource, "-DUNUSED=1");
  EXPECT_CL_OK(available(with));
  EXPECT_CL(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, available(without));
  cl_program linkedWith = compiledAndLinked("-cl-kernel-arg-info");
  cl_program linkedWithout = compiledAndLinked(nullptr);
  EXPECT_CL_OK(available(linkedWith));
  EXPECT_CL(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, available(linkedWithout));
  EXPECT_CL_OK(available(fromBinaryOf(with)));
  EXPECT_CL(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, available(fromBinaryOf(without)));
  EXPECT_CL_OK(available(fromBinaryOf(linkedWith)));
  // A rebuild without the option takes it back.
  cl_program rebuilt = fromSource();
  ASSERT_CL_OK(clBuildProgram(rebuilt, 0, nullptr, "-cl-kernel-arg-info", nullptr, nullptr));
  ASSERT_CL_OK(clBuildProgram(rebuilt, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_CL(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, available(rebuilt));
}

TEST_F(Kernel, WorkGroupInfo) {
  cl_kernel k = commonKernel("add_one");
  cl_kernel fixed = commonKernel("wg_fixed");
  ASSERT_TRUE(k && fixed);
  size_t wgs = 0;
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wgs, &wgs,
                                        nullptr));
  EXPECT_GE(wgs, 1u);
  EXPECT_LE(wgs, deviceInfo<size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  // device may be NULL when the kernel's program has a single device.
  size_t wgs2 = 0;
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(k, nullptr, CL_KERNEL_WORK_GROUP_SIZE, sizeof wgs2, &wgs2,
                                        nullptr));
  EXPECT_EQ(wgs, wgs2);
  size_t cwgs[3] = {9, 9, 9};
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof cwgs,
                                        cwgs, nullptr));
  EXPECT_EQ(cwgs[0], 0u);
  EXPECT_EQ(cwgs[1], 0u);
  EXPECT_EQ(cwgs[2], 0u);
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(fixed, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                        sizeof cwgs, cwgs, nullptr));
  EXPECT_EQ(cwgs[0], 4u);
  EXPECT_EQ(cwgs[1], 1u);
  EXPECT_EQ(cwgs[2], 1u);
  cl_ulong lmem = 0, pmem = 0;
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem,
                                        nullptr));
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem, &pmem,
                                        nullptr));
  size_t mult = 0;
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                        sizeof mult, &mult, nullptr));
  EXPECT_GE(mult, 1u);
  size_t sz = 0;
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_LOCAL_MEM_SIZE, 0, nullptr, &sz));
  EXPECT_EQ(sz, sizeof(cl_ulong));
  // Local memory set as an argument is included.
  cl_kernel ls = commonKernel("local_sum");
  ASSERT_CL_OK(clSetKernelArg(ls, 2, 1024, nullptr));
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(ls, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem,
                                        nullptr));
  EXPECT_GE(lmem, 1024u);
  // GLOBAL_WORK_SIZE is only for custom devices / built-in kernels.
  size_t gws[3];
  EXPECT_CL(CL_INVALID_VALUE, clGetKernelWorkGroupInfo(k, device, CL_KERNEL_GLOBAL_WORK_SIZE,
                                                       sizeof gws, gws, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clGetKernelWorkGroupInfo(k, device, 0x7777, sizeof gws, gws, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clGetKernelWorkGroupInfo(k, device, CL_KERNEL_WORK_GROUP_SIZE, 1, gws, nullptr));
}

TEST_F(Kernel, WorkGroupInfoInvalidDevice) {
  TUTTI_ONLY();
  cl_kernel k = commonKernel("add_one");
  Garbage g;
  size_t wgs;
  EXPECT_CL(CL_INVALID_DEVICE, clGetKernelWorkGroupInfo(k, g.as<cl_device_id>(),
                                                        CL_KERNEL_WORK_GROUP_SIZE, sizeof wgs,
                                                        &wgs, nullptr));
}

TEST_F(Kernel, SubGroupInfoWithoutSubGroups) {
  TUTTI_ONLY();
  EXPECT_EQ(deviceInfo<cl_uint>(device, CL_DEVICE_MAX_NUM_SUB_GROUPS), 0u);
  cl_kernel k = commonKernel("add_one");
  size_t local = 8, out = 0;
  EXPECT_CL(CL_INVALID_OPERATION,
            clGetKernelSubGroupInfo(k, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                    sizeof local, &local, sizeof out, &out, nullptr));
}

TEST_F(Kernel, CloneKeepsArgsAndIsIndependent) {
  cl_kernel k = commonKernel("fill_val");
  ASSERT_NE(k, nullptr);
  cl_mem a = makeBuffer(32 * sizeof(int));
  cl_mem b = makeBuffer(32 * sizeof(int));
  int v = 5;
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof a, &a));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof v, &v));
  cl_int err;
  cl_kernel c = clCloneKernel(k, &err);
  ASSERT_CL_OK(err);
  track(c);
  char nm[32] = {0};
  ASSERT_CL_OK(clGetKernelInfo(c, CL_KERNEL_FUNCTION_NAME, sizeof nm, nm, nullptr));
  EXPECT_STREQ(nm, "fill_val");
  // The clone runs with the copied args (into a, value 5).
  ASSERT_CL_OK(run1D(c, 32));
  std::vector<int> out(32);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, a, CL_TRUE, 0, 128, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, std::vector<int>(32, 5));
  // Changing the clone's args leaves the original alone.
  int w = 9;
  ASSERT_CL_OK(clSetKernelArg(c, 0, sizeof b, &b));
  ASSERT_CL_OK(clSetKernelArg(c, 1, sizeof w, &w));
  ASSERT_CL_OK(run1D(c, 32));
  ASSERT_CL_OK(clReleaseKernel(k));  // the clone survives the original
  kernels_.erase(std::find(kernels_.begin(), kernels_.end(), k));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, 128, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, std::vector<int>(32, 9));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, a, CL_TRUE, 0, 128, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, std::vector<int>(32, 5));
  EXPECT_EQ(clCloneKernel(nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_KERNEL, err);
}

TEST_F(Kernel, InvalidKernelHandle) {
  TUTTI_ONLY();
  Garbage g;
  cl_uint v;
  int x = 0;
  EXPECT_CL(CL_INVALID_KERNEL, clGetKernelInfo(g.as<cl_kernel>(), CL_KERNEL_NUM_ARGS, sizeof v, &v,
                                               nullptr));
  EXPECT_CL(CL_INVALID_KERNEL, clSetKernelArg(g.as<cl_kernel>(), 0, sizeof x, &x));
  EXPECT_CL(CL_INVALID_KERNEL, clRetainKernel(g.as<cl_kernel>()));
  EXPECT_CL(CL_INVALID_KERNEL, clReleaseKernel(g.as<cl_kernel>()));
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCloneKernel(g.as<cl_kernel>(), &err), nullptr);
  EXPECT_CL(CL_INVALID_KERNEL, err);
  size_t n = 1;
  EXPECT_CL(CL_INVALID_KERNEL, clEnqueueNDRangeKernel(queue, g.as<cl_kernel>(), 1, nullptr, &n,
                                                      nullptr, 0, nullptr, nullptr));
}

TEST_F(Kernel, NullBufferArgRuns) {
  cl_program p = makeProgram(R"CLC(
    __kernel void maybe(__global int *opt, __global int *out) {
      out[0] = (opt == 0) ? 1 : 2;
    })CLC");
  cl_kernel k = makeKernel(p, "maybe");
  ASSERT_NE(k, nullptr);
  cl_mem out = makeBuffer(sizeof(int));
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof(cl_mem), nullptr));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof out, &out));
  ASSERT_CL_OK(run1D(k, 1));
  int v = 0;
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof v, &v, 0, nullptr, nullptr));
  EXPECT_EQ(v, 1);
}

TEST_F(Kernel, ConstantAndAliasedArgs) {
  cl_program p = makeProgram(R"CLC(
    __kernel void lut(__constant int *tbl, __global int *io) {
      size_t i = get_global_id(0);
      io[i] = tbl[io[i] & 7];
    })CLC");
  cl_kernel k = makeKernel(p, "lut");
  ASSERT_NE(k, nullptr);
  int tbl[8] = {10, 11, 12, 13, 14, 15, 16, 17};
  cl_mem t = makeBuffer(sizeof tbl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, tbl);
  std::vector<int> io(64);
  for (int i = 0; i < 64; ++i) io[i] = i;
  cl_mem b = makeBuffer(io.size() * sizeof(int), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, io.data());
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof t, &t));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof b, &b));
  ASSERT_CL_OK(run1D(k, 64));
  std::vector<int> out(64);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, 256, out.data(), 0, nullptr, nullptr));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], 10 + (i & 7));
  // The same buffer bound to two arguments (read and write of the same data).
  cl_kernel cp = commonKernel("copy_buf");
  ASSERT_CL_OK(clSetKernelArg(cp, 0, sizeof b, &b));
  ASSERT_CL_OK(clSetKernelArg(cp, 1, sizeof b, &b));
  ASSERT_CL_OK(run1D(cp, 64));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, 256, out.data(), 0, nullptr, nullptr));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], 10 + (i & 7));
}

TEST_F(Kernel, StaticLocalMemoryReported) {
  cl_program p = makeProgram(R"CLC(
    __kernel void stat(__global int *o) {
      __local int tmp[256];
      tmp[get_local_id(0)] = (int)get_local_id(0);
      barrier(CLK_LOCAL_MEM_FENCE);
      o[get_global_id(0)] = tmp[(get_local_id(0) + 1) % get_local_size(0)];
    })CLC");
  cl_kernel k = makeKernel(p, "stat");
  ASSERT_NE(k, nullptr);
  cl_ulong lmem = 0;
  ASSERT_CL_OK(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem, nullptr));
  EXPECT_GE(lmem, 256u * sizeof(int));
  cl_mem o = makeBuffer(64 * sizeof(int));
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof o, &o));
  ASSERT_CL_OK(run1D(k, 64, 16));
  std::vector<int> out(64);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, o, CL_TRUE, 0, 256, out.data(), 0, nullptr, nullptr));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], ((i % 16) + 1) % 16) << i;
}

TEST_F(Kernel, PrintfReachesStdout) {
  cl_program p = makeProgram(R"CLC(
    __kernel void say(int v) { if (get_global_id(0) == 0) printf("tutti-printf-check %d\n", v); })CLC");
  cl_kernel k = makeKernel(p, "say");
  ASSERT_NE(k, nullptr);
  int v = 4242;
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof v, &v));
  char path[] = "/tmp/tutti_api_printf_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  fflush(stdout);
  int saved = dup(1);
  dup2(fd, 1);
  cl_int err = run1D(k, 4);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  ASSERT_CL_OK(err);
  FILE *f = fopen(path, "r");
  ASSERT_NE(f, nullptr);
  char buf[4096] = {0};
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  unlink(path);
  EXPECT_NE(std::string(buf, got).find("tutti-printf-check 4242"), std::string::npos)
      << "captured: '" << std::string(buf, got) << "'";
}

TEST_F(Kernel, StructByValueArg) {
  cl_program p = makeProgram(R"CLC(
    typedef struct { int a; float b; long c; } Params;
    __kernel void st(Params prm, __global long *o) { o[0] = prm.a + (long)prm.b + prm.c; })CLC");
  cl_kernel k = makeKernel(p, "st");
  ASSERT_NE(k, nullptr);
  struct Params {
    cl_int a;
    cl_float b;
    cl_long c;
  } prm{7, 3.0f, 1000000000000LL};
  static_assert(sizeof(Params) == 16, "layout");
  cl_mem o = makeBuffer(sizeof(cl_long));
  if (isTutti())  // PoCL 3.1 accepts a wrong size for a struct argument
    EXPECT_CL(CL_INVALID_ARG_SIZE, clSetKernelArg(k, 0, 12, &prm));
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof prm, &prm));
  ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof o, &o));
  ASSERT_CL_OK(run1D(k, 1));
  cl_long r = 0;
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, o, CL_TRUE, 0, sizeof r, &r, 0, nullptr, nullptr));
  EXPECT_EQ(r, 7 + 3 + 1000000000000LL);
}

TEST_F(Kernel, ManyArguments) {
  std::string src = "__kernel void many(__global int *o";
  for (int i = 0; i < 24; ++i) src += ", int a" + std::to_string(i);
  src += ", __global const int *in) { int s = in[0];";
  for (int i = 0; i < 24; ++i) src += " s += a" + std::to_string(i) + " * " + std::to_string(i + 1) + ";";
  src += " o[0] = s; }";
  cl_program p = makeProgram(src.c_str());
  cl_kernel k = makeKernel(p, "many");
  ASSERT_NE(k, nullptr);
  cl_uint nargs = 0;
  ASSERT_CL_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr));
  EXPECT_EQ(nargs, 26u);
  cl_mem o = makeBuffer(sizeof(int));
  int base = 1000;
  cl_mem in = makeBuffer(sizeof(int), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &base);
  ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof o, &o));
  int want = base;
  for (int i = 0; i < 24; ++i) {
    int v = i + 1;
    ASSERT_CL_OK(clSetKernelArg(k, 1 + i, sizeof v, &v));
    want += v * (i + 1);
  }
  ASSERT_CL_OK(clSetKernelArg(k, 25, sizeof in, &in));
  ASSERT_CL_OK(run1D(k, 1));
  int r = 0;
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, o, CL_TRUE, 0, sizeof r, &r, 0, nullptr, nullptr));
  EXPECT_EQ(r, want);
}

// piglit's bswap.cl (v_bswap_v2u16) runs 24 work-items over ushort2[8] buffers: its
// kernel writes up to 64 bytes past a 32-byte buffer, still inside the buffer's base
// address alignment. Real devices round allocations up to that alignment (PoCL: to
// CL_DEVICE_MEM_BASE_ADDR_ALIGN), so natively the stray bytes land in padding; on the
// CPU device that works on Tutti's host home in place they overwrote the heap's next
// block (glibc aborted with "corrupted size vs. prev_size"). Many small buffers, written
// with all-ones past their end, make any such overwrite a bad chunk size glibc catches.
TEST_F(Kernel, WritesPastBufferEndWithinAlignmentKeepHeapIntact) {
  const char *src = R"CLC(
__kernel void swap_halves(__global ushort2 *out, __global const ushort2 *in, uint n) {
  uint i = get_global_id(0);
  out[i] = i < n ? in[i].yx : (ushort2)(0xffff, 0xffff);
}
)CLC";
  cl_kernel k = makeKernel(makeProgram(src), "swap_halves");
  ASSERT_NE(k, nullptr);
  const cl_uint n = 8;
  const size_t bytes = n * sizeof(cl_ushort2);
  const size_t align = deviceInfo<cl_uint>(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
  ASSERT_GE(align, 3 * bytes) << "the launch below must stay within the alignment";
  cl_ushort2 in[n];
  for (cl_uint i = 0; i < n; ++i) in[i] = {{cl_ushort(i), cl_ushort(0x100 + i)}};
  for (int round = 0; round < 64; ++round) {
    cl_int err = CL_SUCCESS;
    cl_mem bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, in, &err);
    ASSERT_CL_OK(err);
    cl_mem bout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    ASSERT_CL_OK(err);
    ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof bout, &bout));
    ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof bin, &bin));
    ASSERT_CL_OK(clSetKernelArg(k, 2, sizeof n, &n));
    ASSERT_CL_OK(run1D(k, 3 * n));
    cl_ushort2 out[n];
    ASSERT_CL_OK(clEnqueueReadBuffer(queue, bout, CL_TRUE, 0, bytes, out, 0, nullptr, nullptr));
    for (cl_uint i = 0; i < n; ++i) {
      ASSERT_EQ(out[i].s[0], 0x100 + i) << "round " << round << " element " << i;
      ASSERT_EQ(out[i].s[1], i) << "round " << round << " element " << i;
    }
    ASSERT_CL_OK(clReleaseMemObject(bin));
    ASSERT_CL_OK(clReleaseMemObject(bout));
    // Small blocks of the sizes around the homes, so a damaged neighbour is reused.
    std::vector<std::unique_ptr<char[]>> churn;
    for (int i = 0; i < 16; ++i) churn.emplace_back(new char[bytes * (1 + i % 4)]);
  }
}
