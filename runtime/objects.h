// objects.h - the virtual OpenCL objects Tutti hands to applications.
//
// Every object starts with the ICD dispatch pointer (ObjectHeader is the first and only
// base, and no object has virtual functions), so the handles work under an ICD loader.
// All mutable runtime state is guarded by the runtime lock (runtime.h); the one
// exception is the completion inbox that driver callbacks write to.
#pragma once
#include <CL/cl.h>
#include <CL/cl_icd.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "interval_set.h"
#include "issuer.h"
#include "small_vec.h"
#include "thread_annotations.h"
#include "real_event.h"

extern "C" CL_API_ENTRY cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint, cl_platform_id *,
                                                                  cl_uint *);

namespace tutti {

enum class ObjType : uint8_t { Platform, Device, Context, Queue, Mem, Program, Kernel, Event, Sampler };

const cl_icd_dispatch *dispatchTable();  // built in interpose/ from the entry-point table

struct BackingDevice;
struct Command;
struct SkmdProgram;  // skmd_program.cpp: partition-ready variants per device
struct Staging;      // staging.cpp
class Watcher;       // watcher.cpp

// Freed objects wait in a quarantine before their memory is reused, so a handle the
// app released is reported invalid instead of silently naming a new object. Memory that
// leaves the quarantine is kept for new objects of its size: every launch makes and
// frees an event, and malloc's coalescing of those frees cost more than the launch.
void *objectAlloc(size_t n);
void quarantineFree(void *p, size_t n);
// Memory of an object no handle ever named: reused by the next objectAlloc of its size.
void freeObject(void *p, size_t n);

struct ObjectHeader {
  static void *operator new(size_t n) { return objectAlloc(n); }
  static void operator delete(void *p, size_t n) { quarantineFree(p, n); }
  const cl_icd_dispatch *dispatch;
  ObjType objType;
  cl_uint refs GUARDED_BY(apiMutex) = 1;      // the application's references (CL_*_REFERENCE_COUNT)
  cl_uint internal GUARDED_BY(apiMutex) = 0;  // Tutti's own references (pending commands, children)
  // In the handle registry. A launch's event that the app did not ask for is never a handle
  // (newEvent): it skips the registry, and its memory is reused at once (freeObject).
  bool registered = true;
  explicit ObjectHeader(ObjType t) : dispatch(dispatchTable()), objType(t) {}
};

}  // namespace tutti

struct _cl_platform_id : tutti::ObjectHeader {
  _cl_platform_id() : ObjectHeader(tutti::ObjType::Platform) {}
};

struct _cl_device_id : tutti::ObjectHeader {
  _cl_device_id() : ObjectHeader(tutti::ObjType::Device) {}
};

namespace tutti {

// A backing device as one virtual context sees it: its own real context and queue.
struct DeviceSlot {
  BackingDevice *dev = nullptr;
  cl_context ctx = nullptr;
  // The device's in-order, profiling queue. queue() is for calling the driver on it: it
  // waits until the launches handed to the issuer before have reached the driver.
  cl_command_queue queue() const {
    if (issuer) issuer->drain();
    return queue_;
  }
  cl_command_queue rawQueue() const { return queue_; }  // for comparing handles only
  cl_command_queue queue_ = nullptr;
  std::shared_ptr<Issuer> issuer;  // whole launches' driver calls, or null (issuer.h)
  int64_t clockOffsetNs = INT64_MIN;  // host ns = device ns + offset (min seen)
  // Kernels issued here with no completion callback yet, in issue order (execute.cpp).
  std::deque<tutti::Command *> lazy GUARDED_BY(apiMutex);
  uint64_t issueSeq GUARDED_BY(apiMutex) = 0;    // kernels issued here
  uint64_t issueOrder GUARDED_BY(apiMutex) = 0;  // real commands issued here (completion.cpp)
  unsigned sinceArmed GUARDED_BY(apiMutex) = 0;
  // Order of the newest command armed here (a completion callback or watch on it): every
  // lazy launch issued before it completes with it (completion.cpp).
  uint64_t armedOrder GUARDED_BY(apiMutex) = 0;
  std::shared_ptr<Staging> staging;  // pinned staging memory, or null (staging.cpp)
  std::shared_ptr<Watcher> watcher;  // waits for this queue's events, or null (watcher.cpp)
};

struct Callback {
  void(CL_CALLBACK *fn)(void *) = nullptr;  // cast to the right signature at call
  void *user = nullptr;
  cl_int type = 0;  // event callbacks: the status that triggers it
};

}  // namespace tutti

