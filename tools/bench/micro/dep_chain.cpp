// dep_chain - cost per command of long command streams with barriers, markers and waits
// (issue 17: an app enqueuing 1,500 kernels each followed by clEnqueueBarrier made every
// barrier depend on every earlier command under Tutti, quadratic in the app's length).
//   dep_chain PATTERN N [PLATFORM-SUBSTRING]
// Runs PATTERN with N kernels on the first device of the first matching platform and
// prints one RESULT line with the microseconds per enqueued command (kernels plus the
// barriers/markers between them) and the whole stream's time up to its final wait. The
// time per command must not grow with N. Under Tutti, TUTTI_LOG=debug shows each
// command's dependencies ("enqueue ... kind K, D deps"); tools/bench/dep_chain.sh
// counts them.
// Patterns (the queue is in-order unless named ooo-):
//   barrier        kernel; clEnqueueBarrier
//   barrier-wl     kernel; clEnqueueBarrierWithWaitList(0 events)
//   barrier-ev     kernel(ev); clEnqueueBarrierWithWaitList(1: ev)
//   marker         kernel; clEnqueueMarker(&ev)
//   marker-wl      kernel; clEnqueueMarkerWithWaitList(0 events, &ev)
//   marker-ev      kernel(ev); clEnqueueMarkerWithWaitList(1: ev, &ev2)
//   wait-last      kernel(ev) ..., then clWaitForEvents on the last event only
//   poll           kernel(ev); clGetEventInfo(EXECUTION_STATUS) of it
//   ooo-barrier    out-of-order queue: kernel; clEnqueueBarrierWithWaitList(0 events)
//   ooo-marker     out-of-order queue: kernel; clEnqueueMarkerWithWaitList(0 events)
//   ooo-kernels    out-of-order queue: kernels only
// Every pattern ends with clFinish.
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include "empty_kernel.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: dep_chain PATTERN N [PLATFORM-SUBSTRING]\n");
    return 2;
  }
  std::string pat = argv[1];
  int n = std::atoi(argv[2]);
  bool ooo = pat.rfind("ooo-", 0) == 0;
  EmptyKernel ek;
  if (!ek.open(argc > 3 ? argv[3] : "", ooo ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0)) {
    std::fprintf(stderr, "dep_chain: no device or the kernel did not build\n");
    return 2;
  }
  cl_command_queue q = ek.queue;
  cl_kernel k = ek.kernel;
  size_t g = 64, l = 64;
  auto launch = [&](cl_event *ev) { return clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, ev); };
  // Warm the queue and the kernel (first launches are timed and planned).
  for (int i = 0; i < 20; ++i) launch(nullptr);
  clFinish(q);

  std::vector<cl_event> keep;  // wait-last holds every event until the end, as such apps do
  keep.reserve(n);
  long commands = 0;
  cl_int err = CL_SUCCESS;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n && err == CL_SUCCESS; ++i) {
    cl_event ev = nullptr, ev2 = nullptr;
    bool wantEv = pat == "barrier-ev" || pat == "marker-ev" || pat == "wait-last" || pat == "poll";
    err = launch(wantEv ? &ev : nullptr);
    ++commands;
    if (err != CL_SUCCESS) break;
    if (pat == "barrier") err = clEnqueueBarrier(q), ++commands;
    else if (pat == "barrier-wl" || pat == "ooo-barrier") err = clEnqueueBarrierWithWaitList(q, 0, nullptr, nullptr), ++commands;
    else if (pat == "barrier-ev") err = clEnqueueBarrierWithWaitList(q, 1, &ev, nullptr), ++commands;
    else if (pat == "marker") err = clEnqueueMarker(q, &ev2), ++commands;
    else if (pat == "marker-wl" || pat == "ooo-marker") err = clEnqueueMarkerWithWaitList(q, 0, nullptr, &ev2), ++commands;
    else if (pat == "marker-ev") err = clEnqueueMarkerWithWaitList(q, 1, &ev, &ev2), ++commands;
    else if (pat == "poll") {
      cl_int st;
      err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
    } else if (pat != "wait-last" && pat != "ooo-kernels") {
      std::fprintf(stderr, "dep_chain: unknown pattern %s\n", pat.c_str());
      return 2;
    }
    if (ev2) clReleaseEvent(ev2);
    if (pat == "wait-last") keep.push_back(ev);
    else if (ev) clReleaseEvent(ev);
  }
  if (err == CL_SUCCESS && !keep.empty()) err = clWaitForEvents(1, &keep.back());
  if (err == CL_SUCCESS) err = clFinish(q);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (cl_event e : keep) clReleaseEvent(e);
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "dep_chain: %s: error %d\n", pat.c_str(), err);
    return 1;
  }
  std::printf("RESULT platform=\"%s\" pattern=%s n=%d commands=%ld us_per_command=%.3f total_s=%.4f\n",
              ek.platform, pat.c_str(), n, commands, s * 1e6 / double(commands), s);
  return 0;
}
