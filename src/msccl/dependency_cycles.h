// Static deadlock check: the "waits for" graph over every transmission of every rank.
//
// A transmission waits for the one before it in its tb (program order), for the transmissions
// that publish its dependencies, and, if it receives, for the matching send on the other rank.
// A cycle in this graph is a deadlock however much a connection buffers. Deadlocks that need
// full buffers are found by running the program (simulator.h).
#pragma once

#include <vector>

#include "msccl/connections.h"
#include "msccl/diagnostic.h"
#include "msccl/program.h"

namespace flashccl::msccl {

// Reports one cycle, if there is one. Needs a program whose structure, dependencies and message
// pairing already validated.
void checkDependencyCycles(const Program& program, const ConnectionTable& table,
                           std::vector<Diagnostic>* errors);

}  // namespace flashccl::msccl
