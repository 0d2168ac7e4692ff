#include "plan/hierarchy_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "algo/algorithm.h"
#include "algo/hierarchy_plan.h"
#include "algo/node_blocks.h"
#include "base/config.h"
#include "plan/plan_report.h"
#include "runtime/comm_context.h"
#include "runtime/described_comm.h"
#include "select/algorithm_resolver.h"
#include "select/selector.h"

namespace flashccl {

namespace {

// NCCL's tuning model for Hopper (docs/multinode.md, "NCCL's model"): latencies in us per
// protocol {LL, LL128, Simple}.
constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
constexpr double kRingBase[3] = {6.6, 14.0, 8.4};
constexpr double kTreeBase[3] = {6.8, 14.0, 8.4};
constexpr double kRingNvlinkStep[3] = {0.6, 1.9, 3.4};
constexpr double kTreeNvlinkStep[3] = {0.6, 1.25, 4.0};
constexpr double kRingNetStep[3] = {2.7, 4.0, 14.0};
constexpr double kTreeNetStep[3] = {5.0, 8.5, 14.0};
constexpr double kNetPostUs = 1.0;  // NCCL's network post overhead (x3 for Simple: send, recv, ack)

// NCCL's cap on LL bandwidth across nodes (Intel hosts): 2 nodes, more.
double llMaxGBps(int nodes) { return nodes <= 2 ? 39.0 : 20.4; }

// Bus bandwidth of NCCL's rings over the cluster: every GPU's NIC carries one ring's crossing,
// so the node's NICs together bound it; NVLink bounds it inside the node.
double ringBusGBps(const ClusterShape& s) { return std::min(s.gpusPerNode * s.nicGBps, s.nvlinkGBps); }

double usFor(size_t bytes, double gbps) { return gbps > 0 ? static_cast<double>(bytes) / (gbps * 1e3) : 1e30; }

// NCCL's ring over `ranks` ranks on `nodes` nodes, best protocol (the model NCCL tunes with).
double ringModelUs(CollKind kind, size_t bytes, int ranks, int nodes, double busGBps) {
  const bool allreduce = kind == CollKind::kAllReduce;
  const int steps = allreduce ? 2 * (ranks - 1) : ranks - 1;
  const int netSteps = nodes <= 1 ? 0 : allreduce ? 2 * (nodes - 1) : nodes - 1;
  double best = 1e30;
  for (int p : {kLL, kLL128, kSimple}) {
    double bus = busGBps;
    if (p == kLL) bus = std::min(llMaxGBps(nodes), bus / 4);
    if (p == kLL128) bus *= 0.92;
    const double post = nodes > 1 ? kNetPostUs * (p == kSimple ? 3 : 1) : 0;
    const double latency = kRingBase[p] + (steps - netSteps) * std::max(kRingNvlinkStep[p], post) +
                           netSteps * kRingNetStep[p];
    best = std::min(best, latency + usFor(bytes, bus * ranks / steps));
  }
  return best;
}

// Our node phases: one launch, and each rank moves `nvlinkBytes` over NVLink.
double nodePhaseUs(size_t nvlinkBytes, const ClusterShape& s) { return s.kernelUs + usFor(nvlinkBytes, s.nvlinkGBps); }

// NCCL on one rail: N ranks, one per node, one NIC.
double railUs(CollKind kind, size_t bytes, const ClusterShape& s) {
  return ringModelUs(kind, bytes, s.nodes, s.nodes, s.nicGBps);
}

// K windows through two stages on different streams: the first window passes both, then the
// slower stage sets the pace.
double pipelineUs(int windows, double callStreamUs, double railStreamUs) {
  return callStreamUs + railStreamUs + (windows - 1) * std::max(callStreamUs, railStreamUs);
}

// "12.3", or "-" where there is no such algorithm.
std::string formatUs(double us) {
  if (us < 0) return "-";
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", us);
  return text;
}

int windowsFor(size_t bytes) { return std::max(1, cutWindows(bytes, kHierMinWindowBytes, 0, kHierMaxWindows, kHierAlign).count); }

}  // namespace

double ncclRingUs(CollKind kind, size_t bytes, const ClusterShape& s) {
  return ringModelUs(kind, bytes, s.nodes * s.gpusPerNode, s.nodes, ringBusGBps(s));
}

double ncclTreeUs(CollKind kind, size_t bytes, const ClusterShape& s) {
  if (kind != CollKind::kAllReduce) return -1;
  const double depth = std::ceil(std::log2(static_cast<double>(s.nodes)));
  double best = 1e30;
  for (int p : {kLL, kLL128, kSimple}) {
    double bus = 0.92 * ringBusGBps(s);
    if (p == kLL) bus = std::min(bus / 3.8, llMaxGBps(s.nodes));
    if (p == kLL128) bus *= 120.0 / 128.0;
    const double latency = kTreeBase[p] + 2 * ((s.gpusPerNode - 1) * kTreeNvlinkStep[p] + depth * kTreeNetStep[p]);
    best = std::min(best, latency + usFor(bytes, 0.5 * bus));
  }
  return best;
}

double hierarchyUs(const std::string& algorithm, CollKind kind, size_t bytes, const ClusterShape& s) {
  const double g = s.gpusPerNode;
  const double nodes = s.nodes;
  if (algorithm == "allreduce_hier_oneshot" && kind == CollKind::kAllReduce) {
    // Node sum (LL: 16 bytes carry 8), AllGather of the node sums on every rail, the fold.
    return nodePhaseUs(static_cast<size_t>(2 * (g - 1) * bytes), s) +
           railUs(CollKind::kAllGather, static_cast<size_t>(nodes * bytes), s) + s.kernelUs;
  }
  if (algorithm == "allreduce_hier" && kind == CollKind::kAllReduce) {
    const size_t shard = static_cast<size_t>(std::ceil(bytes / g));
    const int k = windowsFor(shard);
    const double window = static_cast<double>(bytes) / k;
    const double node = 2 * nodePhaseUs(static_cast<size_t>((g - 1) / g * window), s);  // reduce-scatter + all-gather
    return pipelineUs(k, node, railUs(CollKind::kAllReduce, static_cast<size_t>(window / g), s));
  }
  if (algorithm == "allgather_hier" && kind == CollKind::kAllGather) {
    const size_t rank = static_cast<size_t>(bytes / (nodes * g));
    const int k = windowsFor(rank);
    const double window = static_cast<double>(rank) / k;
    // The rail exchanges one window with every other node at once (one NCCL group): what an
    // AllGather of the rail moves.
    const double node = nodePhaseUs(static_cast<size_t>((g - 1) * (nodes - 1) * window), s);
    return pipelineUs(k, node, railUs(CollKind::kAllGather, static_cast<size_t>(nodes * window), s));
  }
  if (algorithm == "reducescatter_hier" && kind == CollKind::kReduceScatter) {
    const size_t rank = static_cast<size_t>(bytes / (nodes * g));
    const int k = windowsFor(rank);
    const double window = static_cast<double>(rank) / k;
    const double node = nodePhaseUs(static_cast<size_t>((g - 1) * nodes * window), s);
    return pipelineUs(k, node, railUs(CollKind::kReduceScatter, static_cast<size_t>(nodes * window), s)) + s.kernelUs;
  }
  return -1;
}

int printHierarchyModel(const PlanOptions& options, const SelectionTable& table, const Config& config,
                        std::ostream& out) {
  ClusterShape shape;
  shape.nodes = options.nnodes;
  shape.gpusPerNode = options.gpusPerNode;
  shape.nicGBps = options.nicGbps / 8;
  const int nranks = shape.nodes * shape.gpusPerNode;
  std::string warnings;
  // As the library and the plan above choose: unmeasured rows only with FLASHCCL_UNMEASURED=1.
  std::unique_ptr<Selector> selector = Selector::build(table, config.algo, nranks, shape.nodes, resolveAlgorithm,
                                                       &warnings, config.armUnmeasured);
  CommContext ctx(/*comm=*/nullptr, /*rank=*/0, nranks, /*cudaDev=*/-1, /*blocking=*/true);
  describeCommunicator(&ctx, shape.nodes);

  char line[160];
  out << "\nmodel across nodes: " << shape.nodes << " nodes x " << shape.gpusPerNode << " GPUs, "
      << options.nicGbps << " Gb/s NIC per GPU, NVLink " << shape.nvlinkGBps << " GB/s\n"
      << "  (formulas and constants: docs/multinode.md; a model, not a measurement: no time across\n"
      << "   nodes is claimed until it has been measured on real nodes)\n";
  for (CollKind kind : options.colls) {
    const size_t perElement = dtypeSize(options.dtype) * (kind == CollKind::kAllReduce ? 1 : size_t(nranks));
    out << "\n" << collKindName(kind) << " (" << dtypeName(options.dtype) << ", " << nranks << " ranks)\n";
    std::snprintf(line, sizeof(line), "  %-10s %-24s %12s %12s %12s  %s\n", "size", "flashccl runs", "model us",
                  "NCCL ring us", "NCCL tree us", "fastest (model)");
    out << line;
    for (size_t size : planSizes(options)) {
      const size_t count = size / perElement;
      if (count == 0) continue;
      const size_t bytes = count * perElement;
      CollCall call{};
      call.kind = kind;
      call.count = count;
      call.dtype = options.dtype;
      call.op = kind == CollKind::kAllGather ? ncclSum : options.op;
      call.send = call.recv = reinterpret_cast<void*>(uintptr_t(1) << 40);
      const Plan plan = selector->choose(call, ctx);
      const std::string runs = plan.algorithm ? plan.algorithm->name() : "nccl";
      const double ours = plan.algorithm ? hierarchyUs(runs, kind, bytes, shape) : -1;
      const double ring = ncclRingUs(kind, bytes, shape);
      const double tree = ncclTreeUs(kind, bytes, shape);
      const double ncclBest = tree > 0 ? std::min(ring, tree) : ring;
      const char* fastest = ours > 0 && ours < ncclBest ? "flashccl" : (tree > 0 && tree < ring ? "NCCL tree" : "NCCL ring");
      std::snprintf(line, sizeof(line), "  %-10s %-24s %12s %12s %12s  %s\n", formatSize(bytes).c_str(), runs.c_str(),
                    formatUs(ours).c_str(), formatUs(ring).c_str(), formatUs(tree).c_str(), fastest);
      out << line;
    }
  }
  return 0;
}

}  // namespace flashccl
