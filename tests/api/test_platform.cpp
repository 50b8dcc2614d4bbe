// test_platform.cpp - platform and device queries.
#include "fixture.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include <unistd.h>

using namespace api;

namespace {

enum Kind {
  K_UINT,      // cl_uint (also cl_bool, cl_version, enum types)
  K_BOOL,      // cl_bool
  K_ULONG,     // cl_ulong / cl_bitfield
  K_SIZE,      // size_t
  K_STRING,    // char[]
  K_PLATFORM,  // cl_platform_id
  K_DEVICE,    // cl_device_id (may be NULL)
  K_SIZE_ARR,  // size_t[MAX_WORK_ITEM_DIMENSIONS]
  K_PROP_ARR,  // cl_device_partition_property[] (may be empty)
  K_NV_ARR,    // cl_name_version[] (may be empty)
};

struct DevParam {
  cl_device_info id;
  const char *name;
  Kind kind;
};

#define P(x, k) {x, #x, k}
const DevParam kDeviceParams[] = {
    P(CL_DEVICE_TYPE, K_ULONG),
    P(CL_DEVICE_VENDOR_ID, K_UINT),
    P(CL_DEVICE_MAX_COMPUTE_UNITS, K_UINT),
    P(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, K_UINT),
    P(CL_DEVICE_MAX_WORK_GROUP_SIZE, K_SIZE),
    P(CL_DEVICE_MAX_WORK_ITEM_SIZES, K_SIZE_ARR),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, K_UINT),
    P(CL_DEVICE_MAX_CLOCK_FREQUENCY, K_UINT),
    P(CL_DEVICE_ADDRESS_BITS, K_UINT),
    P(CL_DEVICE_MAX_MEM_ALLOC_SIZE, K_ULONG),
    P(CL_DEVICE_IMAGE_SUPPORT, K_BOOL),
    P(CL_DEVICE_MAX_READ_IMAGE_ARGS, K_UINT),
    P(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, K_UINT),
    P(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, K_UINT),
    P(CL_DEVICE_IL_VERSION, K_STRING),
    P(CL_DEVICE_ILS_WITH_VERSION, K_NV_ARR),
    P(CL_DEVICE_IMAGE2D_MAX_WIDTH, K_SIZE),
    P(CL_DEVICE_IMAGE2D_MAX_HEIGHT, K_SIZE),
    P(CL_DEVICE_IMAGE3D_MAX_WIDTH, K_SIZE),
    P(CL_DEVICE_IMAGE3D_MAX_HEIGHT, K_SIZE),
    P(CL_DEVICE_IMAGE3D_MAX_DEPTH, K_SIZE),
    P(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, K_SIZE),
    P(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, K_SIZE),
    P(CL_DEVICE_MAX_SAMPLERS, K_UINT),
    P(CL_DEVICE_IMAGE_PITCH_ALIGNMENT, K_UINT),
    P(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, K_UINT),
    P(CL_DEVICE_MAX_PIPE_ARGS, K_UINT),
    P(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, K_UINT),
    P(CL_DEVICE_PIPE_MAX_PACKET_SIZE, K_UINT),
    P(CL_DEVICE_MAX_PARAMETER_SIZE, K_SIZE),
    P(CL_DEVICE_MEM_BASE_ADDR_ALIGN, K_UINT),
    P(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, K_UINT),
    P(CL_DEVICE_SINGLE_FP_CONFIG, K_ULONG),
    P(CL_DEVICE_DOUBLE_FP_CONFIG, K_ULONG),
    P(CL_DEVICE_HALF_FP_CONFIG, K_ULONG),
    P(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, K_UINT),
    P(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, K_UINT),
    P(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, K_ULONG),
    P(CL_DEVICE_GLOBAL_MEM_SIZE, K_ULONG),
    P(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, K_ULONG),
    P(CL_DEVICE_MAX_CONSTANT_ARGS, K_UINT),
    P(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, K_SIZE),
    P(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, K_SIZE),
    P(CL_DEVICE_LOCAL_MEM_TYPE, K_UINT),
    P(CL_DEVICE_LOCAL_MEM_SIZE, K_ULONG),
    P(CL_DEVICE_ERROR_CORRECTION_SUPPORT, K_BOOL),
    P(CL_DEVICE_HOST_UNIFIED_MEMORY, K_BOOL),
    P(CL_DEVICE_PROFILING_TIMER_RESOLUTION, K_SIZE),
    P(CL_DEVICE_ENDIAN_LITTLE, K_BOOL),
    P(CL_DEVICE_AVAILABLE, K_BOOL),
    P(CL_DEVICE_COMPILER_AVAILABLE, K_BOOL),
    P(CL_DEVICE_LINKER_AVAILABLE, K_BOOL),
    P(CL_DEVICE_EXECUTION_CAPABILITIES, K_ULONG),
    P(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, K_ULONG),
    P(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, K_ULONG),
    P(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, K_UINT),
    P(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, K_UINT),
    P(CL_DEVICE_MAX_ON_DEVICE_QUEUES, K_UINT),
    P(CL_DEVICE_MAX_ON_DEVICE_EVENTS, K_UINT),
    P(CL_DEVICE_BUILT_IN_KERNELS, K_STRING),
    P(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, K_NV_ARR),
    P(CL_DEVICE_PLATFORM, K_PLATFORM),
    P(CL_DEVICE_NAME, K_STRING),
    P(CL_DEVICE_VENDOR, K_STRING),
    P(CL_DRIVER_VERSION, K_STRING),
    P(CL_DEVICE_PROFILE, K_STRING),
    P(CL_DEVICE_VERSION, K_STRING),
    P(CL_DEVICE_NUMERIC_VERSION, K_UINT),
    P(CL_DEVICE_OPENCL_C_VERSION, K_STRING),
    P(CL_DEVICE_OPENCL_C_ALL_VERSIONS, K_NV_ARR),
    P(CL_DEVICE_OPENCL_C_FEATURES, K_NV_ARR),
    P(CL_DEVICE_EXTENSIONS, K_STRING),
    P(CL_DEVICE_EXTENSIONS_WITH_VERSION, K_NV_ARR),
    P(CL_DEVICE_PRINTF_BUFFER_SIZE, K_SIZE),
    P(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, K_BOOL),
    P(CL_DEVICE_PARENT_DEVICE, K_DEVICE),
    P(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, K_UINT),
    P(CL_DEVICE_PARTITION_PROPERTIES, K_PROP_ARR),
    P(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, K_ULONG),
    P(CL_DEVICE_PARTITION_TYPE, K_PROP_ARR),
    P(CL_DEVICE_REFERENCE_COUNT, K_UINT),
    P(CL_DEVICE_SVM_CAPABILITIES, K_ULONG),
    P(CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, K_UINT),
    P(CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, K_UINT),
    P(CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, K_UINT),
    P(CL_DEVICE_MAX_NUM_SUB_GROUPS, K_UINT),
    P(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, K_BOOL),
    P(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, K_ULONG),
    P(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, K_ULONG),
    P(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, K_BOOL),
    P(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, K_BOOL),
    P(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, K_BOOL),
    P(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, K_ULONG),
    P(CL_DEVICE_PIPE_SUPPORT, K_BOOL),
    P(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, K_SIZE),
    P(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, K_STRING),
};

