// mr_api_test: tutti::mr's interface at its edges, on every pipeline: empty jobs, tasks
// that emit nothing, and the errors a job's author can make.
#include "tutti/mapreduce.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace {

// A job over uint input: task t emits (input[t] % 3, 1) only when input[t] is even.
const char* kTypes = "typedef uint mr_value_t;\n";
const char* kFunctions = R"CLC(
void mr_map(__global const uchar* input, __global const uchar* params, uint task, mr_emitter* e) {
  uint x = ((__global const uint*)input)[task], key = x % 3;
  mr_value_t one = 1;
  if (x % 2 == 0) mr_emit(e, (const uchar*)&key, 4, &one);
}
uint mr_hash(const uchar* key, uint size) { return *(const uint*)key; }
int mr_key_compare(const uchar* a, uint as, const uchar* b, uint bs) {
  uint x = *(const uint*)a, y = *(const uint*)b;
  return x == y ? 0 : (x < y ? -1 : 1);
}
void mr_combine(mr_value_t* into, const mr_value_t* from) { *into += *from; }
)CLC";

struct Cl {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  Cl() {
    cl_platform_id platform = nullptr;
    if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS) return;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) return;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
    queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, nullptr);
  }
  ~Cl() {
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
  cl_mem input(std::vector<cl_uint> v) {
    v.push_back(0);  // never empty
    return clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, v.size() * 4, v.data(), nullptr);
  }
};

std::unique_ptr<tutti::mr::Pipeline> make(Cl& cl, int which, tutti::mr::JobSpec spec,
                                          tutti::mr::Options opt = {}) {
  if (which == 0) return std::make_unique<tutti::mr::StreamMR>(cl.context, cl.device, cl.queue, spec, opt);
  if (which == 1) return std::make_unique<tutti::mr::Mars>(cl.context, cl.device, cl.queue, spec, opt);
  return std::make_unique<tutti::mr::MapCG>(cl.context, cl.device, cl.queue, spec, opt);
}

// 1000 values i*7; the map emits the even ones under key value % 3: ref gets each key's
// count (the jobs' expected output).
std::vector<cl_uint> sevens(uint32_t ref[3]) {
  std::vector<cl_uint> in(1000);
  ref[0] = ref[1] = ref[2] = 0;
  for (cl_uint i = 0; i < in.size(); ++i) {
    in[i] = i * 7;
    if (in[i] % 2 == 0) ref[in[i] % 3]++;
  }
  return in;
}

class Pipelines : public ::testing::TestWithParam<int> {};

TEST_P(Pipelines, NoTasksAndNoEmitsGiveEmptyOutput) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  auto job = make(cl, GetParam(), {kTypes, kFunctions, 4, 4});
  cl_mem odd = cl.input({1, 3, 5, 7, 9});
  EXPECT_EQ(job->run(odd, odd, 0).count, 0u);
  EXPECT_EQ(job->run(odd, odd, 5).count, 0u);  // no task emits
  clReleaseMemObject(odd);
}

TEST_P(Pipelines, CountsKeysAcrossRegionsAndRuns) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  tutti::mr::Options opt;
  opt.regionRecords = 8;  // StreamMR: most emits overflow
  opt.buckets = 2;        // more keys than buckets
  auto job = make(cl, GetParam(), {kTypes, kFunctions, 4, 4}, opt);
  uint32_t ref[3];
  std::vector<cl_uint> in = sevens(ref);
  cl_mem buf = cl.input(in);
  for (int run = 0; run < 2; ++run) {  // a job runs again with fresh buffers
    tutti::mr::Output out = job->run(buf, buf, (uint32_t)in.size());
    ASSERT_EQ(out.count, 3u);
    uint32_t got[3] = {0, 0, 0};
    for (size_t i = 0; i < out.count; ++i) got[*(const uint32_t*)out.keyData(i)] = out.value<uint32_t>(i);
    EXPECT_EQ(got[0], ref[0]);
    EXPECT_EQ(got[1], ref[1]);
    EXPECT_EQ(got[2], ref[2]);
  }
  clReleaseMemObject(buf);
}

