// `flashccl plan`: output for shipped topologies (golden substrings), the no-GPU default, sizes,
// placement refused, FLASHCCL_ALGO, exit codes, and the --check hook.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "algo/algorithm.h"
#include "plan/algorithm_check.h"
#include "plan/plan.h"
#include "plan/plan_options.h"
#include "plan/plan_report.h"
#include "support/temp_dir.h"

namespace flashccl {
namespace {

struct PlanRun {
  int code = -1;
  std::string out;
  std::string err;
};

PlanRun plan(std::vector<std::string> args) {
  args.insert(args.begin(), "plan");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(&arg[0]);
  argv.push_back(nullptr);
  std::ostringstream out, err;
  PlanRun run;
  run.code = runPlan(int(args.size()), argv.data(), out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

// "file.xml:N" for the first line of a shipped topology that contains `text`.
std::string sourceOf(const std::string& file, const std::string& text) {
  std::ifstream in(std::string(FLASHCCL_SOURCE_DIR "/topologies/") + file);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find(text) != std::string::npos) return file + ":" + std::to_string(number);
  }
  ADD_FAILURE() << text << " not in " << file;
  return "";
}

// The line of the plan for `size` in the section of `coll` ("" when absent).
std::string planLine(const std::string& out, const std::string& coll, const std::string& size) {
  const size_t section = out.find("\n" + coll + " (");
  if (section == std::string::npos) return "";
  const size_t end = out.find("\n\n", section + 1);
  std::istringstream lines(out.substr(section, end == std::string::npos ? std::string::npos : end - section));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.compare(0, 2 + size.size() + 1, "  " + size + " ") == 0) return line;
  }
  return "";
}

bool hasNvidiaDriver() {
  struct stat st;
  return stat("/dev/nvidiactl", &st) == 0;
}

class PlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The plan reads the environment as the library would; keep the tests' own clean.
    unsetenv("FLASHCCL_TOPO_FILE");
    unsetenv("FLASHCCL_ALGO");
  }
  void TearDown() override { SetUp(); }
};

TEST_F(PlanTest, ShippedTwoGpuTopologyByName) {
  const PlanRun run = plan({"--topo", "hopper-2gpu-nvlink", "-e", "4G"});
  EXPECT_TRUE(run.err.empty()) << run.err;
  const std::string& out = run.out;
  const std::string file = "hopper-2gpu-nvlink.xml";
  EXPECT_NE(out.find("topology:      hopper-2gpu-nvlink - 2 x H100/H200 on NVLink"), std::string::npos) << out;
  EXPECT_NE(out.find("communicator:  2 ranks (the topology's GPU count), 1 node; rank 0's view"),
            std::string::npos) << out;
  EXPECT_NE(out.find("FLASHCCL_ALGO: (not set)"), std::string::npos) << out;
  EXPECT_NE(out.find("\nallreduce (float, sum, 2 ranks)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nallgather (float, 2 ranks)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nreducescatter (float, sum, 2 ranks)\n"), std::string::npos) << out;

  const std::string oneshotRow = sourceOf(file, "algorithm=\"allreduce_oneshot\"");
  const std::string twoshotRow = sourceOf(file, "algorithm=\"allreduce_twoshot\"");
  // Above 2 MiB the measured table runs two-shot, up to the largest size.
  if (findBuiltinAlgorithm("allreduce_twoshot") != nullptr) {
    EXPECT_EQ(planLine(out, "allreduce", "128 MiB"),
              "  128 MiB    both          allreduce_twoshot      " + twoshotRow);
    EXPECT_EQ(planLine(out, "allreduce", "4 GiB"),
              "  4 GiB      both          allreduce_twoshot      " + twoshotRow);
  }
  // Below 1 MiB: the one-shot row, or, in a build without it, NCCL and the resolver's reason.
  const std::string small = planLine(out, "allreduce", "8 B");
  if (findBuiltinAlgorithm("allreduce_oneshot") != nullptr) {
    EXPECT_EQ(small, "  8 B        both          allreduce_oneshot      " + oneshotRow);
    EXPECT_EQ(run.code, 0) << out;
  } else {
    EXPECT_EQ(small.rfind("  8 B        both          nccl                   " + oneshotRow +
                              ": allreduce_oneshot (not available: unknown algorithm 'allreduce_oneshot' (known: ",
                          0),
              0u) << small;
    EXPECT_NE(out.find("rows and overrides this build cannot use"), std::string::npos) << out;
    EXPECT_NE(out.find("  " + oneshotRow + ": unknown algorithm 'allreduce_oneshot' (known: "),
              std::string::npos) << out;
    EXPECT_EQ(run.code, 1) << "rows the library would skip are problems";
  }
  // Every size from 8 B to -e 4 GiB, doubling.
  EXPECT_NE(planLine(out, "reducescatter", "8 B"), "");
  EXPECT_NE(planLine(out, "reducescatter", "2 GiB"), "");
  EXPECT_EQ(planLine(out, "reducescatter", "8 GiB"), "");
}

