// transfer_probe.h - measures a backing device's host<->device copy times (profiling mode).
#pragma once
#include "command.h"

namespace tutti {

// Times blocking writes and reads of 4 KiB .. 16 MiB between the device and pageable
// (malloc) and pinned (CL_MEM_ALLOC_HOST_PTR, mapped) host memory; queues one sample per
// size, direction and memory kind (best of three). Once per device and database.
void measureTransfers(DeviceSlot &ds);

// The pseudo device whose "transfers" are host memcpy: what a host merge of partial
// results costs per byte (Algorithm 1's merge cost).
extern const char *const kHostMemoryId;
// Times memcpy of 1 MiB and 16 MiB (best of three) once per database.
void measureHostMemory();

}  // namespace tutti