struct PlatParam {
  cl_platform_info id;
  const char *name;
  Kind kind;
};
const PlatParam kPlatformParams[] = {
    P(CL_PLATFORM_PROFILE, K_STRING),
    P(CL_PLATFORM_VERSION, K_STRING),
    P(CL_PLATFORM_NUMERIC_VERSION, K_UINT),
    P(CL_PLATFORM_NAME, K_STRING),
    P(CL_PLATFORM_VENDOR, K_STRING),
    P(CL_PLATFORM_EXTENSIONS, K_STRING),
    P(CL_PLATFORM_EXTENSIONS_WITH_VERSION, K_NV_ARR),
    P(CL_PLATFORM_HOST_TIMER_RESOLUTION, K_ULONG),
};
#undef P

size_t fixedSize(Kind k) {
  switch (k) {
    case K_UINT:
      return sizeof(cl_uint);
    case K_BOOL:
      return sizeof(cl_bool);
    case K_ULONG:
      return sizeof(cl_ulong);
    case K_SIZE:
      return sizeof(size_t);
    case K_PLATFORM:
      return sizeof(cl_platform_id);
    case K_DEVICE:
      return sizeof(cl_device_id);
    default:
      return 0;
  }
}

std::vector<cl_device_id> allDevices(cl_platform_id p, cl_device_type t = CL_DEVICE_TYPE_ALL) {
  cl_uint n = 0;
  if (clGetDeviceIDs(p, t, 0, nullptr, &n) != CL_SUCCESS) return {};
  std::vector<cl_device_id> d(n);
  clGetDeviceIDs(p, t, n, d.data(), nullptr);
  return d;
}

bool hasToken(const std::string &list, const std::string &tok) {
  size_t pos = 0;
  while ((pos = list.find(tok, pos)) != std::string::npos) {
    bool startOk = pos == 0 || list[pos - 1] == ' ';
    bool endOk = pos + tok.size() == list.size() || list[pos + tok.size()] == ' ';
    if (startOk && endOk) return true;
    pos += tok.size();
  }
  return false;
}

}  // namespace

