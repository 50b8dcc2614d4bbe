// mr_WordCount: word occurrence counts with tutti::mr (map + combiner + reduce phase).
//
// Text is Zipf-distributed generated words (deterministic) or a file (--file PATH). A map
// task reads one chunk and emits (word, 1) for each word starting in it; the combiner
// adds counts. Checked exactly against a multithreaded C++ count (the CPU baseline).
#include "common/mr_app.h"

#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

static const char* kTypes = "typedef uint mr_value_t;\n";

static const char* kFunctions = R"CLC(
inline bool wc_letter(uchar c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// params: text length, chunk bytes. A word belongs to the chunk where it starts.
void mr_map(__global const uchar* text, __global const uchar* params, uint task, mr_emitter* e) {
  __global const uint* p = (__global const uint*)params;
  const uint n = p[0], chunk = p[1];
  uint i = task * chunk, end = min(n, i + chunk);
  if (i > 0 && i < n && wc_letter(text[i - 1]))
    while (i < end && wc_letter(text[i])) ++i;  // finish the previous chunk's word
  uchar word[MR_KEY_BYTES];
  const mr_value_t one = 1;
  while (i < end) {
    if (!wc_letter(text[i])) { ++i; continue; }
    uint len = 0;
    for (; i < n && wc_letter(text[i]); ++i)
      if (len < MR_KEY_BYTES) word[len++] = text[i];
    mr_emit(e, word, len, &one);
  }
}

uint mr_hash(const uchar* key, uint size) {
  uint h = 2166136261u;  // FNV-1a
  for (uint i = 0; i < size; ++i) h = (h ^ key[i]) * 16777619u;
  return h;
}

int mr_key_compare(const uchar* a, uint as, const uchar* b, uint bs) {
  for (uint i = 0; i < min(as, bs); ++i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return as == bs ? 0 : (as < bs ? -1 : 1);
}

void mr_combine(mr_value_t* into, const mr_value_t* from) { *into += *from; }

// Used with --list-reduce 1 (no combiner): the reduce sees every 1 the map emitted.
void mr_reduce_list(const uchar* key, uint size, mr_values* values, mr_value_t* out) {
  mr_value_t v, sum = 0;
  while (mr_next_value(values, &v)) sum += v;
  *out = sum;
}
)CLC";

static bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// CPU baseline: each thread counts the words starting in its slice, then the maps merge.
static std::unordered_map<std::string, uint32_t> countWords(const std::string& text, size_t keyBytes) {
  std::vector<std::unordered_map<std::string, uint32_t>> parts(mrapp::cpuThreads());
  mrapp::parallelFor(text.size(), [&](size_t b, size_t e, unsigned t) {
    size_t i = b;
    if (i > 0 && letter(text[i - 1]))
      while (i < e && letter(text[i])) ++i;
    while (i < e) {
      if (!letter(text[i])) { ++i; continue; }
      size_t s = i;
      while (i < text.size() && letter(text[i])) ++i;
      ++parts[t][text.substr(s, std::min(i - s, keyBytes))];
    }
  });
  for (size_t t = 1; t < parts.size(); ++t)
    for (auto& kv : parts[t]) parts[0][kv.first] += kv.second;
  return std::move(parts[0]);
}

int main(int argc, char** argv) {
  std::string file;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--file" && i + 1 < argc) file = argv[++i];
    else args.push_back(argv[i]);
  }
  app::App a(mrapp::appName("mr_WordCount").c_str());
  long long bytes = 0, vocab = 0, region = 0, chunk = 0, buckets = 0, fanin = 0, listReduce = 0,
            stream = 0;
  a.param("bytes", &bytes, "generated text bytes (ignored with --file PATH)", 200000, 16 << 20, 80 << 20);
  a.param("vocab", &vocab, "distinct generated words", 2000, 50000, 100000);
  // Tiny regions overflow (the overflow pass runs in every test); larger sizes use
  // regions that mostly fit a work-group's words.
  a.param("region", &region, "records per work-group region (power of two)", 1024, 2048, 2048);
  // 48 bytes fill a 256-task work-group's 2048-record region to about 80 % (fewer tables
  // to join than 32 bytes' 53 %); measured on the H200 over 1 GiB (session 38).
  a.param("chunk", &chunk, "text bytes per map task", 128, 32, 48);
  a.param("buckets", &buckets, "hash-table entries per table", 4096, 4096, 4096);
  a.param("fanin", &fanin, "tables merged per joining work-item", 16, 8, 8);
  a.param("list-reduce", &listReduce, "1: no combiner, mr_reduce_list sums each word's values", 0, 0, 0);
  a.param("stream", &stream,
          "text bytes per streamed piece, cut between words (0: all at once); only the "
          "piece and the distinct words so far are on the device", 0, 0, 0);
  a.parse((int)args.size(), args.data());
  a.init();
  return mrapp::guarded(a, [&] {
    std::string text;
    if (!file.empty()) {
      std::ifstream in(file, std::ios::binary);
      if (!in) throw std::runtime_error("cannot read " + file);
      std::stringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    } else {
      text = mrapp::zipfText((size_t)bytes, (uint32_t)vocab, 20);
    }
    // types, functions, key bytes, value bytes, reduce phase, mr_reduce, combiner
    const tutti::mr::JobSpec spec{kTypes, kFunctions, 32, 4, true, false, listReduce == 0};
    tutti::mr::Options opt;
    opt.regionRecords = (unsigned)region;
    opt.buckets = (unsigned)buckets;
    opt.joinFanIn = (unsigned)fanin;
    auto job = mrapp::makePipeline(a, spec, opt);

    const uint32_t params[2] = {(uint32_t)text.size(), (uint32_t)chunk};
    const uint32_t tasks = (uint32_t)app::divUp(text.size(), (size_t)chunk);
    tutti::mr::Output out;
    if (stream > 0) {
      // Pieces end after a non-letter, so no word spans two of them.
      auto cut = [&](size_t at) {
        size_t e = std::min(text.size(), at + (size_t)stream);
        while (e < text.size() && letter(text[e - 1])) ++e;
        return e;
      };
      auto pieceParams = [&](size_t b, size_t e, std::vector<uint32_t>& p) {
        p = {(uint32_t)(e - b), (uint32_t)chunk};
        return (uint32_t)app::divUp(e - b, (size_t)chunk);
      };
      out = mrapp::runStreamed(a, *job, text.data(), text.size(), cut, pieceParams);
      a.log("stream_bytes=%lld stream_pieces=%llu\n", stream,
            (unsigned long long)dynamic_cast<tutti::mr::StreamMR&>(*job).chunks());
    } else {
      out = mrapp::runJob(a, *job, text.data(), text.size(), params, sizeof(params), tasks);
    }
    auto t0 = std::chrono::steady_clock::now();
    auto ref = countWords(text, spec.keyBytes);
    double cpuMs = mrapp::msSince(t0);
    mrapp::logPhases(a, *job, cpuMs);
    a.log("text_bytes=%zu words_distinct=%zu gbps=%.3f\n", text.size(), ref.size(),
          text.size() / (a.wallMs() * 1e6));

    bool ok = out.count == ref.size();
    if (!ok) std::printf("FAIL distinct words: got %zu expected %zu\n", out.count, ref.size());
    std::map<std::string, uint32_t> got;
    for (size_t i = 0; ok && i < out.count; ++i) {
      std::string w = out.keyString(i);
      uint32_t c = out.value<uint32_t>(i);
      auto it = ref.find(w);
      if (it == ref.end() || it->second != c || !got.emplace(w, c).second) {
        std::printf("FAIL word '%s': got %u expected %u%s\n", w.c_str(), c,
                    it == ref.end() ? 0u : it->second, got.count(w) ? " (duplicate)" : "");
        ok = false;
      }
    }
    return a.finish(ok);
  });
}
