#pragma once

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tutti::compiler::detail {

struct FilteredOptions {
  std::vector<std::string> args;          // passed to clang
  std::vector<std::string> preprocessor;  // -D/-U/-I (for the log)
  std::vector<std::string> codegen;       // -cl-* math options (pass on to the driver)
  std::vector<std::string> dropped;       // not understood: ignored, logged
  std::string clStd;                      // "CL2.0" etc., empty = default
};

std::vector<std::string> splitOptions(const std::string &s);
FilteredOptions filterOptions(const std::string &options);

struct FrontendResult {
  std::unique_ptr<llvm::Module> module;  // null on error
  std::string diagnostics;
  std::vector<std::string> deps;         // included files (absolute or as found)
  // Clang itself crashed on this source and was stopped (see parseOpenCL): the context's
  // modules may be half built, so the caller must leak the LLVMContext, never destroy it.
  bool crashed = false;
};

FrontendResult parseOpenCL(llvm::LLVMContext &Ctx, const std::string &source,
                           const FilteredOptions &opts, const std::string &triple);

}  // namespace tutti::compiler::detail