// ---------------------------------------------------------------------------
// Platforms
// ---------------------------------------------------------------------------
// Under ctest the suite runs with libtutti.so preloaded. If the preload fails (a bad path,
// a library that does not load), the app sees the native platform and every Tutti-specific
// test would skip: this test fails instead. The platform name alone could be faked by any
// ICD, so the extension only libtutti exports must resolve too.
TEST(Platform, PreloadedTuttiIsActive) {
  if (!expectTutti()) GTEST_SKIP() << "native run (TUTTI_API_EXPECT_TUTTI is not 1)";
  ASSERT_TRUE(isTutti()) << "the first platform is '" << env().platformName
                         << "', not Tutti: LD_PRELOAD of libtutti.so did not take effect";
  EXPECT_NE(clGetExtensionFunctionAddressForPlatform(env().platform, "tuttiGetDeviceCounters"),
            nullptr);
}

TEST(Platform, GetPlatformIDsCountAndList) {
  cl_uint n = 0;
  ASSERT_CL_OK(clGetPlatformIDs(0, nullptr, &n));
  ASSERT_GE(n, 1u);
  std::vector<cl_platform_id> ps(n, nullptr);
  cl_uint n2 = 0;
  ASSERT_CL_OK(clGetPlatformIDs(n, ps.data(), &n2));
  EXPECT_EQ(n, n2);
  for (auto p : ps) EXPECT_NE(p, nullptr);
  // Asking for fewer entries than exist fills only those.
  cl_platform_id one = nullptr;
  ASSERT_CL_OK(clGetPlatformIDs(1, &one, nullptr));
  EXPECT_EQ(one, ps[0]);
}

TEST(Platform, TuttiShowsExactlyOnePlatform) {
  TUTTI_ONLY();
  cl_uint n = 0;
  ASSERT_CL_OK(clGetPlatformIDs(0, nullptr, &n));
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(platformString(env().platform, CL_PLATFORM_NAME), "Tutti");
}

TEST(Platform, GetPlatformIDsInvalidArgs) {
  cl_platform_id p = nullptr;
  EXPECT_CL(CL_INVALID_VALUE, clGetPlatformIDs(0, &p, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetPlatformIDs(0, nullptr, nullptr));
  cl_uint n = 0;
  EXPECT_CL(CL_INVALID_VALUE, clGetPlatformIDs(0, &p, &n));
}

TEST(Platform, EveryParamAnswersWithCorrectSize) {
  cl_platform_id p = env().platform;
  for (const PlatParam &pp : kPlatformParams) {
    SCOPED_TRACE(pp.name);
    size_t sz = 0;
    ASSERT_CL_OK(clGetPlatformInfo(p, pp.id, 0, nullptr, &sz));
    size_t fs = fixedSize(pp.kind);
    if (fs) {
      EXPECT_EQ(sz, fs);
    } else if (pp.kind == K_STRING) {
      ASSERT_GE(sz, 1u);
    } else if (pp.kind == K_NV_ARR) {
      EXPECT_EQ(sz % sizeof(cl_name_version), 0u);
    }
    std::vector<unsigned char> buf(sz + 16, 0xCD);
    size_t sz2 = 0;
    if (sz) {
      ASSERT_CL_OK(clGetPlatformInfo(p, pp.id, sz, buf.data(), &sz2));
      EXPECT_EQ(sz, sz2);
      if (pp.kind == K_STRING) EXPECT_EQ(buf[sz - 1], 0) << "string not NUL-terminated";
      EXPECT_EQ(buf[sz], 0xCD) << "wrote past param_value_size";
      // Size too small -> CL_INVALID_VALUE.
      EXPECT_CL(CL_INVALID_VALUE, clGetPlatformInfo(p, pp.id, sz - 1, buf.data(), nullptr));
    }
    // NULL value and NULL size_ret together are fine.
    EXPECT_CL_OK(clGetPlatformInfo(p, pp.id, 0, nullptr, nullptr));
  }
}

TEST(Platform, VersionStringsWellFormed) {
  cl_platform_id p = env().platform;
  std::string ver = platformString(p, CL_PLATFORM_VERSION);
  EXPECT_EQ(ver.rfind("OpenCL ", 0), 0u) << ver;
  std::string prof = platformString(p, CL_PLATFORM_PROFILE);
  EXPECT_TRUE(prof == "FULL_PROFILE" || prof == "EMBEDDED_PROFILE") << prof;
  cl_version nv = 0;
  ASSERT_CL_OK(clGetPlatformInfo(p, CL_PLATFORM_NUMERIC_VERSION, sizeof nv, &nv, nullptr));
  EXPECT_GE(CL_VERSION_MAJOR(nv), 1u);
  // Extensions-with-version agrees with the extension string.
  std::string ext = platformString(p, CL_PLATFORM_EXTENSIONS);
  size_t sz = 0;
  ASSERT_CL_OK(clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION, 0, nullptr, &sz));
  std::vector<cl_name_version> nvs(sz / sizeof(cl_name_version));
  if (sz)
    ASSERT_CL_OK(
        clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION, sz, nvs.data(), nullptr));
  for (auto &e : nvs) EXPECT_TRUE(hasToken(ext, e.name)) << e.name << " not in '" << ext << "'";
}

