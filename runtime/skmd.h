// skmd.h - partition-ready programs: what split launches (TUTTI_MODE=skmd) are made of.
//
// The compiler gives every kernel a partition-ready variant that runs any flattened
// range of work-groups as if the whole NDRange were launched. A split launch gives
// each device one range; buffers move only the bytes each range reads, outputs whose
// per-device write ranges are disjoint are simply left where they were written (the
// validity tracker concatenates them), and the rest (overlapping write hulls, global
// atomics) are merged on the host after the pieces finish.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "command.h"

namespace tutti::compiler {
struct KernelInfo;
struct NDRange;
struct ByteRange;
struct ScalarArgs;
}  // namespace tutti::compiler

namespace tutti {

// Partition-ready programs of one virtual program, per backing device.
struct SkmdProgram {
  std::string source, options;  // what it was compiled from (rebuilt when they change)
  std::string id;                // hash of source and options: names its kernels' samples
  bool ok = false;
  std::string why;                               // when !ok
  std::vector<cl_program> progs;                 // per slot (nullptr: slot not usable)
  std::vector<std::shared_ptr<const void>> results;  // per slot: compiler::CompileResult
  std::map<std::string, std::vector<cl_kernel>> kernels;  // name -> per slot
  std::map<std::string, size_t> groupLimit;  // name -> smallest CL_KERNEL_WORK_GROUP_SIZE
  // VAST's slice plans of recent launches of its kernels (vast_plan.cpp): they name the
  // kernels' compile results, so they die with them.
  std::shared_ptr<void> vastPlans;
  // Unique per program made: what a kernel found in it is kept under it (skmdSlotsOf).
  const uint64_t serial = nextSerial();
  ~SkmdProgram();
  static uint64_t nextSerial();
};

// Whether this build has the kernel compiler (SKMD, MKMD, VAST); skmd_off.cpp: false.
bool kernelCompilerLinked();

// Compiles and builds p's partition-ready variants once (runtime lock held).
SkmdProgram *skmdProgram(_cl_program *p);

// Under TUTTI_MODE=skmd, after the app built a program of ctx from source and options:
// compiles and builds its partition-ready variants and fits its kernels' time models now,
// so that the app's first launches (which it times) do not pay for them. Runs with the
// runtime lock released (seconds of Clang and driver work); the caller publishes the
// result as the program's skmd under the lock. nullptr: not in skmd mode.
std::shared_ptr<SkmdProgram> skmdPrepare(_cl_context *ctx, const std::string &source,
                                         const std::string &options,
                                         const std::vector<std::string> &kernelNames);

// Creates the partition-ready kernels of sp on every slot (skmdPrepare: the first
// launch paid about 1.3 ms for them on the H100 machine).
void skmdCreateKernels(const std::vector<std::string> &kernelNames, SkmdProgram &sp);

// The compiler's variant kernel `variant` of sp on slot, created on first use and kept in
// sp.kernels[key] (nullptr: none there).
cl_kernel skmdVariantKernel(SkmdProgram &sp, int slot, const std::string &key, const std::string &variant);
// The partition-ready kernel of `ki` on slot, kept under the app's kernel name.
cl_kernel skmdPartitionKernel(SkmdProgram &sp, int slot, const compiler::KernelInfo &ki);
// The compiler's analysis of kernel `name` for slot's device (nullptr: none).
const compiler::KernelInfo *skmdKernelInfo(const SkmdProgram &sp, int slot, const std::string &name);
// skmdKernelInfo and, where the analysis says it is partitionable, skmdPartitionKernel for
// k on every slot, looked up by name once per program: every SKMD launch asks (API lock).
const _cl_kernel::SkmdSlots &skmdSlotsOf(_cl_kernel *k, SkmdProgram &sp);
// The NDRange a split launch of cmd uses (a local size is picked, up to wgLimit, when the
// app gave none) and its by-value arguments. False: the kernel requires a work-group size
// the app did not give.
bool skmdLaunchShape(Command *cmd, size_t wgLimit, compiler::NDRange &nd,
                     compiler::ScalarArgs &scalars);

// The command graph's view of a launch (access.h's hook): per buffer argument, the bytes
// the whole launch reads and writes, from the compiler's analysis, each launch shape's
// evaluated once (_cl_kernel::accessMemo). False when the analysis cannot say.
bool skmdLaunchAccess(const Command *cmd, std::vector<struct Access> &out);
// That analysis itself: per argument, the whole launch's read and write hulls, evaluated
// once per launch shape and kept on the kernel (the command graph and Algorithm 1's
// bytes both ask for them at a shape's first launch).
const struct AccessMemo &skmdWholeHulls(_cl_kernel *k, const compiler::KernelInfo &info,
                                        const compiler::NDRange &nd, const compiler::ScalarArgs &scalars)
    REQUIRES(apiMutex);
// One argument's hull from that memo (write: its write hull, else its read hull).
compiler::ByteRange skmdHull(const struct AccessMemo &memo, unsigned arg, bool write);

// Whether splitting cmd's launch into these per-slot group counts (pieces in slot order)
// would need a host merge: global atomics, or pieces whose write ranges overlap.
bool skmdNeedsMerge(Command *cmd, const compiler::KernelInfo &info, const compiler::NDRange &nd,
                    const compiler::ScalarArgs &scalars, const std::vector<uint64_t> &groups);

// Split decisions taken on profiled models for every device, and probes sent (TUTTI_STATS).
uint64_t skmdModelDecisions();
uint64_t skmdProbes();
// Sum of Algorithm 1's predicted times (ms) of the launches decided with a prediction, and
// their number (a fixed split's included, for sweeps beside measured times).
double skmdPredictedMs();
uint64_t skmdPredictedLaunches();
// Of the model decisions, those taken again from an earlier launch of the same shape and
// data placement (TUTTI_STATS kept_decisions).
uint64_t skmdKeptDecisions();
// Launch shapes whose access hulls the compiler's analysis evaluated (TUTTI_STATS hull_shapes).
uint64_t skmdHullShapes();

}  // namespace tutti
