// transfer_probe.h - measures a backing device's host<->device copy times (profiling mode).
#pragma once
#include "runtime.h"

namespace tutti {

// Times blocking writes and reads of 4 KiB .. 16 MiB between the device and pageable
// (malloc) and pinned (CL_MEM_ALLOC_HOST_PTR, mapped) host memory; queues one sample per
// size, direction and memory kind (best of three). Once per device and database.
void measureTransfers(DeviceSlot &ds);

}  // namespace tutti
