// mr_app.h: what the MapReduce workload apps share: pipeline choice, CPU threads,
// Zipf text, phase logging.
//
// Each app is built once per pipeline (MR_PIPELINE_MARS / MR_PIPELINE_MAPCG defined,
// else StreamMR), so CI runs every workload on every pipeline like any other app.
#pragma once

#include "common/app.h"
#include "tutti/mapreduce.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <stdexcept>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace mrapp {

inline const char* pipelineName() {
#if defined(MR_PIPELINE_MARS)
  return "mars";
#elif defined(MR_PIPELINE_MAPCG)
  return "mapcg";
#else
  return "streammr";
#endif
}

// The app's name in its RESULT line: the workload, then the baseline if one is used.
inline std::string appName(const char* workload) {
  const std::string p = pipelineName();
  return std::string(workload) + (p == "mars" ? "_Mars" : p == "mapcg" ? "_MapCG" : "");
}

// The job on this build's pipeline, its kernel events counted in the app's kernel_ms.
inline std::unique_ptr<tutti::mr::Pipeline> makePipeline(app::App& a, tutti::mr::JobSpec spec,
                                                         tutti::mr::Options opt = {}) {
#if defined(MR_PIPELINE_MARS)
  auto job = std::make_unique<tutti::mr::Mars>(a.context, a.device, a.queue, std::move(spec), opt);
#elif defined(MR_PIPELINE_MAPCG)
  auto job = std::make_unique<tutti::mr::MapCG>(a.context, a.device, a.queue, std::move(spec), opt);
#else
  auto job = std::make_unique<tutti::mr::StreamMR>(a.context, a.device, a.queue, std::move(spec), opt);
#endif
  job->onKernelEvent = [&a](cl_event ev) { a.addKernelEvent(ev); };
  return job;
}

// Uploads input and params and runs the job --repeat times, each inside the wall clock
// (the RESULT line reports the last); returns the last output.
inline tutti::mr::Output runJob(app::App& a, tutti::mr::Pipeline& job, const void* input,
                                size_t inputBytes, const void* params, size_t paramBytes,
                                uint32_t tasks) {
  tutti::mr::Output out;
  for (int r = 0; r < a.repeat(); ++r) {
    a.startWall();
    // An explicit write, not CL_MEM_COPY_HOST_PTR: on the H200, NVIDIA's driver took about
    // 0.9 s to create a 1 GiB buffer from pageable memory, where its writes run at 6 GB/s.
    cl_mem in = a.buffer(CL_MEM_READ_ONLY, std::max<size_t>(inputBytes, 1));
    if (inputBytes)
      CHECK(clEnqueueWriteBuffer(a.queue, in, CL_TRUE, 0, inputBytes, input, 0, nullptr, nullptr));
    cl_mem par = a.buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, std::max<size_t>(paramBytes, 1),
                          const_cast<void*>(params));
    out = job.run(in, par, tasks);
    a.stopWall();
    a.releaseBuffer(in);
    a.releaseBuffer(par);
  }
  return out;
}

// Streams the input in pieces (StreamMR::runStream) --repeat times, each inside the wall
// clock. cut(begin) returns where the piece starting at `begin` ends (past it: the
// input's end); params(begin, end) the piece's params and its task count. Baselines
// cannot stream: the app fails with the reason.
inline tutti::mr::Output runStreamed(app::App& a, tutti::mr::Pipeline& job, const char* input,
                                     size_t inputBytes, const std::function<size_t(size_t)>& cut,
                                     const std::function<uint32_t(size_t, size_t, std::vector<uint32_t>&)>& params) {
  auto* s = dynamic_cast<tutti::mr::StreamMR*>(&job);
  if (!s) throw std::invalid_argument(std::string("--stream: the ") + pipelineName() + " pipeline does not stream");
  tutti::mr::Output out;
  for (int r = 0; r < a.repeat(); ++r) {
    a.startWall();
    size_t at = 0;
    // The whole input is in memory, and so is every piece's params until the run ends:
    // the pieces are kept, so each crosses while the one before it is worked on.
    std::deque<std::vector<uint32_t>> ps;
    out = s->runStream([&](tutti::mr::StreamMR::Chunk& c) {
      if (at >= inputBytes) return false;
      const size_t end = std::min(inputBytes, std::max(at + 1, cut(at)));
      std::vector<uint32_t>& p = ps.emplace_back();
      c.tasks = params(at, end, p);
      c.input = input + at;
      c.inputBytes = end - at;
      c.params = p.data();
      c.paramBytes = p.size() * sizeof(uint32_t);
      c.kept = true;
      at = end;
      return true;
    });
    a.stopWall();
  }
  return out;
}

// Runs fn(begin, end) over [0, n) on every core; the CPU baseline's parallel loop.
inline void parallelFor(size_t n, const std::function<void(size_t, size_t, unsigned)>& fn) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    size_t b = n * t / threads, e = n * (t + 1) / threads;
    pool.emplace_back([&fn, b, e, t] { fn(b, e, t); });
  }
  for (auto& th : pool) th.join();
}

inline unsigned cpuThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Deterministic text of `bytes` bytes: words from a vocabulary of `vocab` random
// lower-case words, drawn Zipf(1) so a few words are frequent (skew, collisions).
inline std::string zipfText(size_t bytes, uint32_t vocab, uint64_t seed) {
  app::Rng rng(seed);
  std::vector<std::string> words(vocab);
  for (auto& w : words) {
    size_t len = 2 + rng.below(11);
    for (size_t i = 0; i < len; ++i) w.push_back((char)('a' + rng.below(26)));
  }
  std::vector<double> cdf(vocab);
  double sum = 0;
  for (uint32_t i = 0; i < vocab; ++i) cdf[i] = (sum += 1.0 / (i + 1));
  std::string text;
  text.reserve(bytes + 16);
  while (text.size() < bytes) {
    double u = rng.unit() * sum;
    size_t w = std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
    text += words[std::min<size_t>(w, vocab - 1)];
    text += rng.below(12) == 0 ? '\n' : ' ';
  }
  text.resize(bytes);
  return text;
}

// Milliseconds since `t0` on the steady clock.
inline double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

inline void logPhases(const app::App& a, const tutti::mr::Pipeline& p, double cpuMs) {
  const auto& t = p.times();
  const auto& s = p.stats();
  a.log("pipeline=%s preprocess_ms=%.3f map_ms=%.3f overflow_ms=%.3f group_ms=%.3f join_ms=%.3f "
        "compact_ms=%.3f download_ms=%.3f cpu_baseline_ms=%.3f cpu_threads=%u\n",
        pipelineName(), t.preprocess, t.map, t.overflow, t.group, t.join, t.compact, t.download, cpuMs,
        cpuThreads());
  a.log("emitted=%llu overflowed=%llu tables=%llu join_levels=%llu output=%llu peak_buffer_mb=%.1f\n",
        (unsigned long long)s.emitted, (unsigned long long)s.overflowed, (unsigned long long)s.tables,
        (unsigned long long)s.joinLevels, (unsigned long long)s.output, s.peakBufferBytes / 1048576.0);
}

// Runs body; a MapReduce library error fails the app like an OpenCL error does.
inline int guarded(app::App& a, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", a.name().c_str(), e.what());
    std::printf("FAIL\n");
    a.printResult("ERROR", 0.0, 0.0);
    return 2;
  }
}

}  // namespace mrapp