TEST_F(PlanTest, TopologyByPathWithRanges) {
  testing::TempDir dir;
  const std::string path = dir.write("split.xml", R"(<topology name="split">
  <selection measured="a test">
    <row coll="allreduce" maxBytes="1K" algorithm="nccl"/>
  </selection>
</topology>
)");
  const PlanRun run = plan({"--topo", path, "--ranks", "4", "-b", "512", "-e", "2K", "--coll",
                            "allreduce"});
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("communicator:  4 ranks (--ranks)"), std::string::npos) << run.out;
  EXPECT_EQ(planLine(run.out, "allreduce", "512 B"),
            "  512 B      both          nccl                   split.xml:3 names nccl");
  EXPECT_EQ(planLine(run.out, "allreduce", "2 KiB"),
            "  2 KiB      both          nccl                   no selection row for this size");
  EXPECT_EQ(planLine(run.out, "allreduce", "4 KiB"), "");
  EXPECT_EQ(run.out.find("\nallgather ("), std::string::npos) << run.out;
}

TEST_F(PlanTest, PlacementCannotPickARow) {
  testing::TempDir dir;
  const std::string path = dir.write("placed.xml", R"(<topology name="placed">
  <selection>
    <row coll="allreduce" placement="inplace" algorithm="nccl"/>
  </selection>
</topology>
)");
  const PlanRun run = plan({"--topo", path, "--ranks", "2", "-b", "512", "-e", "512"});
  EXPECT_NE(run.code, 0);
  EXPECT_NE((run.out + run.err).find("placement cannot select an algorithm"), std::string::npos) << run.out << run.err;
}

TEST_F(PlanTest, SizesBelowOneElementPerRank) {
  const PlanRun run = plan({"--topo", "hopper-8gpu-nvswitch", "-e", "64", "--coll", "allgather"});
  EXPECT_NE(run.out.find("communicator:  8 ranks"), std::string::npos) << run.out;
  EXPECT_EQ(planLine(run.out, "allgather", "8 B"),
            "  8 B        -             -                      less than one float per rank");
  EXPECT_NE(planLine(run.out, "allgather", "32 B"), "");  // one float per rank
}

TEST_F(PlanTest, FlashcclAlgoNcclForcesNccl) {
  setenv("FLASHCCL_ALGO", "nccl", 1);
  const PlanRun run = plan({"--topo", "hopper-2gpu-nvlink", "-b", "1K", "-e", "1K"});
  EXPECT_NE(run.out.find("FLASHCCL_ALGO: nccl"), std::string::npos) << run.out;
  EXPECT_EQ(planLine(run.out, "allreduce", "1 KiB"),
            "  1 KiB      both          nccl                   FLASHCCL_ALGO names nccl");
}

// docs/environment.md: FLASHCCL_ALGO=bogus names the algorithms it could have been.
TEST_F(PlanTest, UnknownForcedAlgorithmListsTheKnownNames) {
  setenv("FLASHCCL_ALGO", "bogus", 1);
  const PlanRun run = plan({"--topo", "hopper-2gpu-nvlink", "-b", "1K", "-e", "1K"});
  const std::string all = run.out + run.err;
  EXPECT_NE(all.find("unknown algorithm 'bogus' (known: nccl, "), std::string::npos) << all;
  for (const Algorithm* builtin : builtinAlgorithms())
    EXPECT_NE(all.find(builtin->name()), std::string::npos) << builtin->name() << "\n" << all;
}

// A shipped topology by its file name, as a newcomer copies it from topologies/.
TEST_F(PlanTest, ShippedTopologyNameTakesTheXmlSuffix) {
  const PlanRun run = plan({"--topo", "hopper-8gpu-nvswitch.xml", "-e", "64", "--coll", "allgather"});
  EXPECT_TRUE(run.err.empty()) << run.err;
  EXPECT_NE(run.out.find("communicator:  8 ranks"), std::string::npos) << run.out;
}

