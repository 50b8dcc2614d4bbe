// api_gl.cpp - OpenGL sharing entry points. The virtual device does not advertise
// cl_khr_gl_sharing, and no Tutti context is a GL context, so these answer as the
// spec says for a context without GL: CL_INVALID_CONTEXT (CL_INVALID_OPERATION where
// the call takes no context).
#include "api.h"

using namespace tutti;

namespace {
cl_int glContextError(cl_context ctx) {
  ApiLock lock;
  return validContext(ctx) ? CL_INVALID_CONTEXT : CL_INVALID_CONTEXT;
}
cl_mem glMem(cl_context ctx, cl_int *errcode) {
  setErr(errcode, glContextError(ctx));
  return nullptr;
}
}  // namespace

TUTTI_API cl_mem CL_API_CALL clCreateFromGLBuffer(cl_context c, cl_mem_flags, cl_GLuint, cl_int *e) {
  return glMem(c, e);
}
TUTTI_API cl_mem CL_API_CALL clCreateFromGLTexture(cl_context c, cl_mem_flags, cl_GLenum, cl_GLint,
                                                   cl_GLuint, cl_int *e) {
  return glMem(c, e);
}
TUTTI_API cl_mem CL_API_CALL clCreateFromGLTexture2D(cl_context c, cl_mem_flags, cl_GLenum, cl_GLint,
                                                     cl_GLuint, cl_int *e) {
  return glMem(c, e);
}
TUTTI_API cl_mem CL_API_CALL clCreateFromGLTexture3D(cl_context c, cl_mem_flags, cl_GLenum, cl_GLint,
                                                     cl_GLuint, cl_int *e) {
  return glMem(c, e);
}
TUTTI_API cl_mem CL_API_CALL clCreateFromGLRenderbuffer(cl_context c, cl_mem_flags, cl_GLuint, cl_int *e) {
  return glMem(c, e);
}
TUTTI_API cl_int CL_API_CALL clGetGLObjectInfo(cl_mem m, cl_gl_object_type *, cl_GLuint *) {
  ApiLock lock;
  return validMem(m) ? CL_INVALID_GL_OBJECT : CL_INVALID_MEM_OBJECT;
}
TUTTI_API cl_int CL_API_CALL clGetGLTextureInfo(cl_mem m, cl_gl_texture_info, size_t, void *, size_t *) {
  ApiLock lock;
  return validMem(m) ? CL_INVALID_GL_OBJECT : CL_INVALID_MEM_OBJECT;
}
TUTTI_API cl_int CL_API_CALL clEnqueueAcquireGLObjects(cl_command_queue q, cl_uint, const cl_mem *,
                                                       cl_uint, const cl_event *, cl_event *) {
  ApiLock lock;
  return validQueue(q) ? CL_INVALID_CONTEXT : CL_INVALID_COMMAND_QUEUE;
}
TUTTI_API cl_int CL_API_CALL clEnqueueReleaseGLObjects(cl_command_queue q, cl_uint, const cl_mem *,
                                                       cl_uint, const cl_event *, cl_event *) {
  ApiLock lock;
  return validQueue(q) ? CL_INVALID_CONTEXT : CL_INVALID_COMMAND_QUEUE;
}
TUTTI_API cl_int CL_API_CALL clGetGLContextInfoKHR(const cl_context_properties *, cl_gl_context_info,
                                                   size_t, void *, size_t *) {
  return CL_INVALID_OPERATION;
}
