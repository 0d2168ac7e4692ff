// The CPU side of the GPU fault check (tests/gpu/fault_plan.h): options and who does what when.
#include <gtest/gtest.h>

#include "fault_plan.h"

namespace flashccl_gpu_test::fault {
namespace {

bool parse(std::vector<std::string> args, FaultPlan* plan, std::string* error) {
  args.insert(args.begin(), "fault_rank");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(&arg[0]);
  return parseFaultPlan(static_cast<int>(argv.size()), argv.data(), plan, error);
}

TEST(FaultPlan, ParsesAJob) {
  FaultPlan plan;
  std::string error;
  ASSERT_TRUE(parse({"--rank", "2", "--nranks", "3", "--id-file", "/tmp/id", "--calls", "400", "--scenario",
                     "hold", "--culprit", "2", "--at", "120", "--deadline", "90"},
                    &plan, &error)) << error;
  EXPECT_EQ(plan.rank, 2);
  EXPECT_EQ(plan.nranks, 3);
  EXPECT_EQ(plan.calls, 400u);
  EXPECT_EQ(plan.scenario, Scenario::kHold);
  EXPECT_STREQ(scenarioName(plan.scenario), "hold");
  EXPECT_EQ(plan.at, 120u);
  EXPECT_EQ(plan.deadlineS, 90);
}

TEST(FaultPlan, RefusesWhatCannotRun) {
  std::string error;
  FaultPlan alone, noFile, unknown;
  EXPECT_FALSE(parse({"--rank", "0", "--nranks", "1", "--id-file", "x"}, &alone, &error));
  EXPECT_FALSE(parse({"--rank", "0", "--nranks", "2"}, &noFile, &error));
  EXPECT_FALSE(parse({"--rank", "0", "--nranks", "2", "--id-file", "x", "--scenario", "explode"}, &unknown, &error));
  EXPECT_EQ(error, "--scenario explode: expected none, sleep, kill, other or hold");
  FaultPlan late;
  EXPECT_FALSE(parse({"--rank", "0", "--nranks", "2", "--id-file", "x", "--scenario", "kill", "--at", "2000"},
                     &late, &error));
  FaultPlan odd;
  EXPECT_FALSE(parse({"--rank", "zero", "--nranks", "2", "--id-file", "x"}, &odd, &error));
  FaultPlan dangling;
  EXPECT_FALSE(parse({"--rank", "0", "--nranks", "2", "--id-file"}, &dangling, &error));
  EXPECT_EQ(error, "--id-file needs a value");
}

TEST(FaultPlan, OnlyTheCulpritMisbehavesAndOnlyOnce) {
  FaultPlan plan;
  plan.nranks = 3;
  plan.culprit = 1;
  plan.at = 50;
  const std::pair<Scenario, Step> cases[] = {{Scenario::kSleep, Step::kSleepForever},
                                             {Scenario::kKill, Step::kKillSelf},
                                             {Scenario::kOther, Step::kAllGather},
                                             {Scenario::kHold, Step::kHoldThenAllReduce},
                                             {Scenario::kNone, Step::kAllReduce}};
  for (const auto& c : cases) {
    plan.scenario = c.first;
    plan.rank = 1;
    EXPECT_EQ(stepAt(plan, 50), c.second) << scenarioName(c.first);
    EXPECT_EQ(stepAt(plan, 49), Step::kAllReduce);
    EXPECT_EQ(stepAt(plan, 51), Step::kAllReduce);
    plan.rank = 0;
    EXPECT_EQ(stepAt(plan, 50), Step::kAllReduce);
  }
  EXPECT_EQ(countAt(5), 1024u);
  EXPECT_EQ(countAt(9), 16384u);
}

// The healthy job of the no-false-alarm check: only the culprit pauses, after every P-th call.
TEST(FaultPlan, ASlowRankPausesEveryFewCalls) {
  FaultPlan plan;
  std::string error;
  ASSERT_TRUE(parse({"--rank", "1", "--nranks", "3", "--id-file", "x", "--calls", "10000", "--pause-every", "100",
                     "--pause-ms", "2000"},
                    &plan, &error)) << error;
  EXPECT_EQ(plan.scenario, Scenario::kNone);
  EXPECT_EQ(pauseMsAfter(plan, 100), 2000u);
  EXPECT_EQ(pauseMsAfter(plan, 10000), 2000u);
  EXPECT_EQ(pauseMsAfter(plan, 99), 0u);
  EXPECT_EQ(stepAt(plan, 100), Step::kAllReduce);
  plan.rank = 0;
  EXPECT_EQ(pauseMsAfter(plan, 100), 0u);
  plan.rank = 1;
  plan.pauseEvery = 0;
  EXPECT_EQ(pauseMsAfter(plan, 100), 0u);
}


TEST(FaultPlan, RecoveryOptions) {
  FaultPlan plan;
  std::string error;
  ASSERT_TRUE(parse({"--rank", "0", "--nranks", "3", "--id-file", "x", "--scenario", "kill", "--shrink-calls",
                     "1000", "--app-timeout", "7.5"},
                    &plan, &error)) << error;
  EXPECT_EQ(plan.shrinkCalls, 1000u);
  EXPECT_EQ(plan.appTimeoutS, 7.5);
  FaultPlan two, healthy;
  EXPECT_FALSE(parse({"--rank", "0", "--nranks", "2", "--id-file", "x", "--scenario", "kill", "--shrink-calls", "5"},
                     &two, &error));
  EXPECT_FALSE(parse({"--rank", "0", "--nranks", "3", "--id-file", "x", "--shrink-calls", "5"}, &healthy, &error));
  EXPECT_NE(error.find("--shrink-calls needs a fault"), std::string::npos) << error;
  FaultPlan node, same;
  ASSERT_TRUE(parse({"--rank", "2", "--nranks", "6", "--id-file", "x", "--scenario", "kill", "--culprit", "1",
                     "--also-exclude", "0", "--shrink-calls", "5"},
                    &node, &error)) << error;
  EXPECT_EQ(node.alsoExclude, 0);
  EXPECT_FALSE(parse({"--rank", "2", "--nranks", "6", "--id-file", "x", "--scenario", "kill", "--culprit", "1",
                      "--also-exclude", "1"},
                     &same, &error));
}

// The child's checked results: exact sums, each rank's own part where it belongs.
TEST(FaultPlan, CheckedCallsExpectEveryRanksPart) {
  EXPECT_EQ(checkedCollAt(3), CheckedColl::kAllReduce);
  EXPECT_EQ(checkedCollAt(4), CheckedColl::kAllGather);
  EXPECT_EQ(checkedCollAt(5), CheckedColl::kReduceScatter);
  // Two ranks: 16 + 32 plus twice the position's offset.
  EXPECT_EQ(expectedValue(CheckedColl::kAllReduce, 1, 2, 0, 8, 3), 16 + 3 + 32 + 3);
  // AllGather: element count + 2 is rank 1's element 2.
  EXPECT_EQ(expectedValue(CheckedColl::kAllGather, 0, 2, 1, 8, 8 + 2), sendValue(1, 1, 2));
  // ReduceScatter: rank 1 gets the sum of everybody's second block.
  EXPECT_EQ(expectedValue(CheckedColl::kReduceScatter, 1, 2, 2, 8, 5), sendValue(0, 2, 13) + sendValue(1, 2, 13));
  EXPECT_NE(sendValue(0, 1, 0), sendValue(0, 2, 0));  // a stale result from the call before shows
}

}  // namespace
}  // namespace flashccl_gpu_test::fault