TEST_F(PlanTest, NoGpuDefaultsToANamedTopologyAndSaysSo) {
  if (hasNvidiaDriver()) GTEST_SKIP() << "this machine has a GPU";
  const PlanRun run = plan({"-b", "8", "-e", "8"});
  EXPECT_NE(run.out.find("no GPU detected; showing the plan for hopper-2gpu-nvlink (the default "
                         "when there is no GPU; choose another with --topo FILE|NAME)"),
            std::string::npos) << run.out << run.err;
  EXPECT_NE(run.out.find("machine:       no GPU (GPUs from none)"), std::string::npos) << run.out;

  // --topo and FLASHCCL_TOPO_FILE are named as the reason instead.
  const PlanRun named = plan({"--topo", "a100-8gpu-nvswitch", "-e", "8"});
  EXPECT_NE(named.out.find("no GPU detected; showing the plan for a100-8gpu-nvswitch (--topo)"),
            std::string::npos) << named.out;
  setenv("FLASHCCL_TOPO_FILE", "pcie-8gpu", 1);
  const PlanRun env = plan({"-e", "8"});
  EXPECT_NE(env.out.find("no GPU detected; showing the plan for pcie-8gpu (FLASHCCL_TOPO_FILE)"),
            std::string::npos) << env.out;
  EXPECT_EQ(env.code, 0) << env.out;  // an all-NCCL table has nothing this build cannot run
  // Its table was not measured on its machine class: nothing is armed, and the plan says why.
  EXPECT_NE(planLine(env.out, "allreduce", "8 B").find("not measured"), std::string::npos) << env.out;
}

TEST_F(PlanTest, UnmeasuredTablesArmOnlyWhenAskedFor) {
  const PlanRun off = plan({"--topo", "hopper-8gpu-nvswitch", "-b", "1K", "-e", "1K", "--coll", "allreduce"});
  EXPECT_NE(planLine(off.out, "allreduce", "1 KiB").find("nccl"), std::string::npos) << off.out;
  EXPECT_NE(planLine(off.out, "allreduce", "1 KiB").find("not measured on this machine class"), std::string::npos)
      << off.out;
  setenv("FLASHCCL_UNMEASURED", "1", 1);
  const PlanRun on = plan({"--topo", "hopper-8gpu-nvswitch", "-b", "1K", "-e", "1K", "--coll", "allreduce"});
  unsetenv("FLASHCCL_UNMEASURED");
  EXPECT_NE(planLine(on.out, "allreduce", "1 KiB").find("allreduce_oneshot"), std::string::npos) << on.out;
}

TEST_F(PlanTest, MachineDescription) {
  const PlanRun run = plan({"--topo", "hopper-2gpu-nvlink", "--show-machine", "-e", "8"});
  EXPECT_NE(run.out.find("\ndetected machine:\nGPUs ("), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("interconnect: "), std::string::npos) << run.out;
}

TEST_F(PlanTest, ExitCodes) {
  PlanRun run = plan({"--help"});
  EXPECT_EQ(run.code, 0);
  EXPECT_NE(run.out.find("Usage: flashccl plan [OPTIONS]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--show-machine"), std::string::npos) << run.out;

  // Usage errors: one line on stderr that names the problem, status 2 (docs/cli.md).
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"--ranks"}, {"--ranks", "zero"}, {"-b", "1Q"},
        {"-b", "1M", "-e", "1K"}, {"-f", "1"}, {"-d", "float128"}, {"-o", "xor"},
        {"-o", "premulsum"}, {"--coll", "alltoall"}, {"-n", "4"}}) {
    run = plan(bad);
    EXPECT_EQ(run.code, 2) << bad[0];
    EXPECT_EQ(run.err.rfind("flashccl plan: ", 0), 0u) << run.err;
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
    EXPECT_NE(run.err.find("(flashccl plan --help)"), std::string::npos) << run.err;
  }
  run = plan({"--coll", "alltoall"});
  EXPECT_NE(run.err.find("'alltoall' is not one of allreduce, allgather, reducescatter or all"),
            std::string::npos) << run.err;
  run = plan({"-d", "float128"});
  EXPECT_NE(run.err.find("int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, "
                         "f8e4m3, f8e5m2 or all"),
            std::string::npos) << run.err;
  run = plan({"-b", "1Q"});
  EXPECT_NE(run.err.find("'1Q' is not a size"), std::string::npos) << run.err;

  run = plan({"--topo", "/nonexistent/topology.xml"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "flashccl plan: --topo /nonexistent/topology.xml: no such file\n");

  testing::TempDir dir;
  const std::string broken = dir.write("broken.xml", "<topology name=\"b\">\n<selection>\n<row/>\n");
  run = plan({"--topo", broken});
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.err.find(broken + ":"), std::string::npos) << run.err;

  // A topology without a GPU count needs --ranks.
  const std::string countless =
      dir.write("countless.xml", "<topology name=\"c\"><selection/></topology>");
  run = plan({"--topo", countless});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err, "flashccl plan: c does not say how many GPUs it has; give --ranks N\n");
}