struct _cl_context : tutti::ObjectHeader {
  _cl_context() : ObjectHeader(tutti::ObjType::Context) {}
  std::vector<cl_context_properties> props;
  void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *) = nullptr;
  void *notifyData = nullptr;
  std::vector<tutti::DeviceSlot> slots;
  int zeroCopy = -1;  // slot whose replicas are the homes (pickZeroCopySlot), or -1
  std::vector<tutti::Callback> destructorCallbacks;
  // Bytes of the buffers alive in this context (memory.cpp): whether its data exceed a
  // device (stripeSlots).
  uint64_t bufferBytes GUARDED_BY(tutti::apiMutex) = 0;
};

namespace tutti {

// The bytes behind a buffer and its sub-buffers: the host home and the replicas.
struct BufferStore {
  size_t size = 0;
  char *home = nullptr;                     // allocated on first need (homeOf)
  bool homeIsUser = false;                  // CL_MEM_USE_HOST_PTR: home is the app's memory
  int affinity = -1;                        // slot of the last kernel that used it
  int alias = -1;  // slot whose real buffer is the home itself (zero-copy CPU), or -1
  cl_mem pinnedBuf = nullptr;               // GPU buffer whose mapping is `home` (pinned)
  cl_command_queue pinnedQueue = nullptr;
  IntervalSet hostValid GUARDED_BY(apiMutex);
  std::vector<IntervalSet> devValid GUARDED_BY(apiMutex);  // per backing device (context slot)
  std::vector<cl_mem> devBuf;               // real buffer per device, created on demand
  // Copies still in flight: device->host into the home (to < 0), or into slot `to`'s
  // replica from another device's.
  struct Fill { Range r; RealEvent ev; int to = -1; };
  std::vector<Fill> pendingFills GUARDED_BY(apiMutex);
  // Counts writes (coherence.cpp's wrote): bytes read beside the lock are kept in the home
  // only if none came between (issue.cpp, blockingReadStraight).
  uint64_t writes GUARDED_BY(apiMutex) = 0;
  // Per slot: the launch that last wrote the replica there, on the slot's in-order queue
  // (its event; empty: none since the replica was filled), or unknown after any other
  // write. A copy out of the replica then waits for that launch alone instead of all the
  // work queued on the device (coherence.cpp, copyOutWaits). `queued`: unknown, but a launch
  // without an event, enqueued on the slot's queue under the lock (pinQueuedWriters).
  struct LastWrite { RealEvent ev; bool known = true; bool queued = false; };
  std::vector<LastWrite> lastWrite GUARDED_BY(apiMutex);
  // Real sub-buffers in creation order, released newest first (memory.cpp says why).
  struct RealSub { cl_mem mem; bool dead; };
  std::vector<RealSub> realSubs;
};

struct Mapping {
  void *ptr;
  size_t offset, size;
  cl_map_flags flags;
  size_t origin[3] = {0, 0, 0}, region[3] = {0, 0, 0};  // images: mapped region
  size_t row = 0, slice = 0;                            //   and its host pitches
};

}  // namespace tutti

struct _cl_mem : tutti::ObjectHeader {
  _cl_mem() : ObjectHeader(tutti::ObjType::Mem) {}
  _cl_context *ctx = nullptr;
  cl_mem_object_type memType = CL_MEM_OBJECT_BUFFER;
  cl_mem_flags flags = 0;
  size_t size = 0;
  void *hostPtr = nullptr;
  std::vector<cl_mem_properties> props;
  // Sub-buffers share the parent's store at an offset.
  _cl_mem *parent = nullptr;
  size_t origin = 0;
  std::shared_ptr<tutti::BufferStore> store;
  std::vector<cl_mem> subReal;  // buffers: real sub-buffer per device (sub-buffers only)
  // Images live on one device.
  cl_image_format format{};
  cl_image_desc desc{};
  int imageSlot = -1;
  cl_mem realImage = nullptr;
  size_t elementSize = 0;
  std::vector<tutti::Mapping> maps;
  std::vector<tutti::Callback> destructorCallbacks;
  tutti::Range range() const { return {origin, origin + size}; }
  bool isImage() const { return memType != CL_MEM_OBJECT_BUFFER; }
};

