#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace tutti::compiler::detail {

std::vector<uint8_t> writeBitcode(llvm::Module &M);

// Links libclc, optimizes with the NVPTX target and emits PTX. Kernels that
// still reference undefined functions are removed and listed in `dropped`.
// correctlyRounded: the program was built with -cl-fp32-correctly-rounded-divide-sqrt.
bool emitPTX(llvm::Module &M, const std::string &arch, bool correctlyRounded, std::string &ptx,
             std::string &err, std::vector<std::string> &dropped);

}  // namespace tutti::compiler::detail