TEST(PlanOptions, SizesFollowNcclTests) {
  PlanOptions options;
  options.minBytes = 8;
  options.maxBytes = 64;
  EXPECT_EQ(planSizes(options), (std::vector<size_t>{8, 16, 32, 64}));
  options.maxBytes = 100;
  options.stepFactor = 3;
  EXPECT_EQ(planSizes(options), (std::vector<size_t>{8, 24, 72}));
  options.minBytes = options.maxBytes = size_t(1) << 62;
  EXPECT_EQ(planSizes(options).size(), 1u);
  EXPECT_EQ(PlanOptions().maxBytes, cli::kDefaultMaxBytes);  // the same default as perf
  EXPECT_EQ(formatSize(8), "8 B");
  EXPECT_EQ(formatSize(1536), "1536 B");
  EXPECT_EQ(formatSize(3 << 20), "3 MiB");
  EXPECT_EQ(formatSize(size_t(4) << 30), "4 GiB");
}

TEST(PlanCheck, WithoutACheckerNothingIsReportedValid) {
  std::ostringstream out, err;
  EXPECT_EQ(checkAlgorithmFiles(FLASHCCL_SOURCE_DIR "/topologies", nullptr, out, err), 1);
  EXPECT_NE(err.str().find("this build has no XML algorithm checker"), std::string::npos);
  EXPECT_TRUE(out.str().empty());
}

// The command line with the MSCCL validator wired in: every shipped algorithm file is valid, a
// broken one makes the run exit 1 and names the file, line and problem.
TEST(PlanCheck, ShippedAlgorithmsAreValidAndBrokenOnesAreNot) {
  ASSERT_NE(algorithmFileCheck(), nullptr);
  std::string args[] = {"plan", "--check", FLASHCCL_SOURCE_DIR "/algorithms"};
  char* argv[] = {&args[0][0], &args[1][0], &args[2][0], nullptr};
  std::ostringstream out, err;
  EXPECT_EQ(runPlan(3, argv, out, err), 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("algorithm files valid"), std::string::npos);
  EXPECT_EQ(out.str().find("INVALID"), std::string::npos) << out.str();

  std::string badArgs[] = {"plan", "--check", FLASHCCL_SOURCE_DIR "/tests/unit/data/msccl/broken"};
  char* badArgv[] = {&badArgs[0][0], &badArgs[1][0], &badArgs[2][0], nullptr};
  std::ostringstream badOut, badErr;
  EXPECT_EQ(runPlan(3, badArgv, badOut, badErr), 1);
  EXPECT_NE(badOut.str().find("INVALID  "), std::string::npos) << badOut.str();
  EXPECT_NE(badOut.str().find("0 of "), std::string::npos) << badOut.str();
}

TEST(PlanCheck, WalksTheDirectoryInOrder) {
  testing::TempDir dir;
  dir.write("b.xml", "bad");
  dir.write("a.xml", "good");
  dir.write("readme.txt", "ignored");
  auto check = [](const std::string& path, std::string* error) {
    std::ifstream in(path);
    std::string text;
    std::getline(in, text);
    if (text == "good") return true;
    *error = path + ":1: not a good file";
    return false;
  };
  std::ostringstream out, err;
  EXPECT_EQ(checkAlgorithmFiles(dir.path(), check, out, err), 1);
  EXPECT_EQ(out.str(), "ok       " + dir.path() + "/a.xml\nINVALID  " + dir.path() +
                           "/b.xml:1: not a good file\n1 of 2 algorithm files valid\n");

  testing::TempDir good;
  good.write("a.xml", "good");
  std::ostringstream out2, err2;
  EXPECT_EQ(checkAlgorithmFiles(good.path(), check, out2, err2), 0);

  testing::TempDir empty;
  std::ostringstream out3, err3;
  EXPECT_EQ(checkAlgorithmFiles(empty.path(), check, out3, err3), 1);
  EXPECT_EQ(err3.str(), "flashccl plan --check: no *.xml files in " + empty.path() + "\n");
  EXPECT_EQ(checkAlgorithmFiles("/nonexistent", check, out3, err3), 1);

  // One file, as docs/algorithms.md writes `flashccl plan --check my_allreduce.xml`.
  std::ostringstream out4, err4;
  EXPECT_EQ(checkAlgorithmFiles(dir.path() + "/a.xml", check, out4, err4), 0) << err4.str();
  EXPECT_EQ(out4.str(), "ok       " + dir.path() + "/a.xml\n1 of 1 algorithm files valid\n");
  std::ostringstream out5, err5;
  EXPECT_EQ(checkAlgorithmFiles(dir.path() + "/b.xml", check, out5, err5), 1);
  EXPECT_EQ(out5.str(), "INVALID  " + dir.path() + "/b.xml:1: not a good file\n0 of 1 algorithm files valid\n");
}

}  // namespace
}  // namespace flashccl
