// Entry points of the `flashccl` subcommands; each returns the process exit code
// (0 success, 1 failure found, 2 bad usage).
#pragma once

namespace flashccl {
int perfMain(int argc, char** argv);
int planMain(int argc, char** argv);
int traceMain(int argc, char** argv);
int doctorMain(int argc, char** argv);
int tuneMain(int argc, char** argv);
}  // namespace flashccl
