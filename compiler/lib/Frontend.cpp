// OpenCL C frontend: Clang 15 in-process, driven through the clang driver's
// argument handling (clang::createInvocation) so that the app's build options
// are interpreted exactly as `clang -x cl` would. The default header
// (opencl-c-base.h + -fdeclare-opencl-builtins, clang 15's default) is
// embedded, so no Clang resource directory is needed at run time.
#include "Frontend.h"

#include <mutex>

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "Internal.h"

namespace tutti::compiler::detail {

static const char *kResourceDir = "/tutti-virtual/clang-resource";

std::vector<std::string> splitOptions(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < s.size()) cur += s[++i];
      else cur += c;
      continue;
    }
    if (c == '"' || c == '\'') { quote = c; have = true; continue; }
    if (c == '\\' && i + 1 < s.size()) { cur += s[++i]; have = true; continue; }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
      continue;
    }
    cur += c;
    have = true;
  }
  if (have) out.push_back(cur);
  return out;
}

// OpenCL build options understood by clang 15's driver.
static bool knownClOption(const std::string &o) {
  static const char *known[] = {
      "-cl-opt-disable", "-cl-strict-aliasing", "-cl-single-precision-constant",
      "-cl-finite-math-only", "-cl-kernel-arg-info", "-cl-unsafe-math-optimizations",
      "-cl-fast-relaxed-math", "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-denorms-are-zero",
      "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-uniform-work-group-size", "-cl-no-stdinc",
  };
  for (const char *k : known)
    if (o == k) return true;
  return o.rfind("-cl-std=", 0) == 0 || o.rfind("-cl-ext=", 0) == 0;
}

FilteredOptions filterOptions(const std::string &options) {
  FilteredOptions f;
  auto toks = splitOptions(options);
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string &t = toks[i];
    auto takesNext = [&](const char *o) { return t == o; };
    if (takesNext("-D") || takesNext("-U") || takesNext("-I") || takesNext("-include") ||
        takesNext("-imacros")) {
      if (i + 1 < toks.size()) {
        f.args.push_back(t);
        f.args.push_back(toks[++i]);
        f.preprocessor.push_back(t + " " + toks[i]);
      } else {
        f.dropped.push_back(t);
      }
      continue;
    }
    if (t.rfind("-D", 0) == 0 || t.rfind("-U", 0) == 0 || t.rfind("-I", 0) == 0) {
      f.args.push_back(t);
      f.preprocessor.push_back(t);
      continue;
    }
    if (t.rfind("-cl-", 0) == 0) {
      if (knownClOption(t)) {
        f.args.push_back(t);
        if (t.rfind("-cl-std=", 0) == 0) f.clStd = t.substr(8);
        else if (t != "-cl-kernel-arg-info" && t != "-cl-opt-disable") f.codegen.push_back(t);
      } else {
        f.dropped.push_back(t);
      }
      continue;
    }
    if (t == "-w" || t == "-Werror" || t.rfind("-W", 0) == 0) {
      f.args.push_back(t);
      continue;
    }
    f.dropped.push_back(t);
  }
  return f;
}

namespace {
class StringDiagConsumer : public clang::TextDiagnosticPrinter {
 public:
  using TextDiagnosticPrinter::TextDiagnosticPrinter;
};

// Clang 15 crashes on some invalid sources (fuzz_kernel_source found `int n; int a[n];
// int a[n+1];` at program scope: a segfault in its parser). Inside an app that would kill
// the app, so the parse runs under LLVM's CrashRecoveryContext, as libclang does: a signal
// in Clang on this thread unwinds to ExecuteAction's caller and the program is reported as
// not compilable (the drivers' own compilers then see it). LLVM installs its handlers
// process-wide and has no count of users, so this one does: they are in place only while
// some thread parses; a signal on a thread that is not parsing gives the previous handlers
// back and is raised again for them.
std::mutex gRecoveryMutex;
unsigned gRecoveryUsers = 0;

struct RecoveryScope {
  RecoveryScope() {
    std::lock_guard<std::mutex> l(gRecoveryMutex);
    if (gRecoveryUsers++ == 0) llvm::CrashRecoveryContext::Enable();
  }
  ~RecoveryScope() {
    std::lock_guard<std::mutex> l(gRecoveryMutex);
    if (--gRecoveryUsers == 0) llvm::CrashRecoveryContext::Disable();
  }
};
}  // namespace

