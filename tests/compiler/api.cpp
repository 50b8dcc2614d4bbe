// API test of tutti_compiler: compile for every target, build options,
// errors, the disk cache (hit, header invalidation, corrupt entries).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tutti/compiler.h"

using namespace tutti::compiler;

static int fails = 0;
#define CHECK(c, ...)                                          \
  do {                                                         \
    if (!(c)) {                                                \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #c); \
      std::printf(__VA_ARGS__);                                \
      std::printf("\n");                                       \
      ++fails;                                                 \
    }                                                          \
  } while (0)

static std::string readFile(const std::string &p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int main(int argc, char **argv) {
  std::string cache = argc > 1 ? argv[1] : "/tmp/tutti-api-cache";
  std::system(("rm -rf '" + cache + "'").c_str());
  std::string corpus = TUTTI_CORPUS_DIR;
  std::string vecadd = readFile(corpus + "/vecadd.cl");

  // spir64
  CompileRequest req;
  req.source = vecadd;
  req.options = "-cl-mad-enable -DUNUSED=1 -cl-nv-verbose";
  CompileResult r = compile(req);
  CHECK(r.ok, "%s", r.error.c_str());
  CHECK(r.binary.size() > 4 && r.binary[0] == 'B' && r.binary[1] == 'C', "bitcode magic");
  CHECK(r.build_options.find("-x spir -spir-std=1.2") == 0, "%s", r.build_options.c_str());
  CHECK(r.build_options.find("-cl-mad-enable") != std::string::npos, "math option passed on");
  CHECK(r.log.find("-cl-nv-verbose") != std::string::npos, "dropped option logged: %s", r.log.c_str());
  CHECK(r.kernels.size() == 1 && r.kernels[0].partition_kernel == "vecadd__tutti_pr", "variants");
  std::printf("spir64 cold compile: %.1f ms\n", r.compile_ms);

  // -D and -I are honoured
  {
    char tmpl[] = "/tmp/tutti-api-XXXXXX";
    std::string dir = mkdtemp(tmpl);
    std::ofstream(dir + "/scale.h") << "#define SCALE 3\n";
    CompileRequest q;
    q.source = "#include \"scale.h\"\n__kernel void k(__global int *o) { o[get_global_id(0)] = SCALE * WIDTH; }\n";
    q.options = "-I " + dir + " -DWIDTH=7";
    q.cache_dir = cache;
    CompileResult a = compile(q);
    CHECK(a.ok && !a.from_cache, "%s", a.error.c_str());
    CompileResult b = compile(q);
    CHECK(b.ok && b.from_cache, "cache hit expected");
    CHECK(b.compile_ms < a.compile_ms, "cached faster (%.2f vs %.2f ms)", b.compile_ms, a.compile_ms);
    std::printf("cache: cold %.1f ms, cached %.2f ms\n", a.compile_ms, b.compile_ms);
    // header change invalidates the entry
    std::ofstream(dir + "/scale.h") << "#define SCALE 5\n";
    CompileResult c = compile(q);
    CHECK(c.ok && !c.from_cache, "header change must recompile");
    // missing -D: compile error reported, not a crash
    q.options = "-I " + dir;
    CompileResult e = compile(q);
    CHECK(!e.ok && e.error.find("WIDTH") != std::string::npos, "error text: %s", e.error.c_str());
    std::system(("rm -rf '" + dir + "'").c_str());
  }

  // corrupt cache entries are ignored
  {
    CompileRequest q;
    q.source = vecadd;
    q.cache_dir = cache;
    CompileResult a = compile(q);
    CHECK(a.ok, "first");
    std::system(("for f in '" + cache + "'/*.tcc; do printf 'garbage' > \"$f\"; done").c_str());
    CompileResult b = compile(q);
    CHECK(b.ok && !b.from_cache, "corrupt entry recompiled");
  }

  // nvptx64: PTX text with every variant
  {
    CompileRequest q;
    q.source = vecadd;
    q.target = Target::Nvptx64;
    CompileResult p = compile(q);
    CHECK(p.ok, "%s", p.error.c_str());
    std::string ptx(p.binary.begin(), p.binary.end());
    CHECK(ptx.find(".entry vecadd__tutti_pr") != std::string::npos, "pr entry in PTX");
    CHECK(ptx.find(".entry vecadd__tutti_merge") != std::string::npos, "merge entry in PTX");
    CHECK(ptx.find(".target sm_80") != std::string::npos, "sm_80");
    std::printf("nvptx64 compile: %.1f ms, %zu bytes of PTX\n", p.compile_ms, ptx.size());
    // a kernel using get_global_offset: libclc has none, the original is
    // dropped from the PTX but the partition-ready variant (which answers it
    // from its arguments) stays
    q.source = "__kernel void k(__global int *o) { o[get_global_id(0)] = get_global_offset(0); }";
    p = compile(q);
    CHECK(p.ok, "%s", p.error.c_str());
    CHECK(p.kernels.size() == 1 && !p.kernels[0].original_in_binary && p.kernels[0].partition_kernel == "k__tutti_pr",
          "offset kernel");
  }

  // source target
  {
    CompileRequest q;
    q.source = vecadd;
    q.options = "-DX=1";
    q.target = Target::Source;
    CompileResult s = compile(q);
    CHECK(s.ok && std::string(s.binary.begin(), s.binary.end()) == vecadd && s.build_options == "-DX=1",
          "source passthrough");
    CHECK(s.kernels.size() == 1 && s.kernels[0].partition_kernel.empty(), "no variants for source");
  }

  // Clang 15 itself segfaults on this (found by fuzz_kernel_source): the crash is caught,
  // the program reported as not compilable, and the compiler still works afterwards.
  {
    CompileRequest q;
    q.source = "int n;\nint a[n];\nint a[n+1];\n";
    CompileResult c = compile(q);
    CHECK(!c.ok && c.error.find("crashed") != std::string::npos, "clang crash: %s", c.error.c_str());
    CompileRequest v;
    v.source = readFile(corpus + "/vecadd.cl");
    CHECK(compile(v).ok, "compile after a clang crash");
  }

  // concurrent compiles (the runtime may compile from several threads)
  {
    const char *files[] = {"vecadd.cl", "matmul.cl", "stencil3d.cl", "histogram.cl"};
    std::vector<std::thread> ts;
    int ok[8] = {0};
    for (int t = 0; t < 8; ++t)
      ts.emplace_back([&, t] {
        CompileRequest q;
        q.source = readFile(corpus + "/" + files[t % 4]);
        q.options = "-DTILE=8";
        q.target = t % 2 ? Target::Nvptx64 : Target::Spir64;
        CompileResult r = compile(q);
        ok[t] = r.ok && !r.kernels.empty() && !r.kernels[0].partition_kernel.empty();
      });
    for (auto &t : ts) t.join();
    for (int t = 0; t < 8; ++t) CHECK(ok[t], "concurrent compile %d", t);
  }

  // concatUnit: whole rows (2-D tiles) or planes (3-D tiles) of groups concatenate; a
  // transpose's rows do not; 1-D contiguous writes need no unit.
  {
    CompileRequest q;
    q.source = R"(
__kernel void tile2d(__global float *o, uint w) {
  o[get_global_id(1) * w + get_global_id(0)] = 1.0f; }
__kernel void transpose2d(__global float *o, uint h) {
  o[get_global_id(0) * h + get_global_id(1)] = 1.0f; }
__kernel void tile3d(__global float *o, uint w, uint h) {
  o[(get_global_id(2) * h + get_global_id(1)) * w + get_global_id(0)] = 1.0f; }
__kernel void vec1d(__global float *o) { o[get_global_id(0)] = 1.0f; }
)";
    CompileResult c = compile(q);
    CHECK(c.ok && c.kernels.size() == 4, "%s", c.error.c_str());
    auto byName = [&](const char *n) -> const KernelInfo * {
      for (auto &k : c.kernels)
        if (k.name == n) return &k;
      return nullptr;
    };
    NDRange nd2;
    nd2.work_dim = 2;
    nd2.global_size[0] = 64, nd2.global_size[1] = 32;
    nd2.local_size[0] = 8, nd2.local_size[1] = 4;  // 8 x 8 groups
    ScalarArgs a2;
    uint64_t w = 64, h = 32, d = 16;
    a2.set(1, &w, 4);
    const KernelInfo *t2 = byName("tile2d"), *tr = byName("transpose2d"), *t3 = byName("tile3d"),
                     *v1 = byName("vec1d");
    if (t2 && tr && t3 && v1) {
      CHECK(!argWritesContiguous(*t2, 0, nd2, a2), "2-D tiles interleave per group");
      CHECK(concatUnit(*t2, nd2, a2) == 8, "tile2d unit %llu", (unsigned long long)concatUnit(*t2, nd2, a2));
      ScalarArgs ah;
      ah.set(1, &h, 4);
      CHECK(concatUnit(*tr, nd2, ah) == 0, "transpose2d unit %llu", (unsigned long long)concatUnit(*tr, nd2, ah));
      NDRange nd3;
      nd3.work_dim = 3;
      nd3.global_size[0] = w, nd3.global_size[1] = h, nd3.global_size[2] = d;
      nd3.local_size[0] = 8, nd3.local_size[1] = 4, nd3.local_size[2] = 2;  // 8 x 8 x 8 groups
      ScalarArgs a3;
      a3.set(1, &w, 4);
      a3.set(2, &h, 4);
      CHECK(concatUnit(*t3, nd3, a3) == 64, "tile3d unit %llu", (unsigned long long)concatUnit(*t3, nd3, a3));
      // 100 planes of groups: 99 neighbouring pairs, checked in runs of 8 at four places.
      // A plane's writes overlap the next one's where the app's row count is below the
      // launch's 32 (its rows wrap onto the next plane's), and the runs must see that.
      NDRange big = nd3;
      big.global_size[2] = 100 * 2;
      CHECK(concatUnit(*t3, big, a3) == 64, "tile3d, 100 planes: unit %llu", (unsigned long long)concatUnit(*t3, big, a3));
      uint64_t shallow = 16;
      ScalarArgs aw;
      aw.set(1, &w, 4);
      aw.set(2, &shallow, 4);
      CHECK(concatUnit(*t3, big, aw) == 0, "tile3d rows wrapping: unit %llu", (unsigned long long)concatUnit(*t3, big, aw));
      NDRange nd1;
      nd1.global_size[0] = 256, nd1.local_size[0] = 16;
      CHECK(concatUnit(*v1, nd1, ScalarArgs()) == 1, "vec1d unit");
    }
  }

  // VAST variants: only on request, part of the cache key, kept by the cache
  {
    std::string vdir = cache + "/vast";
    CompileRequest q;
    q.source = "__kernel void g(__global float *o, __global const float *i, __global const int *x) {"
               " o[get_global_id(0)] = i[x[get_global_id(0)]]; }";
    q.cache_dir = vdir;
    CompileResult plain = compile(q);
    CHECK(plain.ok && plain.kernels.size() == 1 && plain.kernels[0].paged_kernel.empty() &&
              plain.kernels[0].inspector_kernel.empty(),
          "VAST variants only on request");
    q.emit_vast_variants = true;
    for (int round = 0; round < 2; ++round) {
      CompileResult v = compile(q);
      CHECK(v.ok && v.from_cache == (round == 1), "vast round %d: cache %d", round, (int)v.from_cache);
      if (!v.ok || v.kernels.size() != 1) continue;
      const KernelInfo &k = v.kernels[0];
      CHECK(k.paged_kernel == "g__tutti_paged" && k.inspector_kernel == "g__tutti_insp", "variant names");
      CHECK((k.vast_buffer_args == std::vector<uint32_t>{0, 1, 2}), "buffer args");
      CHECK((k.inspector_data_args == std::vector<uint32_t>{2}), "inspector reads x only");
    }
    q.target = Target::Nvptx64;
    CompileResult n = compile(q);
    CHECK(n.ok && n.kernels.size() == 1 && n.kernels[0].paged_kernel == "g__tutti_paged" &&
              n.kernels[0].inspector_kernel == "g__tutti_insp" &&
              std::string(n.binary.begin(), n.binary.end()).find(".entry g__tutti_insp") != std::string::npos,
          "nvptx64 VAST variants: %s", n.error.c_str());
  }

  std::printf("%s (%d failures)\n", fails ? "FAILED" : "PASSED", fails);
  return fails ? 1 : 0;
}
