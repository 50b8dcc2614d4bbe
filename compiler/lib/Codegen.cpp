// Code generation per backing device: spir64 bitcode (PoCL) and PTX (NVIDIA,
// with libclc linked in). Equivalent to the verified command lines in
// /work/shared/FACTS.md (clang-15 -target spir64 ... -O2 -emit-llvm; and
// clang-15 -target nvptx64-nvidia-nvcl, llvm-link with nvptx64--nvidiacl.bc,
// opt -O2, llc -mcpu=sm_80).
#include <mutex>

#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include "Codegen.h"
#include "Internal.h"

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace llvm;

namespace tutti::compiler::detail {

std::vector<uint8_t> writeBitcode(Module &M) {
  SmallString<0> buf;
  raw_svector_ostream os(buf);
  WriteBitcodeToFile(M, os);
  return std::vector<uint8_t>(buf.begin(), buf.end());
}

static void initNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

// Remove kernels that reach a function with no definition (a builtin libclc
// does not provide, e.g. get_global_offset in an untransformed kernel).
static void dropUnresolved(Module &M, std::vector<std::string> &dropped) {
  std::set<Function *> bad;
  std::vector<Function *> work;
  for (Function &F : M)
    if (F.isDeclaration() && (!F.isIntrinsic() || nvptxCannotLower(F)) && !F.use_empty()) {
      bad.insert(&F);
      work.push_back(&F);
    }
  while (!work.empty()) {
    Function *F = work.back();
    work.pop_back();
    for (User *U : F->users())
      if (auto *CB = dyn_cast<CallBase>(U)) {
        Function *caller = CB->getFunction();
        if (bad.insert(caller).second) work.push_back(caller);
      }
  }
  std::vector<Function *> kernels;
  for (Function *F : bad)
    if (isKernel(*F)) kernels.push_back(F);
  if (kernels.empty()) return;
  std::set<Function *> ks(kernels.begin(), kernels.end());
  if (NamedMDNode *ann = M.getNamedMetadata("nvvm.annotations")) {
    std::vector<MDNode *> keep;
    for (MDNode *op : ann->operands()) {
      auto *v = op->getNumOperands() ? dyn_cast_or_null<ValueAsMetadata>(op->getOperand(0).get()) : nullptr;
      if (v && ks.count(dyn_cast<Function>(v->getValue()))) continue;
      keep.push_back(op);
    }
    ann->clearOperands();
    for (MDNode *n : keep) ann->addOperand(n);
  }
  for (Function *F : kernels) {
    dropped.push_back(F->getName().str());
    F->replaceAllUsesWith(UndefValue::get(F->getType()));
    F->eraseFromParent();
  }
}

bool emitPTX(Module &M, const std::string &archIn, bool correctlyRounded, std::string &ptx,
             std::string &err, std::vector<std::string> &dropped) {
  initNVPTX();
  std::string arch = archIn.empty() ? "sm_80" : archIn;
  std::string_view clc = embeddedLibclcNvptx();
  if (clc.empty()) {
    err = "libclc for nvptx64 was not embedded at build time";
    return false;
  }
  LLVMContext &C = M.getContext();
  {
    // Before libclc: the builtins it defines here must not be linked in.
    ModuleAnalysisManager MAM;
    NvptxFastBuiltinsPass P;
    P.correctlyRounded = correctlyRounded;
    P.run(M, MAM);
  }
  {
    auto lib = getLazyBitcodeModule(MemoryBufferRef(StringRef(clc.data(), clc.size()), "libclc"), C);
    if (!lib) {
      err = "cannot read embedded libclc: " + toString(lib.takeError());
      return false;
    }
    (*lib)->setTargetTriple(M.getTargetTriple());
    (*lib)->setDataLayout(M.getDataLayout());
    if (Linker::linkModules(M, std::move(*lib), Linker::Flags::LinkOnlyNeeded)) {
      err = "linking libclc failed";
      return false;
    }
  }
  internalizeModule(M, [](const GlobalValue &GV) {
    if (auto *F = dyn_cast<Function>(&GV)) return isKernel(*F) || F->isDeclaration();
    return GV.isDeclaration();
  });
  {
    ModuleAnalysisManager MAM;
    NvptxNativeMathPass().run(M, MAM);
  }
  dropUnresolved(M, dropped);

  std::string terr;
  const llvm::Target *T = TargetRegistry::lookupTarget(M.getTargetTriple(), terr);
  if (!T) {
    err = terr;
    return false;
  }
  TargetOptions TO;
  std::unique_ptr<TargetMachine> TM(T->createTargetMachine(M.getTargetTriple(), arch, "", TO,
                                                           Reloc::PIC_, None, CodeGenOpt::Aggressive));
  if (!TM) {
    err = "cannot create NVPTX target machine for " + arch;
    return false;
  }
  M.setDataLayout(TM->createDataLayout());

  {
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PassBuilder PB(TM.get());
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    ModulePassManager MPM = PB.buildPerModuleDefaultPipeline(OptimizationLevel::O2);
    MPM.addPass(NvptxFastDividePass());
    MPM.addPass(NvptxNativeMathPass());  // anything the pipeline formed since
    MPM.run(M, MAM);
  }
  // The backend aborts the process on these (report_fatal_error): fail the build instead.
  for (Function &F : M)
    if (nvptxCannotLower(F) && !F.use_empty()) {
      err = "the NVPTX backend cannot lower " + F.getName().str();
      return false;
    }
  if (verifyModule(M, nullptr)) {
    std::string v;
    raw_string_ostream vs(v);
    verifyModule(M, &vs);
    err = "invalid module before PTX emission: " + vs.str();
    return false;
  }
  SmallString<0> buf;
  raw_svector_ostream os(buf);
  legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, os, nullptr, CGFT_AssemblyFile)) {
    err = "NVPTX cannot emit assembly";
    return false;
  }
  PM.run(M);
  ptx.assign(buf.begin(), buf.end());
  return true;
}

}  // namespace tutti::compiler::detail
