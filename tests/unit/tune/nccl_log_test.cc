// flashccl tune reads NCCL's debug log: the plugin's refusals and init lines, NCCL's per-call
// choices, in the shapes NCCL 2.28 writes them (WARN lines start with a newline and carry the file).
#include <gtest/gtest.h>

#include "nccl_log.h"

namespace flashccl {
namespace tune {
namespace {

const char* kLog =
    "box:123:130 [0] NCCL INFO TUNER/Plugin: Using flashccl (v5)\n"
    "box:123:130 [0] NCCL INFO TUNER/flashccl: flashccl tuner 0.1.0: 1 of 1 rows apply to 2 ranks, 2 nodes "
    "(FLASHCCL_TUNER_FORCE=tree:ll)\n"
    "\n"
    "[2026-12-01 10:00:00] box:123:130 [0] tuner_context.cc:95 NCCL WARN TUNER/flashccl: allgather 1048576 bytes: "
    "tree/ll is not available to this communicator (NCCL marks it unusable); NCCL's own choice is kept "
    "(FLASHCCL_TUNER_FORCE entry 1 'tree:ll')\n"
    "box:123:130 [0] NCCL INFO AllReduce: 65536 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..3}\n"
    "box:123:130 [0] NCCL INFO AllGather: 524288 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={2..9}\n"
    "box:123:130 [0] NCCL INFO ReduceScatter: 8 Bytes -> Algo COLLNET_DIRECT proto LL128 channel{Lo..Hi}={0..0}\n"
    "box:124:131 [0] NCCL INFO TUNER/flashccl: flashccl tuner 0.1.0: no table (no topology file matches); NCCL "
    "chooses for 8 ranks, 1 nodes\n"
    "[0] x.cc:1 NCCL WARN TUNER/flashccl: /t.xml:3: unknown protocol 'x' (FLASHCCL_TUNER_FILE=/t.xml); the table "
    "is not used, NCCL keeps its own choices\n"
    "box:123:130 [0] NCCL WARN Cuda failure 'out of memory'\n";

TEST(NcclLog, ReadsThePluginsLinesAndNcclsChoices) {
  const NcclLog log = parseNcclLog(kLog);
  ASSERT_EQ(log.unavailable.size(), 1u);
  EXPECT_EQ(log.unavailable[0].collective, "allgather");
  EXPECT_EQ(log.unavailable[0].bytes, 1048576u);
  EXPECT_EQ(log.unavailable[0].algorithm, "tree");
  EXPECT_EQ(log.unavailable[0].protocol, "ll");
  ASSERT_EQ(log.inits.size(), 2u);
  EXPECT_EQ(log.inits[0].ranks, 2);
  EXPECT_EQ(log.inits[0].nodes, 2);  // NCCL's count (NCCL_HOSTID), which table rows are matched on
  EXPECT_EQ(log.inits[0].rowsApplied, 1);
  EXPECT_EQ(log.inits[0].rowsInTable, 1);
  EXPECT_EQ(log.inits[1].ranks, 8);
  EXPECT_EQ(log.inits[1].rowsApplied, -1);
  EXPECT_EQ(log.inits[1].summary, "no table (no topology file matches); NCCL chooses for 8 ranks, 1 nodes");
  ASSERT_EQ(log.calls.size(), 3u);
  EXPECT_EQ(log.calls[0].collective, "allreduce");
  EXPECT_EQ(log.calls[0].algorithm, "tree");
  EXPECT_EQ(log.calls[0].protocol, "ll");
  EXPECT_EQ(log.calls[0].channels, 4);
  EXPECT_EQ(log.calls[1].channels, 8);
  EXPECT_EQ(log.calls[2].algorithm, "collnet_direct");
  EXPECT_EQ(log.calls[2].protocol, "ll128");
  ASSERT_EQ(log.pluginWarnings.size(), 1u);  // NCCL's own WARN is not the plugin's
  EXPECT_EQ(log.pluginWarnings[0].rfind("TUNER/flashccl: /t.xml:3: unknown protocol 'x'", 0), 0u);
}

TEST(NcclLog, AllGatherAndReduceScatterArePrintedPerRank) {
  const NcclLog log = parseNcclLog(kLog);
  EXPECT_EQ(tunerBytes(log.calls[0], 2), 65536u);
  EXPECT_EQ(tunerBytes(log.calls[1], 2), 1048576u);
  EXPECT_EQ(tunerBytes(log.calls[2], 4), 32u);
}

TEST(NcclLog, NothingInAnEmptyLog) {
  const NcclLog log = parseNcclLog("");
  EXPECT_TRUE(log.inits.empty() && log.calls.empty() && log.unavailable.empty() && log.pluginWarnings.empty());
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
