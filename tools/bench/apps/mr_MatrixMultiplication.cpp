// mr_MatrixMultiplication: C = A·B with tutti::mr (map only, one task per element).
//
// A map task emits ((row, column), dot product). The output size is known, so regions
// never overflow (StreamMR's best case). Small-integer inputs make results exact;
// checked against a multithreaded C++ product (the CPU baseline).
#include "common/mr_app.h"

static const char* kTypes = "typedef int mr_value_t;\n";

// input: A (n x n ints); params: n, then B (n x n ints).
static const char* kFunctions = R"CLC(
void mr_map(__global const uchar* input, __global const uchar* params, uint task, mr_emitter* e) {
  __global const int* A = (__global const int*)input;
  __global const uint* p = (__global const uint*)params;
  const uint n = p[0];
  __global const int* B = (__global const int*)(p + 1);
  const uint row = task / n, col = task % n;
  int sum = 0;
  for (uint k = 0; k < n; ++k) sum += A[row * n + k] * B[k * n + col];
  uint key[2] = {row, col};
  mr_emit(e, (const uchar*)key, 8, &sum);
}

uint mr_hash(const uchar* key, uint size) {
  const uint* k = (const uint*)key;
  return k[0] * 2654435761u ^ k[1];
}

int mr_key_compare(const uchar* a, uint as, const uchar* b, uint bs) {
  const uint* x = (const uint*)a;
  const uint* y = (const uint*)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] == y[1] ? 0 : (x[1] < y[1] ? -1 : 1);
}
)CLC";

int main(int argc, char** argv) {
  app::App a(mrapp::appName("mr_MatrixMultiplication").c_str());
  long long n = 0, region = 0;
  a.param("n", &n, "matrix order", 96, 512, 1024);
  a.param("region", &region, "records per work-group region (power of two)", 256, 256, 256);
  a.parse(argc, argv);
  a.init();
  return mrapp::guarded(a, [&] {
    const size_t N = (size_t)n;
    app::Rng rng(5);
    std::vector<int32_t> A(N * N), params(1 + N * N);
    for (auto& x : A) x = (int32_t)rng.below(7) - 3;
    params[0] = (int32_t)N;
    for (size_t i = 1; i < params.size(); ++i) params[i] = (int32_t)rng.below(7) - 3;
    const int32_t* B = &params[1];

    // types, functions, key bytes, value bytes, reduce phase, mr_reduce
    const tutti::mr::JobSpec spec{kTypes, kFunctions, 8, 4, false, false};
    tutti::mr::Options opt;
    opt.regionRecords = (unsigned)region;
    opt.mapGroupSize = std::min<size_t>(256, (size_t)region);  // one emit per task: no overflow
    auto job = mrapp::makePipeline(a, spec, opt);

    auto out = mrapp::runJob(a, *job, A.data(), A.size() * 4, params.data(), params.size() * 4,
                             (uint32_t)(N * N));

    auto t0 = std::chrono::steady_clock::now();
    std::vector<int32_t> ref(N * N);
    mrapp::parallelFor(N, [&](size_t b, size_t e, unsigned) {
      for (size_t i = b; i < e; ++i)
        for (size_t k = 0; k < N; ++k)
          for (size_t j = 0; j < N; ++j) ref[i * N + j] += A[i * N + k] * B[k * N + j];
    });
    const double cpuMs = mrapp::msSince(t0);
    mrapp::logPhases(a, *job, cpuMs);

    bool ok = out.count == N * N;
    if (!ok) std::printf("FAIL elements: got %zu expected %zu\n", out.count, N * N);
    std::vector<int32_t> got(N * N, INT32_MIN);
    std::vector<uint8_t> seen(N * N, 0);
    for (size_t i = 0; ok && i < out.count; ++i) {
      uint32_t rc[2];
      std::memcpy(rc, out.keyData(i), 8);
      if (rc[0] >= N || rc[1] >= N || seen[rc[0] * N + rc[1]]++) {
        std::printf("FAIL key (%u, %u) out of range or repeated\n", rc[0], rc[1]);
        ok = false;
        break;
      }
      got[rc[0] * N + rc[1]] = out.value<int32_t>(i);
    }
    return a.finish(ok && a.compareExact("C", got.data(), ref.data(), N * N));
  });
}
