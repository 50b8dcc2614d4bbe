// tutti::mr: MapReduce jobs written as OpenCL C functions, run as ordinary OpenCL kernels.
//
// The user supplies map, hash, key-compare, combine and (optionally) reduce in OpenCL C
// (thesis Table 4.1); the library splices them into its kernels. Only the standard
// OpenCL API is used, so a job runs natively on any one device and unchanged on Tutti's
// virtual device (which may split its launches across devices). See mapreduce/README.md.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tutti::mr {

// An OpenCL call failed (the message names the call and the error code).
struct Error : std::runtime_error {
  Error(const std::string& what, cl_int code)
      : std::runtime_error(what + " failed with OpenCL error " + std::to_string(code)), code(code) {}
  cl_int code;
};

// What the user's OpenCL C defines. `types` must define mr_value_t; `functions` must
// define, with private pointers:
//   void mr_map(__global const uchar* input, __global const uchar* params, uint task, mr_emitter* e);
//   uint mr_hash(const uchar* key, uint keySize);
//   int  mr_key_compare(const uchar* a, uint aSize, const uchar* b, uint bSize);  // <0, 0, >0
//   void mr_combine(mr_value_t* into, const mr_value_t* from);      // if hasCombiner
//   void mr_reduce(const uchar* key, uint keySize, mr_value_t* v);  // if hasReduce: finalise
//   void mr_reduce_list(const uchar* key, uint keySize, mr_values* values, mr_value_t* out);
//        // reduce phase without a combiner: mr_next_value(values, &v) yields each value
// and may call mr_emit(e, key, keySize, &value) any number of times per task. A map-only
// job's map may instead give each value a size (Table 4.1's emitIntermediate):
// mr_emit_sized(e, key, keySize, &value, valueSize), up to sizeof(mr_value_t), stored
// zero-padded and returned in Output::valueSizes; a reduce phase combines and reduces
// whole mr_value_t's, and its jobs do not build with mr_emit_sized. Map must
// be deterministic: the overflow pass re-runs it and skips what was written.
struct JobSpec {
  std::string types;
  std::string functions;
  unsigned keyBytes = 32;    // largest key, a multiple of 4; longer keys are truncated
  unsigned valueBytes = 4;   // sizeof(mr_value_t) on the device (checked when built)
  bool reducePhase = true;   // false: map-only job, the map's output is the result
  bool hasReduce = false;    // mr_reduce finalises each key's combined value
  bool hasCombiner = true;   // false: values are kept per key and mr_reduce_list reduces them
};

// Tuning; the defaults suit a GPU and work everywhere.
struct Options {
  size_t mapGroupSize = 0;       // work-items per map work-group; 0: min(256, what fits)
  unsigned regionRecords = 1024; // records per work-group region (power of two)
  unsigned buckets = 4096;       // hash-table entries per table
  unsigned joinFanIn = 16;       // tables merged per work-item and joining level (2-32)
};

// Device time per phase in ms (from profiling events; zero if the queue does not profile).
struct PhaseTimes {
  double preprocess = 0, map = 0, overflow = 0, group = 0, join = 0, compact = 0, download = 0;
  double total() const { return preprocess + map + overflow + group + join + compact + download; }
};

struct Stats {
  uint64_t emitted = 0;        // intermediate pairs the map emitted
  uint64_t overflowed = 0;     // of which written by the overflow pass
  uint64_t tables = 0;         // hash tables (regions) grouped
  uint64_t joinLevels = 0;
  uint64_t output = 0;         // records returned
  // The most bytes of device buffers the run held at once (spares kept for the next run
  // included): a streamed run's stays bounded by its pieces' size, whatever the input's.
  uint64_t peakBufferBytes = 0;
};

// The job's result, by bucket, then hash, then key (map-only: region order).
struct Output {
  size_t count = 0;
  unsigned keyBytes = 0, valueBytes = 0;
  std::vector<uint8_t> keys;       // count * keyBytes, zero-padded
  std::vector<uint32_t> keySizes;  // count
  std::vector<uint8_t> values;     // count * valueBytes, zero past each value's size
  // count: what mr_emit_sized gave (map-only jobs), else valueBytes
  std::vector<uint32_t> valueSizes;

  std::string keyString(size_t i) const {
    return std::string(reinterpret_cast<const char*>(&keys[i * keyBytes]), keySizes[i]);
  }
  const uint8_t* keyData(size_t i) const { return &keys[i * keyBytes]; }
  template <class V>
  V value(size_t i) const {
    V v;
    std::memcpy(&v, &values[i * valueBytes], sizeof(V));
    return v;
  }
};

