// flashccl tune's session with canned perf runs (no process, no GPU): what each run's outcome
// means, how the runs' records become each size's measurements, and the whole sweep: decision,
// table, the run with the table and its check, the report and the record; the ranks but 0 of
// --launched only run.
#include <gtest/gtest.h>

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>
#include <fstream>
#include <map>
#include <sstream>

#include "base/kernel_generation.h"
#include "forced_choice.h"
#include "sweep_runner.h"
#include "tune_record.h"
#include "topo/topology_file.h"
#include "tune_session.h"
#include "tuning_file.h"

namespace flashccl {
namespace tune {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string argument(const std::vector<std::string>& args, const std::string& flag) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag) return args[i + 1];
  return "";
}

// The absolute path tune hands to the runs.
std::string resolved(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) ? buffer : path;
}

std::vector<std::string> list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) items.push_back(item);
  return items;
}

// perf and NCCL with the plugin, answering from a table of times: NCCL's default takes `nccl`
// microseconds, a forced choice or a table row its own entry; "allgather:tree" is refused; with
// FLASHCCL_TOPO_FILE flashccl runs what the file's first matching selection row names. Every -d
// type and --placement gets the same times. Every run is recorded.
class CannedLauncher : public PerfLauncher {
 public:
  std::map<std::string, double> times = {{"nccl", 100}, {"ring/ll", 50}, {"tree/ll", 99}};
  std::map<std::string, double> flashccl = {{"selection", 80}, {"allreduce_oneshot", 30}};
  // With FLASHCCL_TOPO_FILE: the algorithm's time at one size, where it is not its usual one.
  std::map<std::pair<std::string, size_t>, double> flashcclAt;
  double ncclNoise = 0.001;  // NCCL's block pairs take the time, and this fraction more and less
  std::vector<RunRequest> requests;
  int failRun = -1;  // this run (from 0) exits with status 3
  bool wrongFlashccl = false;

