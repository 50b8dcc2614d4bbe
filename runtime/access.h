// access.h - which bytes of which buffers a command reads and writes.
//
// The command graph orders commands by these accesses (RAW, WAR, WAW on overlapping byte
// ranges), and issue marks what a launch wrote. For kernels the compiler's access
// analysis gives each buffer argument's read and write hulls over the launch; without it
// (no compiler, or the program's analysis is not ready) a kernel may read and write every
// byte of every writable buffer argument.
#pragma once
#include <vector>

#include "command.h"

namespace tutti {

struct Access {
  _cl_mem *root;  // the store's root buffer
  Range r;        // bytes in the root store
  bool write;
};

// Whether a kernel may write a memory argument (conservative: any non-const global
// pointer to a writable buffer).
bool kernelMayWrite(_cl_kernel *k, size_t arg, _cl_mem *m);

// What cmd reads and writes, appended to out.
void accessesOf(const Command *cmd, std::vector<Access> &out);

// Hook for the compiler's analysis: the byte hulls a launch reads and writes per buffer
// argument. Returns false when it cannot say (then whole buffers count). Installed by
// the SKMD layer when the compiler is built in.
using LaunchAccessFn = bool (*)(const Command *cmd, std::vector<Access> &out);
void setLaunchAccess(LaunchAccessFn fn);

}  // namespace tutti
