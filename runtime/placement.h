// placement.h - which backing device runs a command that runs whole (TUTTI_PLACEMENT).
#pragma once
#include <string>

#include "command.h"

namespace tutti {

// The backing-device slot cmd runs on whole, also stored in cmd->slot (-1: the host, or
// no device can take the kernel).
int chooseSlot(Command *cmd);
// Whether slot's device holds every buffer the launch with these arguments uses (each
// within its largest allocation, all within its memory; TUTTI_MEM_LIMIT applied).
bool launchFits(_cl_kernel *k, const std::vector<ArgValue> &args, int slot);
// Placement error for a kernel no device can take (CL_SUCCESS if one can).
// Devices in `avoid` (a slot bit mask) and retired ones do not count.
cl_int placementError(_cl_kernel *k, const std::vector<ArgValue> &args, std::string &why,
                      uint32_t avoid = 0);

}  // namespace tutti
