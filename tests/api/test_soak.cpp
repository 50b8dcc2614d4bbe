// test_soak.cpp - a bounded soak: app threads issue thousands of mixed commands (issue 21).
//
// Several threads share one context and each drives two queues of its own (in-order and,
// where the device has one, out-of-order) with a seeded random mix of writes, reads,
// copies, fills, kernels, maps, sub-buffers, markers, barriers, user events, flushes and
// waits, with wait lists that reach into other threads' events and events released at
// random points. Each thread's buffers are its own, so their content is fixed by its
// command sequence alone: a host model of what native OpenCL must produce checks every
// read as it comes back and the whole buffers at the end. The suite runs it natively, under
// Tutti, and under both sanitizer passes; TUTTI_SOAK_OPS sets the commands per thread.
#include "fixture.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

using namespace api;

namespace {

const char *kSoakSource = R"CLC(
__kernel void soak_mix(__global int *a, __global const int *b, int k) {
  size_t i = get_global_id(0);
  a[i] = a[i] * 3 + b[i] + k;
}
)CLC";

// Events other threads may wait on; each held by one reference of the pool's own.
class EventPool {
 public:
  void add(cl_event e) {
    clRetainEvent(e);
    std::lock_guard<std::mutex> g(mu_);
    events_.push_back(e);
    if (events_.size() > 64) {
      clReleaseEvent(events_.front());
      events_.pop_front();
    }
  }
  // A retained event of the pool (nullptr when empty); the caller releases it.
  cl_event pick(std::mt19937 &rng) {
    std::lock_guard<std::mutex> g(mu_);
    if (events_.empty()) return nullptr;
    cl_event e = events_[rng() % events_.size()];
    clRetainEvent(e);
    return e;
  }
  ~EventPool() {
    for (cl_event e : events_) clReleaseEvent(e);
  }

 private:
  std::mutex mu_;
  std::deque<cl_event> events_;
};

