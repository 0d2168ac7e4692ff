// flashccl tune's check that NCCL applies a table: NCCL's per-call log against the table's rows,
// matched as the plugin matches them.
#include <gtest/gtest.h>

#include "table_verify.h"
#include "tuning_file.h"

namespace flashccl {
namespace tune {
namespace {

TuningTable table() {
  TuningTable t;
  bool hasSection = false;
  std::string error;
  EXPECT_TRUE(parseTuningText("<tuning ranks=\"2\" nodes=\"2\">\n"
                              "  <row coll=\"allreduce\" minBytes=\"64K\" maxBytes=\"256K\" algorithm=\"tree\" "
                              "protocol=\"ll\" channels=\"2\"/>\n"
                              "  <row coll=\"allgather\" minBytes=\"1M\" algorithm=\"ring\" protocol=\"simple\"/>\n"
                              "  <row coll=\"allreduce\" ranks=\"8\" algorithm=\"ring\" protocol=\"ll\"/>\n"
                              "</tuning>\n",
                              "t.xml", &t, &hasSection, &error))
      << error;
  return t;
}

const std::string kInit =
    "NCCL INFO TUNER/flashccl: flashccl tuner 0.1.0: 2 of 3 rows apply to 2 ranks, 2 nodes (FLASHCCL_TUNER_FILE=t.xml)\n";

std::string call(const char* function, size_t printed, const char* algorithm, const char* protocol, int hi) {
  return std::string("NCCL INFO ") + function + ": " + std::to_string(printed) + " Bytes -> Algo " + algorithm +
         " proto " + protocol + " channel{Lo..Hi}={0.." + std::to_string(hi) + "}\n";
}

TEST(TableVerify, EveryCallInABandRanTheRowsChoice) {
  const std::string log = kInit + call("AllReduce", 4, "RING", "LL", 7) +  // no row: not checked
                          call("AllReduce", 65536, "TREE", "LL", 1) + call("AllReduce", 262144, "TREE", "LL", 0) +
                          call("AllGather", 524288, "RING", "SIMPLE", 15);  // 1 MiB over 2 ranks
  const VerifyResult result = verifyTable(table(), parseNcclLog(log));
  EXPECT_TRUE(result.passed()) << formatVerify(result, "t.xml");
  ASSERT_EQ(result.rows.size(), 2u);  // the 8-rank row does not apply
  EXPECT_EQ(result.rows[0].calls, 2);
  EXPECT_EQ(result.rows[0].applied, 2);
  EXPECT_EQ(result.rows[1].calls, 1);
  EXPECT_EQ(formatVerify(result, "t.xml"),
            "# NCCL's choices with t.xml (4 calls logged; plugin: 2 of 3 rows apply to 2 ranks, 2 nodes "
            "(FLASHCCL_TUNER_FILE=t.xml))\n"
            "PASS  t.xml:2 tree/ll, 2 channels: 2 of 2 calls\n"
            "PASS  t.xml:3 ring/simple: 1 of 1 calls\n"
            "# PASS: NCCL applies the table\n");
}

TEST(TableVerify, AnotherChoiceOrMoreChannelsFail) {
  const std::string log = kInit + call("AllReduce", 65536, "TREE", "LL", 3) +  // 4 channels, cap 2
                          call("AllGather", 524288, "RING", "LL", 0);
  const VerifyResult result = verifyTable(table(), parseNcclLog(log));
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.rows[0].firstMismatch, "allreduce 65536 B ran tree/ll on 4 channels");
  EXPECT_EQ(result.rows[1].firstMismatch, "allgather 1048576 B ran ring/ll on 1 channels");
  EXPECT_NE(formatVerify(result, "t.xml").find("FAIL  t.xml:2 tree/ll, 2 channels: 0 of 1 calls; first: "),
            std::string::npos);
}

TEST(TableVerify, NothingToCheckIsAFailure) {
  VerifyResult result = verifyTable(table(), parseNcclLog(call("AllReduce", 65536, "TREE", "LL", 1)));
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.problems.front(), "NCCL did not load the tuner plugin (no 'TUNER/flashccl: flashccl tuner' line)");
  result = verifyTable(table(), parseNcclLog(kInit));
  EXPECT_FALSE(result.passed());
  EXPECT_NE(result.problems.front().find("NCCL logged no call's choice"), std::string::npos);
  // Calls, but none in any band: no row was checked.
  result = verifyTable(table(), parseNcclLog(kInit + call("AllReduce", 8, "RING", "LL", 0)));
  EXPECT_FALSE(result.passed());
  EXPECT_NE(formatVerify(result, "t.xml").find("SKIP  t.xml:2"), std::string::npos);
  // A table with no row for this communicator.
  result = verifyTable(table(), parseNcclLog("NCCL INFO TUNER/flashccl: flashccl tuner 0.1.0: 1 of 3 rows apply to "
                                             "4 ranks, 1 nodes (x)\n" + call("AllReduce", 8, "RING", "LL", 0)));
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.problems.front(), "no row of the table applies to 4 ranks, 1 nodes");
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
