// Classification of OpenCL builtin function names (Itanium-mangled), no LLVM.
#pragma once

#include <string>
#include <string_view>

namespace tutti::compiler::detail {

// "_Z13get_global_idj" -> name "get_global_id", params "j". Unmangled names
// are returned whole with empty params.
struct Demangled {
  std::string name;
  std::string params;
};
Demangled demangle(std::string_view mangled);

enum class WI : unsigned {
  None = 0, GlobalId, LocalId, GroupId, GlobalSize, LocalSize, NumGroups, GlobalOffset,
  WorkDim, EnqLocalSize, GlobalLinearId, LocalLinearId,
};
WI workItemFn(std::string_view name);
unsigned wiBit(WI w);  // tutti::compiler::WorkItemFn bit

enum class AtomicOp {
  None, Add, Sub, Inc, Dec, Min, Max, And, Or, Xor, Xchg, CmpXchg, Load, Store, Init, Flag, Other,
};
AtomicOp atomicOp(std::string_view name);
const char *atomicOpName(AtomicOp op);

// Element type of the pointee of the first pointer parameter of a mangled
// parameter list: 'i','j','l','m','f',... ; 0 if unknown.
char firstPointeeType(std::string_view params);
bool typeIsSigned(char t);
unsigned typeBytes(char t);  // 0 for unknown

enum class Other {
  None, Barrier, MemFence, Printf, ImageRead, ImageWrite, ImageQuery, SubGroup, Enqueue,
  VLoad, VStore, VLoadHalf, VStoreHalf, AsyncCopy, WaitEvents, Prefetch, WorkGroupCollective,
};
Other otherBuiltin(std::string_view name);

}  // namespace tutti::compiler::detail