  RunOutcome run(const RunRequest& request) override {
    requests.push_back(request);
    RunOutcome outcome;
    outcome.started = true;
    outcome.outputPath = request.directory + "/perf.log";
    if (int(requests.size()) - 1 == failRun) {
      outcome.exitStatus = 3;
      outcome.ended = "exit status 3";
      return outcome;
    }
    const auto& env = request.environment;
    TuningTable table;
    bool hasSection = false;
    std::string error;
    if (env.count("FLASHCCL_TUNER_FORCE")) {
      EXPECT_TRUE(parseForcedChoice(env.at("FLASHCCL_TUNER_FORCE"), &table, &error)) << error;
    } else if (env.count("FLASHCCL_TUNER_FILE")) {
      EXPECT_TRUE(parseTuningFile(env.at("FLASHCCL_TUNER_FILE"), &table, &hasSection, &error)) << error;
    }
    std::string log = "NCCL INFO TUNER/flashccl: flashccl tuner 0.1.0: " + std::to_string(table.rows.size()) + " of " +
                      std::to_string(table.rows.size()) + " rows apply to 2 ranks, 1 nodes (canned)\n";
    perf::RunReport& record = outcome.record;
    record.info.machine = "box: 2 x GPU";
    record.info.date = "2026-12-01 10:00:00";
    record.info.ncclVersion = "2.28.9";
    record.info.flashcclVersion = "0.1.0";
    const std::vector<std::string> args = request.arguments;
    std::vector<perf::Placement> placements = {perf::Placement::kOutOfPlace};
    if (argument(args, "--placement") == "both") placements.push_back(perf::Placement::kInPlace);
    TopologyDescription topology;
    const TopologyDescription* selection = nullptr;
    if (env.count("FLASHCCL_TOPO_FILE")) {
      EXPECT_TRUE(parseTopologyFile(env.at("FLASHCCL_TOPO_FILE"), &topology, &error)) << error;
      selection = &topology;
    }
    std::stringstream colls(argument(args, "--coll"));
    const size_t minBytes = std::stoul(argument(args, "-b")), maxBytes = std::stoul(argument(args, "-e"));
    for (std::string name; std::getline(colls, name, ',');) {
      perf::Collective coll;
      perf::parseCollective(name, &coll);
      int tunerColl = 0;
      parseCollectiveName(name, &tunerColl);
      for (size_t bytes = minBytes; bytes <= maxBytes; bytes *= std::stoul(argument(args, "-f"))) {
        std::string key = "nccl", algorithm = "RING", protocol = "SIMPLE";
        for (const TuningRow& row : table.rows) {
          if (!row.forCommunicator(2, 1) || !row.matches({tunerColl, bytes, 1, false})) continue;
          if (!row.choosesAlgorithm()) break;
          const std::string choice = std::string(algorithmName(row.algorithm)) + "/" + protocolName(row.protocol);
          if (name == "allgather" && choice.rfind("tree", 0) == 0) {
            if (table.forced) log += "NCCL WARN TUNER/flashccl: allgather 8 bytes: " + choice + " is not available to this communicator\n";
          } else {
            key = choice;
            algorithm = algorithmName(row.algorithm);
            protocol = protocolName(row.protocol);
            for (char& c : algorithm) c = char(std::toupper(c));
            for (char& c : protocol) c = char(std::toupper(c));
          }
          break;
        }
        if (env.at("NCCL_DEBUG_SUBSYS").find("TUNING") != std::string::npos && env.at("NCCL_DEBUG") == "INFO")
          log += "NCCL INFO " + std::string(name == "allreduce" ? "AllReduce" : "AllGather") + ": " +
                 std::to_string(name == "allreduce" ? bytes : bytes / 2) + " Bytes -> Algo " + algorithm + " proto " +
                 protocol + " channel{Lo..Hi}={0..0}\n";
        const double ncclTime = times.count(key) ? times[key] : times["nccl"];
        std::string flashName = "selection";
        if (env.count("FLASHCCL_ALGO") && env.at("FLASHCCL_ALGO").find(name + ":") != std::string::npos)
          flashName = env.at("FLASHCCL_ALGO").substr(env.at("FLASHCCL_ALGO").find(name + ":") + name.size() + 1);
        std::string flashAlgorithm = flashName == "selection" ? "allreduce_oneshot" : flashccl.count(flashName) ? flashName : "NCCL";
        double flashTime = flashccl.count(flashName) ? flashccl[flashName] : ncclTime;
        if (selection && !env.count("FLASHCCL_ALGO")) {
          // The library with FLASHCCL_TOPO_FILE: the first selection row that matches decides.
          const SelectionRow* row = selection->table.firstMatch(CollKind(int(coll)), 2, 1, bytes);
          flashAlgorithm = row && row->algorithm != "nccl" && flashccl.count(row->algorithm) ? row->algorithm : "NCCL";
          flashTime = flashAlgorithm == "NCCL" ? ncclTime : flashccl[flashAlgorithm];
          const auto slower = flashcclAt.find({flashAlgorithm, bytes});
          if (slower != flashcclAt.end()) flashTime = slower->second;
        }
        for (const std::string& typeName : list(argument(args, "-d"))) {
          for (perf::Placement placement : placements) {
            perf::SizeResult r;
            r.collective = coll;
            r.bytes = bytes;
            perf::parseDataType(typeName, &r.dataType);
            r.placement = placement;
            r.ncclSamples = {ncclTime, ncclTime * (1 + ncclNoise), ncclTime * (1 - ncclNoise)};
            r.flashcclSamples = {flashTime, flashTime, flashTime};
            r.timing = perf::summarizePairs(r.ncclSamples, r.flashcclSamples);
            r.algorithm = flashAlgorithm;
            r.checked = argument(args, "-c") == "1";
            r.wrong = wrongFlashccl && r.checked ? 1 : 0;
            record.results.push_back(r);
          }
        }
      }
    }
    outcome.exitStatus = record.totalWrong() > 0 ? 1 : 0;
    outcome.ended = "exit status " + std::to_string(outcome.exitStatus);
    outcome.haveRecord = outcome.recordComplete = true;
    outcome.log = parseNcclLog(log);
    return outcome;
  }
};

class SessionTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir() + "/tune-session-" + testing::UnitTest::GetInstance()->current_test_info()->name();
    std::system(("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "'").c_str());
    session_.options.sizes = {1024, 4096, 2};
    session_.options.collectives = {perf::Collective::kAllReduce, perf::Collective::kAllGather};
    session_.options.explicitCandidates = {{"ring", "ll", 0}, {"tree", "ll", 0}};
    session_.options.flashcclAlgorithms = {{perf::Collective::kAllReduce, "allreduce_oneshot"}};
    session_.options.outputPath = dir_ + "/table.xml";
    session_.options.jsonPath = dir_ + "/tune.json";
    session_.options.arguments = {"--quick"};
    session_.pluginPath = "/lib/libnccl-tuner-flashccl.so";
    session_.workDirectory = dir_;
    session_.launcher = &launcher_;
  }
  std::string dir_;
  CannedLauncher launcher_;
  Session session_;
};

TEST_F(SessionTest, TheWholeSweep) {
  std::ostringstream out, err;
  ASSERT_EQ(runSweepSession(session_, out, err), 0) << err.str() << out.str();
  // 2 baselines, 2 choices, 1 flashccl run, the run with the table and its check.
  ASSERT_EQ(launcher_.requests.size(), 7u);
  const std::string tableVariable = launcher_.requests[6].environment.at("FLASHCCL_TUNER_FILE");
  EXPECT_EQ(tableVariable.substr(tableVariable.size() - 10), "/table.xml");
  TuningTable table;
  bool hasSection = false;
  std::string error;
  ASSERT_TRUE(parseTuningFile(dir_ + "/table.xml", &table, &hasSection, &error)) << error;
  ASSERT_EQ(table.rows.size(), 2u) << slurp(dir_ + "/table.xml");
  EXPECT_EQ(table.rows[0].minBytes, 1024u);
  EXPECT_EQ(table.rows[0].maxBytes, 4096u);
  EXPECT_STREQ(algorithmName(table.rows[1].algorithm), "ring");  // allgather: tree refused, ring/ll wins
  const std::string report = out.str();
  // size, NCCL default, spread, tuned choice, its time, with the table, speedup, flashccl's best, time, speedup
  EXPECT_TRUE(std::regex_search(report, std::regex("\n +1024 +100\\.00 +0\\.1 +ring/ll +50\\.00 +50\\.00 +2\\.00 "
                                                   "+allreduce_oneshot +30\\.00 +3\\.33\n")))
      << report;
  EXPECT_NE(report.find("# NCCL refused on this communicator (not measured): tree/ll\n"), std::string::npos);
  EXPECT_NE(report.find("# row: 1K - 4K -> ring/ll\n"), std::string::npos);
  EXPECT_NE(report.find("# PASS: NCCL applies the table"), std::string::npos) << report;
  EXPECT_NE(report.find("# table: " + dir_ + "/table.xml (2 rows)"), std::string::npos);
  const perf::Json record = perf::Json::parse(slurp(dir_ + "/tune.json"));
  EXPECT_EQ(record["schema"], kTuneRecordSchema);
  EXPECT_EQ(record["runs"].size(), 7u);
  EXPECT_EQ(record["runs"][1]["choice"]["label"], "ring/ll");
  EXPECT_EQ(record["runs"][1]["environment"]["FLASHCCL_TUNER_FORCE"], "ring:ll");
  EXPECT_EQ(record["runs"][0]["perf_record"]["tool"], "flashccl perf");
  const perf::Json& size = record["collectives"][0]["sizes"][0];
  EXPECT_EQ(size["default"]["runs"].size(), 3u);  // two baselines and the flashccl run's NCCL column
  EXPECT_EQ(size["decision"]["winner"], "ring/ll");
  EXPECT_DOUBLE_EQ(size["decision"]["gain_percent"].get<double>(), 50.0);
  EXPECT_EQ(size["with_table_us"], 50.0);
  EXPECT_EQ(record["table"]["rows"], 2);
  EXPECT_TRUE(record["verify"]["passed"]);
}

