// The node phases of the algorithms across nodes (src/algo/node_phases.h), with every rank of a
// node on ONE GPU (virtual_ranks.h): the windows, groups and uneven blocks the hierarchical
// AllReduce, AllGather and ReduceScatter give the direct kernels, small (LL packets) and large
// (chunk slots), eager and graph; and the rail's call records that disagree stopping every rank
// instead of hanging. No NCCL: the steps between nodes are what the one-GPU multi-process check
// (hierarchy_check.sh) covers. Inputs are small integers in float, so every sum is exact.
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "algo/hierarchy_plan.h"
#include "algo/node_blocks.h"
#include "algo/node_phases.h"
#include "algo/launch_common.h"
#include "runtime/call_header.h"
#include "transport/p2p/peer_memory.h"
#include "local_test_support.h"
#include "virtual_ranks.h"

namespace flashccl {
namespace {

using testing::VirtualRanks;

float valueOf(int rank, size_t i) { return static_cast<float>((i * 5 + static_cast<size_t>(rank) * 11) % 17 + rank); }

// Device buffers of `floats` floats per rank, filled with valueOf(rank, i) or a poison.
struct PerRank {
  std::vector<float*> data;
  PerRank(int n, size_t floats, bool fill) : data(n, nullptr) {
    for (int r = 0; r < n; ++r) {
      cudaMalloc(&data[r], floats * sizeof(float));
      std::vector<float> host(floats, -1.0f);
      if (fill) {
        for (size_t i = 0; i < floats; ++i) host[i] = valueOf(r, i);
      }
      cudaMemcpy(data[r], host.data(), floats * sizeof(float), cudaMemcpyHostToDevice);
    }
    // A cudaMemcpy from pageable memory can return before it lands, on the legacy stream, which
    // the ranks' non-blocking streams do not wait for.
    cudaDeviceSynchronize();
  }
  ~PerRank() {
    for (float* p : data) cudaFree(p);
  }
  std::vector<float> host(int r, size_t floats) const {
    std::vector<float> out(floats);
    cudaMemcpy(out.data(), data[r], floats * sizeof(float), cudaMemcpyDeviceToHost);
    return out;
  }
};

// The AllReduce geometry of allreduce_hier inside one node: shards of allreduceShardBytes,
// windows (smaller than the algorithm's, so a few megabytes give several), the reduce-scatter of
// every window into the rank's shard, then the all-gather of every window in place. On one node
// that is the whole AllReduce.
void runAllReduceGeometry(int n, size_t count, bool graph) {
  VirtualRanks* ranks = VirtualRanks::shared(n);
  ASSERT_NE(ranks, nullptr);
  const size_t bytes = count * sizeof(float);
  const size_t shard = allreduceShardBytes(count, sizeof(float), n);
  const Windows windows = cutWindows(shard, 64 * 1024, 0, kHierMaxWindows, kHierAlign);
  PerRank in(n, count, true), out(n, count, false);
  std::string error;
  const bool ran = ranks->run(
      [&](int r) {
        const DeviceComm& comm = deviceComm(ranks->context(r));
        char* recv = reinterpret_cast<char*>(out.data[r]);
        char* own = recv + static_cast<size_t>(r) * shard;
        NodeBlocks b{1, 0, 0, shard, bytes, 0, windows.bytes};
        bool ok = true;
        for (int k = 0; k < windows.count && ok; ++k) {
          b.window = static_cast<size_t>(k) * windows.bytes;
          ok = launchNodeReduceScatter(comm, b, reinterpret_cast<const char*>(in.data[r]), own + b.window, ncclFloat32,
                                       ReduceSpec{}, hierarchyLanes(comm), ranks->stream(r)) == cudaSuccess;
        }
        for (int k = 0; k < windows.count && ok; ++k) {
          b.window = static_cast<size_t>(k) * windows.bytes;
          ok = launchNodeAllGather(comm, b, own + b.window, recv, hierarchyLanes(comm), ranks->stream(r)) == cudaSuccess;
        }
        return ok;
      },
      graph, 1, &error);
  ASSERT_TRUE(ran) << error;
  ASSERT_EQ(ranks->deviceError(), kDeviceErrorNone) << "a kernel recorded a device error";
  for (int r = 0; r < n; ++r) {
    const std::vector<float> got = out.host(r, count);
    size_t bad = 0;
    for (size_t i = 0; i < count; ++i) {
      float want = 0;
      for (int q = 0; q < n; ++q) want += valueOf(q, i);
      bad += got[i] != want;
    }
    EXPECT_EQ(bad, 0u) << "rank " << r << " of " << n << ", " << windows.count << " windows";
  }
}

class NodePhasesLocal : public ::testing::TestWithParam<int> {};

TEST_P(NodePhasesLocal, AllReduceShardsAndWindows) {
  if (!testing::haveGpu()) GTEST_SKIP() << "no GPU";
  const int n = GetParam();
  for (size_t count : {size_t(1), size_t(1001), size_t(300007), size_t(5u << 20)}) {
    for (bool graph : {false, true}) {
      SCOPED_TRACE("count " + std::to_string(count) + (graph ? " graph" : " eager"));
      runAllReduceGeometry(n, count, graph);
      if (HasFatalFailure()) return;
    }
  }
}

// ReduceScatter across 3 "nodes": window k of every node's blocks, reduced over this node's
// ranks, lands in this rank's staging back to back (one region per window here).
TEST_P(NodePhasesLocal, ReduceScatterGroupsIntoStaging) {
  if (!testing::haveGpu()) GTEST_SKIP() << "no GPU";
  const int n = GetParam();
  const int nodes = 3;
  for (size_t rankCount : {size_t(5), size_t(700001)}) {
    VirtualRanks* ranks = VirtualRanks::shared(n);
    ASSERT_NE(ranks, nullptr);
    const size_t rankBytes = rankCount * sizeof(float);
    const size_t nodeBytes = rankBytes * n;
    const Windows w = cutWindows(rankBytes, 256 * 1024, 0, kHierMaxWindows, kHierAlign);
    PerRank in(n, rankCount * n * nodes, true);
    PerRank staging(n, w.bytes / sizeof(float) * nodes * w.count, false);
    std::string error;
    const bool ran = ranks->run(
        [&](int r) {
          const DeviceComm& comm = deviceComm(ranks->context(r));
          bool ok = true;
          for (int k = 0; k < w.count && ok; ++k) {
            const size_t offset = static_cast<size_t>(k) * w.bytes;
            const size_t len = rankBytes - offset < w.bytes ? rankBytes - offset : w.bytes;
            const NodeBlocks b{nodes, nodeBytes, len, rankBytes, nodeBytes, offset, w.bytes};
            char* slot = reinterpret_cast<char*>(staging.data[r]) + static_cast<size_t>(k) * nodes * w.bytes;
            ok = launchNodeReduceScatter(comm, b, reinterpret_cast<const char*>(in.data[r]), slot, ncclFloat32,
                                         ReduceSpec{}, hierarchyLanes(comm), ranks->stream(r)) == cudaSuccess;
          }
          return ok;
        },
        false, 1, &error);
    ASSERT_TRUE(ran) << error;
    ASSERT_EQ(ranks->deviceError(), kDeviceErrorNone) << "a kernel recorded a device error";
    for (int r = 0; r < n; ++r) {
      const std::vector<float> got = staging.host(r, w.bytes / sizeof(float) * nodes * w.count);
      size_t bad = 0;
      for (int k = 0; k < w.count; ++k) {
        const size_t first = static_cast<size_t>(k) * w.bytes / sizeof(float);
        const size_t len = std::min(w.bytes / sizeof(float), rankCount - first);
        for (int m = 0; m < nodes; ++m) {
          for (size_t i = 0; i < len; ++i) {
            const size_t at = (static_cast<size_t>(m) * n + r) * rankCount + first + i;
            float want = 0;
            for (int q = 0; q < n; ++q) want += valueOf(q, at);
            bad += got[static_cast<size_t>(k) * nodes * w.bytes / sizeof(float) + m * len + i] != want;
          }
        }
      }
      EXPECT_EQ(bad, 0u) << "rank " << r << ", " << rankCount << " floats a rank, " << w.count << " windows";
    }
  }
}

// AllGather across 3 "nodes", in place: every rank holds its block of every node (what its rail
// brought); window by window, the groups of node blocks spread it to the node's ranks.
TEST_P(NodePhasesLocal, AllGatherGroupsInPlace) {
  if (!testing::haveGpu()) GTEST_SKIP() << "no GPU";
  const int n = GetParam();
  const int nodes = 3;
  for (size_t rankCount : {size_t(3), size_t(1200007)}) {
    VirtualRanks* ranks = VirtualRanks::shared(n);
    ASSERT_NE(ranks, nullptr);
    const size_t rankBytes = rankCount * sizeof(float);
    const size_t nodeBytes = rankBytes * n;
    const size_t total = rankCount * n * nodes;
    PerRank out(n, total, false);
    // Rank r's own blocks: (m * n + r) for every m, with the owner's values.
    for (int r = 0; r < n; ++r) {
      std::vector<float> host = out.host(r, total);
      for (int m = 0; m < nodes; ++m) {
        for (size_t i = 0; i < rankCount; ++i) host[(m * n + r) * rankCount + i] = valueOf(m * n + r, i);
      }
      CUDA_OK(cudaMemcpy(out.data[r], host.data(), total * sizeof(float), cudaMemcpyHostToDevice));
    }
    CUDA_OK(cudaDeviceSynchronize());  // the copies land before the ranks' streams run (PerRank)
    const Windows w = cutWindows(rankBytes, 256 * 1024, 0, kHierMaxWindows, kHierAlign);
    std::string error;
    const bool ran = ranks->run(
        [&](int r) {
          const DeviceComm& comm = deviceComm(ranks->context(r));
          char* recv = reinterpret_cast<char*>(out.data[r]);
          bool ok = true;
          for (int k = 0; k < w.count && ok; ++k) {
            const NodeBlocks b{nodes, nodeBytes, nodeBytes, rankBytes, nodeBytes, static_cast<size_t>(k) * w.bytes, w.bytes};
            ok = launchNodeAllGather(comm, b, recv + r * rankBytes + b.window, recv, hierarchyLanes(comm),
                                     ranks->stream(r)) == cudaSuccess;
          }
          return ok;
        },
        false, 1, &error);
    ASSERT_TRUE(ran) << error;
    ASSERT_EQ(ranks->deviceError(), kDeviceErrorNone) << "a kernel recorded a device error";
    for (int r = 0; r < n; ++r) {
      const std::vector<float> got = out.host(r, total);
      size_t bad = 0;
      for (size_t block = 0; block < static_cast<size_t>(n * nodes); ++block) {
        for (size_t i = 0; i < rankCount; ++i) bad += got[block * rankCount + i] != valueOf(static_cast<int>(block), i);
      }
      EXPECT_EQ(bad, 0u) << "rank " << r << ", " << rankCount << " floats a rank";
    }
  }
}

// A rail record that differs from the call (a rank on another node called something else): the
// rank that holds it records the mismatch naming that rank, and its node's other ranks stop at
// the header it announces. Nobody hangs.
TEST(NodePhasesLocalAgreement, DisagreeingRailRecordsStopEveryRank) {
  if (!testing::haveGpu()) GTEST_SKIP() << "no GPU";
  const int n = 2;
  VirtualRanks* ranks = VirtualRanks::shared(n);
  ASSERT_NE(ranks, nullptr);
  ranks->clearErrors();
  const size_t count = 1000;
  PerRank in(n, count, true), out(n, count * n, false);
  CollCall call{CollKind::kAllGather, nullptr, nullptr, count, ncclFloat32, ncclSum, 0, nullptr, nullptr};
  const CallHeader mine = makeCallHeader(call, /*sequence=*/5, /*algorithm=*/3);
  call.count = 2 * count;
  const CallHeader other = makeCallHeader(call, 5, 3);
  // Rank 0's rail: itself and a rank 7 on another node that called twice the count; rank 1's
  // rail agrees.
  CallRecord records[2][2] = {};
  records[0][0].header = mine;
  records[0][1].header = other;
  records[0][1].worldRank = 7;
  records[1][0].header = mine;
  records[1][1].header = mine;
  records[1][1].worldRank = 9;
  CallRecord* device = nullptr;
  CUDA_OK(cudaMalloc(&device, sizeof(records)));
  CUDA_OK(cudaMemcpy(device, records, sizeof(records), cudaMemcpyHostToDevice));
  CUDA_OK(cudaDeviceSynchronize());  // the records land before the ranks' streams read them
  for (int r = 0; r < n; ++r) {
    ranks->context(r).peers()->stampCall(mine, mine.sequence);
    DeviceComm comm = deviceComm(ranks->context(r));
    comm.railRecords = device + 2 * r;
    comm.railRanks = 2;
    ASSERT_EQ(launchNodeAllGather(comm, wholeBlocks(count * sizeof(float), n), reinterpret_cast<const char*>(in.data[r]),
                                  reinterpret_cast<char*>(out.data[r]), hierarchyLanes(comm), ranks->stream(r)),
              cudaSuccess);
  }
  const bool finished = ranks->finish(20.0);
  EXPECT_TRUE(finished) << "the kernels hung";
  EXPECT_EQ(ranks->errorRecord(0).code, kDeviceErrorCallMismatch);
  EXPECT_EQ(ranks->errorRecord(0).peer, 7);
  EXPECT_EQ(ranks->errorRecord(0).theirs.count, 2 * count);
  EXPECT_EQ(ranks->errorRecord(1).code, kDeviceErrorCallMismatch);
  EXPECT_EQ(ranks->errorRecord(1).peer, 0);
  EXPECT_EQ(ranks->errorRecord(1).theirs.shape, kShapeRailDisagreement);
  VirtualRanks::forget(n);  // broken on purpose
  cudaFree(device);
}

INSTANTIATE_TEST_SUITE_P(Ranks, NodePhasesLocal, ::testing::Values(2, 4),
                         [](const ::testing::TestParamInfo<int>& info) { return std::to_string(info.param) + "ranks"; });

}  // namespace
}  // namespace flashccl