// One app thread's commands and its model of its two buffers.
class SoakThread {
 public:
  SoakThread(int id, cl_context ctx, cl_device_id dev, cl_program prog, EventPool &pool,
             size_t n, size_t align)
      : id_(id), ctx_(ctx), prog_(prog), pool_(pool), n_(n), align_(align), rng_(1000 + id) {
    cl_int err = CL_SUCCESS;
    q_[0] = clCreateCommandQueue(ctx, dev, 0, &err);
    check(err, "create in-order queue");
    q_[1] = clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (err != CL_SUCCESS) q_[1] = clCreateCommandQueue(ctx, dev, 0, &err), ooo_ = false;
    check(err, "create second queue");
    k_ = clCreateKernel(prog, "soak_mix", &err);
    check(err, "create kernel");
    for (int b = 0; b < 2; ++b) {
      model_[b].resize(n);
      for (size_t i = 0; i < n; ++i) model_[b][i] = int(i * 7 + b + id * 1000);
      buf_[b] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(int),
                               model_[b].data(), &err);
      check(err, "create buffer");
    }
  }
  ~SoakThread() {
    release(prev_);
    if (user_) clSetUserEventStatus(user_, CL_COMPLETE), clReleaseEvent(user_);
    for (cl_command_queue q : q_)
      if (q) clFinish(q), clReleaseCommandQueue(q);
    for (cl_mem m : buf_)
      if (m) clReleaseMemObject(m);
    if (k_) clReleaseKernel(k_);
  }

  void run(int ops) {
    for (int op = 0; op < ops && failures_.empty(); ++op) step();
    completeUser();
    for (cl_command_queue q : q_) check(clFinish(q), "final clFinish");
    for (int b = 0; b < 2; ++b) {
      std::vector<int> got(n_);
      check(clEnqueueReadBuffer(q_[0], buf_[b], CL_TRUE, 0, n_ * sizeof(int), got.data(), 0,
                                nullptr, nullptr),
            "final read");
      compare(got, b, 0, "final content");
    }
  }

  const std::vector<std::string> &failures() const { return failures_; }
  int commands() const { return commands_; }

 private:
  // One random command on a random queue, ordered after the previous one.
  void step() {
    int q = int(rng_() % 2);
    std::vector<cl_event> waits = waitList(q);
    size_t off = rng_() % n_, len = 1 + rng_() % (n_ - off);
    int b = int(rng_() % 2);
    cl_event ev = nullptr;
    cl_int err = CL_SUCCESS;
    const char *what = "";
    switch (rng_() % 12) {
      case 0: case 1: {  // write, blocking or not
        auto data = std::make_shared<std::vector<int>>(len);
        for (int &v : *data) v = int(rng_());
        bool blocking = rng_() % 2;
        if (blocking) completeUser();
        err = clEnqueueWriteBuffer(q_[q], buf_[b], blocking, off * sizeof(int), len * sizeof(int),
                                   data->data(), cl_uint(waits.size()), waits.data(), &ev);
        std::copy(data->begin(), data->end(), model_[b].begin() + long(off));
        touched(b, off, len, q, blocking ? "blocking write" : "write");
        if (!blocking) keep_.push_back(data);
        what = "write";
        break;
      }
      case 2: {  // blocking read, checked at once
        completeUser();
        std::vector<int> got(len);
        err = clEnqueueReadBuffer(q_[q], buf_[b], CL_TRUE, off * sizeof(int), len * sizeof(int),
                                  got.data(), cl_uint(waits.size()), waits.data(), &ev);
        if (err == CL_SUCCESS) compare(got, b, off, "read");
        what = "read";
        break;
      }
      case 3: {  // copy between the two buffers (disjoint objects: any ranges)
        size_t dst = rng_() % (n_ - len + 1);
        err = clEnqueueCopyBuffer(q_[q], buf_[b], buf_[1 - b], off * sizeof(int), dst * sizeof(int),
                                  len * sizeof(int), cl_uint(waits.size()), waits.data(), &ev);
        std::copy(model_[b].begin() + long(off), model_[b].begin() + long(off + len),
                  model_[1 - b].begin() + long(dst));
        touched(1 - b, dst, len, q, "copy into");
        what = "copy";
        break;
      }
      case 4: {  // fill
        int pat = int(rng_());
        err = clEnqueueFillBuffer(q_[q], buf_[b], &pat, sizeof pat, off * sizeof(int), len * sizeof(int),
                                  cl_uint(waits.size()), waits.data(), &ev);
        std::fill(model_[b].begin() + long(off), model_[b].begin() + long(off + len), pat);
        touched(b, off, len, q, "fill");
        what = "fill";
        break;
      }
      case 5: case 6: {  // kernel over [off, off + len): a = 3a + b' + k
        // Groups of 16: PoCL compiles a kernel again for every new local size it picks.
        const size_t local = 16;
        off -= off % local;
        len = std::max(local, std::min(len, n_ - off) / local * local);
        int k = int(rng_() % 1000);
        err = clSetKernelArg(k_, 0, sizeof(cl_mem), &buf_[b]);
        if (err == CL_SUCCESS) err = clSetKernelArg(k_, 1, sizeof(cl_mem), &buf_[1 - b]);
        if (err == CL_SUCCESS) err = clSetKernelArg(k_, 2, sizeof k, &k);
        if (err == CL_SUCCESS)
          err = clEnqueueNDRangeKernel(q_[q], k_, 1, &off, &len, &local, cl_uint(waits.size()),
                                       waits.data(), &ev);
        for (size_t i = off; i < off + len; ++i)
          model_[b][i] = int(unsigned(model_[b][i]) * 3u + unsigned(model_[1 - b][i]) + unsigned(k));
        touched(b, off, len, q, "kernel");
        what = "kernel";
        break;
      }
      case 7: {  // map, check or change, unmap
        completeUser();
        bool write = rng_() % 2;
        int *p = static_cast<int *>(clEnqueueMapBuffer(
            q_[q], buf_[b], CL_TRUE, write ? CL_MAP_WRITE : CL_MAP_READ, off * sizeof(int),
            len * sizeof(int), cl_uint(waits.size()), waits.data(), nullptr, &err));
        what = "map";
        if (err != CL_SUCCESS || !p) break;
        if (write) {
          for (size_t i = 0; i < len; ++i) p[i] = model_[b][off + i] = int(rng_());
          touched(b, off, len, q, "mapped write");
        } else {
          compare(std::vector<int>(p, p + len), b, off, "mapped read");
        }
        err = clEnqueueUnmapMemObject(q_[q], buf_[b], p, 0, nullptr, &ev);
        what = "unmap";
        break;
      }
      case 8: {  // a sub-buffer at an aligned origin, written through, then released
        size_t per = std::max<size_t>(1, align_ / sizeof(int));
        size_t origin = (off / per) * per, size = std::min(len, n_ - origin);
        cl_buffer_region r{origin * sizeof(int), size * sizeof(int)};
        cl_mem sub = clCreateSubBuffer(buf_[b], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
        what = "sub-buffer";
        if (err != CL_SUCCESS) break;
        int pat = int(rng_());
        err = clEnqueueFillBuffer(q_[q], sub, &pat, sizeof pat, 0, size * sizeof(int),
                                  cl_uint(waits.size()), waits.data(), &ev);
        std::fill(model_[b].begin() + long(origin), model_[b].begin() + long(origin + size), pat);
        touched(b, origin, size, q, "sub-buffer fill");
        clReleaseMemObject(sub);  // the fill keeps it alive
        break;
      }
      case 9:  // marker or barrier with the wait list
        err = rng_() % 2 ? clEnqueueMarkerWithWaitList(q_[q], cl_uint(waits.size()), waits.data(), &ev)
                         : clEnqueueBarrierWithWaitList(q_[q], cl_uint(waits.size()), waits.data(), &ev);
        what = "marker";
        break;
      case 10: {  // a user event that the next command waits for
        if (!user_) user_ = clCreateUserEvent(ctx_, &err);
        err = clEnqueueMarkerWithWaitList(q_[q], cl_uint(waits.size()), waits.data(), &ev);
        what = "marker after user event";
        break;
      }
      case 11: {  // flush, finish, or wait for another thread's event
        completeUser();
        err = clEnqueueMarkerWithWaitList(q_[q], cl_uint(waits.size()), waits.data(), &ev);
        int r = int(rng_() % 3);
        if (err == CL_SUCCESS && r == 0) err = clFlush(q_[q]);
        if (err == CL_SUCCESS && r == 1) {
          err = clFinish(q_[q]);
          keepUntilFinish(q);
        }
        if (err == CL_SUCCESS && r == 2)
          if (cl_event other = pool_.pick(rng_)) {
            err = clWaitForEvents(1, &other);
            clReleaseEvent(other);
          }
        what = "flush/finish/wait";
        break;
      }
    }
    if (getenv("TUTTI_SOAK_LOG"))
      fprintf(stderr, "soak %d #%d q%d %s buf %d [%zu,+%zu) waits %zu err %d\n", id_, commands_, q, what,
                  b, off, len, waits.size(), err);
    for (cl_event w : waits) release(w);
    if (getenv("TUTTI_SOAK_SNAPS")) snaps_.push_back({commands_, {model_[0], model_[1]}});
    ++commands_;
    if (!check(err, what)) {
      release(ev);
      return;
    }
    release(prev_);
    prev_ = ev;
    prevQueue_ = q;
    if (ev && rng_() % 4 == 0) pool_.add(ev);
    if (const char *from = getenv("TUTTI_SOAK_VERIFY_FROM"))
      if (commands_ >= std::atoi(from)) verifyAll(what);
  }

  // Debugging aid: every buffer against the model after each command.
  void verifyAll(const char *what) {
    completeUser();
    for (cl_command_queue q : q_) clFinish(q);
    for (int b = 0; b < 2; ++b) {
      std::vector<int> got(n_);
      clEnqueueReadBuffer(q_[0], buf_[b], CL_TRUE, 0, n_ * sizeof(int), got.data(), 0, nullptr, nullptr);
      compare(got, b, 0, (std::string("after ") + what).c_str());
    }
  }

  // The previous command's event where order is not already given by an in-order queue,
  // now and then another thread's event and this thread's open user event.
  std::vector<cl_event> waitList(int q) {
    std::vector<cl_event> w;
    if (prev_ && (q != prevQueue_ || (q == 1 && ooo_))) w.push_back(retained(prev_));
    if (rng_() % 8 == 0)
      if (cl_event other = pool_.pick(rng_)) w.push_back(other);
    if (user_) w.push_back(retained(user_));
    return w;
  }

  // Before any call that blocks: this thread's user event must not hold it, or others.
  void completeUser() {
    if (!user_) return;
    check(clSetUserEventStatus(user_, CL_COMPLETE), "clSetUserEventStatus");
    clReleaseEvent(user_);
    user_ = nullptr;
  }

  void keepUntilFinish(int) {
    // Non-blocking writes' host data may go once both queues are finished.
    if (clFinish(q_[0]) == CL_SUCCESS && clFinish(q_[1]) == CL_SUCCESS) keep_.clear();
  }

  void compare(const std::vector<int> &got, int b, size_t off, const char *what) {
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != model_[b][off + i]) {
        std::string last;  // the commands that wrote that int last, newest first
        int shown = 0;
        for (auto h = history_.rbegin(); h != history_.rend() && shown < 4; ++h)
          if (h->b == b && h->lo <= off + i && off + i < h->hi)
            last += "\n    #" + std::to_string(h->command) + " q" + std::to_string(h->q) + " " +
                    h->what + " [" + std::to_string(h->lo) + "," + std::to_string(h->hi) + ")", ++shown;
        last += whence(got, b, off, got[i]);
        fail(std::string(what) + ": buffer " + std::to_string(b) + " int " + std::to_string(off + i) +
             " is " + std::to_string(got[i]) + ", want " + std::to_string(model_[b][off + i]) +
             " (command " + std::to_string(commands_) + "); last written by:" + last);
        return;
      }
  }

  // The model's record of which command wrote which ints, for failure messages.
  struct Touch {
    int command, b, q;
    size_t lo, hi;
    const char *what;
  };
  void touched(int b, size_t off, size_t len, int q, const char *what) {
    history_.push_back({commands_, b, q, off, off + len, what});
  }
  std::vector<Touch> history_;

  // Debugging aid (TUTTI_SOAK_SNAPS): the model after every command, so that a failure
  // says how many ints of the range are wrong and which command's state the wrong value
  // comes from (a stale replica shows as an older command's value).
  struct Snap {
    int command;
    std::vector<int> v[2];
  };
  std::vector<Snap> snaps_;
  std::string whence(const std::vector<int> &got, int b, size_t off, int value) const {
    if (snaps_.empty()) return "";
    size_t bad = 0, lo = SIZE_MAX, hi = 0;
    for (size_t j = 0; j < got.size(); ++j)
      if (got[j] != model_[b][off + j]) ++bad, lo = std::min(lo, off + j), hi = off + j + 1;
    std::string s = "\n    " + std::to_string(bad) + " wrong ints in [" + std::to_string(lo) + "," +
                    std::to_string(hi) + ")";
    int shown = 0;
    for (size_t k = 0; k < snaps_.size() && shown < 4; ++k)
      for (int bb = 0; bb < 2 && shown < 4; ++bb)
        for (size_t j = 0; j < n_ && shown < 4; ++j)
          if (snaps_[k].v[bb][j] == value && (k == 0 || snaps_[k - 1].v[bb][j] != value))
            s += "\n    the wrong value entered buffer " + std::to_string(bb) + " int " + std::to_string(j) +
                 " at command #" + std::to_string(snaps_[k].command), ++shown;
    return s;
  }

  bool check(cl_int err, const char *what) {
    if (err == CL_SUCCESS) return true;
    fail(std::string(what) + " failed: " + errName(err) + " (command " + std::to_string(commands_) + ")");
    return false;
  }
  void fail(const std::string &why) { failures_.push_back("thread " + std::to_string(id_) + ": " + why); }
  static cl_event retained(cl_event e) {
    clRetainEvent(e);
    return e;
  }
  static void release(cl_event &e) {
    if (e) clReleaseEvent(e);
    e = nullptr;
  }

  int id_;
  cl_context ctx_;
  cl_program prog_;
  EventPool &pool_;
  size_t n_, align_;
  std::mt19937 rng_;
  cl_command_queue q_[2] = {};
  bool ooo_ = true;
  cl_kernel k_ = nullptr;
  cl_mem buf_[2] = {};
  std::vector<int> model_[2];
  cl_event prev_ = nullptr, user_ = nullptr;
  int prevQueue_ = 0;
  int commands_ = 0;
  std::vector<std::shared_ptr<std::vector<int>>> keep_;
  std::vector<std::string> failures_;
};

