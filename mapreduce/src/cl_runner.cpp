// ClRunner: OpenCL calls with error checks and per-phase device times.
#include "cl_runner.h"

#include <algorithm>

namespace tutti::mr {

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) throw Error(what, err);
}

ClRunner::ClRunner(cl_context context, cl_device_id device, cl_command_queue queue)
    : context_(context), device_(device), queue_(queue) {
  cl_command_queue_properties props = 0;
  check(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof(props), &props, nullptr),
        "clGetCommandQueueInfo");
  profiling_ = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
  // Commands follow each other without events, and a blocking read stands for everything
  // queued before it.
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    throw Error("tutti::mr needs an in-order command queue", CL_INVALID_COMMAND_QUEUE);
}

ClRunner::~ClRunner() {
  for (auto& p : pending_) clReleaseEvent(p.ev);
  for (const Owned& b : buffers_) clReleaseMemObject(b.mem);
  freeSpares(~0ull);
  for (auto& k : kernels_) clReleaseKernel(k.second);
  if (program_) clReleaseProgram(program_);
}

void ClRunner::build(const std::string& source, const std::string& options) {
  if (program_) clReleaseProgram(program_);
  for (auto& k : kernels_) clReleaseKernel(k.second);
  kernels_.clear();
  const char* text = source.c_str();
  cl_int err = CL_SUCCESS;
  program_ = clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(program_, 1, &device_, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    throw Error("clBuildProgram (MapReduce job)\n" + log, err);
  }
}

cl_kernel ClRunner::kernel(const char* name) {
  auto it = kernels_.find(name);
  if (it != kernels_.end()) return it->second;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program_, name, &err);
  check(err, name);
  kernels_.emplace(name, k);
  return k;
}

size_t ClRunner::kernelGroupSize(cl_kernel k) const {
  size_t n = 0;
  check(clGetKernelWorkGroupInfo(k, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof(n), &n, nullptr),
        "clGetKernelWorkGroupInfo");
  return n;
}

size_t ClRunner::deviceGroupSize() const {
  size_t n = 0;
  check(clGetDeviceInfo(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(n), &n, nullptr),
        "clGetDeviceInfo");
  return n;
}

cl_mem ClRunner::buffer(size_t bytes) {
  const size_t want = bytes ? bytes : 4;
  // A spare as large and at most twice as large: a run's buffers have the sizes the last
  // run's had, and a small need must not pin a large buffer.
  auto it = spare_.lower_bound(want);
  if (it != spare_.end() && it->first <= 2 * want) {
    cl_mem m = it->second.mem;
    buffers_.push_back({m, it->first, true, made_++});
    spare_.erase(it);
    return m;
  }
  return create(want, true);
}

cl_mem ClRunner::freshBuffer(size_t bytes) { return create(bytes ? bytes : 4, false); }

cl_mem ClRunner::create(size_t want, bool keep) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE, want, nullptr, &err);
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
      err == CL_OUT_OF_HOST_MEMORY) {
    freeSpares(~0ull);  // the spares may be what is in the way
    m = clCreateBuffer(context_, CL_MEM_READ_WRITE, want, nullptr, &err);
  }
  check(err, "clCreateBuffer");
  buffers_.push_back({m, want, keep, made_++});
  live_ += want;
  peak_ = std::max(peak_, live_);
  return m;
}

void ClRunner::freeSpares(uint64_t before) {
  for (auto it = spare_.begin(); it != spare_.end();) {
    if (it->second.generation < before) {
      clReleaseMemObject(it->second.mem);
      live_ -= it->first;
      it = spare_.erase(it);
    } else {
      ++it;
    }
  }
}

void ClRunner::toSpare(const Owned& b) {
  if (b.keep) spare_.emplace(b.bytes, Spare{b.mem, generation_});
  else clReleaseMemObject(b.mem), live_ -= b.bytes;
}

void ClRunner::releaseBuffers() {
  // Spares no run took since the last release are not what runs need: free them, so the
  // spares never hold more than one run's buffers.
  freeSpares(generation_);
  for (const Owned& b : buffers_) toSpare(b);
  buffers_.clear();
  ++generation_;
}

void ClRunner::releaseSince(uint64_t mark, const std::vector<cl_mem>& keep) {
  freeSpares(generation_);
  spareFrom(mark, keep, true);
  ++generation_;
}

