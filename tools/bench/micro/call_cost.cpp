// call_cost - host-side cost of the driver calls Tutti makes around each kernel launch,
// measured natively, so the interposer's per-launch overhead can be attributed.
//   call_cost [N [PLATFORM-SUBSTRING]]   (default: 20000 on the first platform)
// Prints one RESULT line per call pattern with the mean microseconds per call.
#include "empty_kernel.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

namespace {

using Clock = std::chrono::steady_clock;

double usPer(int n, const std::function<void()> &body) {
  auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) body();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / n;
}

}  // namespace

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  EmptyKernel ek;
  if (!ek.open(argc > 2 ? argv[2] : "")) return 2;
  cl_int err;
  cl_device_id d = ek.device;
  cl_command_queue plain = ek.queue;
  cl_command_queue prof = clCreateCommandQueue(ek.ctx, d, CL_QUEUE_PROFILING_ENABLE, &err);
  cl_kernel k = ek.kernel;
  cl_mem buf = ek.buf;
  const char *name = ek.platform;
  size_t g = 256, l = 64;
  auto launch = [&](cl_command_queue q, cl_event *ev) {
    clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, ev);
  };
  auto report = [&](const char *what, double us) {
    std::printf("RESULT platform=\"%s\" call=%s us=%.4f\n", name, what, us);  // ns: clSetKernelArg is ~0.01
  };
  for (cl_command_queue q : {plain, prof}) {  // warm both queues
    for (int i = 0; i < 100; ++i) launch(q, nullptr);
    clFinish(q);
  }
  // Each timed loop ends with clFinish outside the timing, so queues start empty.
  auto timed = [&](const char *what, cl_command_queue q, const std::function<void()> &body) {
    report(what, usPer(n, body));
    clFinish(q);
  };
  timed("enqueue", plain, [&] { launch(plain, nullptr); });
  timed("enqueue+event", plain, [&] {
    cl_event e;
    launch(plain, &e);
    clReleaseEvent(e);
  });
  timed("enqueue/profiling", prof, [&] { launch(prof, nullptr); });
  timed("enqueue+event/profiling", prof, [&] {
    cl_event e;
    launch(prof, &e);
    clReleaseEvent(e);
  });
  timed("enqueue+event+callback/profiling", prof, [&] {
    cl_event e;
    launch(prof, &e);
    clSetEventCallback(e, CL_COMPLETE, [](cl_event, cl_int, void *) {}, nullptr);
    clReleaseEvent(e);
  });
  timed("enqueue+flush", plain, [&] {
    launch(plain, nullptr);
    clFlush(plain);
  });
  timed("marker+event", plain, [&] {
    cl_event e;
    clEnqueueMarkerWithWaitList(plain, 0, nullptr, &e);
    clReleaseEvent(e);
  });
  report("setKernelArg", usPer(n, [&] { clSetKernelArg(k, 0, sizeof buf, &buf); }));
  // Issue 17's other hot calls: small blocking transfers, an event's status, an idle finish.
  int word[16] = {};
  timed("writeBuffer/64B", plain, [&] {
    clEnqueueWriteBuffer(plain, buf, CL_TRUE, 0, sizeof word, word, 0, nullptr, nullptr);
  });
  timed("readBuffer/64B", plain, [&] {
    clEnqueueReadBuffer(plain, buf, CL_TRUE, 0, sizeof word, word, 0, nullptr, nullptr);
  });
  {
    cl_event e;
    launch(plain, &e);
    clFinish(plain);
    cl_int st;
    report("getEventInfo/STATUS", usPer(n, [&] {
             clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
           }));
    clReleaseEvent(e);
  }
  report("finish/idle", usPer(n, [&] { clFinish(plain); }));
  size_t out[3];
  report("getKernelWorkGroupInfo/WORK_GROUP_SIZE", usPer(n, [&] {
           clGetKernelWorkGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof out[0], out, nullptr);
         }));
  report("getKernelWorkGroupInfo/COMPILE_WORK_GROUP_SIZE", usPer(n, [&] {
           clGetKernelWorkGroupInfo(k, d, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof out, out, nullptr);
         }));
  report("getDeviceInfo/MAX_WORK_ITEM_SIZES", usPer(n, [&] {
           clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof out, out, nullptr);
         }));
  clReleaseCommandQueue(prof);
  return 0;
}