TEST_F(SessionTest, MergedIntoATopologyFile) {
  session_.options.intoPath = std::string(FLASHCCL_SOURCE_DIR) + "/topologies/pcie-8gpu.xml";
  session_.intoText = slurp(session_.options.intoPath);
  session_.options.afterRun = false;
  std::ostringstream out, err;
  ASSERT_EQ(runSweepSession(session_, out, err), 0) << err.str();
  const std::string written = slurp(dir_ + "/table.xml");
  EXPECT_NE(written.find("<topology name=\"pcie-8gpu\""), std::string::npos);
  EXPECT_NE(written.find("<group coll=\"allreduce\">"), std::string::npos) << written;
  EXPECT_EQ(launcher_.requests.size(), 5u) << "--no-after";
}

TEST_F(SessionTest, WrongFlashcclResultsAreReportedAndTheTableStillWritten) {
  launcher_.wrongFlashccl = true;
  session_.options.afterRun = false;
  std::ostringstream out, err;
  EXPECT_EQ(runSweepSession(session_, out, err), 1);
  // One wrong element per result: 2 collectives x 3 sizes x 2 types x 2 placements.
  EXPECT_NE(out.str().find("# WRONG: NCCL default (baseline 1 of 2): 24 wrong elements in flashccl's results"),
            std::string::npos)
      << out.str();
  EXPECT_NE(slurp(dir_ + "/table.xml").find("<row "), std::string::npos);
}

TEST_F(SessionTest, AFailedRunStopsTheSweep) {
  launcher_.failRun = 1;
  std::ostringstream out, err;
  EXPECT_EQ(runSweepSession(session_, out, err), 1);
  EXPECT_EQ(launcher_.requests.size(), 2u);
  EXPECT_EQ(err.str(), "flashccl tune: run 2 (ring/ll) failed: perf ended with exit status 3 (its output: " + dir_ +
                           "/02-ring-ll/perf.log)\n");
}

TEST_F(SessionTest, RanksButZeroOfALaunchedJobOnlyRun) {
  session_.readsRecords = false;
  session_.options.launched = true;
  std::ostringstream out, err;
  EXPECT_EQ(runSweepSession(session_, out, err), 0) << err.str();
  EXPECT_EQ(launcher_.requests.size(), 5u);  // the sweep; no table, so no run with it
  EXPECT_EQ(out.str(), "");
  EXPECT_NE(std::find(launcher_.requests[0].arguments.begin(), launcher_.requests[0].arguments.end(), "--launched"),
            launcher_.requests[0].arguments.end());
  std::ifstream table(dir_ + "/table.xml");
  EXPECT_FALSE(table.good());
}

