// flashccl tune's plan: which perf runs, in which order, with which environment and arguments.
#include <gtest/gtest.h>

#include <algorithm>

#include "child_process.h"
#include "sweep_plan.h"

namespace flashccl {
namespace tune {
namespace {

TuneOptions options() {
  TuneOptions o;
  o.collectives = {perf::Collective::kAllReduce, perf::Collective::kAllGather, perf::Collective::kReduceScatter};
  o.flashcclAlgorithms = builtinFlashcclAlgorithms();  // 2 for allreduce, 1 each for the others
  return o;
}

std::vector<NcclChoice> choices(int n) {
  std::vector<NcclChoice> c;
  for (int i = 0; i < n; ++i) c.push_back({"ring", "ll", i});
  return c;
}

TEST(SweepPlan, BaselinesFirstLastAndBetweenChoicesThenFlashccl) {
  TuneOptions o = options();
  o.baselineRuns = 3;
  const std::vector<PlannedRun> plan = planSweep(o, choices(4));
  // 4 choices + 2 flashccl runs in the middle, 3 baselines at 0, 6/2 = 3 and the end.
  ASSERT_EQ(plan.size(), 9u);
  std::vector<RunKind> kinds;
  for (const PlannedRun& run : plan) kinds.push_back(run.kind);
  EXPECT_EQ(kinds, (std::vector<RunKind>{RunKind::kBaseline, RunKind::kChoice, RunKind::kChoice, RunKind::kChoice,
                                         RunKind::kBaseline, RunKind::kChoice, RunKind::kFlashccl,
                                         RunKind::kFlashccl, RunKind::kBaseline}));
  EXPECT_EQ(plan[0].slug, "01-nccl-default-baseline-1-of-3");
  EXPECT_EQ(plan[4].label, "NCCL default (baseline 2 of 3)");
  EXPECT_EQ(plan[1].candidate, 0);
  EXPECT_EQ(plan[5].candidate, 3);
  EXPECT_EQ(plan[5].slug, "06-ring-ll-3-channels");
  o.baselineRuns = 1;
  EXPECT_EQ(planSweep(o, choices(2)).front().kind, RunKind::kBaseline);
  EXPECT_EQ(runSlug(7, "NCCL with the written table"), "08-nccl-with-the-written-table");
  EXPECT_EQ(runSlug(99, "flashccl allreduce:x.xml"), "100-flashccl-allreduce-x-xml");
}

TEST(SweepPlan, FlashcclAlgorithmsShareRunsOnePerCollective) {
  const std::vector<PlannedRun> plan = planSweep(options(), {});
  ASSERT_EQ(plan.size(), 4u);
  const PlannedRun& first = plan[1];
  EXPECT_EQ(first.kind, RunKind::kFlashccl);
  EXPECT_EQ(first.environment.at("FLASHCCL_ALGO"),
            "allreduce:allreduce_oneshot,allgather:allgather_direct,reducescatter:reducescatter_direct");
  EXPECT_EQ(first.collectives.size(), 3u);
  const PlannedRun& second = plan[2];
  EXPECT_EQ(second.environment.at("FLASHCCL_ALGO"), "allreduce:allreduce_twoshot");
  EXPECT_EQ(second.collectives, std::vector<perf::Collective>{perf::Collective::kAllReduce});
  EXPECT_EQ(second.environment.at("FLASHCCL_TUNER_FORCE"), "nccl") << "its NCCL column is the default too";
  EXPECT_TRUE(second.check);
}

TEST(SweepPlan, EnvironmentOfEachKind) {
  const TuneOptions o = options();
  const std::vector<PlannedRun> plan = planSweep(o, {{"tree", "ll", 2}});
  auto env = runEnvironment(plan[0], "/lib/libnccl-tuner-flashccl.so", "/w/01/nccl.%h.%p.log");
  EXPECT_EQ(env.at("FLASHCCL_TUNER_FORCE"), "nccl");
  EXPECT_EQ(env.at("NCCL_TUNER_PLUGIN"), "/lib/libnccl-tuner-flashccl.so");
  EXPECT_EQ(env.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(env.at("NCCL_DEBUG_SUBSYS"), "INIT");  // the plugin's init line, nothing per call
  EXPECT_EQ(env.at("NCCL_DEBUG_FILE"), "/w/01/nccl.%h.%p.log");
  env = runEnvironment(plan[1], "/p.so", "/l");
  EXPECT_EQ(env.at("FLASHCCL_TUNER_FORCE"), "tree:ll:2");
  EXPECT_EQ(env.at("NCCL_DEBUG"), "WARN");
  EXPECT_EQ(env.at("NCCL_DEBUG_SUBSYS"), "INIT,TUNING");  // the plugin's WARNs are TUNING's
  const PlannedRun table = withTableRun(o, "/t.xml");
  env = runEnvironment(table, "/p.so", "/l");
  EXPECT_EQ(env.at("FLASHCCL_TUNER_FILE"), "/t.xml");
  EXPECT_EQ(env.count("FLASHCCL_TUNER_FORCE"), 0u);
  const PlannedRun verify = verifyRun(o, "/t.xml");
  env = runEnvironment(verify, "/p.so", "/l");
  EXPECT_EQ(env.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(env.at("NCCL_DEBUG_SUBSYS"), "INIT,TUNING");
}

TEST(SweepPlan, TheUsersVariablesThatWouldChangeTheMeasurementAreDropped) {
  setenv("FLASHCCL_ALGO", "allreduce:x", 1);
  setenv("FLASHCCL_ALGO_DIR", "/algos", 1);
  setenv("FLASHCCL_TUNER_FILE", "/mine.xml", 1);
  setenv("NCCL_DEBUG_SUBSYS", "ALL", 1);
  const std::vector<std::string> env = environmentWith(droppedVariables(), {{"NCCL_DEBUG", "WARN"}});
  auto has = [&](const std::string& entry) { return std::find(env.begin(), env.end(), entry) != env.end(); };
  EXPECT_FALSE(has("FLASHCCL_ALGO=allreduce:x"));
  EXPECT_TRUE(has("FLASHCCL_ALGO_DIR=/algos"));
  EXPECT_FALSE(has("FLASHCCL_TUNER_FILE=/mine.xml"));
  EXPECT_FALSE(has("NCCL_DEBUG_SUBSYS=ALL"));
  EXPECT_TRUE(has("NCCL_DEBUG=WARN"));
  for (const char* name : {"FLASHCCL_ALGO", "FLASHCCL_ALGO_DIR", "FLASHCCL_TUNER_FILE", "NCCL_DEBUG_SUBSYS"})
    unsetenv(name);
}

TEST(SweepPlan, PerfArguments) {
  TuneOptions o = options();
  o.sizes = {64 << 10, 1 << 20, 4};
  o.collectives = {perf::Collective::kAllReduce};
  o.launched = true;
  const std::vector<PlannedRun> plan = planSweep(o, {{"ring", "ll", 0}});
  EXPECT_EQ(perfArguments(o, plan[1], "/w/perf.json"),
            (std::vector<std::string>{"perf", "-b", "65536", "-e", "1048576", "-f", "4", "--coll", "allreduce", "-d",
                                      "float", "--placement", "out", "-n", "20", "-w", "5", "--pairs", "9", "-c", "0",
                                      "-T", "120", "--launched", "-J", "/w/perf.json"}));
  EXPECT_EQ(perfArguments(o, plan[0], "/j")[20], "1") << "baselines check flashccl's results";
  o.launched = false;
  o.processes = 2;
  const std::vector<std::string> verify = perfArguments(o, verifyRun(o, "/t.xml"), "/j");
  EXPECT_EQ(std::vector<std::string>(verify.begin() + 13, verify.begin() + 19),
            (std::vector<std::string>{"-n", "1", "-w", "0", "--pairs", "1"}));
  EXPECT_NE(std::find(verify.begin(), verify.end(), "--processes"), verify.end());
  // The runs flashccl's selection rows come from measure fp32 and bf16, in place too; the NCCL
  // choices only the -d type, out of place.
  o.dataType = perf::DataType::kBfloat16;
  const std::vector<std::string> baseline = perfArguments(o, plan[0], "/j");
  EXPECT_EQ(std::vector<std::string>(baseline.begin() + 9, baseline.begin() + 13),
            (std::vector<std::string>{"-d", "bfloat16,float", "--placement", "both"}));
  const std::vector<std::string> choice = perfArguments(o, plan[1], "/j");
  EXPECT_EQ(std::vector<std::string>(choice.begin() + 9, choice.begin() + 13),
            (std::vector<std::string>{"-d", "bfloat16", "--placement", "out"}));
  o.flashcclAlgorithms.clear();  // nothing to select: the baselines as before
  EXPECT_EQ(perfArguments(o, plan[0], "/j")[12], "out");
}

TEST(SweepPlan, ThePredictionCountsRunsCallsAndBytes) {
  TuneOptions o = options();
  o.sizes = {1 << 20, 1 << 20, 2};  // one size
  o.collectives = {perf::Collective::kAllReduce};
  o.flashcclAlgorithms.clear();
  o.baselineRuns = 1;
  o.iters = 10;
  o.warmupIters = 0;
  o.pairs = 1;
  const std::vector<PlannedRun> one = planSweep(o, {});
  ASSERT_EQ(one.size(), 1u);
  // One run: its start, then NCCL and flashccl blocks of 10 calls each at 15 us + 1 MiB / 50 GB/s.
  const double call = (kCallMicros + double(1 << 20) / kBytesPerMicro) * 1e-6;
  EXPECT_NEAR(predictedSeconds(o, one), kRunStartSeconds + 20 * call, 1e-9);
  // With flashccl's algorithms the baseline measures four conditions.
  o.flashcclAlgorithms = {{perf::Collective::kAllReduce, "allreduce_oneshot"}};
  const std::vector<PlannedRun> two = planSweep(o, {});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_NEAR(predictedSeconds(o, two), 2 * kRunStartSeconds + 2 * 4 * 20 * call, 1e-9);
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