struct _cl_sampler : tutti::ObjectHeader {
  _cl_sampler() : ObjectHeader(tutti::ObjType::Sampler) {}
  _cl_context *ctx = nullptr;
  cl_bool normalized = CL_TRUE;
  cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
  cl_filter_mode filter = CL_FILTER_NEAREST;
  std::vector<cl_sampler_properties> props;
  std::vector<cl_sampler> real;  // per slot, on demand
};

namespace tutti {

struct ProgramSlot {
  cl_program prog = nullptr;
  cl_build_status status = CL_BUILD_NONE;
  std::string log;
  cl_program_binary_type binaryType = CL_PROGRAM_BINARY_TYPE_NONE;
  bool fromBuildCache = false;  // prog came from the build cache's binary, not the app's source
};

}  // namespace tutti

struct _cl_program : tutti::ObjectHeader {
  _cl_program() : ObjectHeader(tutti::ObjType::Program) {}
  _cl_context *ctx = nullptr;
  std::string source;
  std::string options;  // of the last build/compile/link
  bool fromSource = false;  // clCreateProgramWithSource: has source, though it may be ""
  bool fromBinary = false;
  // The app asked for kernel argument info (-cl-kernel-arg-info). Tutti builds every
  // program with it for its own use, but answers the app only where it asked.
  bool argInfo = false;
  bool building = false;
  std::vector<tutti::ProgramSlot> slots;
  std::vector<std::string> kernelNames;
  cl_uint kernelsAttached = 0;  // kernels alive: the program cannot be rebuilt
  std::shared_ptr<tutti::SkmdProgram> skmd;  // compiled on the first split launch
  std::vector<tutti::Callback> releaseCallbacks;
};

namespace tutti {

struct ArgInfo {
  cl_kernel_arg_address_qualifier addr = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  cl_kernel_arg_access_qualifier access = CL_KERNEL_ARG_ACCESS_NONE;
  cl_kernel_arg_type_qualifier typeQual = 0;
  std::string typeName, name;
  // Bytes a value of a by-value argument takes (0: unknown), found on the first
  // clSetKernelArg: the lookup parses the type name or probes the driver.
  bool sizeKnown = false;
  size_t size = 0;
  // What clSetKernelArg may settle without the API lock (api_kernel.cpp), decided once
  // when the kernel is made: a buffer pointer, a __local size, or neither.
  enum class SetPath : uint8_t { Locked, Buffer, Local } setPath = SetPath::Locked;
  bool isImage() const;
  bool isSampler() const { return typeName == "sampler_t"; }
  bool isPointer() const { return addr == CL_KERNEL_ARG_ADDRESS_GLOBAL || addr == CL_KERNEL_ARG_ADDRESS_CONSTANT; }
};

// An argument's bytes: every launch copies the kernel's arguments, so scalars up to a
// double4 live inline and copying them allocates nothing.
class ArgBytes {
 public:
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const unsigned char *data() const { return n_ <= kInline ? small_ : big_.data(); }
  void assign(const unsigned char *first, const unsigned char *last) {
    n_ = size_t(last - first);
    if (n_ <= kInline) {
      std::copy(first, last, small_);
      big_.clear();
    } else {
      big_.assign(first, last);
    }
  }
  bool operator==(const ArgBytes &o) const {
    return n_ == o.n_ && std::equal(data(), data() + n_, o.data());
  }

 private:
  static constexpr size_t kInline = 32;
  size_t n_ = 0;
  unsigned char small_[kInline];
  std::vector<unsigned char> big_;  // empty unless n_ > kInline
};

struct ArgValue {
  enum Kind : uint8_t { Unset, Bytes, Mem, Local, Sampler } kind = Unset;
  ArgBytes bytes;                    // Bytes
  size_t localSize = 0;              // Local
  _cl_mem *mem = nullptr;            // Mem (nullptr = NULL buffer)
  _cl_sampler *sampler = nullptr;
};

}  // namespace tutti

namespace tutti {

// One launch shape's access hulls (skmd.cpp launchAccess): per argument, the bytes the
// whole launch may read and write from the argument's start, before clamping to it. The
// compiler's ranges depend on nothing but the NDRange and the scalar arguments.
struct AccessMemo {
  std::vector<uint64_t> key;  // NDRange and scalar arguments
  const void *info = nullptr;  // the compiler's KernelInfo they came from
  struct Hull {
    bool known = false;
    uint64_t begin = 0, end = 0;
  };
  std::vector<Hull> read, write;  // per argument
};

}  // namespace tutti