// --verify of a table's <selection> rows: the canned library follows FLASHCCL_TOPO_FILE's rows.
class VerifySelectionTest : public SessionTest {
 protected:
  // A calibrated table (measured on this kernel generation) holding `rows` for 2-rank all-reduce
  // and a `nccl` row for all-gather, and `tuning` when given.
  std::string table(const std::string& rows, const std::string& tuning = "") {
    const std::string path = dir_ + "/t.xml";
    std::ofstream(path) << "<topology name=\"t\">\n"
                           "  <match gpus=\"2\"/>\n"
                           "  <measurement gpu=\"GPU\" gpus=\"2\" kernels=\"" << kKernelGeneration << "\"/>\n"
                           "  <selection measured=\"flashccl tune 2026-12-01\">\n"
                           "    <group coll=\"allreduce\" ranks=\"2\">\n" << rows <<
                           "      <row algorithm=\"nccl\"/>\n"
                           "    </group>\n"
                           "    <group coll=\"allgather\" ranks=\"2\"><row algorithm=\"nccl\"/></group>\n"
                           "  </selection>\n" << tuning << "</topology>\n";
    return path;
  }
  // tune_main.cc's part: the table read, the communicator's rank count.
  int verify(const std::string& path, std::string* report) {
    session_.options.verifyPath = path;
    session_.ranks = 2;
    std::string problem;
    EXPECT_TRUE(readVerifyTable(path, &session_, &problem)) << problem;
    std::ostringstream out, err;
    const int status = runVerifySession(session_, out, err);
    *report = out.str() + err.str();
    return status;
  }
};

