// tutti-cc: the Tutti kernel compiler on the command line. Needs no device.
//
//   tutti-cc [options] file.cl [OpenCL build options...]
//       prints each kernel's analysis; with --emit-* writes the transformed
//       program (every variant) as LLVM IR, bitcode or PTX.
//   tutti-cc --passes=PIPELINE [-o out.ll] in.ll
//       opt-like: runs new-pass-manager passes by name (Tutti or standard).
//   tutti-cc --prepare [--target=T] file.cl [build options...]
//       prints the IR the analyses see (frontend + preparation + O2).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "tutti/compiler.h"
#include "tutti/compiler_tools.h"

using namespace tutti::compiler;

static void usage() {
  std::fprintf(stderr,
               "usage: tutti-cc [--target=spir64|nvptx64|source] [--arch=sm_80] [--cache=DIR]\n"
               "                [--emit-ll=FILE] [--emit-bc=FILE] [--emit-ptx=FILE] [--emit-result=FILE] (FILE - : stdout)\n"
               "                [--trace]"
               " [--quiet] [--time] file.cl [build options...]\n"
               "       tutti-cc --passes=PIPELINE [-o OUT|--bc -o OUT|--disable-output] in.ll\n"
               "       tutti-cc --prepare [--target=spir64|nvptx64] file.cl [build options...]\n");
}

static bool readAll(const std::string &path, std::string &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

// path "-": standard output (for FileCheck pipelines).
static bool writeAll(const std::string &path, const void *data, size_t n) {
  if (path == "-") return std::fwrite(data, 1, n, stdout) == n && std::fflush(stdout) == 0;
  std::ofstream f(path, std::ios::binary);
  if (!f) return false;
  f.write((const char *)data, (std::streamsize)n);
  return (bool)f;
}

int main(int argc, char **argv) {
  std::string passes, out = "-", target = "spir64", arch, cache, emitLL, emitBC, emitPTX, emitResult, input;
  bool prepare = false, bitcode = false, trace = false, quiet = false, timing = false;
  std::vector<std::string> buildOpts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char *p) -> const char * {
      size_t n = std::strlen(p);
      return a.compare(0, n, p) == 0 ? argv[i] + n : nullptr;
    };
    if (!input.empty() && passes.empty()) {  // everything after the input file is a build option
      buildOpts.push_back(a);
      continue;
    }
    if (const char *v = val("--passes=")) passes = v;
    else if (a == "-o" && i + 1 < argc) out = argv[++i];
    else if (a == "--bc") bitcode = true;
    else if (a == "--disable-output") out.clear();
    else if (a == "--prepare") prepare = true;
    else if (const char *v = val("--target=")) target = v;
    else if (const char *v = val("--arch=")) arch = v;
    else if (const char *v = val("--cache=")) cache = v;
    else if (const char *v = val("--emit-ll=")) emitLL = v;
    else if (const char *v = val("--emit-bc=")) emitBC = v;
    else if (const char *v = val("--emit-ptx=")) emitPTX = v;
    else if (const char *v = val("--emit-result=")) emitResult = v;
    else if (a == "--trace") trace = true;
    else if (a == "--quiet") quiet = true;
    else if (a == "--time") timing = true;
    else if (a == "-h" || a == "--help") { usage(); return 0; }
    else if (a.size() > 1 && a[0] == '-' && a != "-") { std::fprintf(stderr, "unknown option %s\n", a.c_str()); usage(); return 2; }
    else input = a;
  }
  if (input.empty()) { usage(); return 2; }

  if (!passes.empty()) {
    std::string err;
    int rc = tools::runPasses(passes, input, out, bitcode, err);
    if (rc) std::fprintf(stderr, "tutti-cc: %s\n", err.c_str());
    return rc;
  }

  std::string source;
  if (!readAll(input, source)) {
    std::fprintf(stderr, "tutti-cc: cannot read %s\n", input.c_str());
    return 1;
  }
  std::string options;
  for (auto &o : buildOpts) options += (options.empty() ? "" : " ") + o;

  if (prepare) {
    std::string ir, err;
    if (!tools::preparedIR(source, options, target, ir, err)) {
      std::fprintf(stderr, "%s", err.c_str());
      return 1;
    }
    std::fwrite(ir.data(), 1, ir.size(), stdout);
    return 0;
  }

  CompileRequest req;
  req.source = source;
  req.options = options;
  req.gpu_arch = arch;
  req.cache_dir = cache;
  req.emit_trace_variants = trace;
  req.keep_ir = !emitLL.empty();
  if (!emitPTX.empty()) target = "nvptx64";
  if (target == "spir64") req.target = Target::Spir64;
  else if (target == "nvptx64") req.target = Target::Nvptx64;
  else if (target == "source") req.target = Target::Source;
  else { std::fprintf(stderr, "tutti-cc: unknown target %s\n", target.c_str()); return 2; }

  CompileResult r = compile(req);
  if (!r.ok) {
    std::fprintf(stderr, "tutti-cc: compilation failed:\n%s\n", r.error.c_str());
    return 1;
  }
  if (!quiet) {
    for (const KernelInfo &k : r.kernels) std::printf("%s\n", describe(k).c_str());
    if (!r.log.empty()) std::printf("log:\n%s", r.log.c_str());
    std::printf("build options for the binary: \"%s\"\n", r.build_options.c_str());
  }
  if (timing)
    std::printf("compile time: %.2f ms (%s)\n", r.compile_ms, r.from_cache ? "cached" : "cold");
  if (!emitLL.empty() && !writeAll(emitLL, r.ir_text.data(), r.ir_text.size())) return 1;
  if (!emitBC.empty()) {
    if (req.target != Target::Spir64) { std::fprintf(stderr, "--emit-bc needs --target=spir64\n"); return 2; }
    if (!writeAll(emitBC, r.binary.data(), r.binary.size())) return 1;
  }
  if (!emitPTX.empty() && !writeAll(emitPTX, r.binary.data(), r.binary.size())) return 1;
  if (!emitResult.empty()) {
    std::vector<uint8_t> blob = saveResult(r);
    if (!writeAll(emitResult, blob.data(), blob.size())) return 1;
  }
  return 0;
}
