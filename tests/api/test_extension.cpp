// test_extension.cpp - extension function address lookups.
#include "fixture.h"

using namespace api;

namespace {

const char *kTuttiFns[] = {"tuttiGetDeviceCounters", "tuttiResetCounters", "tuttiGetEventDevice"};

bool listed(const std::string &exts, const char *name) {
  return (" " + exts + " ").find(std::string(" ") + name + " ") != std::string::npos;
}

}  // namespace

TEST(Extension, TuttiFunctionsFound) {
  TUTTI_ONLY();
  for (const char *n : kTuttiFns) {
    EXPECT_NE(clGetExtensionFunctionAddressForPlatform(env().platform, n), nullptr) << n;
    EXPECT_NE(clGetExtensionFunctionAddress(n), nullptr) << n;
  }
  // Both lookups give the same function.
  EXPECT_EQ(clGetExtensionFunctionAddressForPlatform(env().platform, "tuttiResetCounters"),
            clGetExtensionFunctionAddress("tuttiResetCounters"));
}

TEST(Extension, TuttiFunctionsAbsentNatively) {
  if (isTutti()) GTEST_SKIP() << "running under Tutti";
  for (const char *n : kTuttiFns)
    EXPECT_EQ(clGetExtensionFunctionAddressForPlatform(env().platform, n), nullptr) << n;
}

TEST(Extension, UnknownNamesReturnNull) {
  for (const char *n : {"clNoSuchFunctionKHR", "tuttiNoSuchFunction", "", "tuttiGetDeviceCounter",
                        "tuttiGetDeviceCountersX", "TUTTIGETDEVICECOUNTERS"}) {
    EXPECT_EQ(clGetExtensionFunctionAddressForPlatform(env().platform, n), nullptr) << "'" << n << "'";
    EXPECT_EQ(clGetExtensionFunctionAddress(n), nullptr) << "'" << n << "'";
  }
}

TEST(Extension, NullNameAndBadPlatform) {
  TUTTI_ONLY();
  EXPECT_EQ(clGetExtensionFunctionAddressForPlatform(env().platform, nullptr), nullptr);
  EXPECT_EQ(clGetExtensionFunctionAddress(nullptr), nullptr);
  Garbage g;
  EXPECT_EQ(clGetExtensionFunctionAddressForPlatform(g.as<cl_platform_id>(), "tuttiResetCounters"),
            nullptr);
}

TEST(Extension, AdvertisedExtensionFunctionsResolve) {
  // For every advertised extension we know the entry points of, lookups succeed.
  struct {
    const char *ext;
    const char *fn;
  } table[] = {
      {"cl_khr_icd", "clIcdGetPlatformIDsKHR"},
      {"cl_khr_create_command_queue", "clCreateCommandQueueWithPropertiesKHR"},
      {"cl_khr_il_program", "clCreateProgramWithILKHR"},
      {"cl_khr_subgroups", "clGetKernelSubGroupInfoKHR"},
      {"cl_khr_command_buffer", "clCreateCommandBufferKHR"},
      {"cl_khr_semaphore", "clCreateSemaphoreWithPropertiesKHR"},
      {"cl_khr_external_memory", "clEnqueueAcquireExternalMemObjectsKHR"},
      {"cl_khr_gl_sharing", "clGetGLContextInfoKHR"},
      {"cl_khr_suggested_local_work_size", "clGetKernelSuggestedLocalWorkSizeKHR"},
      {"cl_ext_device_fission", "clCreateSubDevicesEXT"},
      {"cl_ext_migrate_memobject", "clEnqueueMigrateMemObjectEXT"},
      {"cl_intel_unified_shared_memory", "clHostMemAllocINTEL"},
      {"cl_pocl_content_size", "clSetContentSizeBufferPoCL"},
  };
  std::string exts = platformString(env().platform, CL_PLATFORM_EXTENSIONS) + " " +
                     deviceString(env().device, CL_DEVICE_EXTENSIONS);
  for (auto &t : table) {
    if (!listed(exts, t.ext)) continue;
    SCOPED_TRACE(t.ext);
    EXPECT_NE(clGetExtensionFunctionAddressForPlatform(env().platform, t.fn), nullptr) << t.fn;
  }
}
