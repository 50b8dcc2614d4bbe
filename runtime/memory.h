// memory.h - the bytes behind virtual buffers: host homes, replicas on devices, images.
#pragma once
#include "objects.h"

namespace tutti {

// A new buffer's initial content (CL_MEM_COPY_HOST_PTR) on its way straight to a device.
// No other thread can name the buffer before clCreateBuffer returns, so the blocking copy
// may run with the API lock released (where ds->dev->callsOutsideLock allows), and a
// large one does not hold every other thread's calls for its whole length.
struct InitialUpload {
  DeviceSlot *ds = nullptr;  // null: nothing to upload
  int slot = -1;
  cl_mem buf = nullptr;
  const void *src = nullptr;
  size_t size = 0;
  explicit operator bool() const { return ds != nullptr; }
};

// Makes m's store (lock held). The initial content goes to a host home here, or is left
// in *upload for the caller: uploadInitial, then initialLanded with the lock held.
cl_int createStore(_cl_mem *m, void *hostPtr, InitialUpload *upload) REQUIRES(apiMutex);
// The copy alone: it reads neither m nor its store, so it needs no lock of its own.
cl_int uploadInitial(const InitialUpload &u);
// Records where the content now is: on the device when `err` (uploadInitial's) is
// CL_SUCCESS, else in a host home as when no device was chosen. Failing that, m's store
// is gone and the error is returned.
cl_int initialLanded(_cl_mem *m, const InitialUpload &u, cl_int err) REQUIRES(apiMutex);
// The root buffer whose store a (sub-)buffer or buffer-backed image shares.
inline _cl_mem *rootOf(_cl_mem *m) { return m->parent ? m->parent : m; }
// Whether host homes are pinned memory from a driver (TUTTI_PINNED).
bool homesPinned(_cl_context *ctx);
// The buffer's host home, allocated (pinned only with TUTTI_PINNED=on) on first need;
// nullptr when host memory is exhausted.
char *homeOf(_cl_context *ctx, BufferStore &st);
// Pageable host memory laid out as a pageable home is (std::free releases it), padded
// to paddedHostSize.
void *allocHostMemory(size_t size);
// size (at least 1) rounded up to the backing devices' largest base address alignment.
size_t paddedHostSize(size_t size);
// Whether a host<->device copy of `bytes` skips the home (TUTTI_DIRECT_MIN).
bool directCopy(const BufferStore &st, size_t bytes);
// The device a host<->device copy of `bytes` should go to directly, skipping the home
// (TUTTI_DIRECT_MIN), or -1.
int directSlot(_cl_context *ctx, const BufferStore &st, size_t bytes);
// Under TUTTI_MODE=skmd with a fixed policy, where the context's buffers exceed its
// strongest paging device's budget (a launch over them will be split and paged, VAST): the
// parts of r each such device's piece of the split would read, and their slots. False:
// write r as directSlot says.
bool stripeSlots(_cl_context *ctx, const BufferStore &st, Range r, std::vector<std::pair<int, Range>> &out)
    REQUIRES(apiMutex);
cl_mem realBuffer(_cl_mem *m, int slot, cl_int *err);  // replica (or sub-buffer) on slot
// The slot whose replicas are the homes themselves (TUTTI_ZERO_COPY: the strongest PoCL
// CPU device), or -1: chosen once when the context's slots are made, read on every copy.
int pickZeroCopySlot(const _cl_context *ctx);
inline int zeroCopySlot(const _cl_context *ctx) { return ctx->zeroCopy; }
cl_mem realImage(_cl_mem *m, cl_int *err);
cl_sampler realSampler(_cl_sampler *s, int slot, cl_int *err);
int imageSlot(_cl_context *ctx);  // the device images live on (-1: none supports images)
// Releases what a store holds on the devices and its home (the object itself is freed by
// the caller).
void releaseStore(_cl_mem *m) REQUIRES(apiMutex);
// Counts releases of real buffers and images: a real kernel argument remembered before
// one may name memory that is gone, or a new object at the same address.
uint64_t realMemEpoch();
// Forgets every remembered real kernel argument (after an issuer's call failed: what it was
// to set may not be set).
void forgetRealArgs() REQUIRES(apiMutex);

}  // namespace tutti