// Common state of every pipeline: the queue, the built program, events and times.
class Pipeline {
 public:
  Pipeline(cl_context context, cl_device_id device, cl_command_queue queue, JobSpec spec,
           Options options);
  virtual ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Runs the job over numTasks map tasks; input and params are the buffers handed to
  // mr_map (params may be the same buffer as input).
  virtual Output run(cl_mem input, cl_mem params, uint32_t numTasks) = 0;

  const PhaseTimes& times() const { return times_; }
  const Stats& stats() const { return stats_; }
  // Receives every kernel's event (retained for the receiver, who releases it).
  std::function<void(cl_event)> onKernelEvent;

  struct Impl;  // the runner and the job (src/pipeline_impl.h)

 protected:
  // Starts a run: clears the last run's times and counts.
  Impl& beginRun();
  // Ends a run: counts the output, waits, adds up phase times, frees the run's buffers.
  Output finishRun(Output out);

  Impl* impl_;
  PhaseTimes times_;
  Stats stats_;
};

// StreamMR (thesis §4.3): atomic-free map output into per-work-group regions with
// opportunistic counting and an overflow pass, per-region hash tables with sorted
// buckets, combiners in map and reduce, multi-level joining, final compaction.
class StreamMR : public Pipeline {
 public:
  StreamMR(cl_context context, cl_device_id device, cl_command_queue queue, JobSpec spec,
           Options options = {});
  Output run(cl_mem input, cl_mem params, uint32_t numTasks) override;

  // One piece of a streamed input: its bytes (handed to mr_map as `input`), the params
  // for its tasks, and their number. Each piece must be whole for its tasks (the app cuts
  // its input where no task reads across).
  struct Chunk {
    const void* input = nullptr;
    size_t inputBytes = 0;
    const void* params = nullptr;
    size_t paramBytes = 0;
    uint32_t tasks = 0;
    // The piece's input and params stay valid and unchanged until runStream returns (the
    // app holds the whole input in memory): the piece is uploaded with non-blocking writes
    // while the piece before it groups, so the copy overlaps that piece's kernels. Else it
    // is uploaded with blocking writes at its turn, and its memory may be reused as soon
    // as next() is called again.
    bool kept = false;
  };
  // Runs the job over input that comes in pieces: larger than the device's memory, or
  // produced as it goes. next(chunk) fills the next piece and returns false when there is
  // none; it is asked for piece i+1 while piece i's commands run. Each piece's map output
  // is grouped and merged on the device with the result so far (the incremental
  // reduction of thesis Ch. 5): between pieces, only one piece's input and the distinct
  // keys so far are on the device. Needs a combiner (merges combine values); mr_reduce
  // finalises each key once, in the last merge. The same output as run() over the whole
  // input.
  Output runStream(const std::function<bool(Chunk&)>& next);
  uint64_t chunks() const { return chunks_; }  // pieces the last runStream took

 private:
  struct MapOut;
  MapOut mapPhase(cl_mem input, cl_mem params, uint32_t numTasks, const std::function<void()>& whileMapping);
  size_t mapWg_ = 0, groupWg_ = 0;
  uint64_t chunks_ = 0;
};

// Mars-style baseline (seed 003): the map runs twice (count, then write at scanned
// per-task offsets), a global bitonic sort groups the records by key, one reduce work-item
// per equal-key run. No atomics at all.
class Mars : public Pipeline {
 public:
  Mars(cl_context context, cl_device_id device, cl_command_queue queue, JobSpec spec,
       Options options = {});
  Output run(cl_mem input, cl_mem params, uint32_t numTasks) override;

 private:
  size_t wg_ = 0;
};

// MapCG-style baseline: emits take slots from one global atomic counter and go into one
// shared hash table (compare-and-swap on its chains); reduce walks the table. When the
// record pool is too small the map runs again with the counted size.
class MapCG : public Pipeline {
 public:
  MapCG(cl_context context, cl_device_id device, cl_command_queue queue, JobSpec spec,
        Options options = {});
  Output run(cl_mem input, cl_mem params, uint32_t numTasks) override;

 private:
  size_t wg_ = 0;
  uint64_t poolHint_ = 0;  // the record pool the last run needed
};

}  // namespace tutti::mr
