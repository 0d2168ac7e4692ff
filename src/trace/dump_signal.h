// The dump signal (FLASHCCL_TRACE_SIGNAL, SIGUSR1 by default). Its handler only sets a flag and
// writes one byte to the watchdog's wake-up pipe (both async-signal-safe); the watchdog thread
// writes the dump. A handler the application had installed before keeps being called.
#pragma once

namespace flashccl {

// Installs the handler for `signal`, waking the watchdog through `wakeFd`. False when the signal
// cannot be caught.
bool installDumpSignal(int signal, int wakeFd);
// Whether a dump was asked for since the last call (and forgets the request).
bool takeDumpRequest();
// Stops the handler writing to the wake-up pipe (a forked child, whose pipe is closed).
void detachDumpSignal();

}  // namespace flashccl
