// Pipeline::Impl: what every pipeline shares: the runner, the job, sizes, the scan.
#pragma once

#include "cl_runner.h"

#include <string>

namespace tutti::mr {

struct Pipeline::Impl {
  Impl(cl_context c, cl_device_id d, cl_command_queue q, JobSpec s, Options o)
      : cl(c, d, q), spec(std::move(s)), opt(o) {}

  // Builds the user's code spliced before the pipeline's kernels (and the scan's).
  void buildJob(const std::string& pipelineSource, const std::string& extraDefines);

  // Exclusive prefix sum of n uints from `in` into `out` (device kernels).
  void exclusiveScan(cl_mem in, cl_mem out, uint32_t n, double* phase);
  // The same, returning the total of the n counts (read back: it sizes what follows).
  uint32_t scanTotal(cl_mem counts, cl_mem offsets, uint32_t n, double* phase);
  // One uint of m, read back.
  uint32_t readUint(cl_mem m, size_t index, double* phase);
  // Work-items per map work-group: the option, else up to 256 that the kernel allows.
  size_t mapGroupSize(const char* kernel);

  ClRunner cl;
  JobSpec spec;
  Options opt;
  size_t scanGroup = 256;
  cl_kernel scanBlocks = nullptr, scanAdd = nullptr;
};

// The records of one stage: padded keys, (size, hash) and values.
struct Records {
  cl_mem keys = nullptr, info = nullptr, vals = nullptr;
  cl_mem links = nullptr;  // StreamMR without a combiner: each key's value chain (head, tail)
};
// withChains: StreamMR's tables of a job without a combiner also carry value chains.
// withKeys false: records that refer to keys held elsewhere (StreamMR's joins).
Records makeRecords(ClRunner& cl, const JobSpec& spec, size_t count, bool withChains = false,
                    bool withKeys = true);
// Reads the first `count` records back into an Output.
Output download(ClRunner& cl, const JobSpec& spec, const Records& r, size_t count, double* phase);

// The embedded OpenCL C sources (generated from mapreduce/src/*.cl).
extern const char* const kCommonKernels;
extern const char* const kStreamMrKernels;
extern const char* const kMarsKernels;
extern const char* const kMapCgKernels;
extern const char* const kScanKernels;

inline uint32_t floorPow2(size_t x) {
  uint32_t p = 1;
  while ((size_t)p * 2 <= x) p *= 2;
  return p;
}
inline size_t divUp(size_t a, size_t b) { return (a + b - 1) / b; }

}  // namespace tutti::mr
