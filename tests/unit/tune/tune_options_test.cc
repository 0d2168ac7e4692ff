// flashccl tune: its command line, perf's spellings for what goes to perf, every usage error one
// line with status 2.
#include <gtest/gtest.h>

#include <sstream>

#include "tune_options.h"

namespace flashccl {
namespace tune {
namespace {

struct Parsed {
  ParseOutcome outcome;
  std::string out;
  std::string err;
};

Parsed parseAll(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Parsed parsed{parseTuneOptions(args, out, err), "", ""};
  parsed.out = out.str();
  parsed.err = err.str();
  return parsed;
}

TuneOptions parse(const std::vector<std::string>& args) {
  const Parsed parsed = parseAll(args);
  EXPECT_EQ(parsed.outcome.status, -1) << parsed.err;
  return parsed.outcome.options;
}

std::string errorOf(const std::vector<std::string>& args) {
  const Parsed parsed = parseAll(args);
  EXPECT_EQ(parsed.outcome.status, 2);
  EXPECT_EQ(parsed.err.rfind("flashccl tune: ", 0), 0u) << parsed.err;
  EXPECT_EQ(parsed.err.find('\n'), parsed.err.size() - 1) << "one line: " << parsed.err;
  return parsed.err;
}

TEST(TuneOptions, Defaults) {
  const TuneOptions o = parse({});
  EXPECT_EQ(o.sizes.minBytes, 1024u);
  EXPECT_EQ(o.sizes.maxBytes, size_t(128) << 20);
  EXPECT_EQ(o.sizes.stepFactor, 2u);
  EXPECT_EQ(o.collectives.size(), 3u);
  EXPECT_EQ(o.dataType, perf::DataType::kFloat);
  EXPECT_EQ(o.pairs, 9);
  EXPECT_EQ(o.baselineRuns, 2);
  EXPECT_EQ(o.pick, PickRule::kSignificant);
  EXPECT_DOUBLE_EQ(o.marginPercent, 2.0);
  EXPECT_TRUE(o.afterRun);
  EXPECT_EQ(o.outputPath, "flashccl-tuning.xml");
  EXPECT_EQ(o.ncclCandidates().size(), 18u);
  EXPECT_EQ(o.flashcclAlgorithms.size(), builtinFlashcclAlgorithms().size());
  EXPECT_EQ(tuneSizes(o).size(), 18u);  // 1K .. 128M
}

TEST(TuneOptions, PerfsSpellingsAndOurs) {
  const TuneOptions o = parse({"-b", "64K", "-e", "1M", "-f", "4", "--coll", "allgather", "-d", "bfloat16", "-n",
                               "7", "-w", "2", "--pairs", "5", "-T", "30", "--processes", "2", "--algorithms",
                               "ring", "--protocols", "ll,simple", "--channels", "0,4", "--flashccl-algos", "none",
                               "--baseline-runs", "3", "--pick", "fastest", "--margin", "5", "--no-after",
                               "--output", "t.xml", "--into", "topo.xml", "-J", "t.json", "--workdir", "w"});
  EXPECT_EQ(o.sizes.minBytes, 64u << 10);
  EXPECT_EQ(tuneSizes(o), (std::vector<size_t>{64 << 10, 256 << 10, 1 << 20}));
  EXPECT_EQ(o.collectives, std::vector<perf::Collective>{perf::Collective::kAllGather});
  EXPECT_EQ(o.dataType, perf::DataType::kBfloat16);
  EXPECT_EQ(o.iters, 7);
  EXPECT_EQ(o.warmupIters, 2);
  EXPECT_EQ(o.timeoutSeconds, 30);
  EXPECT_EQ(o.processes, 2);
  EXPECT_EQ(o.ncclCandidates().size(), 4u);
  EXPECT_TRUE(o.flashcclAlgorithms.empty());
  EXPECT_EQ(o.baselineRuns, 3);
  EXPECT_EQ(o.pick, PickRule::kFastest);
  EXPECT_DOUBLE_EQ(o.marginPercent, 5.0);
  EXPECT_FALSE(o.afterRun);
  EXPECT_EQ(o.intoPath, "topo.xml");
  EXPECT_EQ(o.jsonPath, "t.json");
  EXPECT_EQ(o.workDirectory, "w");
  const TuneOptions explicitOnes = parse({"--candidates", "tree:ll:2,ring:simple"});
  ASSERT_EQ(explicitOnes.ncclCandidates().size(), 2u);
  EXPECT_EQ(explicitOnes.ncclCandidates()[0].forceEntry(), "tree:ll:2");
}

TEST(TuneOptions, QuickFillsWhatWasNotGiven) {
  const TuneOptions o = parse({"--quick", "-n", "3"});
  EXPECT_EQ(o.sizes.stepFactor, 4u);
  EXPECT_EQ(o.iters, 3);
  EXPECT_EQ(o.warmupIters, 3);
  EXPECT_EQ(o.pairs, 5);
  EXPECT_EQ(o.ncclLists.channels, std::vector<int>{0});
}

TEST(TuneOptions, UsageErrors) {
  EXPECT_NE(errorOf({"--coll", "broadcast"}).find("'broadcast' is not one of allreduce, allgather, reducescatter or all"),
            std::string::npos);
  EXPECT_NE(errorOf({"-b", "1M", "-e", "1K"}).find("-b (1048576 B) is larger than -e (1024 B)"), std::string::npos);
  EXPECT_NE(errorOf({"-d", "float,half"}).find("-d: give one datatype"), std::string::npos);
  EXPECT_NE(errorOf({"--algorithms", "nvls"}).find("NVLink multicast"), std::string::npos);
  EXPECT_NE(errorOf({"--channels", "x"}).find("'x' is not a channel count"), std::string::npos);
  EXPECT_NE(errorOf({"--candidates", "ring:ll", "--channels", "2"}).find("--candidates lists the choices itself"),
            std::string::npos);
  EXPECT_NE(errorOf({"--pick", "best"}).find("'best' is not one of significant or fastest"), std::string::npos);
  EXPECT_NE(errorOf({"-t", "2", "--launched"}).find("give one"), std::string::npos);
  EXPECT_NE(errorOf({"--verify", "t.xml", "--output", "o.xml"}).find("--verify only checks a table"),
            std::string::npos);
  EXPECT_NE(errorOf({"--into", "a.xml", "--output", "a.xml"}).find("never over its source"), std::string::npos);
  EXPECT_NE(errorOf({"--baseline-runs", "0"}).find("--baseline-runs"), std::string::npos);
  EXPECT_NE(errorOf({"-o", "sum"}).find("flashccl tune: "), std::string::npos);  // -o is --op elsewhere: not here
}

TEST(TuneOptions, HelpGoesToStdout) {
  const Parsed parsed = parseAll({"--help"});
  EXPECT_EQ(parsed.outcome.status, 0);
  EXPECT_NE(parsed.out.find("Usage: flashccl tune"), std::string::npos);
  EXPECT_NE(parsed.out.find("--candidates"), std::string::npos);
  EXPECT_EQ(parsed.err, "");
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