TEST(Platform, TuttiPlatformIsOpenCL30) {
  TUTTI_ONLY();
  std::string ver = platformString(env().platform, CL_PLATFORM_VERSION);
  EXPECT_EQ(ver.rfind("OpenCL 3.0", 0), 0u) << ver;
  cl_version nv = 0;
  ASSERT_CL_OK(
      clGetPlatformInfo(env().platform, CL_PLATFORM_NUMERIC_VERSION, sizeof nv, &nv, nullptr));
  EXPECT_EQ(CL_VERSION_MAJOR(nv), 3u);
  EXPECT_EQ(CL_VERSION_MINOR(nv), 0u);
}

TEST(Platform, InvalidParamName) {
  char buf[64];
  EXPECT_CL(CL_INVALID_VALUE, clGetPlatformInfo(env().platform, 0x7777, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetPlatformInfo(env().platform, CL_DEVICE_NAME, sizeof buf, buf,
                                                nullptr));
}

TEST(Platform, InvalidPlatformHandle) {
  TUTTI_ONLY();
  char buf[64];
  Garbage g;
  EXPECT_CL(CL_INVALID_PLATFORM,
            clGetPlatformInfo(g.as<cl_platform_id>(), CL_PLATFORM_NAME, sizeof buf, buf, nullptr));
  cl_uint n = 0;
  EXPECT_CL(CL_INVALID_PLATFORM,
            clGetDeviceIDs(g.as<cl_platform_id>(), CL_DEVICE_TYPE_ALL, 0, nullptr, &n));
}

TEST(Platform, UnloadPlatformCompiler) {
  EXPECT_CL_OK(clUnloadPlatformCompiler(env().platform));
  // The compiler is reloaded on demand: building still works afterwards.
  cl_int err;
  cl_device_id d = env().device;
  cl_context c = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  const char *src = "__kernel void k(__global int *a) { a[0] = 1; }";
  cl_program p = clCreateProgramWithSource(c, 1, &src, nullptr, &err);
  ASSERT_CL_OK(err);
  EXPECT_CL_OK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
  clReleaseProgram(p);
  clReleaseContext(c);
}

TEST(Platform, UnloadPlatformCompilerInvalidPlatform) {
  TUTTI_ONLY();
  Garbage g;
  EXPECT_CL(CL_INVALID_PLATFORM, clUnloadPlatformCompiler(g.as<cl_platform_id>()));
}

TEST(Platform, HostTimer) {
  cl_ulong res = 0;
  ASSERT_CL_OK(clGetPlatformInfo(env().platform, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof res,
                                 &res, nullptr));
  cl_ulong h1 = 0, h2 = 0, d1 = 0;
  if (res == 0) {
    // Spec: host/device timer sync not supported -> CL_INVALID_OPERATION.
    EXPECT_CL(CL_INVALID_OPERATION, clGetHostTimer(env().device, &h1));
    EXPECT_CL(CL_INVALID_OPERATION, clGetDeviceAndHostTimer(env().device, &d1, &h1));
    return;
  }
  ASSERT_CL_OK(clGetHostTimer(env().device, &h1));
  ASSERT_CL_OK(clGetDeviceAndHostTimer(env().device, &d1, &h2));
  EXPECT_GE(h2, h1);
  EXPECT_CL(CL_INVALID_VALUE, clGetHostTimer(env().device, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetDeviceAndHostTimer(env().device, nullptr, &h1));
  EXPECT_CL(CL_INVALID_VALUE, clGetDeviceAndHostTimer(env().device, &d1, nullptr));
}

// ---------------------------------------------------------------------------
// Devices
// ---------------------------------------------------------------------------
TEST(Device, GetDeviceIDsAll) {
  auto ds = allDevices(env().platform);
  ASSERT_GE(ds.size(), 1u);
  for (auto d : ds) EXPECT_NE(d, nullptr);
  // Partial fill with num_devices reporting the total.
  cl_device_id one = nullptr;
  cl_uint n = 0;
  ASSERT_CL_OK(clGetDeviceIDs(env().platform, CL_DEVICE_TYPE_ALL, 1, &one, &n));
  EXPECT_EQ(one, ds[0]);
  EXPECT_EQ(n, ds.size());
}

TEST(Device, TuttiOneDeviceForDefaultAllAndItsType) {
  TUTTI_ONLY();
  cl_platform_id p = env().platform;
  for (cl_device_type t : std::initializer_list<cl_device_type>{CL_DEVICE_TYPE_DEFAULT, CL_DEVICE_TYPE_ALL}) {
    cl_uint n = 0;
    ASSERT_CL_OK(clGetDeviceIDs(p, t, 0, nullptr, &n));
    EXPECT_EQ(n, 1u) << "type " << t;
  }
  cl_device_type own = env().deviceType;
  std::string want = getEnv("TUTTI_DEVICE_TYPE");
  cl_device_type expected = CL_DEVICE_TYPE_GPU;
  if (want == "cpu") expected = CL_DEVICE_TYPE_CPU;
  if (want == "accelerator") expected = CL_DEVICE_TYPE_ACCELERATOR;
  EXPECT_EQ(own & ~(cl_device_type)CL_DEVICE_TYPE_DEFAULT, expected)
      << "TUTTI_DEVICE_TYPE='" << want << "'";
  for (cl_device_type t : std::initializer_list<cl_device_type>{CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR,
                           CL_DEVICE_TYPE_CUSTOM}) {
    cl_uint n = 77;
    cl_device_id d = nullptr;
    if (own & t) {
      ASSERT_CL_OK(clGetDeviceIDs(p, t, 1, &d, &n));
      EXPECT_EQ(n, 1u);
      EXPECT_EQ(d, env().device);
    } else {
      EXPECT_CL(CL_DEVICE_NOT_FOUND, clGetDeviceIDs(p, t, 1, &d, &n)) << "type " << t;
      EXPECT_CL(CL_DEVICE_NOT_FOUND, clGetDeviceIDs(p, t, 0, nullptr, &n)) << "type " << t;
    }
  }
}

TEST(Device, NativeTypesConsistent) {
  // Every device returned for a type has that type bit (works natively too).
  for (cl_device_type t : std::initializer_list<cl_device_type>{CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR}) {
    cl_uint n = 0;
    cl_int err = clGetDeviceIDs(env().platform, t, 0, nullptr, &n);
    if (err == CL_DEVICE_NOT_FOUND) continue;
    ASSERT_CL_OK(err);
    for (auto d : allDevices(env().platform, t))
      EXPECT_TRUE(deviceInfo<cl_device_type>(d, CL_DEVICE_TYPE) & t);
  }
}

TEST(Device, GetDeviceIDsInvalidArgs) {
  cl_platform_id p = env().platform;
  cl_device_id d = nullptr;
  cl_uint n = 0;
  EXPECT_CL(CL_INVALID_VALUE, clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, &d, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, &d, &n));
  EXPECT_CL(CL_INVALID_VALUE, clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, nullptr));
}