class Soak : public ClTest {};

TEST_F(Soak, ThreadsMixedCommandsMatchTheModel) {
  std::string threadsEnv = getEnv("TUTTI_SOAK_THREADS");
  const int threads = threadsEnv.empty() ? 4 : std::atoi(threadsEnv.c_str());
  std::string opsEnv = getEnv("TUTTI_SOAK_OPS");
  const int ops = opsEnv.empty() ? 1500 : std::atoi(opsEnv.c_str());
  cl_program prog = makeProgram(kSoakSource);
  ASSERT_FALSE(HasFailure());
  size_t align = deviceInfo<cl_uint>(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
  EventPool pool;
  std::vector<std::unique_ptr<SoakThread>> ts;
  for (int t = 0; t < threads; ++t)
    ts.push_back(std::make_unique<SoakThread>(t, ctx, device, prog, pool, 4096, align));
  std::vector<std::thread> run;
  for (auto &t : ts) run.emplace_back([&t, ops] { t->run(ops); });
  for (auto &r : run) r.join();
  int commands = 0;
  for (auto &t : ts) {
    commands += t->commands();
    for (const std::string &f : t->failures()) ADD_FAILURE() << f;
  }
  printf("[ soak    ] %d threads, %d commands\n", threads, commands);
  EXPECT_EQ(threads * ops, commands);
}

}  // namespace
