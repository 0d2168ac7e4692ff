// flashccl perf: command-line parsing with nccl-tests' flags, every error case, rank layouts and
// size validation.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "perf_options.h"

namespace flashccl {
namespace perf {
namespace {

struct Parsed {
  ParseOutcome outcome;
  std::string out;
  std::string err;
};

Parsed parseAll(std::vector<std::string> args) {
  std::ostringstream out, err;
  Parsed parsed{parsePerfOptions(args, out, err), "", ""};
  parsed.out = out.str();
  parsed.err = err.str();
  return parsed;
}

PerfOptions parse(std::vector<std::string> args) {
  const Parsed parsed = parseAll(std::move(args));
  EXPECT_EQ(parsed.outcome.status, -1) << parsed.err;
  return parsed.outcome.options;
}

// A usage error: status 2, one line on stderr, which is returned.
std::string errorOf(std::vector<std::string> args) {
  const Parsed parsed = parseAll(args);
  EXPECT_EQ(parsed.outcome.status, 2) << args[0];
  EXPECT_EQ(parsed.err.rfind("flashccl perf: ", 0), 0u) << parsed.err;
  EXPECT_EQ(parsed.err.find('\n'), parsed.err.size() - 1) << "one line: " << parsed.err;
  return parsed.err;
}

TEST(PerfOptions, DefaultsWithoutArguments) {
  const PerfOptions o = parse({});
  EXPECT_EQ(o.sizes.minBytes, 8u);
  EXPECT_EQ(o.sizes.maxBytes, 128u << 20);
  EXPECT_EQ(o.sizes.stepFactor, 2u);
  EXPECT_EQ(o.stepBytes, 0u);
  EXPECT_EQ(o.iters, 20);
  EXPECT_EQ(o.warmupIters, 5);
  EXPECT_EQ(o.aggIters, 1);
  EXPECT_EQ(o.cycles, 1);
  EXPECT_EQ(o.pairs, 9);
  EXPECT_EQ(o.graphReplays, 0);
  EXPECT_EQ(o.average, RankAverage::kMean);  // nccl-tests' default
  EXPECT_FALSE(o.blocking);
  EXPECT_FALSE(o.cpuTime);
  EXPECT_EQ(o.collectives.size(), 3u);
  EXPECT_EQ(o.dataTypes, std::vector<DataType>{DataType::kFloat});
  EXPECT_EQ(o.reduceOps, std::vector<ReduceOp>{ReduceOp::kSum});
  EXPECT_EQ(o.placements, (std::vector<Placement>{Placement::kOutOfPlace, Placement::kInPlace}));
  EXPECT_TRUE(o.check);
  EXPECT_EQ(o.threads, 0);
  EXPECT_EQ(o.processes, 0);
  EXPECT_EQ(o.childRank, -1);
}

TEST(PerfOptions, FlagsMeanWhatTheyMeanInNcclTests) {
  const PerfOptions o =
      parse({"-b", "8", "-e", "4G", "-f", "4", "-t", "2", "-g", "1", "-n", "50", "-w", "10", "-m", "3",
             "-N", "2", "-c", "0", "-o", "max", "-d", "half,bfloat16", "-r", "1", "-z", "1", "-G", "7", "-a",
             "3", "-C", "1", "-T", "30", "-J", "out.json"});
  EXPECT_EQ(o.sizes.minBytes, 8u);
  EXPECT_EQ(o.sizes.maxBytes, 4ull << 30);
  EXPECT_EQ(o.sizes.stepFactor, 4u);
  EXPECT_EQ(o.threads, 2);
  EXPECT_EQ(o.gpusPerThread, 1);
  EXPECT_EQ(o.iters, 50);
  EXPECT_EQ(o.warmupIters, 10);
  EXPECT_EQ(o.aggIters, 3);
  EXPECT_EQ(o.cycles, 2);
  EXPECT_FALSE(o.check);
  EXPECT_EQ(o.reduceOps, std::vector<ReduceOp>{ReduceOp::kMax});
  EXPECT_EQ(o.dataTypes, (std::vector<DataType>{DataType::kHalf, DataType::kBfloat16}));
  EXPECT_EQ(o.root, 1);
  EXPECT_TRUE(o.blocking);
  EXPECT_EQ(o.graphReplays, 7);
  EXPECT_EQ(o.average, RankAverage::kMax);
  EXPECT_TRUE(o.cpuTime);
  EXPECT_EQ(o.timeoutSeconds, 30);
  EXPECT_EQ(o.jsonPath, "out.json");
  // -i is nccl-tests' fixed step, not a placement.
  const PerfOptions linear = parse({"-b", "1M", "-e", "4M", "-i", "1M"});
  EXPECT_EQ(sweepSizes(linear), (std::vector<size_t>{1u << 20, 2u << 20, 3u << 20, 4u << 20}));
}

TEST(PerfOptions, OurLongOptions) {
  const PerfOptions o = parse({"--coll", "allreduce,reducescatter", "--placement", "in", "--pairs", "7",
                               "--markdown", "out.md", "--machine", "2xH200", "--seed", "42", "--json=x.json"});
  EXPECT_EQ(o.collectives, (std::vector<Collective>{Collective::kAllReduce, Collective::kReduceScatter}));
  EXPECT_EQ(o.placements, std::vector<Placement>{Placement::kInPlace});
  EXPECT_EQ(o.pairs, 7);
  EXPECT_EQ(o.markdownPath, "out.md");
  EXPECT_EQ(o.machineLabel, "2xH200");
  EXPECT_EQ(o.seed, 42u);
  EXPECT_EQ(o.jsonPath, "x.json");
  EXPECT_TRUE(parse({"--grouped"}).grouped);
  EXPECT_EQ(parse({"--processes", "2"}).processes, 2);
  EXPECT_EQ(parse({"-b8", "-e64"}).sizes.maxBytes, 64u) << "getopt's attached values";
}

TEST(PerfOptions, AllExpandsListsInOrderWithoutRepeats) {
  const PerfOptions o = parse({"-d", "all", "-o", "all,sum", "--coll", "allgather,all"});
  ASSERT_EQ(o.dataTypes.size(), static_cast<size_t>(kNumDataTypes));
  EXPECT_EQ(o.dataTypes.front(), DataType::kInt8);
  EXPECT_EQ(o.dataTypes.back(), DataType::kFloat8e5m2);
  EXPECT_EQ(o.reduceOps, (std::vector<ReduceOp>{ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMax, ReduceOp::kMin,
                                                ReduceOp::kAvg}));
  EXPECT_EQ(o.collectives, (std::vector<Collective>{Collective::kAllGather, Collective::kAllReduce,
                                                    Collective::kReduceScatter}));
}

TEST(PerfOptions, QuickPresetFillsWhatWasNotGiven) {
  const PerfOptions o = parse({"--quick", "-e", "4K"});
  EXPECT_TRUE(o.quick);
  EXPECT_EQ(o.sizes.maxBytes, 4096u);
  EXPECT_EQ(o.sizes.stepFactor, 16u);
  EXPECT_EQ(o.iters, 5);
  EXPECT_EQ(o.pairs, 3);
}

// nccl-tests 2.19's run flags as nccl-tests means them (docs/cli.md, "nccl-tests' run flags").
TEST(PerfOptions, NcclTestsRunFlagsAsNcclTestsMeansThem) {
  const PerfOptions checked = parse({"-c", "5"});  // check iterations
  EXPECT_EQ(checked.checkIters, 5);
  EXPECT_TRUE(checked.check);
  const PerfOptions unchecked = parse({"-c", "0"});
  EXPECT_EQ(unchecked.checkIters, 0);
  EXPECT_FALSE(unchecked.check);
  EXPECT_EQ(parse({"-N", "0"}).cycles, 0);  // 0: until interrupted
  EXPECT_EQ(parse({"--output_file", "x.json"}).jsonPath, "x.json");
  EXPECT_EQ(parse({"-J", "x.json"}).jsonPath, "x.json");
  // nccl-tests' defaults of -p -y -R -S are what perf does: a copied line runs.
  parse({"-p", "0", "-y", "0", "-R", "0", "-S", "0"});
  parse({"--parallel_init", "0", "--stream_null", "0", "--local_register", "0", "--report_timestamps", "0"});
  EXPECT_NE(errorOf({"-R", "1"}).find("nccl-tests' -R 1 (register the buffers with NCCL) is not taken"),
            std::string::npos);
  EXPECT_NE(errorOf({"-p", "1"}).find("-p 1"), std::string::npos);
  EXPECT_NE(errorOf({"-y", "1"}).find("-y 1"), std::string::npos);
  EXPECT_NE(errorOf({"-S", "1"}).find("-S 1"), std::string::npos);
  // premulsum (nccl-tests: mulsum) is not measured: refused by either name, and not offered.
  EXPECT_NE(errorOf({"-o", "mulsum"}).find("'mulsum' is not one of sum, prod, max, min, avg or all"),
            std::string::npos);
  const Parsed help = parseAll({"--help"});
  EXPECT_EQ(help.out.find("premulsum"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--output_file"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--quick"), std::string::npos) << help.out;
}

TEST(PerfOptions, NoGpuMessagesSayWhatIsMissing) {
  EXPECT_EQ(noGpuMessage("perf", "cudaErrorInsufficientDriver", "CUDA driver version is insufficient", false),
            "flashccl perf needs NVIDIA GPUs; no NVIDIA driver here (cudaGetDeviceCount: "
            "cudaErrorInsufficientDriver): install or load it (nvidia-smi should list the GPUs); flashccl doctor "
            "checks the driver");
  EXPECT_NE(noGpuMessage("tune", "cudaErrorInsufficientDriver", "x", true)
                .find("flashccl tune needs NVIDIA GPUs; the NVIDIA driver is older than flashccl's CUDA runtime"),
            std::string::npos);
  EXPECT_EQ(noGpuMessage("perf", "cudaErrorNoDevice", "no CUDA-capable device is detected", true),
            "flashccl perf needs NVIDIA GPUs; none found (cudaGetDeviceCount: cudaErrorNoDevice: no CUDA-capable "
            "device is detected)");
  EXPECT_EQ(noGpuMessage("perf", "cudaErrorNoDevice", "no CUDA-capable device is detected", false),
            noGpuMessage("perf", "cudaErrorNoDevice", "no CUDA-capable device is detected", true))
      << "only the runtime's insufficient-driver error needs telling apart";
  EXPECT_EQ(noGpuMessage("perf", "", "", true), "flashccl perf needs NVIDIA GPUs; none found (cudaGetDeviceCount: 0 devices)");
}

TEST(PerfOptions, HelpGoesToStdoutWithStatusZero) {
  const Parsed parsed = parseAll({"--help", "-b", "8"});
  EXPECT_EQ(parsed.outcome.status, 0);
  EXPECT_NE(parsed.out.find("Usage: flashccl perf [OPTIONS]"), std::string::npos) << parsed.out;
  for (const char* flag : {"-b,--minbytes", "-i,--stepbytes", "-G,--cudagraph", "-J,--json", "--coll", "--pairs"})
    EXPECT_NE(parsed.out.find(flag), std::string::npos) << flag;
  EXPECT_EQ(parsed.out.find("--child-rank"), std::string::npos) << "hidden options stay hidden";
  EXPECT_TRUE(parsed.err.empty());
}

TEST(PerfOptions, UsageErrorsNameTheValidValues) {
  EXPECT_NE(errorOf({"--coll", "broadcast"}).find("'broadcast' is not one of allreduce, allgather, reducescatter or all"),
            std::string::npos);
  EXPECT_NE(errorOf({"--coll", "all_reduce"}).find("not one of"), std::string::npos) << "one spelling";
  EXPECT_NE(errorOf({"-d", "float128"}).find("'float128' is not one of int8, uint8"), std::string::npos);
  EXPECT_NE(errorOf({"-o", "premulsum"}).find("'premulsum' is not one of sum, prod, max, min, avg or all"),
            std::string::npos);
  EXPECT_NE(errorOf({"-b", "1Q"}).find("'1Q' is not a size"), std::string::npos);
  EXPECT_NE(errorOf({"-b", "0"}).find("below 1"), std::string::npos);
  EXPECT_NE(errorOf({"--placement", "sideways"}).find("'sideways' is not one of out, in or both"),
            std::string::npos);
  EXPECT_NE(errorOf({"-c", "-1"}).find("--check: Value -1 not in range 0 to 1000000"), std::string::npos);
  EXPECT_NE(errorOf({"-N", "-1"}).find("--run_cycles: Value -1 not in range 0 to 1000000"), std::string::npos);
  EXPECT_NE(errorOf({"--smoke"}).find("--smoke"), std::string::npos) << "one spelling: --quick";
  EXPECT_NE(errorOf({"-a", "4"}).find("--average: Value 4 not in range 0 to 3"), std::string::npos);
  EXPECT_NE(errorOf({"-n", "zero"}).find("--iters: Value zero not in range 1 to 1000000"), std::string::npos);
  EXPECT_NE(errorOf({"stray"}).find("stray"), std::string::npos);
  EXPECT_NE(errorOf({"--no-such-option"}).find("--no-such-option"), std::string::npos);
  EXPECT_NE(errorOf({"-b", "1M", "-e", "1K"}).find("is larger than -e"), std::string::npos);
  EXPECT_NE(errorOf({"-i", "1M", "-f", "2"}).find("give one"), std::string::npos);
  EXPECT_NE(errorOf({"--processes", "2", "-t", "2"}).find("cannot be combined"), std::string::npos);
  EXPECT_NE(errorOf({"--grouped", "-t", "2"}).find("cannot be combined"), std::string::npos);
  EXPECT_NE(errorOf({"--child-rank", "0"}).find("go together"), std::string::npos);
  EXPECT_NE(errorOf({"-e"}).find("--maxbytes"), std::string::npos);
}

TEST(PerfOptions, ChildOptionsAreAcceptedAndHiddenFromTheCommand) {
  const std::string uid(2 * kUniqueIdBytes, 'a');
  const PerfOptions o =
      parse({"--processes", "2", "-e", "1M", "--child-rank", "1", "--uid", uid, "--result-file", "/tmp/x"});
  EXPECT_EQ(o.childRank, 1);
  EXPECT_EQ(o.resultFile, "/tmp/x");
  EXPECT_EQ(o.arguments, (std::vector<std::string>{"--processes", "2", "-e", "1M"}));
  EXPECT_NE(errorOf({"--processes", "2", "--child-rank", "2", "--uid", uid}).find("not below --processes"),
            std::string::npos);
  EXPECT_NE(errorOf({"--processes", "2", "--child-rank", "0", "--uid", std::string(256, 'z')}).find("hex digits"),
            std::string::npos);
}

TEST(PerfOptions, HexRoundTrip) {
  unsigned char bytes[kUniqueIdBytes];
  for (size_t i = 0; i < sizeof(bytes); ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 5);
  const std::string hex = bytesToHex(bytes, sizeof(bytes));
  ASSERT_EQ(hex.size(), 2 * kUniqueIdBytes);
  EXPECT_EQ(hex.substr(0, 4), "052a");
  unsigned char back[kUniqueIdBytes];
  ASSERT_TRUE(hexToBytes(hex, back, sizeof(back)));
  EXPECT_EQ(0, std::memcmp(bytes, back, sizeof(bytes)));
  EXPECT_FALSE(hexToBytes(hex.substr(2), back, sizeof(back)));
}

TEST(PerfOptions, QuotedCommand) {
  EXPECT_EQ(quotedCommand({"-b", "8", "-e", "4G"}), "flashccl perf -b 8 -e 4G");
  EXPECT_EQ(quotedCommand({"--machine", "2 x H200", "--json", "a'b.json"}),
            "flashccl perf --machine '2 x H200' --json 'a'\\''b.json'");
}

TEST(RankLayoutTest, DefaultsToEveryVisibleGpuAsThreads) {
  RankLayout layout;
  std::string error;
  ASSERT_TRUE(resolveRankLayout(parse({}), 2, &layout, &error)) << error;
  EXPECT_EQ(layout.threads, 2);
  EXPECT_EQ(layout.gpusPerThread, 1);
  EXPECT_EQ(layout.nranks(), 2);
  EXPECT_EQ(layout.modeName(), "threads");
  EXPECT_EQ(layout.describe(), "2 threads x 1 GPU each (threads mode)");
}

TEST(RankLayoutTest, GpusPerThreadGroupedAndProcesses) {
  RankLayout layout;
  std::string error;
  ASSERT_TRUE(resolveRankLayout(parse({"-g", "2"}), 2, &layout, &error)) << error;
  EXPECT_EQ(layout.threads, 1);
  EXPECT_EQ(layout.gpusPerThread, 2);
  EXPECT_EQ(layout.modeName(), "threads x gpus");
  ASSERT_TRUE(resolveRankLayout(parse({"--grouped"}), 2, &layout, &error)) << error;
  EXPECT_TRUE(layout.initAll);
  EXPECT_EQ(layout.nranks(), 2);
  EXPECT_EQ(layout.modeName(), "grouped");
  ASSERT_TRUE(resolveRankLayout(parse({"--processes", "2"}), 2, &layout, &error)) << error;
  EXPECT_EQ(layout.processes, 2);
  EXPECT_EQ(layout.modeName(), "processes");
  ASSERT_TRUE(resolveRankLayout(parse({"--processes", "1"}), 2, &layout, &error)) << error;
  EXPECT_TRUE(layout.separateProcesses);
  EXPECT_EQ(layout.describe(), "1 process x 1 GPU each (processes mode)");
  ASSERT_TRUE(resolveRankLayout(parse({"-t", "2", "-g", "2"}), 4, &layout, &error));
  EXPECT_EQ(layout.nranks(), 4);
}

TEST(RankLayoutTest, TooManyGpusOrNone) {
  RankLayout layout;
  std::string error;
  EXPECT_FALSE(resolveRankLayout(parse({"-t", "4"}), 2, &layout, &error));
  EXPECT_EQ(error, "asked for 4 GPUs (-t 4) but only 2 are visible (cudaGetDeviceCount); lower "
                   "-t/-g/--processes or check CUDA_VISIBLE_DEVICES");
  EXPECT_FALSE(resolveRankLayout(parse({"-t", "2", "-g", "2"}), 3, &layout, &error));
  EXPECT_NE(error.find("asked for 4 GPUs (-t 2 x -g 2) but only 3 are visible"), std::string::npos);
  EXPECT_FALSE(resolveRankLayout(parse({"--processes", "3"}), 1, &layout, &error));
  EXPECT_NE(error.find("(--processes 3) but only 1 is visible"), std::string::npos);
  EXPECT_FALSE(resolveRankLayout(parse({}), 0, &layout, &error));
  EXPECT_EQ(error, "flashccl perf needs NVIDIA GPUs; none found (cudaGetDeviceCount: 0 devices)");
}

TEST(RankLayoutTest, LaunchedIsOneRankOfTheLaunchersJobOnTheLocalRanksGpu) {
  PerfOptions options = parse({"--launched"});
  EXPECT_TRUE(options.launched);
  options.launch = {"Open MPI", 5, 16, 1};
  RankLayout layout;
  std::string error;
  ASSERT_TRUE(resolveRankLayout(options, 8, &layout, &error)) << error;
  EXPECT_EQ(layout.nranks(), 16);
  EXPECT_TRUE(layout.launched);
  EXPECT_EQ(layout.modeName(), "launched");
  EXPECT_EQ(layout.describe(), "16 processes x 1 GPU each (launched mode)");
  // Two processes on one GPU, each its own "node" (NCCL_HOSTID): local rank 0 both.
  options.launch = {"torchrun", 1, 2, 0};
  EXPECT_TRUE(resolveRankLayout(options, 1, &layout, &error)) << error;
  options.launch = {"torchrun", 3, 4, 3};
  EXPECT_FALSE(resolveRankLayout(options, 2, &layout, &error));
  EXPECT_EQ(error, "--launched: torchrun gives this process local rank 3, but only 2 GPUs are visible "
                   "(cudaGetDeviceCount); start one process per GPU, or check CUDA_VISIBLE_DEVICES");
  EXPECT_NE(errorOf({"--launched", "--processes", "2"}).find("--launched runs this process as one rank"),
            std::string::npos);
  EXPECT_NE(errorOf({"--launched", "-t", "2"}).find("cannot be combined with --processes, --grouped, -t or -g"),
            std::string::npos);
  EXPECT_NE(errorOf({"--launched", "--grouped"}).find("--launched"), std::string::npos);
}

TEST(ValidateSizes, DivisibilityOverRanksIsNamed) {
  EXPECT_EQ(validateSizes(parse({"-b", "8", "-e", "1M"}), 2), "");
  // 8 B of float over 3 ranks: AllReduce is fine, AllGather is not.
  const std::string problem = validateSizes(parse({"-b", "8", "-e", "64"}), 3);
  EXPECT_NE(problem.find("size 8 B cannot be split evenly over 3 ranks for allgather"), std::string::npos)
      << problem;
  EXPECT_NE(problem.find("multiple of 3 x 4 = 12 B"), std::string::npos) << problem;
  EXPECT_NE(validateSizes(parse({"-b", "8", "-e", "64", "--coll", "reducescatter", "-d", "double"}), 2)
                .find("size 8 B cannot be split evenly over 2 ranks for reducescatter"),
            std::string::npos);
  EXPECT_NE(validateSizes(parse({"-b", "2", "-e", "2", "--coll", "allreduce"}), 1)
                .find("size 2 B is not a whole number of float elements"),
            std::string::npos);
}

}  // namespace
}  // namespace perf
}  // namespace flashccl