TEST(Device, GetDeviceIDsInvalidType) {
  TUTTI_ONLY();  // PoCL 3.1 answers CL_DEVICE_NOT_FOUND
  cl_device_id d = nullptr;
  EXPECT_CL(CL_INVALID_DEVICE_TYPE,
            clGetDeviceIDs(env().platform, (cl_device_type)1 << 40, 1, &d, nullptr));
}

TEST(Device, EveryParamAnswersWithCorrectSize) {
  cl_device_id d = env().device;
  cl_uint dims = deviceInfo<cl_uint>(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  ASSERT_GE(dims, 3u);
  std::string ext = deviceString(d, CL_DEVICE_EXTENSIONS);
  for (const DevParam &dp : kDeviceParams) {
    SCOPED_TRACE(dp.name);
    size_t sz = 0;
    cl_int err = clGetDeviceInfo(d, dp.id, 0, nullptr, &sz);
    if (dp.id == CL_DEVICE_HALF_FP_CONFIG && err == CL_INVALID_VALUE &&
        !hasToken(ext, "cl_khr_fp16"))
      continue;  // only defined with cl_khr_fp16
    ASSERT_CL_OK(err);
    size_t fs = fixedSize(dp.kind);
    switch (dp.kind) {
      case K_STRING:
        ASSERT_GE(sz, 1u);
        break;
      case K_SIZE_ARR:
        EXPECT_EQ(sz, dims * sizeof(size_t));
        break;
      case K_PROP_ARR:
        EXPECT_EQ(sz % sizeof(cl_device_partition_property), 0u);
        break;
      case K_NV_ARR:
        EXPECT_EQ(sz % sizeof(cl_name_version), 0u);
        break;
      default:
        if (isTutti() || sz == fs) {
          EXPECT_EQ(sz, fs);
        } else {
          // Known native quirk (PoCL 3.1: CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES is 4 bytes).
          std::printf("[native quirk] %s answers %zu bytes, spec type has %zu\n", dp.name, sz, fs);
          continue;
        }
    }
    std::vector<unsigned char> buf(sz + 16, 0xCD);
    size_t sz2 = 0;
    if (sz) {
      ASSERT_CL_OK(clGetDeviceInfo(d, dp.id, sz, buf.data(), &sz2));
      EXPECT_EQ(sz, sz2);
      EXPECT_EQ(buf[sz], 0xCD) << "wrote past param_value_size";
      if (dp.kind == K_STRING) EXPECT_EQ(buf[sz - 1], 0) << "string not NUL-terminated";
      if (dp.kind == K_BOOL) {
        cl_bool b;
        memcpy(&b, buf.data(), sizeof b);
        EXPECT_TRUE(b == CL_TRUE || b == CL_FALSE) << b;
      }
      // One byte too small -> CL_INVALID_VALUE.
      EXPECT_CL(CL_INVALID_VALUE, clGetDeviceInfo(d, dp.id, sz - 1, buf.data(), nullptr));
    }
    EXPECT_CL_OK(clGetDeviceInfo(d, dp.id, 0, nullptr, nullptr));
  }
}

TEST(Device, InvalidParamName) {
  char buf[256];
  EXPECT_CL(CL_INVALID_VALUE, clGetDeviceInfo(env().device, 0x7777, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clGetDeviceInfo(env().device, CL_PLATFORM_NAME, sizeof buf, buf, nullptr));
}

TEST(Device, SaneValues) {
  cl_device_id d = env().device;
  EXPECT_EQ(deviceInfo<cl_platform_id>(d, CL_DEVICE_PLATFORM), env().platform);
  EXPECT_EQ(deviceInfo<cl_device_id>(d, CL_DEVICE_PARENT_DEVICE), nullptr);
  EXPECT_EQ(deviceInfo<cl_bool>(d, CL_DEVICE_AVAILABLE), CL_TRUE);
  EXPECT_EQ(deviceInfo<cl_bool>(d, CL_DEVICE_COMPILER_AVAILABLE), CL_TRUE);
  EXPECT_EQ(deviceInfo<cl_bool>(d, CL_DEVICE_LINKER_AVAILABLE), CL_TRUE);
  EXPECT_GE(deviceInfo<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS), 1u);
  EXPECT_GE(deviceInfo<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE), 1u);
  cl_uint bits = deviceInfo<cl_uint>(d, CL_DEVICE_ADDRESS_BITS);
  EXPECT_TRUE(bits == 32 || bits == 64) << bits;
  cl_ulong glob = deviceInfo<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  cl_ulong alloc = deviceInfo<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  EXPECT_GT(glob, 0u);
  // Spec minimum: max(min(1 GiB, GLOBAL_MEM_SIZE / 4), 32 MiB).
  cl_ulong minAlloc = std::max<cl_ulong>(std::min<cl_ulong>(1ull << 30, glob / 4), 32ull << 20);
  EXPECT_GE(alloc, std::min(minAlloc, glob));
  EXPECT_LE(alloc, glob);
  size_t sizes[3] = {0, 0, 0};
  ASSERT_CL_OK(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes, nullptr));
  for (size_t s : sizes) EXPECT_GE(s, 1u);
  cl_uint align = deviceInfo<cl_uint>(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
  EXPECT_GE(align, 8u * sizeof(cl_long16));  // spec minimum: size of long16 in bits
  std::string ver = deviceString(d, CL_DEVICE_VERSION);
  EXPECT_EQ(ver.rfind("OpenCL ", 0), 0u) << ver;
  std::string cver = deviceString(d, CL_DEVICE_OPENCL_C_VERSION);
  EXPECT_EQ(cver.rfind("OpenCL C ", 0), 0u) << cver;
  cl_command_queue_properties qp =
      deviceInfo<cl_command_queue_properties>(d, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
  EXPECT_TRUE(qp & CL_QUEUE_PROFILING_ENABLE);
  EXPECT_TRUE(deviceInfo<cl_device_exec_capabilities>(d, CL_DEVICE_EXECUTION_CAPABILITIES) &
              CL_EXEC_KERNEL);
  // Deprecated alias answers the same.
  EXPECT_EQ(deviceInfo<cl_command_queue_properties>(d, CL_DEVICE_QUEUE_PROPERTIES), qp);
  EXPECT_EQ(deviceInfo<cl_uint>(d, CL_DEVICE_REFERENCE_COUNT), 1u);
}

// Apps size their data from these two values: reporting all of the host's memory (as
// both) made them swap or hang. TUTTI_GLOBAL_MEM_MB sets the first.
TEST(Device, MemorySizesLeaveHostMemoryForTheAppAndOs) {
  TUTTI_ONLY();
  cl_device_id d = env().device;
  cl_ulong glob = deviceInfo<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  cl_ulong alloc = deviceInfo<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  std::string set = getEnv("TUTTI_GLOBAL_MEM_MB");
  if (!set.empty() && set != "0") {
    EXPECT_EQ(glob, std::strtoull(set.c_str(), nullptr, 10) << 20);
  } else {
    cl_ulong host = cl_ulong(sysconf(_SC_PHYS_PAGES)) * cl_ulong(sysconf(_SC_PAGESIZE));
    EXPECT_LE(glob, host - host / 4) << "a quarter of " << host << " bytes stays free";
    EXPECT_LT(alloc, glob) << "one buffer is bounded as on a real device";
  }
  EXPECT_LE(alloc, glob);
  EXPECT_GE(alloc, std::max<cl_ulong>(std::min<cl_ulong>(1ull << 30, glob / 4), 32ull << 20));
  // The bound is enforced: a buffer one byte larger is refused.
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  EXPECT_EQ(clCreateBuffer(ctx, CL_MEM_READ_WRITE, size_t(alloc) + 1, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_BUFFER_SIZE, err);
  clReleaseContext(ctx);
}

TEST(Device, TuttiDeviceProperties) {
  TUTTI_ONLY();
  cl_device_id d = env().device;
  std::string ver = deviceString(d, CL_DEVICE_VERSION);
  EXPECT_EQ(ver.rfind("OpenCL 3.0", 0), 0u) << ver;
  cl_version nv = deviceInfo<cl_version>(d, CL_DEVICE_NUMERIC_VERSION);
  EXPECT_EQ(CL_VERSION_MAJOR(nv), 3u);
  // Unsupported optional features.
  EXPECT_EQ(deviceInfo<cl_device_svm_capabilities>(d, CL_DEVICE_SVM_CAPABILITIES), 0u);
  EXPECT_EQ(deviceInfo<cl_bool>(d, CL_DEVICE_PIPE_SUPPORT), CL_FALSE);
  EXPECT_EQ(deviceInfo<cl_uint>(d, CL_DEVICE_MAX_PIPE_ARGS), 0u);
  EXPECT_EQ(deviceInfo<cl_device_device_enqueue_capabilities>(
                d, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES),
            0u);
  EXPECT_EQ(deviceInfo<cl_uint>(d, CL_DEVICE_MAX_ON_DEVICE_QUEUES), 0u);
  EXPECT_EQ(deviceInfo<cl_command_queue_properties>(d, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES), 0u);
  EXPECT_EQ(deviceInfo<cl_uint>(d, CL_DEVICE_PARTITION_MAX_SUB_DEVICES), 0u);
  EXPECT_EQ(deviceString(d, CL_DEVICE_IL_VERSION), "");
  size_t sz = 1;
  ASSERT_CL_OK(clGetDeviceInfo(d, CL_DEVICE_ILS_WITH_VERSION, 0, nullptr, &sz));
  EXPECT_EQ(sz, 0u);
  // No sharing extensions.
  std::string ext = deviceString(d, CL_DEVICE_EXTENSIONS);
  for (const char *e : {"cl_khr_gl_sharing", "cl_khr_gl_event", "cl_khr_d3d10_sharing",
                        "cl_khr_d3d11_sharing", "cl_khr_dx9_media_sharing", "cl_khr_egl_image",
                        "cl_khr_egl_event", "cl_khr_il_program", "cl_khr_device_enqueue_local_arg_types"})
    EXPECT_FALSE(hasToken(ext, e)) << e;
}

TEST(Device, OpenCL30FeatureQueriesConsistent) {
  cl_device_id d = env().device;
  // Extensions-with-version agrees with the extension string.
  std::string ext = deviceString(d, CL_DEVICE_EXTENSIONS);
  size_t sz = 0;
  ASSERT_CL_OK(clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, nullptr, &sz));
  std::vector<cl_name_version> nvs(sz / sizeof(cl_name_version));
  if (sz) ASSERT_CL_OK(clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS_WITH_VERSION, sz, nvs.data(), nullptr));
  for (auto &e : nvs) EXPECT_TRUE(hasToken(ext, e.name)) << e.name;
  // OpenCL C 1.2 is always among the supported versions of a 3.0 device.
  ASSERT_CL_OK(clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, nullptr, &sz));
  std::vector<cl_name_version> cv(sz / sizeof(cl_name_version));
  if (sz) ASSERT_CL_OK(clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS, sz, cv.data(), nullptr));
  bool has12 = false;
  for (auto &v : cv)
    if (CL_VERSION_MAJOR(v.version) == 1 && CL_VERSION_MINOR(v.version) == 2) has12 = true;
  EXPECT_TRUE(has12);
  // A device that supports images reports the images feature macro.
  if (deviceInfo<cl_bool>(d, CL_DEVICE_IMAGE_SUPPORT)) {
    ASSERT_CL_OK(clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_FEATURES, 0, nullptr, &sz));
    std::vector<cl_name_version> fv(sz / sizeof(cl_name_version));
    if (sz) ASSERT_CL_OK(clGetDeviceInfo(d, CL_DEVICE_OPENCL_C_FEATURES, sz, fv.data(), nullptr));
    bool img = false;
    for (auto &f : fv)
      if (std::string(f.name) == "__opencl_c_images") img = true;
    EXPECT_TRUE(img);
  }
}

