// sampler.c - a preloadable sampling profiler for machines without perf (the GPU machine).
//
// LD_PRELOAD=libsampler.so (after libtutti.so) samples the process's main thread every
// SAMPLER_US microseconds of wall time (default 50; a high-resolution timer aimed at that
// thread, so time spent blocked counts where it blocks) with glibc's backtrace(), and at exit
// writes one line per distinct stack to SAMPLER_OUT (default stderr):
//   COUNT module+0xOFFSET;module+0xOFFSET;...   (innermost first)
// Offsets are file offsets of the module's text, so an unstripped build of the same source
// symbolizes them (tools/bench/micro/sampler_report.py runs addr2line).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define kDepth 24
#define kSlots 8192

struct Stack {
  unsigned long count;
  int depth;
  void *pc[kDepth];
};
static struct Stack g_stacks[kSlots];  // open addressing by hash of the pcs
static unsigned long g_dropped;

static unsigned long hashOf(void **pc, int n) {
  unsigned long h = 1469598103934665603ul;
  for (int i = 0; i < n; ++i) h = (h ^ (unsigned long)pc[i]) * 1099511628211ul;
  return h;
}

static void onProf(int sig) {
  (void)sig;
  void *pc[kDepth + 2];
  int n = backtrace(pc, kDepth + 2);
  // Frames 0-1 are this handler and the signal trampoline.
  void **p = pc + 2;
  n = n > 2 ? n - 2 : 0;
  unsigned long h = hashOf(p, n);
  for (unsigned long i = 0; i < kSlots; ++i) {
    struct Stack *s = &g_stacks[(h + i) % kSlots];
    if (!s->count) {
      s->depth = n;
      memcpy(s->pc, p, (size_t)n * sizeof *p);
      s->count = 1;
      return;
    }
    if (s->depth == n && !memcmp(s->pc, p, (size_t)n * sizeof *p)) {
      ++s->count;
      return;
    }
  }
  ++g_dropped;
}

static timer_t g_timer;

static void report(void) {
  timer_delete(g_timer);
  const char *path = getenv("SAMPLER_OUT");
  FILE *f = path ? fopen(path, "w") : NULL;
  if (!f) f = stderr;
  fprintf(f, "# dropped %lu\n", g_dropped);
  for (int i = 0; i < kSlots; ++i) {
    struct Stack *s = &g_stacks[i];
    if (!s->count) continue;
    fprintf(f, "%lu ", s->count);
    for (int d = 0; d < s->depth; ++d) {
      Dl_info info;
      if (dladdr(s->pc[d], &info) && info.dli_fname) {
        const char *base = strrchr(info.dli_fname, '/');
        fprintf(f, "%s%s+0x%lx", d ? ";" : "", base ? base + 1 : info.dli_fname,
                (unsigned long)((char *)s->pc[d] - (char *)info.dli_fbase));
      } else {
        fprintf(f, "%s?+%p", d ? ";" : "", s->pc[d]);
      }
    }
    fputc('\n', f);
  }
  if (f != stderr) fclose(f);
}

__attribute__((constructor)) static void start(void) {
  const char *us = getenv("SAMPLER_US");
  long period = us ? atol(us) : 50;
  if (period <= 0) return;
  void *warm[4];
  backtrace(warm, 4);  // loads the unwinder now, not inside the signal handler
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onProf;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);  // the thread that loads us: main
  if (timer_create(CLOCK_MONOTONIC, &ev, &g_timer) != 0) return;
  struct itimerspec t = {{period / 1000000, (period % 1000000) * 1000}, {period / 1000000, (period % 1000000) * 1000}};
  timer_settime(g_timer, 0, &t, NULL);
  atexit(report);
}