FrontendResult parseOpenCL(llvm::LLVMContext &Ctx, const std::string &source,
                           const FilteredOptions &opts, const std::string &triple) {
  FrontendResult R;
  llvm::raw_string_ostream diagOS(R.diagnostics);

  // Virtual file system: embedded default header + the program source, over
  // the real file system (for the app's #include files).
  auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  std::string base(embeddedOpenCLBaseHeader());
  mem->addFile(std::string(kResourceDir) + "/include/opencl-c-base.h", 0,
               llvm::MemoryBuffer::getMemBufferCopy(base));
  llvm::SmallString<256> cwd;
  if (llvm::sys::fs::current_path(cwd)) cwd = "/";
  llvm::SmallString<256> mainPath(cwd);
  llvm::sys::path::append(mainPath, "tutti-program.cl");
  mem->addFile(mainPath, 0, llvm::MemoryBuffer::getMemBufferCopy(source, mainPath));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(mem);
  overlay->setCurrentWorkingDirectory(cwd);

  std::vector<std::string> args = {"clang", "-x", "cl", "-target", triple, "-c", "-emit-llvm",
                                   "-O2", "-resource-dir", kResourceDir, "-cl-kernel-arg-info",
                                   "-fno-discard-value-names"};
  args.insert(args.end(), opts.args.begin(), opts.args.end());
  // our pipeline runs the optimizations (after analysis-friendly preparation)
  for (const char *a : {"-Xclang", "-disable-llvm-passes", "-Xclang", "-disable-O0-optnone"})
    args.push_back(a);
  args.push_back(std::string(mainPath));
  std::vector<const char *> argv;
  for (auto &a : args) argv.push_back(a.c_str());

  auto diagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  auto *printer = new StringDiagConsumer(diagOS, diagOpts.get());
  auto diags = clang::CompilerInstance::createDiagnostics(diagOpts.get(), printer, true);
  clang::CreateInvocationOptions CIO;
  CIO.Diags = diags;
  CIO.VFS = overlay;
  std::shared_ptr<clang::CompilerInvocation> inv = clang::createInvocation(argv, CIO);
  if (!inv) {
    diagOS.flush();
    R.diagnostics = "invalid build options: " + R.diagnostics;
    return R;
  }
  inv->getFrontendOpts().DisableFree = false;
  inv->getCodeGenOpts().DisableFree = false;

  // On the heap: after a crash both are left as they are (leaked), never destroyed.
  auto ciOwner = std::make_unique<clang::CompilerInstance>();
  auto actOwner = std::make_unique<clang::EmitLLVMOnlyAction>(&Ctx);
  clang::CompilerInstance &CI = *ciOwner;
  clang::EmitLLVMOnlyAction &act = *actOwner;
  CI.setInvocation(inv);
  CI.createDiagnostics(new StringDiagConsumer(diagOS, &CI.getDiagnosticOpts()), true);
  CI.createFileManager(overlay);
  CI.setVerboseOutputStream(std::make_unique<llvm::raw_null_ostream>());  // "N errors generated." 
  bool ok = false;
  bool finished;
  {
    RecoveryScope scope;
    llvm::CrashRecoveryContext crc;
    finished = crc.RunSafely([&] { ok = CI.ExecuteAction(act); });
  }
  if (!finished) {
    (void)ciOwner.release();
    (void)actOwner.release();
    R.crashed = true;
    diagOS.flush();
    R.diagnostics = "the OpenCL C frontend (Clang 15) crashed on this program\n" + R.diagnostics;
    return R;
  }
  diagOS.flush();
  if (!ok || CI.getDiagnostics().hasErrorOccurred()) return R;
  R.module = act.takeModule();
  if (!R.module) return R;
  // dependencies: real files the preprocessor read
  clang::SourceManager &SM = CI.getSourceManager();
  for (auto it = SM.fileinfo_begin(); it != SM.fileinfo_end(); ++it) {
    llvm::StringRef name = it->first->getName();
    if (name.startswith(kResourceDir) || name == mainPath) continue;
    R.deps.push_back(name.str());
  }
  std::sort(R.deps.begin(), R.deps.end());
  R.deps.erase(std::unique(R.deps.begin(), R.deps.end()), R.deps.end());
  return R;
}

}  // namespace tutti::compiler::detail
