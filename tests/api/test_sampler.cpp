// test_sampler.cpp - samplers: creation (legacy and with properties), info, errors.
#include "fixture.h"

using namespace api;

namespace {

class Sampler : public ClTest {
 protected:
  bool images() { return deviceInfo<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT) == CL_TRUE; }
};

template <class T>
T samplerInfo(cl_sampler s, cl_sampler_info p) {
  T v{};
  clGetSamplerInfo(s, p, sizeof v, &v, nullptr);
  return v;
}

}  // namespace

TEST_F(Sampler, NoImageSupportMeansInvalidOperation) {
  if (images()) GTEST_SKIP() << "device supports images";
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err), nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, err);
  EXPECT_EQ(clCreateSamplerWithProperties(ctx, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, err);
}

TEST_F(Sampler, LegacyCreateAllModes) {
  if (!images()) GTEST_SKIP() << "no image support";
  const cl_addressing_mode addr[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP,
                                     CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT};
  const cl_filter_mode filt[] = {CL_FILTER_NEAREST, CL_FILTER_LINEAR};
  for (cl_bool norm : std::initializer_list<cl_bool>{CL_TRUE, CL_FALSE})
    for (cl_addressing_mode a : addr)
      for (cl_filter_mode f : filt) {
        if (!norm && (a == CL_ADDRESS_REPEAT || a == CL_ADDRESS_MIRRORED_REPEAT)) continue;
        SCOPED_TRACE(testing::Message() << norm << " " << a << " " << f);
        cl_int err;
        cl_sampler s = clCreateSampler(ctx, norm, a, f, &err);
        ASSERT_CL_OK(err);
        EXPECT_EQ(samplerInfo<cl_bool>(s, CL_SAMPLER_NORMALIZED_COORDS), norm);
        EXPECT_EQ(samplerInfo<cl_addressing_mode>(s, CL_SAMPLER_ADDRESSING_MODE), a);
        EXPECT_EQ(samplerInfo<cl_filter_mode>(s, CL_SAMPLER_FILTER_MODE), f);
        EXPECT_EQ(samplerInfo<cl_context>(s, CL_SAMPLER_CONTEXT), ctx);
        EXPECT_EQ(samplerInfo<cl_uint>(s, CL_SAMPLER_REFERENCE_COUNT), 1u);
        EXPECT_CL_OK(clReleaseSampler(s));
      }
}

TEST_F(Sampler, WithPropertiesAndEcho) {
  TUTTI_ONLY();  // PoCL 3.1 rejects this valid property list with CL_INVALID_VALUE
  if (!images()) GTEST_SKIP() << "no image support";
  cl_sampler_properties props[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_TRUE,
                                   CL_SAMPLER_ADDRESSING_MODE,  CL_ADDRESS_REPEAT,
                                   CL_SAMPLER_FILTER_MODE,      CL_FILTER_LINEAR,
                                   0};
  cl_int err;
  cl_sampler s = clCreateSamplerWithProperties(ctx, props, &err);
  ASSERT_CL_OK(err);
  track(s);
  EXPECT_EQ(samplerInfo<cl_addressing_mode>(s, CL_SAMPLER_ADDRESSING_MODE),
            (cl_addressing_mode)CL_ADDRESS_REPEAT);
  EXPECT_EQ(samplerInfo<cl_filter_mode>(s, CL_SAMPLER_FILTER_MODE), (cl_filter_mode)CL_FILTER_LINEAR);
  size_t sz = 0;
  ASSERT_CL_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, nullptr, &sz));
  ASSERT_EQ(sz, sizeof props);
  cl_sampler_properties got[7];
  ASSERT_CL_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, sz, got, nullptr));
  for (int i = 0; i < 7; ++i) EXPECT_EQ(got[i], props[i]) << i;
  // Defaults: normalized, CLAMP, NEAREST.
  cl_sampler d = clCreateSamplerWithProperties(ctx, nullptr, &err);
  ASSERT_CL_OK(err);
  track(d);
  EXPECT_EQ(samplerInfo<cl_bool>(d, CL_SAMPLER_NORMALIZED_COORDS), (cl_bool)CL_TRUE);
  EXPECT_EQ(samplerInfo<cl_addressing_mode>(d, CL_SAMPLER_ADDRESSING_MODE),
            (cl_addressing_mode)CL_ADDRESS_CLAMP);
  EXPECT_EQ(samplerInfo<cl_filter_mode>(d, CL_SAMPLER_FILTER_MODE), (cl_filter_mode)CL_FILTER_NEAREST);
  ASSERT_CL_OK(clGetSamplerInfo(d, CL_SAMPLER_PROPERTIES, 0, nullptr, &sz));
  EXPECT_EQ(sz, 0u);
}

