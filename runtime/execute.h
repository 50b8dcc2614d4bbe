// execute.h - turning a virtual command into real driver commands and host copies.
#pragma once
#include "runtime.h"

namespace tutti {

struct IssueResult {
  enum Kind { Issued, Staging, Done } kind;
  cl_int status = CL_SUCCESS;
};

// Issues cmd on its device or runs it on the host (runtime lock held).
IssueResult issueCommand(Runtime &rt, Command *cmd);
// True when every device->host copy cmd waited for has landed.
bool stagingComplete(Runtime &rt, Command *cmd);
// Reads status, timing and counters of a finished real command; releases its event.
cl_int collectRealCompletion(Runtime &rt, Command *cmd);
// Asks the driver to report a command's completion (kernels complete lazily), now
// if it is issued, else as soon as it is.
void armCompletion(Command *cmd);
// Lazily completing kernels issued on cmd's slot before cmd: complete once cmd is.
std::vector<Command *> completedBefore(Command *cmd);

// Placement: the backing-device slot a command would run on (-1: host or none).
int chooseSlot(Runtime &rt, Command *cmd);
// Placement error for a kernel no device can take (CL_SUCCESS if one can).
cl_int placementError(_cl_kernel *k, const std::vector<ArgValue> &args, std::string &why);

// Whether a kernel may write a memory argument (conservative until the compiler's
// access analysis lands: any non-const global pointer to a writable buffer).
bool kernelMayWrite(_cl_kernel *k, size_t arg, _cl_mem *m);

// Memory objects (memory.cpp).
cl_int createStore(_cl_mem *m, void *hostPtr);
// Whether host homes are pinned memory from a driver (TUTTI_PINNED).
bool homesPinned(_cl_context *ctx);
// The buffer's host home, allocated (pinned only with TUTTI_PINNED=on) on first need;
// nullptr when host memory is exhausted.
char *homeOf(_cl_context *ctx, BufferStore &st);
// Pageable host memory laid out as a pageable home is (std::free releases it).
void *allocHostMemory(size_t size);
// Whether a host<->device copy of `bytes` skips the home (TUTTI_DIRECT_MIN).
bool directCopy(const BufferStore &st, size_t bytes);
// The device a host<->device copy of `bytes` should go to directly, skipping the home
// (TUTTI_DIRECT_MIN), or -1.
int directSlot(_cl_context *ctx, const BufferStore &st, size_t bytes);
cl_mem realBuffer(_cl_mem *m, int slot, cl_int *err);  // replica (or sub-buffer) on slot
// The slot whose replicas are the homes themselves (TUTTI_ZERO_COPY: the strongest PoCL
// CPU device), or -1: chosen once when the context's slots are made, read on every copy.
int pickZeroCopySlot(const _cl_context *ctx);
inline int zeroCopySlot(const _cl_context *ctx) { return ctx->zeroCopy; }
// memcpy on several threads for large copies (host homes are often fresh pages whose
// first-touch faults dominate a single-threaded copy).
// Large copies are split over the copy pool in parts of at least minPart bytes.
void hostCopy(void *dst, const void *src, size_t n, size_t minPart = 2u << 20);
cl_mem realImage(_cl_mem *m, cl_int *err);
void destroyMem(Runtime &rt, _cl_mem *m);
void destroyKernel(Runtime &rt, _cl_kernel *k);
void destroyProgram(Runtime &rt, _cl_program *p);
void destroyQueue(Runtime &rt, _cl_command_queue *q);
void destroySampler(Runtime &rt, _cl_sampler *s);
void destroyContext(Runtime &rt, _cl_context *c);
cl_sampler realSampler(_cl_sampler *s, int slot, cl_int *err);
int imageSlot(_cl_context *ctx);  // the device images live on (-1: none supports images)

// Coherence (execute.cpp). Each returns false when cmd must first wait for
// device->host copies in flight (cmd->staging), and is safe to call again then.
_cl_mem *rootOf(_cl_mem *m);
bool waitFills(BufferStore &st, Range r, Command *cmd);  // true: must wait
bool ensureHost(_cl_context *ctx, BufferStore &st, Range r, Command *cmd);
bool ensureDevice(_cl_context *ctx, _cl_mem *m, int slot, Command *cmd, cl_int *err);
// hostOnly: only bring to the host what the device lacks and only a device holds (the
// uploads themselves are left for a later call).
bool ensureDeviceRange(_cl_context *ctx, _cl_mem *root, Range r, int slot, Command *cmd,
                       cl_int *err, bool hostOnly = false);
// After a write of r on `slot` (-1: the host), every other copy of r is stale.
void wrote(BufferStore &st, Range r, int slot);

// Sets every argument of cmd's launch on a real kernel of `slot`.
cl_int setKernelArgs(Command *cmd, cl_kernel rk, int slot);
// Maps a real command's device-clock span to host ns (refining slot's clock offset).
void deviceSpanToHost(DeviceSlot &ds, cl_ulong start, cl_ulong end, uint64_t &hs, uint64_t &he);

// Records a kernel's measured time on a slot, for placement.
void recordKernelTime(_cl_kernel *k, int slot, double workItems, uint64_t ns);

}  // namespace tutti
