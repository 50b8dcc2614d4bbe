// lifetime.cpp - the end of every virtual object's life: what it held, its callbacks.
#include "lifetime.h"

#include "icd.h"
#include "memory.h"
#include "slots.h"

namespace tutti {

void destroyMem(Runtime &rt, _cl_mem *m) REQUIRES(apiMutex) {
  // Destructor callbacks run in reverse order of registration, after the memory is gone.
  auto cbs = m->destructorCallbacks;
  cl_mem handle = m;
  releaseStore(m);
  if (m->parent) rt.release(m->parent);
  if (m->isImage() && m->desc.mem_object) rt.release(m->desc.mem_object);
  _cl_context *ctx = m->ctx;
  delete m;
  rt.release(ctx);
  for (auto it = cbs.rbegin(); it != cbs.rend(); ++it) {
    auto fn = reinterpret_cast<void(CL_CALLBACK *)(cl_mem, void *)>(it->fn);
    void *user = it->user;
    rt.afterUnlock([fn, handle, user] { fn(handle, user); });
  }
}

void destroySampler(Runtime &rt, _cl_sampler *s) {
  for (cl_sampler r : s->real)
    if (r) icd(r).clReleaseSampler(r);
  _cl_context *ctx = s->ctx;
  delete s;
  rt.release(ctx);
}

void destroyKernel(Runtime &rt, _cl_kernel *k) {
  for (DeviceSlot &s : k->program->ctx->slots)  // a launch handed over may name it
    if (s.issuer) s.issuer->drain();
  for (cl_kernel r : k->real)
    if (r) icd(r).clReleaseKernel(r);
  _cl_program *p = k->program;
  --p->kernelsAttached;
  delete k;
  rt.release(p);
}

void destroyProgram(Runtime &rt, _cl_program *p) {
  for (auto &s : p->slots)
    if (s.prog) icd(s.prog).clReleaseProgram(s.prog);
  auto cbs = p->releaseCallbacks;
  cl_program handle = p;
  _cl_context *ctx = p->ctx;
  delete p;
  rt.release(ctx);
  for (auto it = cbs.rbegin(); it != cbs.rend(); ++it) {
    auto fn = reinterpret_cast<void(CL_CALLBACK *)(cl_program, void *)>(it->fn);
    void *user = it->user;
    rt.afterUnlock([fn, handle, user] { fn(handle, user); });
  }
}

void destroyQueue(Runtime &rt, _cl_command_queue *q) {
  _cl_context *ctx = q->ctx;
  delete q;
  rt.release(ctx);
}

void destroyContext(Runtime &rt, _cl_context *c) {
  releaseSlots(c);
  auto cbs = c->destructorCallbacks;
  cl_context handle = c;
  delete c;
  for (auto it = cbs.rbegin(); it != cbs.rend(); ++it) {
    auto fn = reinterpret_cast<void(CL_CALLBACK *)(cl_context, void *)>(it->fn);
    void *user = it->user;
    rt.afterUnlock([fn, handle, user] { fn(handle, user); });
  }
}

}  // namespace tutti
