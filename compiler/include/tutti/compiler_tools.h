// Entry points for developer tools (tools/tutti-cc, tests). No LLVM types.
#pragma once

#include <string>

namespace tutti::compiler::tools {

// opt-like: read LLVM IR (.ll or .bc) from `input` ("-" = stdin), run a
// new-pass-manager pipeline that may name the Tutti passes
// (tutti-force-inline, tutti-lower-vload, tutti-partition-ready,
// tutti-merge-kernel, tutti-instrument-ranges, print<tutti-arg-access>,
// print<tutti-index-range>, print<tutti-hazards>, print<tutti-cost>,
// print<tutti-kernel-info>) or any standard pass, and write the module as
// text to `output` ("-" = stdout, "" = nowhere). Returns 0 on success.
int runPasses(const std::string &pipeline, const std::string &input, const std::string &output,
              bool bitcode, std::string &error);

// The module the analyses see: frontend + preparation + O2, as LLVM IR text.
// target: "spir64" or "nvptx64". Returns false with `error` on failure.
bool preparedIR(const std::string &source, const std::string &options, const std::string &target,
                std::string &ir, std::string &error);

}  // namespace tutti::compiler::tools
