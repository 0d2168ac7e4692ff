// Hang detection. A collective that never completes (a deadlocked kernel, a rank that died) would
// otherwise keep `flashccl perf`, and the GPUs, busy forever. Each rank driver reports what it is
// doing before every step; if one slot reports nothing for --timeout seconds, the watchdog prints
// every rank's last step, so the hung call is named, and ends the process with status 1.
#pragma once

#include <string>

namespace flashccl {
namespace perf {

// Starts the watchdog thread (once per process; later calls do nothing). On a hang it ends the
// process with `exitStatus`.
void startProgressWatchdog(int timeoutSeconds, int exitStatus);

// Slot `slot` (a rank) is now doing `what`. Cheap enough for every step (a mutex and a clock read).
void reportProgress(int slot, const std::string& what);

// Slot `slot` is done (finished or waiting on nothing that can hang); stop watching it.
void finishProgress(int slot);

}  // namespace perf
}  // namespace flashccl