void ClRunner::release(const std::vector<cl_mem>& which) { spareFrom(0, which, false); }

void ClRunner::spareFrom(uint64_t mark, const std::vector<cl_mem>& listed, bool listedStay) {
  size_t out = 0;
  for (size_t i = 0; i < buffers_.size(); ++i) {
    bool isListed = std::find(listed.begin(), listed.end(), buffers_[i].mem) != listed.end();
    if (buffers_[i].serial < mark || isListed == listedStay) buffers_[out++] = buffers_[i];
    else toSpare(buffers_[i]);
  }
  buffers_.resize(out);
}

void ClRunner::fill(cl_mem m, size_t bytes, cl_uint pattern, double* phase) {
  cl_event ev = nullptr;
  check(clEnqueueFillBuffer(queue_, m, &pattern, sizeof(pattern), 0, bytes, 0, nullptr, &ev),
        "clEnqueueFillBuffer");
  track(ev, phase, false);
}

void ClRunner::write(cl_mem m, size_t bytes, const void* src, double* phase, size_t offset) {
  cl_event ev = nullptr;
  check(clEnqueueWriteBuffer(queue_, m, CL_TRUE, offset, bytes, src, 0, nullptr, &ev),
        "clEnqueueWriteBuffer");
  track(ev, phase, false);
}

void ClRunner::writeAsync(cl_mem m, size_t bytes, const void* src, double* phase) {
  if (bytes == 0) return;
  cl_event ev = nullptr;
  check(clEnqueueWriteBuffer(queue_, m, CL_FALSE, 0, bytes, src, 0, nullptr, &ev), "clEnqueueWriteBuffer");
  track(ev, phase, false);
}

void ClRunner::readAsync(cl_mem m, size_t bytes, void* dst, double* phase) {
  if (bytes == 0) return;
  cl_event ev = nullptr;
  check(clEnqueueReadBuffer(queue_, m, CL_FALSE, 0, bytes, dst, 0, nullptr, &ev), "clEnqueueReadBuffer");
  track(ev, phase, false);
}

void ClRunner::finish() { check(clFinish(queue_), "clFinish"); }

void ClRunner::read(cl_mem m, size_t bytes, void* dst, double* phase, size_t offset) {
  if (bytes == 0) return;
  cl_event ev = nullptr;
  check(clEnqueueReadBuffer(queue_, m, CL_TRUE, offset, bytes, dst, 0, nullptr, &ev),
        "clEnqueueReadBuffer");
  track(ev, phase, false);
}

void ClRunner::copy(cl_mem src, cl_mem dst, size_t bytes, size_t dstOffset, double* phase) {
  if (bytes == 0) return;
  cl_event ev = nullptr;
  check(clEnqueueCopyBuffer(queue_, src, dst, 0, dstOffset, bytes, 0, nullptr, &ev),
        "clEnqueueCopyBuffer");
  track(ev, phase, false);
}

void ClRunner::setArg(cl_kernel k, cl_uint i, size_t bytes, const void* v) {
  check(clSetKernelArg(k, i, bytes, v), "clSetKernelArg");
}

void ClRunner::launch(cl_kernel k, size_t global, size_t local, double* phase) {
  if (global == 0) return;
  cl_event ev = nullptr;
  check(clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, &local, 0, nullptr, &ev),
        "clEnqueueNDRangeKernel");
  track(ev, phase, true);
}

void ClRunner::track(cl_event ev, double* phase, bool isKernel) {
  pending_.push_back({ev, phase, isKernel});
}

void ClRunner::settle(const std::function<void(cl_event)>& onKernel) {
  check(clFinish(queue_), "clFinish");
  for (auto& p : pending_) {
    if (profiling_) {
      cl_ulong s = 0, e = 0;
      check(clGetEventProfilingInfo(p.ev, CL_PROFILING_COMMAND_START, sizeof(s), &s, nullptr),
            "clGetEventProfilingInfo");
      check(clGetEventProfilingInfo(p.ev, CL_PROFILING_COMMAND_END, sizeof(e), &e, nullptr),
            "clGetEventProfilingInfo");
      if (e > s) *p.phase += (double)(e - s) * 1e-6;
    }
    if (p.isKernel && onKernel) onKernel(p.ev);
    else clReleaseEvent(p.ev);
  }
  pending_.clear();
}

}  // namespace tutti::mr
