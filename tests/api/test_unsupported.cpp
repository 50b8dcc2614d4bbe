// test_unsupported.cpp - optional OpenCL 3.0 features Tutti does not support:
// SVM, pipes, IL programs, device-side enqueue, GL/EGL sharing.
#include "fixture.h"

#include <CL/cl_egl.h>
#include <CL/cl_gl.h>

using namespace api;

namespace {

class Unsupported : public ClTest {
 protected:
  void SetUp() override {
    if (!isTutti()) GTEST_SKIP() << "Tutti-specific: platform is '" << env().platformName << "'";
    ClTest::SetUp();
  }
};

}  // namespace

TEST_F(Unsupported, SvmAllocReturnsNull) {
  EXPECT_EQ(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 4096, 0), nullptr);
  EXPECT_EQ(clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 4096, 0), nullptr);
  clSVMFree(ctx, nullptr);  // must be a harmless no-op
}

TEST_F(Unsupported, SvmEnqueueCommandsInvalidOperation) {
  std::vector<char> a(256), b(256);
  void *ptrs[] = {a.data()};
  size_t sizes[] = {a.size()};
  int pat = 0;
  EXPECT_CL(CL_INVALID_OPERATION,
            clEnqueueSVMFree(queue, 1, ptrs, nullptr, nullptr, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_OPERATION,
            clEnqueueSVMMemcpy(queue, CL_TRUE, a.data(), b.data(), 64, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_OPERATION,
            clEnqueueSVMMemFill(queue, a.data(), &pat, sizeof pat, 64, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_OPERATION,
            clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, a.data(), 64, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_OPERATION, clEnqueueSVMUnmap(queue, a.data(), 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_OPERATION,
            clEnqueueSVMMigrateMem(queue, 1, (const void **)ptrs, sizes, 0, 0, nullptr, nullptr));
}

TEST_F(Unsupported, SvmKernelArgsAndExecInfo) {
  cl_kernel k = commonKernel("add_one");
  ASSERT_NE(k, nullptr);
  std::vector<int> a(16);
  EXPECT_CL(CL_INVALID_OPERATION, clSetKernelArgSVMPointer(k, 0, a.data()));
  void *ptrs[] = {a.data()};
  EXPECT_CL(CL_INVALID_OPERATION,
            clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof ptrs, ptrs));
  cl_bool yes = CL_TRUE;
  EXPECT_CL(CL_INVALID_OPERATION,
            clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, &yes));
  EXPECT_CL(CL_INVALID_VALUE, clSetKernelExecInfo(k, 0x7777, sizeof yes, &yes));
  // As the conformance suite calls it: no SVM comes before checking the list.
  EXPECT_CL(CL_INVALID_OPERATION, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, nullptr));
}

TEST_F(Unsupported, Pipes) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreatePipe(ctx, CL_MEM_READ_WRITE, 4, 16, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, err);
  cl_mem m = makeBuffer(64);
  cl_uint v;
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clGetPipeInfo(m, CL_PIPE_PACKET_SIZE, sizeof v, &v, nullptr));
}

TEST_F(Unsupported, ILPrograms) {
  // A minimal SPIR-V header: magic, version 1.0, generator, bound, schema.
  const uint32_t spirv[] = {0x07230203, 0x00010000, 0, 1, 0};
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateProgramWithIL(ctx, spirv, sizeof spirv, &err), nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, err);
}

TEST_F(Unsupported, DeviceSideEnqueueCapabilities) {
  EXPECT_EQ(deviceInfo<cl_device_device_enqueue_capabilities>(device,
                                                              CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES),
            0u);
  EXPECT_EQ(deviceInfo<cl_uint>(device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE), 0u);
  EXPECT_EQ(deviceInfo<cl_uint>(device, CL_DEVICE_MAX_ON_DEVICE_EVENTS), 0u);
  // The feature macro for device-side enqueue is absent.
  size_t sz = 0;
  ASSERT_CL_OK(clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_FEATURES, 0, nullptr, &sz));
  std::vector<cl_name_version> f(sz / sizeof(cl_name_version));
  if (sz) ASSERT_CL_OK(clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_FEATURES, sz, f.data(), nullptr));
  for (auto &nv : f) {
    EXPECT_STRNE(nv.name, "__opencl_c_device_enqueue");
    EXPECT_STRNE(nv.name, "__opencl_c_pipes");
  }
}

