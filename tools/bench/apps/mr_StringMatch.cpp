// mr_StringMatch: every location of a few keywords in a text, with tutti::mr (map only).
//
// A map task scans one chunk and emits (keyword index, position) for each match that
// starts in it. The output size is not known in advance, so regions overflow and the
// overflow pass runs. Checked against a multithreaded C++ scan (the CPU baseline).
#include "common/mr_app.h"

#include <cstring>

static const char* kTypes = "typedef uint mr_value_t;\n";

// params: text length, chunk bytes, keyword count, then per keyword its offset and
// length into the keyword bytes that follow the table.
static const char* kFunctions = R"CLC(
void mr_map(__global const uchar* text, __global const uchar* params, uint task, mr_emitter* e) {
  __global const uint* p = (__global const uint*)params;
  const uint n = p[0], chunk = p[1], words = p[2];
  __global const uchar* bytes = params + 4 * (3 + 2 * words);
  const uint begin = task * chunk, end = min(n, begin + chunk);
  for (uint i = begin; i < end; ++i)
    for (uint w = 0; w < words; ++w) {
      uint off = p[3 + 2 * w], len = p[4 + 2 * w], j = 0;
      while (j < len && i + j < n && text[i + j] == bytes[off + j]) ++j;
      if (j == len) {
        mr_value_t pos = i;
        mr_emit(e, (const uchar*)&w, 4, &pos);
      }
    }
}

uint mr_hash(const uchar* key, uint size) { return *(const uint*)key; }

int mr_key_compare(const uchar* a, uint as, const uchar* b, uint bs) {
  uint x = *(const uint*)a, y = *(const uint*)b;
  return x == y ? 0 : (x < y ? -1 : 1);
}
)CLC";

int main(int argc, char** argv) {
  app::App a(mrapp::appName("mr_StringMatch").c_str());
  long long bytes = 0, region = 0, chunk = 0;
  a.param("bytes", &bytes, "generated text bytes", 200000, 16 << 20, 100 << 20);
  a.param("region", &region, "records per work-group region (power of two)", 32, 1024, 1024);
  a.param("chunk", &chunk, "text bytes per map task", 64, 64, 64);
  a.parse(argc, argv);
  a.init();
  return mrapp::guarded(a, [&] {
    const std::string text = mrapp::zipfText((size_t)bytes, 20000, 21);
    // Keywords: the first word of four letters or more after three points of the text
    // (frequent and rare ones alike), plus a pattern that spans a word boundary.
    std::vector<std::string> words;
    for (size_t third = 0; third < 3; ++third) {
      size_t s = text.find(' ', text.size() * third / 3);
      while (s != std::string::npos && s + 1 < text.size()) {
        size_t e = text.find_first_of(" \n", s + 1);
        if (e == std::string::npos) break;
        if (e - s - 1 >= 4) {
          words.push_back(text.substr(s + 1, e - s - 1));
          break;
        }
        s = e;
      }
    }
    if (words.empty()) words.push_back("abcd");
    words.push_back(" " + words[0].substr(0, 2));
    std::vector<uint32_t> table = {(uint32_t)text.size(), (uint32_t)chunk, (uint32_t)words.size()};
    std::string kw;
    for (auto& w : words) {
      table.push_back((uint32_t)kw.size());
      table.push_back((uint32_t)w.size());
      kw += w;
    }
    std::vector<uint8_t> params(table.size() * 4 + kw.size());
    std::memcpy(params.data(), table.data(), table.size() * 4);
    std::memcpy(params.data() + table.size() * 4, kw.data(), kw.size());

    // types, functions, key bytes, value bytes, reduce phase, mr_reduce
    const tutti::mr::JobSpec spec{kTypes, kFunctions, 4, 4, false, false};
    tutti::mr::Options opt;
    opt.regionRecords = (unsigned)region;
    auto job = mrapp::makePipeline(a, spec, opt);

    const uint32_t tasks = (uint32_t)app::divUp(text.size(), (size_t)chunk);
    auto out = mrapp::runJob(a, *job, text.data(), text.size(), params.data(), params.size(), tasks);

    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<uint64_t>> parts(mrapp::cpuThreads());
    mrapp::parallelFor(text.size(), [&](size_t b, size_t e, unsigned t) {
      for (size_t i = b; i < e; ++i)
        for (size_t w = 0; w < words.size(); ++w)
          if (text.compare(i, words[w].size(), words[w]) == 0) parts[t].push_back((uint64_t)w << 32 | i);
    });
    std::vector<uint64_t> ref;
    for (auto& p : parts) ref.insert(ref.end(), p.begin(), p.end());
    const double cpuMs = mrapp::msSince(t0);
    mrapp::logPhases(a, *job, cpuMs);

    std::vector<uint64_t> got(out.count);
    for (size_t i = 0; i < out.count; ++i) {
      uint32_t w;
      std::memcpy(&w, out.keyData(i), 4);
      got[i] = (uint64_t)w << 32 | out.value<uint32_t>(i);
    }
    std::sort(got.begin(), got.end());
    std::sort(ref.begin(), ref.end());
    a.log("keywords=%zu matches=%zu\n", words.size(), ref.size());
    bool ok = got.size() == ref.size();
    if (!ok) std::printf("FAIL matches: got %zu expected %zu\n", got.size(), ref.size());
    return a.finish(ok && a.compareExact("matches", got.data(), ref.data(), got.size()));
  });
}
