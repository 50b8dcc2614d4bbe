// mkmd_record.h - TUTTI_MKMD_RECORD: the app's kernel graph for tutti-mkmd.
#pragma once

#include "command.h"

namespace tutti {

// Records an enqueued command into the graph written at exit (nothing unless the setting
// is on). Kernels need TUTTI_MODE=skmd for their access analysis and per-device times.
void mkmdRecord(Command *cmd);

}  // namespace tutti
