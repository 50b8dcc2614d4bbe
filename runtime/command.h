// command.h - one enqueued command, from enqueue to completion.
#pragma once
#include <CL/cl.h>

#include <cstdint>
#include <functional>
#include <atomic>
#include <memory>
#include <vector>

#include "objects.h"
#include "real_event.h"
#include "small_vec.h"

namespace tutti {

struct SkmdLaunch;  // skmd.cpp: a launch split across devices
struct VastLaunch;  // vast_launch.h: a launch run in slices that fit its device

struct MkmdRun;  // mkmd_plan.h

struct Command {
  CmdKind kind = CmdKind::Marker;
  _cl_command_queue *q = nullptr;
  _cl_event *ev = nullptr;               // always present (internal ref)
  SmallVec<_cl_event *, 4> deps;         // internal refs
  size_t unmetDeps = 0;
  enum class State : uint8_t { Held, Waiting, Ready, Staging, Issued, Finished } state = State::Held;
  std::vector<RealEvent> staging;        // real device->host copies this command waits for
  std::vector<_cl_mem *> mems;           // internal refs held for the command's life
  bool waitsAll = false;     // marker/barrier without wait list: after everything before
  bool blocksLater = false;  // barrier (or in-order marker): everything after waits
  // A launch that goes at once, unscheduled (TUTTI_MODE=mkmd's eager ones): ordered by its
  // whole buffers, without the compiler's hulls of its launch shape (access.h).
  bool ordersWhole = false;

  // Kernel launch (args are a snapshot taken at enqueue).
  _cl_kernel *kernel = nullptr;
  std::vector<ArgValue> args;
  cl_uint dim = 1;
  size_t offset[3] = {0, 0, 0}, global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  bool hasLocal = false;

  // Memory commands.
  _cl_mem *src = nullptr, *dst = nullptr;
  size_t srcOff = 0, dstOff = 0, size = 0;
  void *ptr = nullptr;
  size_t srcOrigin[3] = {0, 0, 0}, dstOrigin[3] = {0, 0, 0}, region[3] = {0, 0, 0};
  size_t srcRow = 0, srcSlice = 0, dstRow = 0, dstSlice = 0;
  std::vector<unsigned char> pattern;
  cl_map_flags mapFlags = 0;
  void *mapped = nullptr;
  cl_mem_migration_flags migrateFlags = 0;
  std::vector<_cl_mem *> migrate;

  // Execution.
  int slot = -1;                 // device that runs it, -1 = host
  uint32_t avoid = 0;            // slots where it failed: it is placed elsewhere (failover.cpp)
  RealEvent real;                // last real event of the command
  cl_int stagingError = CL_SUCCESS;
  bool blocking = false;         // the app waits for it: a real copy may block too
  bool directIssued = false;     // a read's device parts already go straight to `ptr`
  bool outside = false;          // its transfer runs outside the API lock (IssueResult::Outside)
  bool armed = false;            // a driver callback reports `real`'s completion
  bool untimed = false;          // `real` is a marker behind the launch: completion, no times
  bool appEvent = false;         // the app was handed the event (it may ask for its times)
  uint64_t seq = 0;              // kernels: issue order on the slot's in-order queue
  uint64_t order = 0;            // any real command: issue order on the slot's queue
  bool depFailed = false;        // a command it waited for failed
  // A launch handed to its device's issuer (issuer.h): the driver's error, set by that
  // thread before the launch can be reported complete.
  std::atomic<cl_int> issuerError{CL_SUCCESS};
  bool finishDeferred = false;   // chained, done before its wait list: finish with it
  cl_int deferredStatus = CL_SUCCESS;
  void *freeAfter = nullptr;     // host staging memory to free when the command is done
  std::shared_ptr<SkmdLaunch> skmd;  // set when the launch runs split across devices
  std::shared_ptr<VastLaunch> vast;  // set when it runs on cmd->slot in slices (VAST)
  // SKMD planned it whole on `slot`, whose inputs were then staged there: issued again
  // once they land, it is not decided anew (the data it moved would change the answer's
  // question, and deciding again took 0.4 ms on the H100 machine).
  bool skmdWhole = false;
  std::vector<uint64_t> forcedGroups;  // TUTTI_MODE=mkmd: work-groups per slot its schedule gave
  std::shared_ptr<MkmdRun> mkmdRun;    // TUTTI_MODE=mkmd: its graph, whose measured span it ends
  // TUTTI_MODE=mkmd: buffers this kernel writes that a kernel scheduled on another slot
  // reads next, with that slot: their bytes move as soon as this one is issued (pushOutputs).
  std::vector<std::pair<_cl_mem *, int>> pushTo;
  // Host work the command waits for: copies, merges and driver waits that run on the
  // runtime's host-work thread with the API lock released (Runtime::runHostWork), either
  // before the command is issued (it is issued again after: a split launch's snapshot)
  // or after its device work (it finishes after: a split launch's merges). hostWork
  // returns a status, which hostLanded, when set, gets under the lock and turns into the
  // command's. Nothing else touches what the work touches meanwhile: commands that use
  // those bytes wait for this one.
  std::function<cl_int()> hostWork;
  // Run under the lock once a job left to run outside it (IssueResult::Outside) is back,
  // before the command finishes: records what the job did instead of its plan.
  std::function<void()> landedOutside;
  std::function<cl_int(cl_int)> hostLanded;
};

inline DeviceSlot &slotOf(const Command *cmd, int slot) { return cmd->q->ctx->slots[slot]; }

}  // namespace tutti
