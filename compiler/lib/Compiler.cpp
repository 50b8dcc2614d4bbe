// compile(): frontend -> preparation + O2 -> per-kernel analyses ->
// partition-ready / merge (/ trace) variants -> code generation -> cache.
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "llvm/ADT/Triple.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/Scalar/InferAddressSpaces.h"

#include "Cache.h"
#include "Codegen.h"
#include "Frontend.h"
#include "../passes/BarrierExits.h"
#include "../passes/DefineMemFences.h"
#include "Internal.h"
#include "tutti_compiler_version.h"

using namespace llvm;

// Debian's Clang/LLVM 15 static libraries are built with Polly linked into the
// tools and reference this hook; Tutti does not use Polly.
llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly", "none", [](llvm::PassBuilder &) {}};
}

namespace tutti::compiler {

const char *compilerVersion() { return TUTTI_COMPILER_VERSION; }

namespace detail {

TuttiPipeline::TuttiPipeline() {
  registerTuttiPasses(PB);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
}

void runPreparation(Module &M, TuttiPipeline &P) {
  ModulePassManager MPM;
  MPM.addPass(ForceInlinePass());
  MPM.addPass(AlwaysInlinerPass());
  MPM.addPass(GlobalDCEPass());
  addCanonicalizeBuiltins(MPM);
  FunctionPassManager FPM;
  if (Triple(M.getTargetTriple()).isSPIR()) FPM.addPass(InferAddressSpacesPass(4));
  FPM.addPass(LowerVectorMemPass());
  MPM.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
  MPM.addPass(P.PB.buildPerModuleDefaultPipeline(OptimizationLevel::O2));
  MPM.run(M, P.MAM);
}

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Collects LLVM diagnostics instead of letting the default handler print them
// (or exit the application on errors).
struct CollectingHandler : DiagnosticHandler {
  std::string *out;
  bool *error;
  CollectingHandler(std::string *o, bool *e) : out(o), error(e) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() == DS_Error) *error = true;
    if (DI.getSeverity() == DS_Remark) return true;
    raw_string_ostream os(*out);
    DiagnosticPrinterRawOStream dp(os);
    os << (DI.getSeverity() == DS_Error ? "error: " : "warning: ");
    DI.print(dp);
    os << "\n";
    return true;
  }
};

std::string cacheKey(const CompileRequest &req) {
  Hasher h;
  h.addStr(TUTTI_COMPILER_VERSION);
  h.addStr(req.source);
  h.addStr(req.options);
  h.addStr(targetName(req.target));
  h.addStr(req.target == Target::Nvptx64 ? (req.gpu_arch.empty() ? "sm_80" : req.gpu_arch) : "");
  uint8_t flags = (req.emit_trace_variants ? 1 : 0) | (req.keep_ir ? 2 : 0) |
                  (req.emit_vast_variants ? 4 : 0);
  h.add(&flags, 1);
  // relative #include paths depend on the working directory
  char cwd[4096];
  h.addStr(getcwd(cwd, sizeof cwd) ? cwd : "");
  return h.hex();
}