TEST_F(Sampler, InvalidValues) {
  TUTTI_ONLY();  // PoCL 3.1 accepts unknown addressing/filter modes
  if (!images()) GTEST_SKIP() << "no image support";
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateSampler(ctx, CL_TRUE, 0x7777, CL_FILTER_NEAREST, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP, 0x7777, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  EXPECT_EQ(clCreateSampler(nullptr, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err), nullptr);
  EXPECT_CL(CL_INVALID_CONTEXT, err);
  cl_sampler_properties unknown[] = {0x7777, 1, 0};
  EXPECT_EQ(clCreateSamplerWithProperties(ctx, unknown, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  cl_sampler_properties twice[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, CL_SAMPLER_FILTER_MODE,
                                   CL_FILTER_NEAREST, 0};
  EXPECT_EQ(clCreateSamplerWithProperties(ctx, twice, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  cl_sampler_properties badAddr[] = {CL_SAMPLER_ADDRESSING_MODE, 0x7777, 0};
  EXPECT_EQ(clCreateSamplerWithProperties(ctx, badAddr, &err), nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
}

TEST_F(Sampler, InfoErrorsAndRefCount) {
  if (!images()) GTEST_SKIP() << "no image support";
  cl_int err;
  cl_sampler s = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
  ASSERT_CL_OK(err);
  ASSERT_CL_OK(clRetainSampler(s));
  EXPECT_EQ(samplerInfo<cl_uint>(s, CL_SAMPLER_REFERENCE_COUNT), 2u);
  ASSERT_CL_OK(clReleaseSampler(s));
  char buf[16];
  EXPECT_CL(CL_INVALID_VALUE, clGetSamplerInfo(s, 0x7777, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, 1, buf, nullptr));
  size_t sz = 0;
  for (cl_sampler_info p : std::initializer_list<cl_sampler_info>{CL_SAMPLER_REFERENCE_COUNT, CL_SAMPLER_CONTEXT,
                            CL_SAMPLER_NORMALIZED_COORDS, CL_SAMPLER_ADDRESSING_MODE,
                            CL_SAMPLER_FILTER_MODE}) {
    ASSERT_CL_OK(clGetSamplerInfo(s, p, 0, nullptr, &sz));
    EXPECT_EQ(sz, p == CL_SAMPLER_CONTEXT ? sizeof(cl_context) : sizeof(cl_uint)) << p;
  }
  EXPECT_CL_OK(clReleaseSampler(s));
}

TEST_F(Sampler, InvalidHandle) {
  TUTTI_ONLY();
  Garbage g;
  cl_uint v;
  EXPECT_CL(CL_INVALID_SAMPLER, clGetSamplerInfo(g.as<cl_sampler>(), CL_SAMPLER_REFERENCE_COUNT,
                                                 sizeof v, &v, nullptr));
  EXPECT_CL(CL_INVALID_SAMPLER, clRetainSampler(g.as<cl_sampler>()));
  EXPECT_CL(CL_INVALID_SAMPLER, clReleaseSampler(g.as<cl_sampler>()));
  EXPECT_CL(CL_INVALID_SAMPLER, clRetainSampler(nullptr));
}