struct _cl_kernel : tutti::ObjectHeader {
  _cl_kernel() : ObjectHeader(tutti::ObjType::Kernel) {}
  _cl_program *program = nullptr;
  std::string name;
  std::vector<cl_kernel> real;  // per program slot (nullptr where not built)
  std::vector<tutti::ArgInfo> argInfo;
  std::vector<tutti::ArgValue> args GUARDED_BY(tutti::apiMutex);
  cl_uint numArgs = 0;  // the size of both, for clSetKernelArg's unlocked path
  // Per program slot: the arguments Tutti last set on real[slot], so a launch skips the
  // driver's clSetKernelArg for values that did not change (issue.cpp setKernelArgs).
  struct RealArg {
    tutti::ArgValue::Kind kind = tutti::ArgValue::Unset;  // Unset: unknown, set it again
    tutti::ArgBytes bytes;                                  // Bytes
    size_t localSize = 0;                                   // Local
    cl_mem mem = nullptr;                                   // Mem: the real buffer or image
  };
  struct RealArgs {
    uint64_t memEpoch = 0;  // realMemEpoch() when filled: a real buffer released since
                            // may come back at the same address as another one
    std::vector<RealArg> args;
  };
  std::vector<RealArgs> realArgs;
  std::string attributes;
  // Per context slot: the launch shape last seen there and how often in a row (execute.cpp
  // times only the first launches of a shape when nobody else asks for the times).
  struct ShapeRun {
    size_t global[3] = {0, 0, 0}, local[3] = {0, 0, 0};
    unsigned launches = 0;
  };
  std::vector<ShapeRun> shapeRuns;
  // Asked of the drivers once (backend_kernel.cpp): every launch validates against them.
  bool groupInfoKnown = false;
  size_t reqdGroup[3] = {0, 0, 0};  // reqd_work_group_size, or 0s
  size_t maxGroup = 0;              // smallest CL_KERNEL_WORK_GROUP_SIZE of its devices
  // skmd_decide.cpp, under its own lock: what SKMD knows of the kernel (its entry by
  // identity) and the variants it was found for, so a launch looks nothing up by name.
  void *skmdKnown = nullptr;
  const void *skmdKnownFor = nullptr;
  // measured.cpp, under its own lock: this kernel's entry in the store of measured runs,
  // once it has one, so placement and SKMD (every launch) build no key to find it.
  void *measuredEntry = nullptr;
  // skmd.cpp (launchAccess), under the API lock: the compiler's access hulls of the
  // kernel's latest launch shapes, newest first, so a repeated launch evaluates none.
  std::vector<tutti::AccessMemo> accessMemo GUARDED_BY(tutti::apiMutex);
  // skmd.cpp (skmdSlotsOf), under the API lock: per slot, the compiler's analysis of this
  // kernel and its partition-ready kernel, found by name once per SKMD program (serial).
  struct SkmdSlots {
    uint64_t serial = 0;
    std::vector<const void *> info;  // compiler::KernelInfo
    std::vector<cl_kernel> partition;
  };
  SkmdSlots skmdSlots GUARDED_BY(tutti::apiMutex);
  // placement.cpp (fitMask), under the API lock: which slots the latest arguments' buffers
  // fit, and those buffers (root, size) in argument order, so a repeated launch compares
  // them instead of summing them per slot three times.
  struct FitMemo {
    std::vector<std::pair<const _cl_mem *, size_t>> roots;
    uint64_t mask = 0;
    bool valid = false;
  } fitMemo GUARDED_BY(tutti::apiMutex);
  // mkmd_plan.cpp (mkmdTiny), under the API lock: the verdict on the latest launch shape.
  struct TinyMemo {
    cl_uint dim = 0;
    size_t global[3] = {0, 0, 0}, local[3] = {0, 0, 0};
    uint64_t bytes = 0;  // of its buffer arguments
    uint32_t uses = 0;
    bool tiny = false;
    bool seen = false;  // launched before (TUTTI_MKMD_FIRST_UNJUDGED)
  } mkmdTiny GUARDED_BY(tutti::apiMutex);
};

namespace tutti {

enum class CmdKind : uint8_t {
  Kernel, Read, Write, Copy, Fill, ReadRect, WriteRect, CopyRect, Map, Unmap, Migrate,
  Marker, ImageRead, ImageWrite, ImageCopy, ImageFill, ImageToBuffer, BufferToImage, ImageMap
};

}  // namespace tutti

