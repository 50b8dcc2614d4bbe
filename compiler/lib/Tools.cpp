// Developer-tool entry points (tutti-cc --passes / --prepare).
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "Frontend.h"
#include "Internal.h"
#include "tutti/compiler_tools.h"

using namespace llvm;

namespace tutti::compiler::tools {

int runPasses(const std::string &pipeline, const std::string &input, const std::string &output,
              bool bitcode, std::string &error) {
  LLVMContext Ctx;
  SMDiagnostic diag;
  std::unique_ptr<Module> M = parseIRFile(input, diag, Ctx);
  if (!M) {
    std::string s;
    raw_string_ostream os(s);
    diag.print("tutti-cc", os);
    error = os.str();
    return 1;
  }
  detail::TuttiPipeline P;
  ModulePassManager MPM;
  if (auto err = P.PB.parsePassPipeline(MPM, pipeline)) {
    error = "invalid pipeline '" + pipeline + "': " + toString(std::move(err));
    return 1;
  }
  MPM.run(*M, P.MAM);
  {
    std::string v;
    raw_string_ostream vs(v);
    if (verifyModule(*M, &vs)) {
      error = "module invalid after the pipeline: " + vs.str();
      return 1;
    }
  }
  if (output.empty()) return 0;
  std::error_code ec;
  raw_fd_ostream os(output, ec, bitcode ? sys::fs::OF_None : sys::fs::OF_Text);
  if (ec) {
    error = "cannot write " + output + ": " + ec.message();
    return 1;
  }
  if (bitcode) WriteBitcodeToFile(*M, os);
  else M->print(os, nullptr);
  return 0;
}

bool preparedIR(const std::string &source, const std::string &options, const std::string &target,
                std::string &ir, std::string &error) {
  LLVMContext Ctx;
  detail::FilteredOptions fo = detail::filterOptions(options);
  std::string triple = target == "nvptx64" ? "nvptx64-nvidia-nvcl" : "spir64-unknown-unknown";
  detail::FrontendResult fr = detail::parseOpenCL(Ctx, source, fo, triple);
  if (!fr.module) {
    error = fr.diagnostics;
    return false;
  }
  detail::TuttiPipeline P;
  detail::runPreparation(*fr.module, P);
  raw_string_ostream os(ir);
  fr.module->print(os, nullptr);
  return true;
}

}  // namespace tutti::compiler::tools
