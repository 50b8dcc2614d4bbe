// A shared object that links tutti_compiler the way libtutti.so will: the
// CheckExports test verifies that it exports no LLVM or Clang symbol.
#include "tutti/compiler.h"

extern "C" __attribute__((visibility("default"))) int tutti_symcheck_compile(const char *src) {
  tutti::compiler::CompileRequest r;
  r.source = src;
  return tutti::compiler::compile(r).ok ? 0 : 1;
}
