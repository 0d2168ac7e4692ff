// `flashccl plan --nodes N --gpus-per-node G --nic-gbps B`: the cost model of the algorithms across
// nodes, beside NCCL's own model of its ring and tree, per size. A model to check against
// measurements on real nodes, not a measurement: every formula and constant is in
// docs/multinode.md, and nothing here is claimed as a speed until two real nodes have run it.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include "base/coll_call.h"
#include "base/config.h"
#include "plan/plan_options.h"
#include "topo/selection_table.h"

namespace flashccl {

// The machine the model is about. Bandwidths in GB/s, latencies in microseconds.
struct ClusterShape {
  int nodes = 2;
  int gpusPerNode = 8;
  double nicGBps = 50;       // one NIC per GPU (one rail each), line rate: --nic-gbps / 8
  double nvlinkGBps = 370;   // per GPU and direction, what NCCL and our kernels reach over NVLink
  double kernelUs = 5;       // one launch of our node phases, host launch included (2 x H200, eager)
};

// Modelled time (us) of one call of `kind` over `bytes` (whole buffer, as nccl-tests counts it).
// NCCL's ring and tree: the best protocol of NCCL's own latency/bandwidth model, tree for
// AllReduce only (NCCL has none for AllGather and ReduceScatter): negative when NCCL has no such
// algorithm. Ours: `algorithm` is one of the algorithms across nodes; negative for any other.
double ncclRingUs(CollKind kind, size_t bytes, const ClusterShape& shape);
double ncclTreeUs(CollKind kind, size_t bytes, const ClusterShape& shape);
double hierarchyUs(const std::string& algorithm, CollKind kind, size_t bytes, const ClusterShape& shape);

// Prints, for each collective and size of `options`, what selection picks on a communicator of
// options.nnodes x options.gpusPerNode ranks (the `table` rows, config.algo = FLASHCCL_ALGO), its
// modelled time, NCCL's ring and tree, and which the model finds fastest. Returns 0. `config` is
// the one the plan read (a second read would repeat its WARNs).
int printHierarchyModel(const PlanOptions& options, const SelectionTable& table, const Config& config,
                        std::ostream& out);

}  // namespace flashccl