TEST(Device, RetainReleaseRootDevice) {
  cl_device_id d = env().device;
  EXPECT_CL_OK(clRetainDevice(d));
  EXPECT_CL_OK(clReleaseDevice(d));
  // Root devices are not reference counted: extra releases are harmless.
  EXPECT_CL_OK(clReleaseDevice(d));
  EXPECT_EQ(deviceInfo<cl_uint>(d, CL_DEVICE_REFERENCE_COUNT), 1u);
}

TEST(Device, InvalidDeviceHandle) {
  TUTTI_ONLY();
  Garbage g;
  char buf[64];
  EXPECT_CL(CL_INVALID_DEVICE,
            clGetDeviceInfo(g.as<cl_device_id>(), CL_DEVICE_NAME, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_DEVICE, clGetDeviceInfo(nullptr, CL_DEVICE_NAME, sizeof buf, buf, nullptr));
  EXPECT_CL(CL_INVALID_DEVICE, clRetainDevice(g.as<cl_device_id>()));
  EXPECT_CL(CL_INVALID_DEVICE, clReleaseDevice(g.as<cl_device_id>()));
  EXPECT_CL(CL_INVALID_DEVICE, clRetainDevice(nullptr));
  EXPECT_CL(CL_INVALID_DEVICE, clReleaseDevice(nullptr));
}

TEST(Device, CreateSubDevicesUnsupported) {
  TUTTI_ONLY();
  cl_device_id d = env().device;
  cl_device_id out[4];
  cl_uint n = 0;
  const cl_device_partition_property eq[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  EXPECT_CL_ANY(({CL_INVALID_VALUE, CL_DEVICE_PARTITION_FAILED}),
                clCreateSubDevices(d, eq, 4, out, &n));
  const cl_device_partition_property cnt[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1, 1,
                                              CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  EXPECT_CL_ANY(({CL_INVALID_VALUE, CL_DEVICE_PARTITION_FAILED}),
                clCreateSubDevices(d, cnt, 4, out, &n));
  const cl_device_partition_property aff[] = {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
                                              CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0};
  EXPECT_CL_ANY(({CL_INVALID_VALUE, CL_DEVICE_PARTITION_FAILED}),
                clCreateSubDevices(d, aff, 4, out, &n));
  // Partition properties query says "none".
  size_t sz = 0;
  ASSERT_CL_OK(clGetDeviceInfo(d, CL_DEVICE_PARTITION_PROPERTIES, 0, nullptr, &sz));
  if (sz) {
    std::vector<cl_device_partition_property> pp(sz / sizeof(cl_device_partition_property));
    ASSERT_CL_OK(clGetDeviceInfo(d, CL_DEVICE_PARTITION_PROPERTIES, sz, pp.data(), nullptr));
    EXPECT_EQ(pp[0], 0);
  }
  EXPECT_CL(CL_INVALID_DEVICE, clCreateSubDevices(Garbage().as<cl_device_id>(), eq, 4, out, &n));
  EXPECT_CL(CL_INVALID_VALUE, clCreateSubDevices(d, nullptr, 4, out, &n));
}
