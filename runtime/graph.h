// graph.h - the command graph: which earlier commands each new command must wait for.
//
// Every enqueued command is a node (Command) whose edges (Command::deps, and the
// reverse _cl_event::waiters) come from its wait list, from barriers and markers, and,
// inside an in-order queue, from data: a command waits only for earlier ones whose byte
// ranges it reads after they write, or writes after they read or write (access.h).
// Independent commands of one in-order queue may therefore overlap or reorder; the app
// still sees them complete in order (Runtime::reportInOrder).
#pragma once
#include <vector>

#include "command.h"

namespace tutti {

// Appends the events cmd must wait for beyond its wait list, and records cmd's own
// accesses in its queue. The cost does not grow with the number of earlier commands:
// a barrier or a marker that waits for everything waits for the previous barrier or such
// marker and what came after it, and access records covered by a later write are dropped.
void graphDependencies(Command *cmd, std::vector<_cl_event *> &deps) REQUIRES(apiMutex);
// ev completed: its queue forgets the records that name it.
void graphForget(_cl_command_queue *q, _cl_event *ev) REQUIRES(apiMutex);

}  // namespace tutti