struct _cl_event : tutti::ObjectHeader {
  _cl_event() : ObjectHeader(tutti::ObjType::Event) {}
  _cl_context *ctx = nullptr;
  struct _cl_command_queue *queue = nullptr;  // nullptr for user events
  cl_command_type cmdType = CL_COMMAND_USER;
  cl_int status GUARDED_BY(tutti::apiMutex) = CL_QUEUED;     // app-visible execution status
  // status once final (CL_COMPLETE or an error), else CL_QUEUED: clGetEventInfo's unlocked
  // path answers a finished event's status from it (apps poll; api_event.cpp).
  std::atomic<cl_int> finalStatus{CL_QUEUED};
  bool done GUARDED_BY(tutti::apiMutex) = false;             // work finished (data may be used), maybe not yet reported
  uint64_t accessSeq GUARDED_BY(tutti::apiMutex) = 0;        // its queue's access records name it with this (graph.cpp)
  uint64_t depMark GUARDED_BY(tutti::apiMutex) = 0;          // graph.cpp: already a dependency of the command being added
  bool wanted = false;           // someone waits for it: its completion must be reported
  bool reportAsked = false;      // needCompletion armed it and everything before it
  cl_int failure = 0;            // negative when the command failed
  tutti::Command *cmd = nullptr;  // while pending
  cl_ulong tQueued = 0, tSubmit = 0, tStart = 0, tEnd = 0, tComplete = 0;
  bool timed = false;  // its queue profiles: the times above are kept (a clock read each)
  std::vector<tutti::Callback> callbacks GUARDED_BY(tutti::apiMutex);
  tutti::SmallVec<tutti::Command *, 2> waiters GUARDED_BY(tutti::apiMutex);  // commands that wait for this event
  int device = -1;                         // slot that ran the kernel
};

struct _cl_command_queue : tutti::ObjectHeader {
  _cl_command_queue() : ObjectHeader(tutti::ObjType::Queue) {}
  _cl_context *ctx = nullptr;
  cl_command_queue_properties props = 0;
  std::vector<cl_queue_properties> propArray;
  bool inOrder() const { return !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); }
  bool profiling() const { return props & CL_QUEUE_PROFILING_ENABLE; }
  std::deque<tutti::Command *> held GUARDED_BY(tutti::apiMutex);     // not yet released to the scheduler (batch mode)
  // TUTTI_MODE=mkmd: commands still to pass without being held. A graph whose schedule
  // kept every kernel whole on one device gained nothing by waiting for the app (BiCGSTAB,
  // Jacobi and K-means on two H200s: 0.49-0.84x of streaming them in whole mode), so the
  // queue streams the next commands and schedules a window again after them.
  uint64_t mkmdStream GUARDED_BY(tutti::apiMutex) = 0;
  std::deque<_cl_event *> inFlight GUARDED_BY(tutti::apiMutex);      // enqueued, not yet complete, in enqueue order
  std::atomic<size_t> inFlightCount{0};  // its size, for clFinish's unlocked path on an idle queue
  // A launch that the driver refused on an issuer thread (issuer.h) was reported: in an
  // in-order queue every command after it fails too, as an asynchronous error makes a
  // native queue unusable. Commands after it were issued before the refusal was known,
  // and some may have run without the launch's results.
  bool issuerFailed GUARDED_BY(tutti::apiMutex) = false;
  // Dependency tracking (graph.cpp): accesses since the last barrier, per root buffer and
  // in enqueue order (seq rises), so a command looks only at the buffers it touches, and a
  // read only at their writes.
  struct Access { tutti::Range r; _cl_event *ev; uint64_t seq; };
  struct RootAccesses { std::deque<Access> reads, writes; };
  std::unordered_map<_cl_mem *, RootAccesses> accesses GUARDED_BY(tutti::apiMutex);
  uint64_t accessSeq GUARDED_BY(tutti::apiMutex) = 0;
  // In-order queues: events of other queues (and user events) that commands still in flight
  // here waited for; `owner` is the waiting command's event, which holds `wait` until it is
  // reported complete.
  struct ExternalWait { _cl_event *wait; _cl_event *owner; };
  std::vector<ExternalWait> externalWaits GUARDED_BY(tutti::apiMutex);
  _cl_event *lastBarrier GUARDED_BY(tutti::apiMutex) = nullptr;
  std::deque<_cl_event *> sinceBarrier GUARDED_BY(tutti::apiMutex);   // enqueued after lastBarrier and the last marker that waits for all, not yet complete
};
