// Every number doctor judges against, in one place, with where it comes from. docs/doctor.md
// carries the same table for operators; `--expect FILE` replaces the bandwidth floors with the
// operator's own (a known-good box of the same type is the best source).
#pragma once

namespace flashccl {
namespace doctor {
namespace threshold {

// Host <-> device copies (pinned memory, copy engine) against the PCIe link's raw rate.
// TLP and flow-control overhead cap a x16 link at roughly 80-88% of its raw rate for large
// copies; below 70% something else is in the way (IOMMU translation, a remote NUMA node, a
// congested switch); below 40% the path is badly broken (a link retrained narrower mid-run,
// copies bounced through a slow root port).
constexpr double kHostLinkWarnRatio = 0.70;
constexpr double kHostLinkFailRatio = 0.40;

// HBM / GDDR copy kernel against bus width x memory clock x 2 (the datasheet number). Streaming
// copies reach 85-92% of it on Hopper; 70% allows for GDDR parts with ECC on.
constexpr double kMemoryWarnRatio = 0.70;
constexpr double kMemoryFailRatio = 0.50;

// GPU pairs against the link's rate (NVLink: links x per-link rate from NVML; PCIe: the slower
// GPU's host link). Measured on 2 x H200 (NV18, 478 GB/s raw per direction): copy engine
// 396 GB/s (83%), SM stores 368 GB/s (77%). A pair below the FAIL ratio has lost links or
// runs through host memory.
constexpr double kPairCopyEngineWarnRatio = 0.70;
constexpr double kPairSmStoreWarnRatio = 0.60;
constexpr double kPairFailRatio = 0.40;
// A pair slower than this fraction of the median of its path class (same link kind and link
// count) is an outlier even when the absolute rate looks fine (acceptance practice: flag cells
// under ~80% of their class median).
constexpr double kPairMedianRatio = 0.80;
// One-way flag latency (a store into the peer's memory seen by a kernel polling it). 2 x H200
// NVLink: 0.6 us. PCIe peer stores cross one or more switches or the root complex: 1-2 us.
constexpr double kNvlinkLatencyWarnMicros = 1.5;
constexpr double kPcieLatencyWarnMicros = 4.0;
constexpr double kLatencyMedianFactor = 2.0;  // WARN above twice the class median

// Rails: each active RDMA port's traffic during the collective run against the mean over rails.
// The collective waits for the busiest rail, so a rail at (1 + d) x the mean holds it to
// 1 / (1 + d) of the balanced speed: 83% at d = 0.2, 71% at d = 0.4. The seeding probe's
// alltoall had 1771 GB on two rails and 590 GB on the other two: d = +-0.5.
constexpr double kRailWarnDeviation = 0.20;
constexpr double kRailFailDeviation = 0.40;
// Below this much traffic over all rails the split says nothing (a single-node run moves no
// bytes through the NICs).
constexpr double kRailMinimumBytes = 1024.0 * 1024 * 1024;

// Collectives: flashccl slower than NCCL by more than this fraction at some size means its
// selection table does not fit this machine.
constexpr double kFlashcclSlowerRatio = 0.90;

}  // namespace threshold
}  // namespace doctor
}  // namespace flashccl