TEST_F(Unsupported, GLSharingEntryPoints) {
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateFromGLBuffer(ctx, CL_MEM_READ_WRITE, 1, &err), nullptr);
  EXPECT_CL_ANY(({CL_INVALID_CONTEXT, CL_INVALID_OPERATION}), err);
  err = CL_SUCCESS;
  EXPECT_EQ(clCreateFromGLTexture(ctx, CL_MEM_READ_WRITE, 0x0DE1 /*GL_TEXTURE_2D*/, 0, 1, &err),
            nullptr);
  EXPECT_CL_ANY(({CL_INVALID_CONTEXT, CL_INVALID_OPERATION}), err);
  err = CL_SUCCESS;
  EXPECT_EQ(clCreateFromGLRenderbuffer(ctx, CL_MEM_READ_WRITE, 1, &err), nullptr);
  EXPECT_CL_ANY(({CL_INVALID_CONTEXT, CL_INVALID_OPERATION}), err);
  err = CL_SUCCESS;
  EXPECT_EQ(clCreateFromGLTexture2D(ctx, CL_MEM_READ_WRITE, 0x0DE1, 0, 1, &err), nullptr);
  EXPECT_CL_ANY(({CL_INVALID_CONTEXT, CL_INVALID_OPERATION}), err);
  err = CL_SUCCESS;
  EXPECT_EQ(clCreateFromGLTexture3D(ctx, CL_MEM_READ_WRITE, 0x806F /*GL_TEXTURE_3D*/, 0, 1, &err),
            nullptr);
  EXPECT_CL_ANY(({CL_INVALID_CONTEXT, CL_INVALID_OPERATION}), err);
  cl_mem m = makeBuffer(64);
  cl_gl_object_type t;
  cl_GLuint name;
  EXPECT_CL_ANY(({CL_INVALID_GL_OBJECT, CL_INVALID_MEM_OBJECT, CL_INVALID_OPERATION}),
                clGetGLObjectInfo(m, &t, &name));
  cl_GLenum target;
  EXPECT_CL_ANY(({CL_INVALID_GL_OBJECT, CL_INVALID_MEM_OBJECT, CL_INVALID_OPERATION}),
                clGetGLTextureInfo(m, CL_GL_TEXTURE_TARGET, sizeof target, &target, nullptr));
  EXPECT_CL_ANY(({CL_INVALID_GL_OBJECT, CL_INVALID_CONTEXT, CL_INVALID_OPERATION}),
                clEnqueueAcquireGLObjects(queue, 1, &m, 0, nullptr, nullptr));
  EXPECT_CL_ANY(({CL_INVALID_GL_OBJECT, CL_INVALID_CONTEXT, CL_INVALID_OPERATION}),
                clEnqueueReleaseGLObjects(queue, 1, &m, 0, nullptr, nullptr));
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform,
                                   CL_GL_CONTEXT_KHR, (cl_context_properties)1, 0};
  cl_device_id d;
  EXPECT_CL_ANY(({CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR, CL_INVALID_OPERATION, CL_INVALID_VALUE,
                  CL_INVALID_PROPERTY}),
                clGetGLContextInfoKHR(props, CL_CURRENT_DEVICE_FOR_GL_CONTEXT_KHR, sizeof d, &d,
                                      nullptr));
  // A context cannot be created against a GL context.
  err = CL_SUCCESS;
  EXPECT_EQ(clCreateContext(props, 1, &device, nullptr, nullptr, &err), nullptr);
  EXPECT_CL_ANY(({CL_INVALID_PROPERTY, CL_INVALID_OPERATION, CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR}),
                err);
}

TEST_F(Unsupported, GLEventEntryPoint) {
  // Exported by the ICD loader; an app calling it with Tutti's context must get an error.
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateEventFromGLsyncKHR(ctx, (cl_GLsync)1, &err), nullptr);
  EXPECT_CL_ANY(({CL_INVALID_CONTEXT, CL_INVALID_GL_OBJECT, CL_INVALID_OPERATION}), err);
}

TEST_F(Unsupported, EGLSharingEntryPoints) {
  // Exported by the ICD loader; an app calling them with Tutti's objects must get errors.
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateFromEGLImageKHR(ctx, (CLeglDisplayKHR)1, (CLeglImageKHR)1, CL_MEM_READ_WRITE,
                                    nullptr, &err),
            nullptr);
  EXPECT_CL_ANY(({CL_INVALID_CONTEXT, CL_INVALID_OPERATION, CL_INVALID_EGL_OBJECT_KHR}), err);
  err = CL_SUCCESS;
  EXPECT_EQ(clCreateEventFromEGLSyncKHR(ctx, (CLeglSyncKHR)1, (CLeglDisplayKHR)1, &err), nullptr);
  EXPECT_CL_ANY(({CL_INVALID_CONTEXT, CL_INVALID_OPERATION, CL_INVALID_EGL_OBJECT_KHR}), err);
  cl_mem m = makeBuffer(64);
  EXPECT_CL_ANY(({CL_INVALID_CONTEXT, CL_INVALID_OPERATION, CL_INVALID_EGL_OBJECT_KHR,
                  CL_INVALID_MEM_OBJECT}),
                clEnqueueAcquireEGLObjectsKHR(queue, 1, &m, 0, nullptr, nullptr));
  EXPECT_CL_ANY(({CL_INVALID_CONTEXT, CL_INVALID_OPERATION, CL_INVALID_EGL_OBJECT_KHR,
                  CL_INVALID_MEM_OBJECT}),
                clEnqueueReleaseEGLObjectsKHR(queue, 1, &m, 0, nullptr, nullptr));
}

TEST_F(Unsupported, SharingExtensionsNotAdvertised) {
  std::string ext = platformString(platform, CL_PLATFORM_EXTENSIONS) + " " +
                    deviceString(device, CL_DEVICE_EXTENSIONS);
  for (const char *e : {"cl_khr_gl_sharing", "cl_khr_gl_event", "cl_khr_d3d10_sharing",
                        "cl_khr_d3d11_sharing", "cl_khr_dx9_media_sharing", "cl_khr_egl_image",
                        "cl_khr_egl_event", "cl_khr_il_program", "cl_khr_spir"}) {
    EXPECT_EQ((" " + ext + " ").find(std::string(" ") + e + " "), std::string::npos) << e;
  }
}
