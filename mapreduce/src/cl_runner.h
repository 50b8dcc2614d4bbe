// ClRunner: the few OpenCL calls every pipeline makes, with phase timing from events.
//
// Keeps the pipelines free of error plumbing; every failure throws tutti::mr::Error.
#pragma once

#include "tutti/mapreduce.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tutti::mr {

class ClRunner {
 public:
  ClRunner(cl_context context, cl_device_id device, cl_command_queue queue);
  ~ClRunner();

  void build(const std::string& source, const std::string& options);
  // The program's kernel of that name, created once (arguments are set before each launch).
  cl_kernel kernel(const char* name);
  size_t kernelGroupSize(cl_kernel k) const;
  size_t deviceGroupSize() const;

  // Buffers live until releaseBuffers() (end of a run). Zero bytes gives one word.
  // Released buffers stay as spares that the next run's requests of about their size
  // take, so repeated runs and a streamed run's pieces allocate nothing (a run of 1 GiB
  // of text needs about 12 GiB). A spare no request took by the next release is freed.
  cl_mem buffer(size_t bytes);
  // A new buffer, which no earlier command used, freed at its release instead of kept:
  // an upload into it ahead of its turn waits for nothing queued before (under Tutti it
  // runs beside those kernels), where a spare's last reader may still be running.
  cl_mem freshBuffer(size_t bytes);
  void releaseBuffers();
  // The most bytes of buffers held at once (spares included) since resetPeak.
  uint64_t peakBytes() const { return peak_; }
  void resetPeak() { peak_ = live_; }
  // Releases the buffers made since bufferMark() returned mark, except those in keep
  // (a streamed run frees each chunk's buffers but its running result). The mark counts
  // buffers made, not held, so releases between the mark and releaseSince do not move it.
  uint64_t bufferMark() const { return made_; }
  void releaseSince(uint64_t mark, const std::vector<cl_mem>& keep);
  // Releases these buffers alone (a streamed run's piece uploads).
  void release(const std::vector<cl_mem>& which);
  void zero(cl_mem m, size_t bytes, double* phase) { fill(m, bytes, 0, phase); }
  void fill(cl_mem m, size_t bytes, cl_uint pattern, double* phase);
  void write(cl_mem m, size_t bytes, const void* src, double* phase, size_t offset = 0);
  // Returns at once: src must stay unchanged until the queue is finished (settle).
  void writeAsync(cl_mem m, size_t bytes, const void* src, double* phase);
  void read(cl_mem m, size_t bytes, void* dst, double* phase, size_t offset = 0);
  // Returns at once: dst is written by the time finish() or settle() returns.
  void readAsync(cl_mem m, size_t bytes, void* dst, double* phase);
  void finish();
  void copy(cl_mem src, cl_mem dst, size_t bytes, size_t dstOffset, double* phase);

  template <class... A>
  void args(cl_kernel k, const A&... a) {
    cl_uint i = 0;
    (setArg(k, i++, sizeof(A), &a), ...);
  }
  void launch(cl_kernel k, size_t global, size_t local, double* phase);

  // Waits for everything, adds each command's device time to its phase, and hands
  // kernel events to onKernel.
  void settle(const std::function<void(cl_event)>& onKernel);

 private:
  void setArg(cl_kernel k, cl_uint i, size_t bytes, const void* v);
  void track(cl_event ev, double* phase, bool isKernel);

  cl_context context_;
  cl_device_id device_;
  cl_command_queue queue_;
  cl_program program_ = nullptr;
  bool profiling_ = false;
  std::map<std::string, cl_kernel> kernels_;
  struct Owned {
    cl_mem mem;
    size_t bytes;  // its size: a spare taken may be larger than the request
    bool keep;  // becomes a spare when released (freshBuffer's do not)
    uint64_t serial;  // made_ when it was handed out
  };
  struct Spare {
    cl_mem mem;
    uint64_t generation;  // the release that made it spare
  };
  cl_mem create(size_t bytes, bool keep);
  void toSpare(const Owned& b);
  // Makes spares of the buffers handed out since mark: those listed (listedStay false) or
  // those not listed (listedStay true).
  void spareFrom(uint64_t mark, const std::vector<cl_mem>& listed, bool listedStay);
  void freeSpares(uint64_t before);  // those made spare by releases before that one
  std::vector<Owned> buffers_;
  std::multimap<size_t, Spare> spare_;  // by size
  uint64_t generation_ = 0;
  uint64_t made_ = 0;  // buffers handed out so far
  uint64_t live_ = 0, peak_ = 0;
  struct Pending {
    cl_event ev;
    double* phase;
    bool isKernel;
  };
  std::vector<Pending> pending_;
};

void check(cl_int err, const char* what);

}  // namespace tutti::mr