// Keys whose hashes collide: key = value % 37 under a hash of key % 2, so every region
// holds runs of equal hashes with different keys interleaved. Grouping orders records by
// hash first; such runs must still come out grouped by key, with and without a combiner.
const char* kCollidingFunctions = R"CLC(
void mr_map(__global const uchar* input, __global const uchar* params, uint task, mr_emitter* e) {
  uint x = ((__global const uint*)input)[task], key = x % 37;
  mr_value_t v = x % 5 + 1;
  mr_emit(e, (const uchar*)&key, 4, &v);
}
uint mr_hash(const uchar* key, uint size) { return *(const uint*)key % 2; }
int mr_key_compare(const uchar* a, uint as, const uchar* b, uint bs) {
  uint x = *(const uint*)a, y = *(const uint*)b;
  return x == y ? 0 : (x < y ? -1 : 1);
}
void mr_combine(mr_value_t* into, const mr_value_t* from) { *into += *from; }
bool mr_next_value(mr_values* values, mr_value_t* value);
void mr_reduce_list(const uchar* key, uint size, mr_values* values, mr_value_t* out) {
  mr_value_t v, s = 0;
  while (mr_next_value(values, &v)) s += v;
  *out = s;
}
)CLC";

TEST_P(Pipelines, CollidingHashesKeepKeysApart) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  std::vector<cl_uint> in(3000);
  uint32_t ref[37] = {};
  for (cl_uint i = 0; i < in.size(); ++i) {
    in[i] = i * 2654435761u >> 7;  // keys in no particular order within a region
    ref[in[i] % 37] += in[i] % 5 + 1;
  }
  cl_mem buf = cl.input(in);
  // Regions of 256 records fill up; regions of 1024 stay at most a quarter full (a map
  // work-group has at most 256 tasks), so the grouping sorts fewer than the capacity.
  for (unsigned region : {256u, 1024u}) for (bool combiner : {true, false}) {
    tutti::mr::Options opt;
    opt.regionRecords = region;
    opt.buckets = 4;
    opt.joinFanIn = 2;        // several joining levels
    auto job = make(cl, GetParam(), {kTypes, kCollidingFunctions, 4, 4, true, false, combiner}, opt);
    tutti::mr::Output out = job->run(buf, buf, (uint32_t)in.size());
    ASSERT_EQ(out.count, 37u) << "combiner " << combiner << ", region " << region;
    std::vector<bool> seen(37);
    for (size_t i = 0; i < out.count; ++i) {
      uint32_t k = *(const uint32_t*)out.keyData(i);
      ASSERT_LT(k, 37u);
      EXPECT_FALSE(seen[k]) << "key " << k << " twice, combiner " << combiner;
      seen[k] = true;
      EXPECT_EQ(out.value<uint32_t>(i), ref[k]) << "key " << k << ", combiner " << combiner;
    }
  }
  clReleaseMemObject(buf);
}

// A map-only job with values of their own sizes (mr_emit_sized): task t emits key t with
// the first t % 14 bytes of a 12-byte value (12 and 13 ask for more than the value holds:
// they get 12). Regions of 8 records overflow in StreamMR, so the overflow pass and its
// copies keep the sizes too.
const char* kSizedTypes = "typedef struct { uchar b[12]; } mr_value_t;\n";
const char* kSizedFunctions = R"CLC(
void mr_map(__global const uchar* input, __global const uchar* params, uint task, mr_emitter* e) {
  mr_value_t v;
  for (uint i = 0; i < 12; ++i) v.b[i] = (uchar)(task * 13 + i + 1);
  mr_emit_sized(e, (const uchar*)&task, 4, &v, task % 14);
}
uint mr_hash(const uchar* key, uint size) { return *(const uint*)key; }
int mr_key_compare(const uchar* a, uint as, const uchar* b, uint bs) { return 0; }
)CLC";

