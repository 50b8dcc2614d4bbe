// mr_KMeans: one KMeans iteration with tutti::mr (map + combiner + reduce phase).
//
// A map task assigns one point to its nearest centroid and emits (cluster, point); the
// combiner sums coordinates and counts; reduce turns each sum into the new centroid.
// Integer coordinates keep every sum exact in any order, so the check against the
// multithreaded C++ iteration (the CPU baseline) is exact.
#include "common/mr_app.h"

#define KM_DIM 4

static const char* kTypes = R"CLC(
#define KM_DIM 4
typedef struct { long sum[KM_DIM]; uint count; uint pad; } mr_value_t;
)CLC";

static const char* kFunctions = R"CLC(
// params: uint k, then k centroids of KM_DIM ints.
void mr_map(__global const uchar* input, __global const uchar* params, uint task, mr_emitter* e) {
  __global const int* points = (__global const int*)input;
  __global const uint* p = (__global const uint*)params;
  const uint k = p[0];
  __global const int* centroids = (__global const int*)(p + 1);
  int x[KM_DIM];
  for (uint d = 0; d < KM_DIM; ++d) x[d] = points[task * KM_DIM + d];
  uint best = 0;
  long bestDist = LONG_MAX;
  for (uint c = 0; c < k; ++c) {
    long dist = 0;
    for (uint d = 0; d < KM_DIM; ++d) {
      long diff = (long)x[d] - centroids[c * KM_DIM + d];
      dist += diff * diff;
    }
    if (dist < bestDist) { bestDist = dist; best = c; }
  }
  mr_value_t v;
  for (uint d = 0; d < KM_DIM; ++d) v.sum[d] = x[d];
  v.count = 1;
  v.pad = 0;
  mr_emit(e, (const uchar*)&best, 4, &v);
}

uint mr_hash(const uchar* key, uint size) { return *(const uint*)key; }

int mr_key_compare(const uchar* a, uint as, const uchar* b, uint bs) {
  uint x = *(const uint*)a, y = *(const uint*)b;
  return x == y ? 0 : (x < y ? -1 : 1);
}

void mr_combine(mr_value_t* into, const mr_value_t* from) {
  for (uint d = 0; d < KM_DIM; ++d) into->sum[d] += from->sum[d];
  into->count += from->count;
}

// The new centroid: the mean of the cluster's points (truncated towards zero).
void mr_reduce(const uchar* key, uint size, mr_value_t* v) {
  for (uint d = 0; d < KM_DIM; ++d) v->sum[d] /= (long)v->count;
}
)CLC";

struct Value {
  int64_t sum[KM_DIM];
  uint32_t count, pad;
};

int main(int argc, char** argv) {
  app::App a(mrapp::appName("mr_KMeans").c_str());
  long long n = 0, k = 0, region = 0;
  a.param("points", &n, "points", 8192, 32768, 131072);
  a.param("k", &k, "clusters", 16, 32, 32);
  a.param("region", &region, "records per work-group region (power of two)", 128, 1024, 1024);
  a.parse(argc, argv);
  a.init();
  return mrapp::guarded(a, [&] {
    app::Rng rng(7);
    std::vector<int32_t> points((size_t)n * KM_DIM);
    for (auto& x : points) x = (int32_t)rng.below(2001) - 1000;
    std::vector<uint32_t> params(1 + (size_t)k * KM_DIM);
    params[0] = (uint32_t)k;
    for (long long c = 0; c < k; ++c)  // initial centroids: the first k points
      for (int d = 0; d < KM_DIM; ++d) params[1 + c * KM_DIM + d] = (uint32_t)points[c * KM_DIM + d];

    // types, functions, key bytes, value bytes, reduce phase, mr_reduce
    const tutti::mr::JobSpec spec{kTypes, kFunctions, 4, sizeof(Value), true, true};
    tutti::mr::Options opt;
    opt.regionRecords = (unsigned)region;
    opt.buckets = (unsigned)k;  // the cluster id is a perfect hash
    auto job = mrapp::makePipeline(a, spec, opt);

    auto out = mrapp::runJob(a, *job, points.data(), points.size() * 4, params.data(), params.size() * 4,
                             (uint32_t)n);

    // CPU baseline: per-thread sums, merged, then the means.
    auto t0 = std::chrono::steady_clock::now();
    const int32_t* cent = reinterpret_cast<const int32_t*>(&params[1]);
    std::vector<std::vector<Value>> parts(mrapp::cpuThreads(), std::vector<Value>((size_t)k, Value{}));
    mrapp::parallelFor((size_t)n, [&](size_t b, size_t e, unsigned t) {
      for (size_t i = b; i < e; ++i) {
        size_t best = 0;
        int64_t bestDist = INT64_MAX;
        for (long long c = 0; c < k; ++c) {
          int64_t dist = 0;
          for (int d = 0; d < KM_DIM; ++d) {
            int64_t diff = (int64_t)points[i * KM_DIM + d] - cent[c * KM_DIM + d];
            dist += diff * diff;
          }
          if (dist < bestDist) bestDist = dist, best = (size_t)c;
        }
        for (int d = 0; d < KM_DIM; ++d) parts[t][best].sum[d] += points[i * KM_DIM + d];
        parts[t][best].count++;
      }
    });
    std::vector<Value> ref((size_t)k, Value{});
    for (auto& p : parts)
      for (long long c = 0; c < k; ++c) {
        for (int d = 0; d < KM_DIM; ++d) ref[c].sum[d] += p[c].sum[d];
        ref[c].count += p[c].count;
      }
    for (auto& v : ref)
      if (v.count)
        for (auto& s : v.sum) s /= (int64_t)v.count;
    const double cpuMs = mrapp::msSince(t0);
    mrapp::logPhases(a, *job, cpuMs);

    size_t nonEmpty = 0;
    for (auto& v : ref) nonEmpty += v.count != 0;
    bool ok = out.count == nonEmpty;
    if (!ok) std::printf("FAIL clusters: got %zu expected %zu\n", out.count, nonEmpty);
    std::vector<bool> seen((size_t)k, false);
    for (size_t i = 0, bad = 0; bad < 8 && i < out.count; ++i) {
      uint32_t c;
      std::memcpy(&c, out.keyData(i), 4);
      Value v = out.value<Value>(i);
      bool same = c < (uint32_t)k && !seen[c] && v.count == ref[c].count;
      for (int d = 0; same && d < KM_DIM; ++d) same = v.sum[d] == ref[c].sum[d];
      if (!same) {
        std::printf("FAIL cluster %u: got count %u, expected %u\n", c, v.count,
                    c < (uint32_t)k ? ref[c].count : 0u);
        ok = false;
        ++bad;
      } else {
        seen[c] = true;
      }
    }
    return a.finish(ok);
  });
}