TEST_F(VerifySelectionTest, ARowThatStillWinsPasses) {
  std::string report;
  // The one-shot (30 us) against NCCL's 100 at 1K and 2K; 4K falls to the nccl row.
  EXPECT_EQ(verify(table("      <row minBytes=\"1K\" maxBytes=\"2K\" algorithm=\"allreduce_oneshot\"/>\n"), &report),
            0)
      << report;
  EXPECT_NE(report.find("PASS  t.xml:6 allreduce 1K - 2K allreduce_oneshot: wins at 2 sizes, speedup 3.33x or more, "
                        "spread 0.1% at most\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("PASS  t.xml:7 allreduce every size nccl: NCCL ran at 1 size\n"), std::string::npos) << report;
  EXPECT_NE(report.find("PASS  t.xml:9 allgather every size nccl: NCCL ran at 3 sizes\n"), std::string::npos) << report;
  EXPECT_NE(report.find("# PASS: flashccl's selection rows still hold"), std::string::npos) << report;
  // A table with no <tuning> section: no NCCL check, one run with the library told to use it.
  EXPECT_EQ(report.find("NCCL's choices"), std::string::npos) << report;
  ASSERT_EQ(launcher_.requests.size(), 1u);
  const RunRequest& run = launcher_.requests[0];
  EXPECT_EQ(run.environment.at("FLASHCCL_TOPO_FILE"), resolved(dir_ + "/t.xml"));
  EXPECT_EQ(run.environment.at("FLASHCCL_TUNER_FORCE"), "nccl");
  EXPECT_EQ(argument(run.arguments, "-d"), "float,bfloat16");
  EXPECT_EQ(argument(run.arguments, "--placement"), "both");
  EXPECT_EQ(argument(run.arguments, "-c"), "1");
  EXPECT_EQ(argument(run.arguments, "-b"), "1024");
  EXPECT_EQ(argument(run.arguments, "-e"), "4096");
}

TEST_F(VerifySelectionTest, ARowThatLosesAtOneSizeNoLongerWins) {
  launcher_.flashcclAt[{"allreduce_oneshot", 2048}] = 99;  // 1% faster than NCCL: within spread + margin
  std::string report;
  EXPECT_EQ(verify(table("      <row minBytes=\"1K\" maxBytes=\"4K\" algorithm=\"allreduce_oneshot\"/>\n"), &report),
            1)
      << report;
  EXPECT_NE(report.find("FAIL  t.xml:6 allreduce 1K - 4K allreduce_oneshot: no longer wins at 2K: speedup 1.01x, "
                        "spread 0.1%; allreduce_oneshot fp32 out of place: +1.0% against NCCL, needed more than 2.1%\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("# FAIL: flashccl's selection rows do not all hold"), std::string::npos) << report;
}

TEST_F(VerifySelectionTest, ARowThatWinsByLessThanTheSpreadNoLongerWins) {
  launcher_.ncclNoise = 0.2;                             // NCCL's pairs 20% apart: a 20% spread
  launcher_.flashcclAt[{"allreduce_oneshot", 4096}] = 85;  // 15% faster: less than spread + margin
  std::string report;
  EXPECT_EQ(verify(table("      <row minBytes=\"1K\" maxBytes=\"4K\" algorithm=\"allreduce_oneshot\"/>\n"), &report),
            1)
      << report;
  EXPECT_NE(report.find("allreduce_oneshot: no longer wins at 4K: speedup 1.18x, spread 20.0%; allreduce_oneshot "
                        "fp32 out of place: +15.0% against NCCL, needed more than 22.0%\n"),
            std::string::npos)
      << report;
}

TEST_F(VerifySelectionTest, ARowWhereNcclRanIsNotApplied) {
  // The canned library cannot run the two-shot: it forwards to NCCL.
  std::string report;
  EXPECT_EQ(verify(table("      <row maxBytes=\"2K\" algorithm=\"allreduce_twoshot\"/>\n"), &report), 1) << report;
  EXPECT_NE(report.find("FAIL  t.xml:6 allreduce up to 2K allreduce_twoshot: not applied at 1K (fp32 out of place): "
                        "NCCL ran instead\n"),
            std::string::npos)
      << report;
}

TEST_F(VerifySelectionTest, ABandEndTheStepsMissIsMeasuredInARunOfItsOwn) {
  std::string report;
  EXPECT_EQ(verify(table("      <row minBytes=\"1K\" maxBytes=\"3K\" algorithm=\"allreduce_oneshot\"/>\n"), &report),
            0)
      << report;
  EXPECT_NE(report.find("allreduce 1K - 3K allreduce_oneshot: wins at 3 sizes"), std::string::npos) << report;
  ASSERT_EQ(launcher_.requests.size(), 2u);
  EXPECT_EQ(argument(launcher_.requests[1].arguments, "-b"), "3072");
  EXPECT_EQ(argument(launcher_.requests[1].arguments, "-e"), "3072");
  EXPECT_EQ(argument(launcher_.requests[1].arguments, "--coll"), "allreduce");
}

TEST_F(VerifySelectionTest, BothSectionsAreChecked) {
  const std::string path = table("      <row maxBytes=\"4K\" algorithm=\"allreduce_oneshot\"/>\n",
                                 "  <tuning ranks=\"2\" nodes=\"1\"><row coll=\"allreduce\" algorithm=\"ring\" "
                                 "protocol=\"ll\"/></tuning>\n");
  std::string report;
  EXPECT_EQ(verify(path, &report), 0) << report;
  EXPECT_NE(report.find("# PASS: NCCL applies the table"), std::string::npos) << report;
  EXPECT_NE(report.find("# PASS: flashccl's selection rows still hold"), std::string::npos) << report;
  ASSERT_EQ(launcher_.requests.size(), 2u);
  EXPECT_EQ(launcher_.requests[0].environment.at("FLASHCCL_TUNER_FILE"), resolved(path));
}

TEST_F(VerifySelectionTest, ATuningOnlyTableIsCheckedAsBefore) {
  const std::string path = dir_ + "/tuning.xml";
  std::ofstream(path) << "<tuning ranks=\"2\"><row coll=\"allreduce\" algorithm=\"ring\" protocol=\"ll\"/></tuning>\n";
  std::string report;
  EXPECT_EQ(verify(path, &report), 0) << report;
  EXPECT_TRUE(session_.verifyTuning);
  EXPECT_FALSE(session_.verifySelection);
  EXPECT_NE(report.find("PASS  tuning.xml:1 ring/ll: 3 of 3 calls\n# PASS: NCCL applies the table\n"),
            std::string::npos)
      << report;
  EXPECT_EQ(report.find("selection"), std::string::npos) << report;
  ASSERT_EQ(launcher_.requests.size(), 1u);
  EXPECT_EQ(launcher_.requests[0].environment.count("FLASHCCL_TOPO_FILE"), 0u);
}

TEST_F(VerifySelectionTest, ATableWithNothingToCheckIsRefused) {
  const std::string path = dir_ + "/nothing.xml";
  std::ofstream(path) << "<topology name=\"n\"><selection measured=\"x\"><group coll=\"allreduce\">"
                         "<row algorithm=\"nccl\"/></group></selection></topology>\n";
  std::string problem;
  EXPECT_FALSE(readVerifyTable(path, &session_, &problem));
  EXPECT_EQ(problem, path + " has no <tuning> section and no <selection> row naming a flashccl algorithm");
}

TEST_F(VerifySelectionTest, AnUnmeasuredSelectionIsNotReMeasured) {
  // No <measurement>: named by FLASHCCL_TOPO_FILE it counts as unmeasured, and the library arms none
  // of its rows. With a <tuning> section only NCCL's check runs; without one there is nothing to check.
  unsetenv("FLASHCCL_UNMEASURED");
  const std::string tuned = dir_ + "/tuned.xml", bare = dir_ + "/bare.xml";
  const std::string selection = "<selection measured=\"x\"><group coll=\"allreduce\"><row algorithm=\"allreduce_oneshot\"/>"
                                "</group></selection>";
  std::ofstream(tuned) << "<topology name=\"t\">" << selection << "<tuning ranks=\"2\"><row coll=\"allreduce\" "
                          "algorithm=\"ring\" protocol=\"ll\"/></tuning></topology>\n";
  std::ofstream(bare) << "<topology name=\"b\">" << selection << "</topology>\n";
  std::string report;
  EXPECT_EQ(verify(tuned, &report), 0) << report;
  EXPECT_NE(report.find("# note: " + tuned + "'s <selection> counts as unmeasured (it records no <measurement>): the "
                        "library arms none of its rows unless FLASHCCL_UNMEASURED=1, so they are not re-measured\n"),
            std::string::npos)
      << report;
  EXPECT_EQ(launcher_.requests.size(), 1u);
  std::string problem;
  Session other;
  EXPECT_FALSE(readVerifyTable(bare, &other, &problem));
  EXPECT_NE(problem.find("and it has no <tuning> section: nothing to check"), std::string::npos) << problem;
}

TEST(JudgeRun, WhatEachOutcomeMeans) {
  PlannedRun baseline;
  baseline.kind = RunKind::kBaseline;
  baseline.logging = NcclLogging::kInit;
  RunOutcome outcome;
  outcome.started = true;
  outcome.exitStatus = 0;
  outcome.ended = "exit status 0";
  outcome.outputPath = "/w/perf.log";
  outcome.haveRecord = outcome.recordComplete = true;
  outcome.log = parseNcclLog("NCCL INFO TUNER/flashccl: flashccl tuner 0.1.0: 1 of 1 rows apply to 2 ranks, 1 nodes (x)\n");
  std::string why;
  EXPECT_EQ(judgeRun(baseline, outcome, true, &why), RunVerdict::kOk);
  // No plugin line: NCCL did not load it, and nothing forced would have been.
  RunOutcome noPlugin = outcome;
  noPlugin.log = NcclLog();
  EXPECT_EQ(judgeRun(baseline, noPlugin, true, &why), RunVerdict::kFailed);
  EXPECT_EQ(why, "NCCL did not load the tuner plugin: its log has no 'TUNER/flashccl: flashccl tuner' line (NCCL "
                 "before 2.19 has no tuner plugins) (its output: /w/perf.log)");
  // Status 1 with wrong results counted in the record: the sweep goes on.
  RunOutcome wrong = outcome;
  wrong.exitStatus = 1;
  perf::SizeResult r;
  r.checked = true;
  r.wrong = 3;
  wrong.record.results.push_back(r);
  EXPECT_EQ(judgeRun(baseline, wrong, true, &why), RunVerdict::kWrongResults);
  // Status 1 on a rank that has no record: a failure.
  EXPECT_EQ(judgeRun(baseline, wrong, false, &why), RunVerdict::kFailed);
  RunOutcome noRecord = outcome;
  noRecord.haveRecord = false;
  noRecord.recordError = "no such file";
  EXPECT_EQ(judgeRun(baseline, noRecord, true, &why), RunVerdict::kFailed);
  EXPECT_EQ(why, "perf left no complete record (no such file) (its output: /w/perf.log)");
  EXPECT_EQ(judgeRun(baseline, noRecord, false, &why), RunVerdict::kOk) << "ranks but 0 write no record";
  // A forced-choice run (WARN level) has no init line to show; a WARN of the plugin other than a
  // refusal fails it.
  PlannedRun choice;
  choice.kind = RunKind::kChoice;
  choice.logging = NcclLogging::kTunerWarnings;
  RunOutcome warned = noPlugin;
  warned.log = parseNcclLog("NCCL WARN TUNER/flashccl: FLASHCCL_TUNER_FORCE=\"x\": entry 1 'x': bad\n");
  EXPECT_EQ(judgeRun(choice, noPlugin, true, &why), RunVerdict::kOk);
  EXPECT_EQ(judgeRun(choice, warned, true, &why), RunVerdict::kFailed);
  // The run with the table must have used it.
  PlannedRun withTable;
  withTable.kind = RunKind::kWithTable;
  RunOutcome unused = outcome;
  unused.log = parseNcclLog("NCCL INFO TUNER/flashccl: flashccl tuner 0.1.0: 0 of 2 rows apply to 2 ranks, 1 nodes (t)\n");
  EXPECT_EQ(judgeRun(withTable, unused, true, &why), RunVerdict::kFailed);
}

TEST(CollectResults, RefusedChoicesAndForcedAlgorithmsThatForwarded) {
  auto result = [](perf::Collective coll, size_t bytes, double nccl, double flash, const std::string& algorithm) {
    perf::SizeResult r;
    r.collective = coll;
    r.bytes = bytes;
    r.ncclSamples = {nccl};
    r.flashcclSamples = {flash};
    r.timing = perf::summarizePairs(r.ncclSamples, r.flashcclSamples);
    r.algorithm = algorithm;
    return r;
  };
  SweepRun baseline, choice, forced;
  baseline.plan.kind = RunKind::kBaseline;
  baseline.outcome.haveRecord = true;
  baseline.outcome.record.results = {result(perf::Collective::kAllGather, 64, 10, 8, "allgather_direct")};
  choice.plan.kind = RunKind::kChoice;
  choice.plan.candidate = 4;
  choice.outcome.haveRecord = true;
  choice.outcome.record.results = {result(perf::Collective::kAllGather, 64, 5, 8, "allgather_direct")};
  choice.outcome.log = parseNcclLog("NCCL WARN TUNER/flashccl: allgather 8 bytes: tree/ll is not available to this communicator\n");
  forced.plan.kind = RunKind::kFlashccl;
  forced.outcome.haveRecord = true;
  forced.outcome.record.results = {result(perf::Collective::kAllGather, 64, 11, 1, "NCCL")};
  const std::vector<CollectiveResults> all =
      collectResults({perf::Collective::kAllGather}, {64}, perf::DataType::kFloat, {baseline, choice, forced});
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].refused, std::vector<int>{4});
  const SizeResults& size = all[0].sizes[0];
  EXPECT_EQ(size.point.defaults.size(), 2u);
  ASSERT_EQ(size.point.candidates.size(), 1u);
  EXPECT_FALSE(size.point.candidates[0].available);
  // The forced algorithm forwarded to NCCL: its 1 us is not the algorithm's; flashccl's own choice is best.
  ASSERT_NE(bestFlashccl(size), nullptr);
  EXPECT_EQ(bestFlashccl(size)->algorithm, "allgather_direct");
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
