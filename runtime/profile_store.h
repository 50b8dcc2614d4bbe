// profile_store.h - the runtime's side of the profile database: identities, features,
// batched sample writes and the models loaded back for TUTTI_PARTITION=auto.
//
// Profiling mode and online calibration write samples; the SKMD decision reads fitted
// models. Writes are queued and flushed by a background thread (and at exit), so the
// launch and completion paths only ever append to a vector.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <tutti/compiler.h>
#include <tutti/profile_types.h>
#include <tutti/time_model.h>
#include <tutti/transfer_model.h>

#include "command.h"

namespace tutti {

// Stable across runs: the partition-ready program's hash (source + options) and the name.
std::string kernelIdentity(_cl_kernel *k);
// Name, driver and platform of a backing device; a second identical device gets "#1".
std::string deviceIdentity(const BackingDevice *d);

// What makes two launches of a kernel the same shape for profiling and model binding:
// NDRange, local size, buffer argument sizes and by-value argument bits.
std::vector<uint64_t> launchShape(Command *cmd, const compiler::NDRange &nd,
                                  const compiler::ScalarArgs &scalars);
// The same into out (cleared), for callers that keep its storage (every SKMD launch).
void launchShapeInto(Command *cmd, const compiler::NDRange &nd, const compiler::ScalarArgs &scalars,
                     std::vector<uint64_t> &out);

// Model inputs of a launch: work-items, buffer argument sizes, integer by-value arguments
// and the compiler's static cost per work-item where it is known.
profiles::Features launchFeatures(Command *cmd, const compiler::KernelInfo &info,
                                  const compiler::NDRange &nd, const compiler::ScalarArgs &scalars);

// A sample of `groups` work-groups of cmd's launch shape on slot's device.
profiles::KernelSample kernelSample(Command *cmd, int slot, const compiler::NDRange &nd,
                                    const profiles::Features &f, uint64_t groups, double seconds);

// False when TUTTI_PROFILE_DB=off or the database cannot be opened (logged once).
bool profileDbEnabled();
// Queue samples for the database (never blocks on SQLite).
void queueKernelSample(profiles::KernelSample s);
void queueTransferSample(profiles::TransferSample s);
// A sample an SKMD or MKMD run measured of its own launches: queued only while the database
// has fewer than the fit's newest few at its point (work-groups and features). Past that it
// would only change the fit's input, and so refit the model at every build.
void queueOnlineSample(profiles::KernelSample s);
// Writes everything queued now (profiling mode calls it after each shape; also at exit).
void flushProfileSamples();
// Transfer samples stored for a device (profiling mode measures only when there are none).
size_t storedTransferSamples(const std::string &deviceId);

// Models fitted from the database at first use (runtime lock held). nullptr: no samples.
std::shared_ptr<const profiles::TimeModel> storedTimeModel(const std::string &kernelId,
                                                           const std::string &deviceId);
// The device's transfer model (defaults, isDefault = true, where nothing was measured).
const profiles::TransferModel &storedTransferModel(const std::string &deviceId);

}  // namespace tutti
