// issuer.h - a device queue's issuer thread: whole launches reach the driver off the app's thread.
//
// NVIDIA's clEnqueueNDRangeKernel takes about 5 us, and Tutti's bookkeeping for a launch
// (validation, the command graph, planning, coherence) about 1.5 us more, both on the
// app's thread: a launch cost 1.3-1.5x its native cost (issue 17). With the driver's call
// handed to a thread per device queue, Tutti's work for launch n+1 runs while the driver
// takes launch n, so a stream of launches costs about what the driver's calls cost alone
// (measured natively with the same handoff: 5.39 us against 5.06, tools/bench/results/
// h200-2026-11-28b).
//
// Only launches that need no real event go this way (lazy, untimed ones: completion.cpp),
// so nothing the runtime tracks waits for the issuer's answer. Every other call on the
// queue first waits until the jobs handed over before it have reached the driver
// (DeviceSlot::queue()), and so does anything that sets the same real kernel's arguments
// or releases a real buffer: the device sees its calls in the order Tutti made them.
#pragma once
#include <CL/cl.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "thread_annotations.h"

namespace tutti {

struct alignas(64) IssueJob {
  struct Arg {
    cl_uint index = 0;
    size_t size = 0;
    size_t at = 0;      // offset of its value in data
    bool null = false;  // a __local size or a null buffer: no value
  };
  cl_command_queue queue = nullptr;
  cl_kernel kernel = nullptr;
  cl_uint dim = 1;
  bool hasOffset = false, hasLocal = false;
  size_t offset[3] = {0, 0, 0}, global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  std::vector<Arg> args;               // changed arguments, set before the launch
  std::vector<unsigned char> data;     // their values
  std::atomic<cl_int> *failed = nullptr;  // gets the driver's error, if any
  const char *what = "";                  // kernel name, for the log

  void reset() {
    args.clear();
    data.clear();
  }
  void setArg(cl_uint index, size_t size, const void *value);
};

class Issuer {
 public:
  explicit Issuer(std::string device);
  ~Issuer();  // runs what is left, then ends the thread
  Issuer(const Issuer &) = delete;
  Issuer &operator=(const Issuer &) = delete;

  // The producer's side; one producer at a time (callers hold the API lock). next()
  // returns the job to fill (cleared), waiting while the ring is full; publish() hands it
  // over. A job taken by next() and not published is handed out again by the next next().
  IssueJob &next();
  void publish();

  // Returns once every job published before the call has been given to the driver.
  void drain();
  // The same, but gives up after ns (at exit: a driver that never returns must not hang
  // the process). Returns whether it got there.
  bool drainFor(uint64_t ns);
  // A driver call of a job failed (once set, it stays); every job after it fails too.
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // True the first time the producer asks after a failure.
  bool noticeFailure() {
    if (!failed() || failureNoticed_) return false;
    return failureNoticed_ = true;
  }

 private:
  static constexpr size_t kRing = 64;
  void loop();
  void run(IssueJob &j);
  void waitForDone(uint64_t target);

  std::string device_;
  // The producer's and the thread's counters sit on lines of their own, and each side
  // keeps the other's last value it saw: a launch then moves no cache line between the
  // two threads but its job's (SPSC ring, as in rigtorp's SPSCQueue).
  alignas(64) std::atomic<uint64_t> pushed_{0};  // jobs published
  uint64_t doneSeen_ = 0;                        // producer's copy of done_
  uint64_t fullNs_ = 0;                          // producer's time waiting on a full ring
  alignas(64) std::atomic<uint64_t> done_{0};    // jobs given to the driver
  uint64_t pushedSeen_ = 0;                      // the thread's copy of pushed_
  alignas(64) std::atomic<bool> sleeping_{false};
  std::atomic<int> waiters_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::atomic<cl_int> firstError_{CL_SUCCESS};  // the thread's own
  bool failureNoticed_ = false;                 // the producer's
  // TUTTI_LOG=info: the thread's time in the driver and waiting for jobs, logged at its end
  // (whether a stream of launches was bound by the driver or by Tutti's own work).
  const bool timed_;
  uint64_t driverNs_ = 0, idleNs_ = 0, sleeps_ = 0;
  Mutex mu_;
  std::condition_variable_any work_;   // the thread waits for jobs
  std::condition_variable_any drained_;  // drain() waits for the thread
  alignas(64) IssueJob ring_[kRing];
  std::thread thread_;  // started by the first publish()
};

}  // namespace tutti