TEST_P(Pipelines, MapOnlyValuesKeepTheirSizes) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  tutti::mr::Options opt;
  opt.regionRecords = 8;
  const uint32_t tasks = 1000;
  auto job = make(cl, GetParam(), {kSizedTypes, kSizedFunctions, 4, 12, /*reducePhase=*/false}, opt);
  cl_mem buf = cl.input({0});
  tutti::mr::Output out = job->run(buf, buf, tasks);
  ASSERT_EQ(out.count, tasks);
  ASSERT_EQ(out.valueSizes.size(), tasks);
  std::vector<bool> seen(tasks);
  for (size_t i = 0; i < out.count; ++i) {
    const uint32_t t = *(const uint32_t*)out.keyData(i);
    ASSERT_LT(t, tasks);
    EXPECT_FALSE(seen[t]) << "task " << t << " twice";
    seen[t] = true;
    EXPECT_EQ(out.keySizes[i], 4u);
    const uint32_t size = std::min(t % 14, 12u);
    ASSERT_EQ(out.valueSizes[i], size) << "task " << t;
    for (uint32_t b = 0; b < 12; ++b)
      EXPECT_EQ(out.values[i * 12 + b], b < size ? (uint8_t)(t * 13 + b + 1) : 0) << "task " << t << " byte " << b;
  }
  clReleaseMemObject(buf);
}

// Reduce phases combine whole values: sizes mean nothing there, and such a job does not
// build with mr_emit_sized. Whole values report their full size.
TEST_P(Pipelines, SizedValuesAreForMapOnlyJobs) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  std::string functions = std::string(kSizedFunctions) +
                          "void mr_combine(mr_value_t* into, const mr_value_t* from) { into->b[0] += from->b[0]; }\n";
  EXPECT_THROW(make(cl, GetParam(), {kSizedTypes, functions, 4, 12}), tutti::mr::Error);
  auto job = make(cl, GetParam(), {kTypes, kFunctions, 4, 4});
  uint32_t ref[3];
  cl_mem buf = cl.input(sevens(ref));
  tutti::mr::Output out = job->run(buf, buf, 1000);
  ASSERT_EQ(out.count, 3u);
  for (size_t i = 0; i < out.count; ++i) {
    EXPECT_EQ(out.keySizes[i], 4u);
    EXPECT_EQ(out.valueSizes[i], 4u);
  }
  clReleaseMemObject(buf);
}

TEST_P(Pipelines, WrongValueSizeFailsTheBuild) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  EXPECT_THROW(make(cl, GetParam(), {kTypes, kFunctions, 4, 8}), tutti::mr::Error);
}

TEST_P(Pipelines, KeyBytesMustBeWords) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  EXPECT_THROW(make(cl, GetParam(), {kTypes, kFunctions, 6, 4}), std::invalid_argument);
}

// The pipelines chain commands without events: an out-of-order queue would let a kernel
// run before the upload it reads.
TEST_P(Pipelines, OutOfOrderQueuesAreRefused) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  cl_int err = CL_SUCCESS;
  cl_command_queue ooo =
      clCreateCommandQueue(cl.context, cl.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  if (err == CL_INVALID_QUEUE_PROPERTIES) GTEST_SKIP() << "the device has no out-of-order queues";
  ASSERT_EQ(err, CL_SUCCESS);
  const tutti::mr::JobSpec spec{kTypes, kFunctions, 4, 4};
  try {
    if (GetParam() == 0) tutti::mr::StreamMR(cl.context, cl.device, ooo, spec);
    if (GetParam() == 1) tutti::mr::Mars(cl.context, cl.device, ooo, spec);
    if (GetParam() == 2) tutti::mr::MapCG(cl.context, cl.device, ooo, spec);
    ADD_FAILURE() << "an out-of-order queue was taken";
  } catch (const tutti::mr::Error& e) {
    EXPECT_EQ(e.code, CL_INVALID_COMMAND_QUEUE) << e.what();
  }
  clReleaseCommandQueue(ooo);
}

INSTANTIATE_TEST_SUITE_P(All, Pipelines, ::testing::Values(0, 1, 2),
                         [](const ::testing::TestParamInfo<int>& i) {
                           return std::string(i.param == 0 ? "StreamMR" : i.param == 1 ? "Mars" : "MapCG");
                         });

TEST(StreamMR, RegionsMustBePowersOfTwo) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  tutti::mr::Options opt;
  opt.regionRecords = 100;
  EXPECT_THROW(tutti::mr::StreamMR(cl.context, cl.device, cl.queue, {kTypes, kFunctions, 4, 4}, opt),
               std::invalid_argument);
}

