// main.cpp - gtest main with a per-test watchdog and a crash reporter, so a
// hang or a crash inside the OpenCL implementation names the test that hit it.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <execinfo.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fixture.h"

namespace {

std::mutex g_mu;
std::string g_current = "<none>";
std::atomic<long long> g_started_ms{0};
std::atomic<bool> g_in_test{false};
char g_current_c[512] = "<none>";

long long nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class Tracker : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo &info) override {
    std::lock_guard<std::mutex> l(g_mu);
    g_current = std::string(info.test_suite_name()) + "." + info.name();
    snprintf(g_current_c, sizeof g_current_c, "%s", g_current.c_str());
    g_started_ms = nowMs();
    g_in_test = true;
  }
  void OnTestEnd(const ::testing::TestInfo &) override { g_in_test = false; }
};

void crashHandler(int sig) {
  char buf[700];
  int n = snprintf(buf, sizeof buf, "\n*** FATAL signal %d (%s) in test %s ***\n", sig,
                   strsignal(sig), g_current_c);
  if (n > 0) {
    ssize_t w = write(2, buf, (size_t)n);
    (void)w;
  }
  // Where it happened, for machines without a debugger (addr2line resolves the offsets).
  void *frames[48];
  backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

// A hang that shows up once in many runs needs its stacks: every thread's, from gdb when
// the machine has it (TUTTI_API_HANG_STACKS=0 skips this).
void dumpThreads() {
  const char *want = std::getenv("TUTTI_API_HANG_STACKS");
  if ((want && std::strcmp(want, "0") == 0) || access("/usr/bin/gdb", X_OK) != 0) return;
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);  // Yama: let the child attach to us
  char cmd[160];
  snprintf(cmd, sizeof cmd, "timeout 60 /usr/bin/gdb -p %d -batch -nx -ex 'thread apply all bt 24' 1>&2",
           int(getpid()));
  if (std::system(cmd) != 0) fprintf(stderr, "(gdb could not show the threads)\n");
}

}  // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new Tracker);

  signal(SIGSEGV, crashHandler);
  signal(SIGBUS, crashHandler);
  signal(SIGABRT, crashHandler);
  signal(SIGFPE, crashHandler);
  signal(SIGILL, crashHandler);

  long limit_s = 120;
  if (const char *t = std::getenv("TUTTI_API_TEST_TIMEOUT")) limit_s = std::atol(t);
  if (limit_s > 0) {
    std::thread([limit_s] {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        if (g_in_test && nowMs() - g_started_ms > limit_s * 1000) {
          std::lock_guard<std::mutex> l(g_mu);
          fprintf(stderr, "\n*** TIMEOUT: test %s ran longer than %ld s (hang?) ***\n",
                  g_current.c_str(), limit_s);
          fflush(stderr);
          dumpThreads();
          _exit(3);
        }
      }
    }).detach();
  }

  const api::Env &e = api::env();
  printf("[api] platform '%s' (%u platform(s)), device '%s'%s\n", e.platformName.c_str(),
         e.numPlatforms, e.deviceName.c_str(), e.tutti ? " [Tutti]" : " [native]");
  int rc = RUN_ALL_TESTS();
  if (api::expectTutti() && !e.tutti) {
    // Every filtered variant under ctest fails then, whichever tests it selects.
    fprintf(stderr, "[api] FAIL: TUTTI_API_EXPECT_TUTTI=1 but the platform is '%s' (preload failed)\n",
            e.platformName.c_str());
    return 1;
  }
  return rc;
}
