// reaper.h - backing objects freed off the app's path, and not at all at the process's exit.
//
// Releasing a context's real queues, contexts and pinned staging memory took 73 ms of
// clReleaseContext on the H100 (startup-trace-40b3375), under the lock every API call
// takes and on the app's critical path; a tiny app then exits right after. The reaper
// frees them on a thread of its own. At exit, jobs not yet begun are dropped (the end of
// the process frees what they would have) and a running one is waited for, so that no
// driver call runs while the drivers unload.
#pragma once

#include <functional>

namespace tutti {

// Runs fn on the reaper thread after the jobs posted before it, once a grace period has
// passed (so that an exiting process drops it); now, where no thread can be started or
// the process is exiting. A process that exits before fn began runs atExit instead (if
// given: what must not be left running, such as joining threads that call a driver). A
// backlog of jobs is waited for first, so apps that make and drop contexts in a loop do
// not pile up device memory.
void reapLater(std::function<void()> fn, std::function<void()> atExit = {});
// Returns once every job posted before the call has run (or been dropped at exit).
void reapAll();

}  // namespace tutti
