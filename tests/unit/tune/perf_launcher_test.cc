// flashccl tune's perf runs as child processes, against a stand-in for `flashccl perf` (a shell
// script): the environment the child gets, its output kept, its JSON record (written by perf's own
// writer) and NCCL's log read back.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "perf_launcher.h"
#include "report_json.h"

namespace flashccl {
namespace tune {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class PerfLauncherTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir() + "/tune-launcher-" + testing::UnitTest::GetInstance()->current_test_info()->name();
    std::system(("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "'").c_str());
    standIn_ = dir_ + "/flashccl";
    std::ofstream(standIn_)
        << "#!/bin/sh\n"
           "# `flashccl perf` stand-in: the record of $STANDIN_RECORD to -J, one NCCL log line, the variables.\n"
           "[ \"$1\" = perf ] || exit 9\n"
           "json=\"\"; while [ $# -gt 0 ]; do [ \"$1\" = -J ] && json=$2; shift; done\n"
           "cp \"$STANDIN_RECORD\" \"$json\"\n"
           "log=$(printf '%s' \"$NCCL_DEBUG_FILE\" | sed \"s/%h/host/; s/%p/$$/\")\n"
           "echo \"host:1:1 [0] NCCL INFO TUNER/flashccl: flashccl tuner 0.1.0: 1 of 1 rows apply to 2 ranks, 1 "
           "nodes (FLASHCCL_TUNER_FORCE=$FLASHCCL_TUNER_FORCE)\" > \"$log\"\n"
           "echo \"FLASHCCL_ALGO=${FLASHCCL_ALGO-unset} FLASHCCL_ALGO_DIR=${FLASHCCL_ALGO_DIR-unset}\"\n"
           "echo 'to stderr' >&2\n"
           "exit ${STANDIN_STATUS:-0}\n";
    chmod(standIn_.c_str(), 0755);
    perf::RunReport record;
    record.info.machine = "box";
    perf::SizeResult r;
    r.bytes = 4096;
    r.ncclSamples = {3, 4, 5};
    r.flashcclSamples = {1, 2, 3};
    r.timing = perf::summarizePairs(r.ncclSamples, r.flashcclSamples);
    record.results.push_back(r);
    std::string error;
    ASSERT_TRUE(perf::writeReportFile(dir_ + "/record.json", record, true, &error)) << error;
    setenv("STANDIN_RECORD", (dir_ + "/record.json").c_str(), 1);
    setenv("FLASHCCL_ALGO", "allreduce:mine", 1);  // the user's: tune's runs must not inherit it
    setenv("FLASHCCL_ALGO_DIR", "/algos", 1);
  }
  void TearDown() override {
    for (const char* name : {"STANDIN_RECORD", "STANDIN_STATUS", "FLASHCCL_ALGO", "FLASHCCL_ALGO_DIR"}) unsetenv(name);
  }
  RunRequest request(const std::string& name) const {
    RunRequest r;
    r.directory = dir_ + "/" + name;
    r.jsonPath = r.directory + "/perf.json";
    r.arguments = {"perf", "-b", "8", "-J", r.jsonPath};
    r.environment = {{"FLASHCCL_TUNER_FORCE", "ring:ll"}, {"NCCL_DEBUG_FILE", r.directory + "/nccl.%h.%p.log"}};
    return r;
  }
  std::string dir_, standIn_;
};

TEST_F(PerfLauncherTest, RunsPerfWithTheRunsEnvironmentAndReadsWhatItLeft) {
  ChildPerfLauncher launcher(standIn_);
  const RunOutcome outcome = launcher.run(request("01-run"));
  EXPECT_TRUE(outcome.started);
  EXPECT_EQ(outcome.exitStatus, 0);
  EXPECT_EQ(outcome.ended, "exit status 0");
  ASSERT_TRUE(outcome.haveRecord) << outcome.recordError;
  EXPECT_TRUE(outcome.recordComplete);
  EXPECT_EQ(outcome.record.info.machine, "box");
  ASSERT_EQ(outcome.record.results.size(), 1u);
  EXPECT_DOUBLE_EQ(outcome.record.results[0].timing.nccl.median, 4);
  ASSERT_EQ(outcome.log.inits.size(), 1u);
  EXPECT_NE(outcome.log.inits[0].summary.find("(FLASHCCL_TUNER_FORCE=ring:ll)"), std::string::npos);
  EXPECT_EQ(outcome.outputPath, dir_ + "/01-run/perf.log");
  EXPECT_EQ(slurp(outcome.outputPath), "FLASHCCL_ALGO=unset FLASHCCL_ALGO_DIR=/algos\nto stderr\n");
  EXPECT_GT(outcome.seconds, 0);
}

TEST_F(PerfLauncherTest, AFailingOrMissingPerfIsSaidSo) {
  setenv("STANDIN_STATUS", "3", 1);
  ChildPerfLauncher launcher(standIn_);
  RunOutcome outcome = launcher.run(request("02-fails"));
  EXPECT_EQ(outcome.exitStatus, 3);
  EXPECT_EQ(outcome.ended, "exit status 3");
  unsetenv("STANDIN_RECORD");
  outcome = launcher.run(request("03-no-record"));
  EXPECT_FALSE(outcome.haveRecord);
  EXPECT_NE(outcome.recordError, "");
  ChildPerfLauncher missing(dir_ + "/nonexistent");
  outcome = missing.run(request("04-missing"));
  EXPECT_FALSE(outcome.started);
  EXPECT_NE(outcome.ended.find("cannot start " + dir_ + "/nonexistent"), std::string::npos) << outcome.ended;
}

TEST(NcclLogs, EveryProcesssFileInNameOrder) {
  const std::string dir = testing::TempDir() + "/tune-logs";
  std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str());
  std::ofstream(dir + "/nccl.host.2.log") << "second\n";
  std::ofstream(dir + "/nccl.host.1.log") << "first";
  std::ofstream(dir + "/perf.log") << "not NCCL's\n";
  EXPECT_EQ(readNcclLogs(dir), "first\nsecond\n");
  std::string error;
  EXPECT_TRUE(makeDirectories(dir + "/a/b/c", &error)) << error;
  EXPECT_FALSE(makeDirectories(dir + "/perf.log/x", &error));
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