CompileResult compileUncached(const CompileRequest &req, std::vector<std::string> &deps) {
  CompileResult res;
  res.target = req.target;
  auto t0 = std::chrono::steady_clock::now();
  FilteredOptions fo = filterOptions(req.options);
  for (auto &d : fo.dropped) res.log += "note: build option '" + d + "' ignored by the Tutti compiler\n";

  // On the heap: leaked, not destroyed, when Clang crashed inside it (FrontendResult::crashed).
  auto ctxOwner = std::make_unique<LLVMContext>();
  LLVMContext &Ctx = *ctxOwner;
  std::string llvmDiag;
  bool llvmError = false;
  Ctx.setDiagnosticHandler(std::make_unique<CollectingHandler>(&llvmDiag, &llvmError));

  std::string triple = req.target == Target::Nvptx64 ? "nvptx64-nvidia-nvcl" : "spir64-unknown-unknown";
  FrontendResult fr = parseOpenCL(Ctx, req.source, fo, triple);
  if (!fr.module) {
    res.error = fr.diagnostics.empty() ? "frontend failed" : fr.diagnostics;
    if (fr.crashed) (void)ctxOwner.release();
    return res;
  }
  res.log += fr.diagnostics;
  deps = fr.deps;
  Module &M = *fr.module;
  double tFront = msSince(t0);

  TuttiPipeline P;
  auto t1 = std::chrono::steady_clock::now();
  runPreparation(M, P);
  double tOpt = msSince(t1);

  auto t2 = std::chrono::steady_clock::now();
  std::vector<Function *> kernels;
  for (Function &F : M)
    if (isKernel(F) && variantOf(F).empty()) kernels.push_back(&F);
  std::set<std::string> partitionable;
  setNDRangeAssumption(M, true);  // analysis only, see passes/AssumeNDRange.cpp
  P.MAM.invalidate(M, PreservedAnalyses::none());
  for (Function *F : kernels) {
    res.kernels.push_back(buildKernelInfo(*F, P.FAM));
    if (res.kernels.back().partitionable) partitionable.insert(F->getName().str());
  }
  setNDRangeAssumption(M, false);
  P.MAM.invalidate(M, PreservedAnalyses::none());
  double tAna = msSince(t2);

  auto t3 = std::chrono::steady_clock::now();
  if (req.target != Target::Source && !partitionable.empty()) {
    std::vector<MergeOutcome> outcomes;
    std::vector<VastOutcome> paged, insp, rebased;
    ModulePassManager MPM;
    PartitionReadyPass pr;
    pr.only = partitionable;
    MPM.addPass(std::move(pr));
    MergeKernelPass mk;
    mk.outcomes = &outcomes;
    MPM.addPass(std::move(mk));
    if (req.emit_trace_variants) MPM.addPass(InstrumentRangesPass());
    if (req.emit_vast_variants) {
      PagedAccessPass pa;
      pa.outcomes = &paged;
      MPM.addPass(std::move(pa));
      InspectorPass ip;
      ip.outcomes = &insp;
      MPM.addPass(std::move(ip));
      RebasedPass rb;
      rb.outcomes = &rebased;
      MPM.addPass(std::move(rb));
    }
    MPM.run(M, P.MAM);
    for (KernelInfo &k : res.kernels) {
      for (auto &o : paged)
        if (o.kernel == k.name) {
          if (o.ok) {
            k.paged_kernel = k.name + "__tutti_paged";
            k.vast_buffer_args = o.bufferArgs;
          } else {
            k.paged_reason = o.reason;
          }
        }
      // Only beside a paged kernel, whose buffer arguments (and refusals) it shares.
      for (auto &o : rebased)
        if (o.kernel == k.name && o.ok && !k.paged_kernel.empty() && o.bufferArgs == k.vast_buffer_args)
          k.rebased_kernel = k.name + "__tutti_rb";
      for (auto &o : insp)
        if (o.kernel == k.name) {
          if (o.ok) {
            k.inspector_kernel = k.name + "__tutti_insp";
            k.vast_buffer_args = o.bufferArgs;
            k.inspector_data_args = o.dataArgs;
          } else {
            k.inspector_reason = o.reason;
          }
        }
    }
    for (KernelInfo &k : res.kernels) {
      if (!k.partitionable) continue;
      k.partition_kernel = k.name + "__tutti_pr";
      if (req.emit_trace_variants) k.trace_kernel = k.name + "__tutti_trace";
      for (auto &o : outcomes)
        if (o.kernel == k.name) {
          if (o.ok) {
            k.merge_kernel = k.name + "__tutti_merge";
            k.merge_partial_args = o.partialArgs;
          } else {
            k.merge_reason = o.reason;
          }
        }
    }
  }
  {
    // __local variables the merge kernels no longer use
    std::vector<GlobalVariable *> dead;
    unsigned localAS = AddrSpaces::of(M).local;
    for (GlobalVariable &GV : M.globals())
      if (GV.getAddressSpace() == localAS && GV.hasLocalLinkage() && GV.use_empty()) dead.push_back(&GV);
    for (GlobalVariable *GV : dead) GV->eraseFromParent();
  }
  for (KernelInfo &k : res.kernels)
    if (!k.partitionable && !k.whole_reason.empty())
      res.log += "note: kernel '" + k.name + "' runs whole on one device: " + k.whole_reason + "\n";
  {
    std::string v;
    raw_string_ostream vs(v);
    if (verifyModule(M, &vs)) {
      res.error = "internal error: invalid module after transformation: " + vs.str();
      return res;
    }
  }
  double tXf = msSince(t3);

  auto t4 = std::chrono::steady_clock::now();
  std::string cg;
  for (auto &c : fo.codegen) cg += " " + c;
  if (req.target == Target::Spir64) {
    if (req.keep_ir) {
      raw_string_ostream os(res.ir_text);
      M.print(os, nullptr);
    }
    {
      // After the IR dump above: the dump shows what the analyses saw.
      ModuleAnalysisManager MAM;
      SplitWideBuiltinsPass().run(M, MAM);
      DefineMemFencesPass().run(M, MAM);
      // PoCL let work-item 0 pick the exit of its group after a uniform early return
      // before a barrier (issue 20); every variant runs there, the original included.
      BarrierExitsPass().run(M, MAM);
    }
    res.binary = writeBitcode(M);
    for (KernelInfo &k : res.kernels) k.original_in_binary = true;
    res.build_options = "-x spir -spir-std=1.2" + cg;
  } else if (req.target == Target::Nvptx64) {
    std::string ptx, err;
    std::vector<std::string> dropped;
    bool cr = std::find(fo.codegen.begin(), fo.codegen.end(),
                        "-cl-fp32-correctly-rounded-divide-sqrt") != fo.codegen.end();
    if (!emitPTX(M, req.gpu_arch, cr, ptx, err, dropped)) {
      res.error = "PTX generation failed: " + err;
      return res;
    }
    if (req.keep_ir) {
      raw_string_ostream os(res.ir_text);
      M.print(os, nullptr);
    }
    std::set<std::string> gone(dropped.begin(), dropped.end());
    for (KernelInfo &k : res.kernels) {
      k.original_in_binary = !gone.count(k.name);
      auto check = [&](std::string &name) {
        if (!name.empty() && gone.count(name)) {
          res.log += "note: '" + name + "' dropped from PTX: calls a builtin libclc does not provide\n";
          name.clear();
        }
      };
      check(k.partition_kernel);
      check(k.merge_kernel);
      check(k.trace_kernel);
      check(k.paged_kernel);
      check(k.rebased_kernel);
      check(k.inspector_kernel);
      if (k.partition_kernel.empty() && k.partitionable) {
        k.partitionable = false;
        k.whole_reason = "partition-ready kernel not available for NVPTX (missing builtin)";
      }
    }
    res.binary.assign(ptx.begin(), ptx.end());
    res.build_options = "";
  } else {
    res.binary.assign(req.source.begin(), req.source.end());
    res.build_options = req.options;
  }
  double tCg = msSince(t4);
  if (llvmError) {
    res.error = llvmDiag;
    return res;
  }
  res.log += llvmDiag;
  char buf[256];
  snprintf(buf, sizeof buf,
           "timing: frontend %.1f ms, optimize %.1f ms, analyze %.1f ms, transform %.1f ms, "
           "codegen %.1f ms\n",
           tFront, tOpt, tAna, tXf, tCg);
  res.log += buf;
  res.ok = true;
  return res;
}

}  // namespace
}  // namespace detail

CompileResult compile(const CompileRequest &req) {
  auto t0 = std::chrono::steady_clock::now();
  CompileResult res;
  try {
    std::string key;
    if (!req.cache_dir.empty()) {
      key = detail::cacheKey(req);
      if (detail::cacheLoad(req.cache_dir, key, res)) {
        res.from_cache = true;
        res.compile_ms = detail::msSince(t0);
        return res;
      }
    }
    std::vector<std::string> deps;
    res = detail::compileUncached(req, deps);
    if (res.ok && !req.cache_dir.empty()) {
      if (!detail::cacheStore(req.cache_dir, key, deps, res))
        res.log += "warning: could not write the compile cache in " + req.cache_dir + "\n";
    }
  } catch (const std::exception &e) {
    res = CompileResult();
    res.error = std::string("internal error: ") + e.what();
  } catch (...) {
    res = CompileResult();
    res.error = "internal error";
  }
  res.target = req.target;
  res.compile_ms = detail::msSince(t0);
  return res;
}

}  // namespace tutti::compiler
