// Hazard analysis: what partitioning must know about a kernel beyond its
// memory accesses: global/local atomics, barriers and fences, images, printf,
// sub-groups, device-side enqueue, program-scope globals, calls that were not
// inlined, and the work-item functions the partition-ready kernel virtualizes.
//
//   analysis: tutti-hazards             printer: print<tutti-hazards>
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"

#include "../lib/Internal.h"

using namespace llvm;

namespace tutti::compiler::detail {

AnalysisKey HazardAnalysis::Key;

HazardResult HazardAnalysis::run(Function &F, FunctionAnalysisManager &FAM) {
  HazardResult R;
  Hazards &h = R.h;
  auto &AA = FAM.getResult<ArgAccessAnalysis>(F);
  AddrSpaces AS = AddrSpaces::of(*F.getParent());
  unsigned maxDim = 0;

  for (unsigned i = 0; i < AA.args.size(); ++i) {
    const ArgSummary &S = AA.args[i];
    if (S.kind == ArgKind::LocalBuffer) h.local_memory = true;
    if (S.kind == ArgKind::Image) h.images = true;
    if (S.atomic) h.global_atomics = true;
  }
  for (const AccessRec &a : AA.accesses)
    if (a.kind == 2) h.global_atomics = true;
  if (AA.programGlobalWrites) h.program_globals = true;

  for (GlobalVariable &GV : F.getParent()->globals()) {
    if (GV.getAddressSpace() != AS.local || GV.use_empty()) continue;
    for (User *U : GV.users()) {
      bool used = false;
      if (auto *I = dyn_cast<Instruction>(U)) used = I->getFunction() == &F;
      else used = true;  // constant expression: assume used
      if (used) { h.local_memory = true; break; }
    }
  }

  for (Instruction &I : instructions(F)) {
    auto *CB = dyn_cast<CallBase>(&I);
    if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
      if (RMW->getPointerAddressSpace() == AS.local) h.local_atomics = true;
      continue;
    }
    if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
      if (CX->getPointerAddressSpace() == AS.local) h.local_atomics = true;
      continue;
    }
    if (!CB) continue;
    if (isa<IntrinsicInst>(CB)) continue;
    Function *Callee = CB->getCalledFunction();
    std::string name = calleeName(*CB);
    if (!Callee) {
      h.unknown_calls = true;
      h.notes.push_back("indirect call");
      continue;
    }
    if (!Callee->isDeclaration()) {
      h.unknown_calls = true;
      h.notes.push_back("call to '" + name + "' was not inlined");
      continue;
    }
    Demangled d = demangle(name);
    WI wi = workItemFn(d.name);
    if (wi != WI::None) {
      h.workitem_fns |= wiBit(wi);
      if (CB->arg_size() >= 1) {
        if (auto *C = dyn_cast<ConstantInt>(CB->getArgOperand(0))) {
          if (C->getZExtValue() < 3) maxDim = std::max<unsigned>(maxDim, (unsigned)C->getZExtValue());
        } else {
          R.nonConstDim = true;
        }
      }
      if (wi == WI::GlobalLinearId || wi == WI::LocalLinearId) maxDim = 2;
      continue;
    }
    AtomicOp aop = atomicOp(d.name);
    if (aop != AtomicOp::None) {
      if (CB->arg_size() && CB->getArgOperand(0)->getType()->isPointerTy() &&
          CB->getArgOperand(0)->getType()->getPointerAddressSpace() == AS.local)
        h.local_atomics = true;
      continue;
    }
    switch (otherBuiltin(d.name)) {
      case Other::Barrier: h.barrier = true; break;
      case Other::MemFence: h.mem_fence = true; break;
      case Other::Printf: h.printf = true; break;
      case Other::ImageRead: case Other::ImageQuery: h.images = true; break;
      case Other::ImageWrite: h.images = true; h.image_writes = true; break;
      case Other::SubGroup: h.subgroups = true; break;
      case Other::Enqueue: h.device_enqueue = true; break;
      default:
        if (name.rfind("_Z", 0) != 0 && name != "printf") {
          h.unknown_calls = true;
          h.notes.push_back("call to unknown function '" + name + "'");
        }
        break;
    }
  }
  const uint32_t virt = WI_GlobalId | WI_GroupId | WI_GlobalSize | WI_NumGroups | WI_GlobalOffset |
                        WI_WorkDim | WI_EnqueuedLocalSize | WI_GlobalLinearId;
  h.virtualized_fns = h.workitem_fns & virt;
  R.maxDim = R.nonConstDim ? 3 : maxDim + 1;
  for (auto &n : AA.notes) h.notes.push_back(n);
  return R;
}

namespace {
struct HazardPrinter : PassInfoMixin<HazardPrinter> {
  raw_ostream &OS;
  explicit HazardPrinter(raw_ostream &OS) : OS(OS) {}
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    if (!isKernel(F)) return PreservedAnalyses::all();
    auto &R = FAM.getResult<HazardAnalysis>(F);
    const Hazards &h = R.h;
    OS << "hazards '" << F.getName() << "':";
    if (h.barrier) OS << " barrier";
    if (h.mem_fence) OS << " mem_fence";
    if (h.local_memory) OS << " local_memory";
    if (h.global_atomics) OS << " global_atomics";
    if (h.local_atomics) OS << " local_atomics";
    if (h.images) OS << " images";
    if (h.image_writes) OS << " image_writes";
    if (h.printf) OS << " printf";
    if (h.subgroups) OS << " subgroups";
    if (h.device_enqueue) OS << " device_enqueue";
    if (h.program_globals) OS << " program_globals";
    if (h.unknown_calls) OS << " unknown_calls";
    OS << "\n  max_dim " << R.maxDim << (R.nonConstDim ? " (non-constant dimension)" : "")
       << "\n  virtualize:";
    static const char *fn[] = {"get_global_id", "get_local_id", "get_group_id", "get_global_size",
                               "get_local_size", "get_num_groups", "get_global_offset",
                               "get_work_dim", "get_enqueued_local_size", "get_global_linear_id",
                               "get_local_linear_id"};
    for (int i = 0; i < 11; ++i)
      if (h.virtualized_fns & (1u << i)) OS << " " << fn[i];
    OS << "\n";
    return PreservedAnalyses::all();
  }
};
}  // namespace

void registerHazards(PassBuilder &PB) {
  PB.registerAnalysisRegistrationCallback(
      [](FunctionAnalysisManager &FAM) { FAM.registerPass([] { return HazardAnalysis(); }); });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<tutti-hazards>") {
          FPM.addPass(HazardPrinter(outs()));
          return true;
        }
        return false;
      });
}

}  // namespace tutti::compiler::detail
