// mkmd_graph.h - commands as MKMD's kernel graph: the compiler's access per buffer argument,
// each device's predicted time, the context's devices as models.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <tutti/mkmd.h>

#include "command.h"

namespace tutti {

// A launch's predicted seconds on its fastest device (profiled models); 0 when no device
// has one or the compiler could not analyse it.
double mkmdFastestSeconds(Command *cmd);

struct MkmdGraphBuilder {
  profiles::mkmd::GraphFile file;
  std::vector<std::string> labels;   // per device model: the backing device
  std::vector<Command *> kernels;    // per graph kernel: its command
  std::vector<bool> analysed;        // per graph kernel: access and times from the compiler
  std::vector<_cl_mem *> roots;      // per graph buffer: the app's root buffer

  // The context's backing devices as device models (once).
  void devices(_cl_context *ctx);
  // A command of the app: kernels become nodes; writes and reads mark buffers as the
  // graph's inputs and outputs.
  void add(Command *cmd);

 private:
  int bufferOf(_cl_mem *m);
  std::map<const _cl_mem *, int> buffers_;  // root -> index
  std::map<std::string, int> launches_;     // kernel name -> launches so far
};

}  // namespace tutti