TEST(StreamMR, FanInFitsAJoiningWorkItemsMask) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  for (unsigned f : {1u, 33u}) {
    tutti::mr::Options opt;
    opt.joinFanIn = f;
    EXPECT_THROW(tutti::mr::StreamMR(cl.context, cl.device, cl.queue, {kTypes, kFunctions, 4, 4}, opt),
                 std::invalid_argument)
        << f;
  }
  tutti::mr::Options opt;
  opt.joinFanIn = 32;
  EXPECT_NO_THROW(tutti::mr::StreamMR(cl.context, cl.device, cl.queue, {kTypes, kFunctions, 4, 4}, opt));
}

// Streamed input (runStream): pieces merged into the result so far on the device give
// what one run over the whole input gives, with mr_reduce applied once per key.
const char* kFinalise = "void mr_reduce(const uchar* key, uint size, mr_value_t* v) { *v = *v * 10 + 1; }\n";

// kept(i): piece i is kept (uploaded ahead of its turn without blocking).
tutti::mr::Output streamed(tutti::mr::StreamMR& job, const std::vector<cl_uint>& in,
                           const std::vector<size_t>& cuts, bool (*kept)(size_t) = nullptr) {
  size_t piece = 0;
  const cl_uint zero = 0;
  return job.runStream([&](tutti::mr::StreamMR::Chunk& c) {
    if (piece + 1 >= cuts.size()) return false;
    const size_t b = cuts[piece], e = cuts[piece + 1];
    ++piece;
    c.input = e > b ? (const void*)&in[b] : (const void*)&zero;
    c.inputBytes = std::max<size_t>(e - b, 1) * 4;
    c.params = &zero;
    c.paramBytes = 4;
    c.tasks = (uint32_t)(e - b);
    c.kept = kept && kept(piece - 1);
    return true;
  });
}

// The job with mr_reduce finalising each key, regions of 8 records and 2 buckets (the
// overflow pass and deep joins in every piece).
std::unique_ptr<tutti::mr::StreamMR> finalisingJob(Cl& cl) {
  tutti::mr::Options opt;
  opt.regionRecords = 8;
  opt.buckets = 2;
  tutti::mr::JobSpec spec{kTypes, std::string(kFunctions) + kFinalise, 4, 4, true, /*hasReduce=*/true, true};
  return std::make_unique<tutti::mr::StreamMR>(cl.context, cl.device, cl.queue, spec, opt);
}

std::vector<std::pair<uint32_t, uint32_t>> sorted(const tutti::mr::Output& out) {
  std::vector<std::pair<uint32_t, uint32_t>> v;
  for (size_t i = 0; i < out.count; ++i) v.push_back({*(const uint32_t*)out.keyData(i), out.value<uint32_t>(i)});
  std::sort(v.begin(), v.end());
  return v;
}

TEST(StreamMR, StreamedPiecesGiveTheWholeRunsOutput) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  auto jobPtr = finalisingJob(cl);
  tutti::mr::StreamMR& job = *jobPtr;
  uint32_t ref[3];
  std::vector<cl_uint> in = sevens(ref);
  cl_mem buf = cl.input(in);
  auto whole = sorted(job.run(buf, buf, (uint32_t)in.size()));
  clReleaseMemObject(buf);
  ASSERT_EQ(whole.size(), 3u);
  for (auto [k, v] : whole) EXPECT_EQ(v, ref[k] * 10 + 1) << "key " << k;
  // Uneven pieces, an empty one in the middle and one at the end.
  std::vector<size_t> cuts{0, 37, 100, 100, 513, 514, 1000, 1000};
  EXPECT_EQ(sorted(streamed(job, in, cuts)), whole);
  EXPECT_EQ(job.chunks(), cuts.size() - 1);
  EXPECT_EQ(sorted(streamed(job, in, {0, 1000})), whole);  // one piece
  // Pieces of one task each (odd values emit nothing: half the pieces add no keys).
  std::vector<size_t> ones;
  for (size_t i = 0; i <= 64; ++i) ones.push_back(i);
  std::vector<cl_uint> small(in.begin(), in.begin() + 64);
  auto smallWhole = sorted(streamed(job, small, {0, 64}));
  EXPECT_EQ(sorted(streamed(job, small, ones)), smallWhole);
  EXPECT_EQ(streamed(job, in, {0}).count, 0u);  // no pieces
}

