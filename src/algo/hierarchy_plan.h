// What the algorithms across nodes share when they plan a call: whether the communicator can run
// one at all, how a buffer is cut into shards and windows, and how many thread blocks their node
// phases take.
#pragma once

#include <cstddef>

#include "algo/hierarchy.h"
#include "base/coll_call.h"

namespace flashccl {

class CommView;

// Shards and windows start at multiples of this, so the node phases stay on 16-byte vectors
// whenever the application's buffer is aligned (cudaMalloc gives 256).
constexpr size_t kHierAlign = 256;
// A window costs two kernel launches and an NCCL step between nodes (a few tens of microseconds
// of latency) whatever its size; below a few megabytes per rail that fixed cost is larger than
// what overlapping the phases saves (docs/multinode.md, the cost model), so smaller calls run as
// one window: the phases one after another.
constexpr size_t kHierMinWindowBytes = size_t(2) << 20;
// Enough windows for the three phases to overlap, few enough to keep the launches off the clock.
constexpr int kHierMaxWindows = 8;

// The communicator spans nodes, set-up armed the hierarchy, and the call is one our kernels take
// (count, type). Cheap; no side effects.
bool hierarchyUsable(const CollCall& call, const CommView& ctx);

// Lanes (thread blocks per role) of a node phase: a quarter of the chunked block budget
// (launch_common.h), so both roles take half of it (an eighth of what fits on the GPU each), and
// our kernels and NCCL's on the rail (config.maxCTAs, node_rails.h) are all resident together
// and neither waits on the other for SMs.
int hierarchyLanes(const DeviceComm& comm);

// Bytes each local rank's AllReduce shard spans (stride between shards): the count split evenly,
// rounded up to kHierAlign; the last shards are shorter or empty.
size_t allreduceShardBytes(size_t count, size_t elementBytes, int localRanks);

}  // namespace flashccl
