// lifetime.h - destroying virtual objects once neither the app nor Tutti holds them.
#pragma once
#include "runtime.h"

namespace tutti {

void destroyMem(Runtime &rt, _cl_mem *m) REQUIRES(apiMutex);
void destroyKernel(Runtime &rt, _cl_kernel *k);
void destroyProgram(Runtime &rt, _cl_program *p);
void destroyQueue(Runtime &rt, _cl_command_queue *q);
void destroySampler(Runtime &rt, _cl_sampler *s);
void destroyContext(Runtime &rt, _cl_context *c);

}  // namespace tutti
