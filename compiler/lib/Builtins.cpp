#include "Builtins.h"

#include <cctype>

#include "tutti/compiler.h"

namespace tutti::compiler::detail {

static bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

Demangled demangle(std::string_view m) {
  Demangled d;
  if (!starts(m, "_Z")) {
    d.name = std::string(m);
    return d;
  }
  size_t i = 2;
  size_t len = 0;
  while (i < m.size() && std::isdigit((unsigned char)m[i])) len = len * 10 + (m[i++] - '0');
  if (len == 0 || i + len > m.size()) {
    d.name = std::string(m);
    return d;
  }
  d.name = std::string(m.substr(i, len));
  d.params = std::string(m.substr(i + len));
  return d;
}

WI workItemFn(std::string_view n) {
  if (n == "get_global_id") return WI::GlobalId;
  if (n == "get_local_id") return WI::LocalId;
  if (n == "get_group_id") return WI::GroupId;
  if (n == "get_global_size") return WI::GlobalSize;
  if (n == "get_local_size") return WI::LocalSize;
  if (n == "get_num_groups") return WI::NumGroups;
  if (n == "get_global_offset") return WI::GlobalOffset;
  if (n == "get_work_dim") return WI::WorkDim;
  if (n == "get_enqueued_local_size") return WI::EnqLocalSize;
  if (n == "get_global_linear_id") return WI::GlobalLinearId;
  if (n == "get_local_linear_id") return WI::LocalLinearId;
  return WI::None;
}

unsigned wiBit(WI w) {
  switch (w) {
    case WI::GlobalId: return WI_GlobalId;
    case WI::LocalId: return WI_LocalId;
    case WI::GroupId: return WI_GroupId;
    case WI::GlobalSize: return WI_GlobalSize;
    case WI::LocalSize: return WI_LocalSize;
    case WI::NumGroups: return WI_NumGroups;
    case WI::GlobalOffset: return WI_GlobalOffset;
    case WI::WorkDim: return WI_WorkDim;
    case WI::EnqLocalSize: return WI_EnqueuedLocalSize;
    case WI::GlobalLinearId: return WI_GlobalLinearId;
    case WI::LocalLinearId: return WI_LocalLinearId;
    case WI::None: return 0;
  }
  return 0;
}

AtomicOp atomicOp(std::string_view n) {
  std::string_view op;
  if (starts(n, "atomic_fetch_")) {
    op = n.substr(13);
    if (op.size() > 9 && op.substr(op.size() - 9) == "_explicit") op = op.substr(0, op.size() - 9);
  } else if (starts(n, "atomic_")) {
    op = n.substr(7);
    if (op.size() > 9 && op.substr(op.size() - 9) == "_explicit") op = op.substr(0, op.size() - 9);
  } else if (starts(n, "atom_")) {
    op = n.substr(5);
  } else {
    return AtomicOp::None;
  }
  if (op == "add") return AtomicOp::Add;
  if (op == "sub") return AtomicOp::Sub;
  if (op == "inc") return AtomicOp::Inc;
  if (op == "dec") return AtomicOp::Dec;
  if (op == "min") return AtomicOp::Min;
  if (op == "max") return AtomicOp::Max;
  if (op == "and") return AtomicOp::And;
  if (op == "or") return AtomicOp::Or;
  if (op == "xor") return AtomicOp::Xor;
  if (op == "xchg" || op == "exchange") return AtomicOp::Xchg;
  if (op == "cmpxchg" || starts(op, "compare_exchange")) return AtomicOp::CmpXchg;
  if (op == "load") return AtomicOp::Load;
  if (op == "store") return AtomicOp::Store;
  if (op == "init") return AtomicOp::Init;
  if (starts(op, "flag")) return AtomicOp::Flag;
  if (op == "work_item_fence") return AtomicOp::None;  // a fence, not an atomic
  return AtomicOp::Other;
}

const char *atomicOpName(AtomicOp op) {
  switch (op) {
    case AtomicOp::None: return "none";
    case AtomicOp::Add: return "add";
    case AtomicOp::Sub: return "sub";
    case AtomicOp::Inc: return "inc";
    case AtomicOp::Dec: return "dec";
    case AtomicOp::Min: return "min";
    case AtomicOp::Max: return "max";
    case AtomicOp::And: return "and";
    case AtomicOp::Or: return "or";
    case AtomicOp::Xor: return "xor";
    case AtomicOp::Xchg: return "xchg";
    case AtomicOp::CmpXchg: return "cmpxchg";
    case AtomicOp::Load: return "load";
    case AtomicOp::Store: return "store";
    case AtomicOp::Init: return "init";
    case AtomicOp::Flag: return "flag";
    case AtomicOp::Other: return "other";
  }
  return "?";
}

char firstPointeeType(std::string_view p) {
  size_t i = p.find('P');
  if (i == std::string_view::npos) return 0;
  ++i;
  while (i < p.size()) {
    char c = p[i];
    if (c == 'U') {  // vendor qualifier: U<len><text>
      ++i;
      size_t len = 0;
      while (i < p.size() && std::isdigit((unsigned char)p[i])) len = len * 10 + (p[i++] - '0');
      i += len;
      continue;
    }
    if (c == 'V' || c == 'K' || c == 'r') {
      ++i;
      continue;
    }
    return c;
  }
  return 0;
}

bool typeIsSigned(char t) { return t == 'a' || t == 'c' || t == 's' || t == 'i' || t == 'l' || t == 'x'; }

unsigned typeBytes(char t) {
  switch (t) {
    case 'a': case 'c': case 'h': return 1;
    case 's': case 't': return 2;
    case 'i': case 'j': case 'f': return 4;
    case 'l': case 'm': case 'x': case 'y': case 'd': return 8;
  }
  return 0;
}

Other otherBuiltin(std::string_view n) {
  if (n == "barrier" || n == "work_group_barrier") return Other::Barrier;
  if (n == "mem_fence" || n == "read_mem_fence" || n == "write_mem_fence" ||
      n == "atomic_work_item_fence")
    return Other::MemFence;
  if (n == "printf") return Other::Printf;
  if (starts(n, "read_image")) return Other::ImageRead;
  if (starts(n, "write_image")) return Other::ImageWrite;
  if (starts(n, "get_image_")) return Other::ImageQuery;
  if (starts(n, "sub_group_") || starts(n, "get_sub_group_") || starts(n, "get_num_sub_groups") ||
      starts(n, "get_max_sub_group") || starts(n, "get_enqueued_num_sub_groups") ||
      starts(n, "intel_sub_group"))
    return Other::SubGroup;
  if (starts(n, "__enqueue_kernel") || starts(n, "enqueue_kernel") || starts(n, "enqueue_marker") ||
      starts(n, "get_default_queue") || starts(n, "__get_kernel"))
    return Other::Enqueue;
  if (starts(n, "vload_half") || starts(n, "vloada_half")) return Other::VLoadHalf;
  if (starts(n, "vstore_half") || starts(n, "vstorea_half")) return Other::VStoreHalf;
  if (starts(n, "vload")) return Other::VLoad;
  if (starts(n, "vstore")) return Other::VStore;
  if (starts(n, "async_work_group")) return Other::AsyncCopy;
  if (n == "wait_group_events") return Other::WaitEvents;
  if (n == "prefetch") return Other::Prefetch;
  if (starts(n, "work_group_")) return Other::WorkGroupCollective;
  return Other::None;
}

}  // namespace tutti::compiler::detail