// Kept pieces are uploaded while the piece before them is worked on (under Tutti beside
// the kernels on the device's queue): the same output, kept pieces mixed with others.
TEST(StreamMR, KeptPiecesGiveTheWholeRunsOutput) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  auto jobPtr = finalisingJob(cl);
  tutti::mr::StreamMR& job = *jobPtr;
  uint32_t ref[3];
  std::vector<cl_uint> in = sevens(ref);
  auto whole = sorted(streamed(job, in, {0, 1000}));
  ASSERT_EQ(whole.size(), 3u);
  for (auto [k, v] : whole) EXPECT_EQ(v, ref[k] * 10 + 1) << "key " << k;
  std::vector<size_t> cuts{0, 37, 100, 100, 513, 514, 1000, 1000};
  auto all = [](size_t) { return true; };
  auto odd = [](size_t i) { return i % 2 == 1; };
  auto even = [](size_t i) { return i % 2 == 0; };
  EXPECT_EQ(sorted(streamed(job, in, cuts, all)), whole);
  EXPECT_EQ(job.chunks(), cuts.size() - 1);
  EXPECT_EQ(sorted(streamed(job, in, cuts, odd)), whole);
  EXPECT_EQ(sorted(streamed(job, in, cuts, even)), whole);
  std::vector<size_t> tens;
  for (size_t i = 0; i <= 1000; i += 10) tens.push_back(i);
  EXPECT_EQ(sorted(streamed(job, in, tens, all)), whole);  // 100 pieces, each uploaded ahead
}

// What a streamed run holds on the device depends on its pieces, not on how many there
// are: releasing the merged result before the piece's buffers shifted ClRunner's list
// under the piece's mark, and each piece's first buffers stayed until the run ended (10
// GiB of WordCount in 1 GiB pieces ran out of an H100's 80 GB, session 43).
TEST(StreamMR, StreamedRunsHoldWhatOnePieceNeeds) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  auto jobPtr = finalisingJob(cl);
  tutti::mr::StreamMR& job = *jobPtr;
  uint32_t ref[3];
  std::vector<cl_uint> in = sevens(ref);
  auto cutsOf = [](size_t pieces) {
    std::vector<size_t> cuts;
    for (size_t i = 0; i <= pieces; ++i) cuts.push_back(i * 100);
    return cuts;
  };
  for (bool (*kept)(size_t) : {(bool (*)(size_t)) nullptr, +[](size_t) { return true; }}) {
    std::vector<cl_uint> few(in.begin(), in.begin() + 200);
    auto fewOut = sorted(streamed(job, few, cutsOf(2), kept));
    const uint64_t fewPeak = job.stats().peakBufferBytes;
    auto manyOut = sorted(streamed(job, in, cutsOf(10), kept));
    const uint64_t manyPeak = job.stats().peakBufferBytes;
    EXPECT_EQ(manyOut, sorted(streamed(job, in, {0, 1000})));
    ASSERT_EQ(fewOut.size(), 3u);
    EXPECT_GT(fewPeak, 0u);
    // Equal pieces: ten need what two need (spares may differ by a buffer's doubling).
    EXPECT_LE(manyPeak, fewPeak * 5 / 4) << "two pieces " << fewPeak << " B, ten " << manyPeak << " B"
                                          << (kept ? " (kept)" : "");
  }
}

TEST(StreamMR, StreamingNeedsACombiner) {
  Cl cl;
  ASSERT_NE(cl.queue, nullptr);
  const char* listFns = "bool mr_next_value(mr_values* values, mr_value_t* value);\n"
                        "void mr_reduce_list(const uchar* key, uint size, mr_values* values, mr_value_t* out) {\n"
                        "  mr_value_t v, s = 0; while (mr_next_value(values, &v)) s += v; *out = s; }\n";
  tutti::mr::JobSpec spec{kTypes, std::string(kFunctions) + listFns, 4, 4, true, false, /*hasCombiner=*/false};
  tutti::mr::StreamMR job(cl.context, cl.device, cl.queue, spec);
  EXPECT_THROW(job.runStream([](tutti::mr::StreamMR::Chunk&) { return false; }), std::invalid_argument);
}

}  // namespace
