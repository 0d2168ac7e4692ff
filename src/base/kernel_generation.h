// Which generation of flashccl's kernels this library runs (docs/topologies.md, "Calibrated
// tables"). A selection table records the generation it was measured on; a table measured on an
// older generation says nothing about how fast today's kernels are, so it counts as unmeasured.
//
// Bump kKernelGeneration in the commit that changes what a kernel costs (a new protocol, a new
// launch mode, a change of the set-up the calls wait on), not for a fix that leaves timings alone.
//   1  2026-12: call agreement, cooperative launch and progress stamps (the first generation a
//      table records; the shipped tables measured before it record none, i.e. 0).
#pragma once

namespace flashccl {

constexpr int kKernelGeneration = 1;

}  // namespace flashccl
