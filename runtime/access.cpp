// access.cpp - the reads and writes of each command kind, for ordering and validity.
#include "access.h"

namespace tutti {

namespace {
LaunchAccessFn g_launchAccess = nullptr;

_cl_mem *rootMem(_cl_mem *m) { return m->parent ? m->parent : m; }
// Images made from buffers are views of the buffer's bytes (parent set); other images
// are one opaque object.
Range whole(_cl_mem *m) { return m->isImage() && !m->parent ? Range{0, 1} : m->range(); }
}  // namespace

void setLaunchAccess(LaunchAccessFn fn) { g_launchAccess = fn; }

bool ArgInfo::isImage() const { return typeName.rfind("image", 0) == 0; }

bool kernelMayWrite(_cl_kernel *k, size_t arg, _cl_mem *m) {
  if (m->isImage()) return !(m->flags & CL_MEM_READ_ONLY);
  if (m->flags & CL_MEM_READ_ONLY) return false;  // a kernel writing it is undefined
  if (arg < k->argInfo.size()) {
    const ArgInfo &ai = k->argInfo[arg];
    if (ai.addr == CL_KERNEL_ARG_ADDRESS_CONSTANT) return false;
    if (ai.typeQual & CL_KERNEL_ARG_TYPE_CONST) return false;
  }
  return true;
}

void accessesOf(const Command *c, std::vector<Access> &out) {
  auto add = [&](_cl_mem *m, bool write) {
    if (m) out.push_back({rootMem(m), whole(m), write});
  };
  // Buffer commands name their bytes exactly: commands on disjoint parts of one buffer
  // need no order between them.
  auto span = [&](_cl_mem *m, size_t off, bool write) {
    if (m) out.push_back({rootMem(m), {m->origin + off, m->origin + off + c->size}, write});
  };
  switch (c->kind) {
    case CmdKind::Kernel:
      if (g_launchAccess && g_launchAccess(c, out)) break;
      for (size_t i = 0; i < c->args.size(); ++i)
        if (c->args[i].kind == ArgValue::Mem && c->args[i].mem)
          add(c->args[i].mem, kernelMayWrite(c->kernel, i, c->args[i].mem));
      break;
    case CmdKind::Read: span(c->src, c->srcOff, false); break;
    case CmdKind::Write: case CmdKind::Fill: span(c->dst, c->dstOff, true); break;
    case CmdKind::Copy:
      span(c->src, c->srcOff, false);
      span(c->dst, c->dstOff, true);
      break;
    case CmdKind::ReadRect: case CmdKind::ImageRead:
      add(c->src, false); break;
    case CmdKind::WriteRect: case CmdKind::ImageWrite: case CmdKind::ImageFill:
      add(c->dst, true); break;
    case CmdKind::CopyRect: case CmdKind::ImageCopy:
    case CmdKind::ImageToBuffer: case CmdKind::BufferToImage:
      add(c->src, false);
      add(c->dst, true);
      break;
    case CmdKind::Map: span(c->src, c->srcOff, c->mapFlags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)); break;
    case CmdKind::ImageMap:
      add(c->src, c->mapFlags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)); break;
    case CmdKind::Unmap:
      if (c->src->isImage()) add(c->src, true);
      else span(c->src, c->srcOff, true);
      break;
    case CmdKind::Migrate:
      for (auto *m : c->migrate) add(m, true);
      break;
    case CmdKind::Marker: break;
  }
}

}  // namespace tutti
