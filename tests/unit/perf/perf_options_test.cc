// flashccl perf: command-line parsing, every error case, rank layouts and size validation.
#include <gtest/gtest.h>

#include "perf_options.h"

namespace flashccl {
namespace perf {
namespace {

ParseOutcome parse(std::vector<std::string> args) { return parsePerfOptions(args); }

std::string errorOf(std::vector<std::string> args) {
  const ParseOutcome outcome = parse(std::move(args));
  EXPECT_FALSE(outcome.ok);
  return outcome.error;
}

TEST(PerfOptions, DefaultsWithoutArguments) {
  const ParseOutcome outcome = parse({});
  ASSERT_TRUE(outcome.ok) << outcome.error;
  const PerfOptions& o = outcome.options;
  EXPECT_EQ(o.minBytes, 8u);
  EXPECT_EQ(o.maxBytes, 128u << 20);
  EXPECT_EQ(o.stepFactor, 2u);
  EXPECT_EQ(o.iters, 20);
  EXPECT_EQ(o.warmupIters, 5);
  EXPECT_EQ(o.pairs, 5);
  EXPECT_EQ(o.graphOps, 0);
  EXPECT_EQ(o.collectives.size(), 3u);
  ASSERT_EQ(o.dataTypes.size(), 1u);
  EXPECT_EQ(o.dataTypes[0], DataType::kFloat);
  ASSERT_EQ(o.reduceOps.size(), 1u);
  EXPECT_EQ(o.reduceOps[0], ReduceOp::kSum);
  ASSERT_EQ(o.placements.size(), 1u);
  EXPECT_EQ(o.placements[0], Placement::kOutOfPlace);
  EXPECT_TRUE(o.check);
  EXPECT_EQ(o.threads, 0);
  EXPECT_EQ(o.processes, 0);
  EXPECT_EQ(o.childRank, -1);
}

TEST(PerfOptions, NcclTestsStyleFlags) {
  const ParseOutcome outcome =
      parse({"-b", "8", "-e", "4G", "-f", "4", "-n", "50", "-w", "10", "-c", "all_reduce",
             "-d", "half,bfloat16", "-o", "max", "-i", "both", "-G", "20", "-t", "2",
             "--pairs", "7", "--no-check", "--json", "out.json", "--markdown=out.md",
             "--plot", "out.png", "--seed", "42", "-T", "30", "--machine", "2xH200"});
  ASSERT_TRUE(outcome.ok) << outcome.error;
  const PerfOptions& o = outcome.options;
  EXPECT_EQ(o.minBytes, 8u);
  EXPECT_EQ(o.maxBytes, 4ull << 30);
  EXPECT_EQ(o.stepFactor, 4u);
  EXPECT_EQ(o.iters, 50);
  EXPECT_EQ(o.warmupIters, 10);
  EXPECT_EQ(o.collectives, std::vector<Collective>{Collective::kAllReduce});
  EXPECT_EQ(o.dataTypes, (std::vector<DataType>{DataType::kHalf, DataType::kBfloat16}));
  EXPECT_EQ(o.reduceOps, std::vector<ReduceOp>{ReduceOp::kMax});
  EXPECT_EQ(o.placements, (std::vector<Placement>{Placement::kOutOfPlace, Placement::kInPlace}));
  EXPECT_EQ(o.graphOps, 20);
  EXPECT_EQ(o.threads, 2);
  EXPECT_EQ(o.pairs, 7);
  EXPECT_FALSE(o.check);
  EXPECT_EQ(o.jsonPath, "out.json");
  EXPECT_EQ(o.markdownPath, "out.md");
  EXPECT_EQ(o.plotPath, "out.png");
  EXPECT_EQ(o.seed, 42u);
  EXPECT_EQ(o.timeoutSeconds, 30);
  EXPECT_EQ(o.machineLabel, "2xH200");
}

TEST(PerfOptions, AttachedShortValuesAndLongNames) {
  const ParseOutcome outcome = parse({"-b1K", "--maxbytes=1M", "--iters", "3", "-g2"});
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.options.minBytes, 1024u);
  EXPECT_EQ(outcome.options.maxBytes, 1u << 20);
  EXPECT_EQ(outcome.options.iters, 3);
  EXPECT_EQ(outcome.options.gpusPerThread, 2);
}

TEST(PerfOptions, AllExpandsListsInOrder) {
  const ParseOutcome outcome = parse({"-c", "all", "-d", "all", "-o", "all"});
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.options.collectives.size(), 3u);
  EXPECT_EQ(outcome.options.dataTypes.size(), 12u);
  EXPECT_EQ(outcome.options.dataTypes.front(), DataType::kInt8);
  EXPECT_EQ(outcome.options.dataTypes.back(), DataType::kFloat8e5m2);
  EXPECT_EQ(outcome.options.reduceOps,
            (std::vector<ReduceOp>{ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax,
                                   ReduceOp::kAvg}));
}

TEST(PerfOptions, AliasesAndDuplicates) {
  const ParseOutcome outcome = parse({"-c", "allreduce,AllGather,rs,allreduce", "-d", "fp32,bf16"});
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.options.collectives,
            (std::vector<Collective>{Collective::kAllReduce, Collective::kAllGather,
                                     Collective::kReduceScatter}));
  EXPECT_EQ(outcome.options.dataTypes, (std::vector<DataType>{DataType::kFloat, DataType::kBfloat16}));
}

TEST(PerfOptions, SmokePresetFillsWhatWasNotGiven) {
  const ParseOutcome outcome = parse({"--smoke", "-e", "64K"});
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_TRUE(outcome.options.smoke);
  EXPECT_EQ(outcome.options.minBytes, 8u);
  EXPECT_EQ(outcome.options.maxBytes, 64u << 10);  // given explicitly: kept
  EXPECT_EQ(outcome.options.stepFactor, 16u);
  EXPECT_EQ(outcome.options.iters, 5);
  EXPECT_EQ(outcome.options.pairs, 3);
  EXPECT_EQ(outcome.options.placements.size(), 2u);
}

TEST(PerfOptions, HelpIsOkEvenWithOtherFlags) {
  const ParseOutcome outcome = parse({"-b", "8", "--help"});
  ASSERT_TRUE(outcome.ok);
  EXPECT_TRUE(outcome.options.help);
  EXPECT_NE(perfUsage().find("--procs"), std::string::npos);
  EXPECT_EQ(perfUsage().find("--child-rank"), std::string::npos) << "hidden options stay hidden";
}

TEST(PerfOptions, ErrorsNameTheProblem) {
  EXPECT_NE(errorOf({"-z"}).find("unknown option '-z'"), std::string::npos);
  EXPECT_NE(errorOf({"--bogus"}).find("unknown option '--bogus'"), std::string::npos);
  EXPECT_NE(errorOf({"-b"}).find("-b needs a value"), std::string::npos);
  EXPECT_NE(errorOf({"-b", "abc"}).find("'abc' is not a size"), std::string::npos);
  EXPECT_NE(errorOf({"-b", "0"}).find("zero"), std::string::npos);
  EXPECT_NE(errorOf({"-e", "4X"}).find("unknown suffix"), std::string::npos);
  EXPECT_NE(errorOf({"-b", "1.5M"}).find("unknown suffix"), std::string::npos);
  EXPECT_NE(errorOf({"-b", "2M", "-e", "1M"}).find("larger than -e"), std::string::npos);
  EXPECT_NE(errorOf({"-f", "1"}).find("out of range"), std::string::npos);
  EXPECT_NE(errorOf({"-n", "0"}).find("-n: 0 is out of range"), std::string::npos);
  EXPECT_NE(errorOf({"-n", "ten"}).find("-n: 'ten' is not a whole number"), std::string::npos);
  EXPECT_NE(errorOf({"-n", "-3"}).find("not a whole number"), std::string::npos);
  EXPECT_NE(errorOf({"-w", "1x"}).find("not a whole number"), std::string::npos);
  EXPECT_NE(errorOf({"--pairs", "101"}).find("out of range"), std::string::npos);
  EXPECT_NE(errorOf({"-t", "0"}).find("out of range"), std::string::npos);
  EXPECT_NE(errorOf({"-d", "float,quad"}).find("unknown datatype 'quad'"), std::string::npos);
  EXPECT_NE(errorOf({"-d", "quad"}).find("known: int8 uint8"), std::string::npos);
  EXPECT_NE(errorOf({"-o", "xor"}).find("unknown reduction op 'xor'"), std::string::npos);
  EXPECT_NE(errorOf({"-c", "broadcast"}).find("unknown collective 'broadcast'"), std::string::npos);
  EXPECT_NE(errorOf({"-c", ""}).find("unknown collective ''"), std::string::npos);
  EXPECT_NE(errorOf({"-i", "sideways"}).find("not a placement"), std::string::npos);
  EXPECT_NE(errorOf({"--check=yes"}).find("takes no value"), std::string::npos);
  EXPECT_NE(errorOf({"stray"}).find("unexpected argument 'stray'"), std::string::npos);
  EXPECT_NE(errorOf({"--procs", "2", "-t", "2"}).find("cannot be combined"), std::string::npos);
  EXPECT_NE(errorOf({"--child-rank", "0"}).find("go together"), std::string::npos);
  EXPECT_NE(errorOf({"--uid", "12"}).find("hex digits"), std::string::npos);
}

TEST(PerfOptions, ChildOptionsAreAcceptedAndHiddenFromTheCommand) {
  const std::string uid(2 * kUniqueIdBytes, 'a');
  const ParseOutcome outcome = parse({"--procs", "2", "-e", "1M", "--child-rank", "1", "--uid", uid,
                                      "--result-file", "/tmp/x"});
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.options.childRank, 1);
  EXPECT_EQ(outcome.options.resultFile, "/tmp/x");
  EXPECT_EQ(outcome.options.arguments, (std::vector<std::string>{"--procs", "2", "-e", "1M"}));
  EXPECT_NE(errorOf({"--procs", "2", "--child-rank", "2", "--uid", uid}).find("not below --procs"),
            std::string::npos);
  EXPECT_NE(errorOf({"--procs", "2", "--child-rank", "0", "--uid", std::string(256, 'z')})
                .find("not a hex string"),
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
  EXPECT_EQ(0, memcmp(bytes, back, sizeof(bytes)));
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
  ASSERT_TRUE(resolveRankLayout(parse({}).options, 2, &layout, &error)) << error;
  EXPECT_EQ(layout.threads, 2);
  EXPECT_EQ(layout.gpusPerThread, 1);
  EXPECT_EQ(layout.nranks(), 2);
  EXPECT_EQ(layout.modeName(), "threads");
  EXPECT_EQ(layout.describe(), "2 threads x 1 GPU each (threads mode)");
}

TEST(RankLayoutTest, GroupedAndProcesses) {
  RankLayout layout;
  std::string error;
  ASSERT_TRUE(resolveRankLayout(parse({"-g", "2"}).options, 2, &layout, &error)) << error;
  EXPECT_EQ(layout.threads, 1);
  EXPECT_EQ(layout.gpusPerThread, 2);
  EXPECT_EQ(layout.modeName(), "grouped");
  ASSERT_TRUE(resolveRankLayout(parse({"--procs", "2"}).options, 2, &layout, &error)) << error;
  EXPECT_EQ(layout.processes, 2);
  EXPECT_EQ(layout.nranks(), 2);
  EXPECT_EQ(layout.modeName(), "processes");
  ASSERT_TRUE(resolveRankLayout(parse({"--procs", "1"}).options, 2, &layout, &error)) << error;
  EXPECT_TRUE(layout.separateProcesses);
  EXPECT_EQ(layout.describe(), "1 process x 1 GPU each (processes mode)");
  ASSERT_TRUE(resolveRankLayout(parse({"-t", "2", "-g", "2"}).options, 4, &layout, &error));
  EXPECT_EQ(layout.nranks(), 4);
  EXPECT_EQ(layout.modeName(), "threads x grouped");
}

TEST(RankLayoutTest, TooManyGpusOrNone) {
  RankLayout layout;
  std::string error;
  EXPECT_FALSE(resolveRankLayout(parse({"-t", "4"}).options, 2, &layout, &error));
  EXPECT_EQ(error, "asked for 4 GPUs (-t 4) but only 2 are visible (cudaGetDeviceCount); lower "
                   "-t/-g/--procs or check CUDA_VISIBLE_DEVICES");
  EXPECT_FALSE(resolveRankLayout(parse({"-t", "2", "-g", "2"}).options, 3, &layout, &error));
  EXPECT_NE(error.find("asked for 4 GPUs (-t 2 x -g 2) but only 3 are visible"), std::string::npos);
  EXPECT_FALSE(resolveRankLayout(parse({"--procs", "3"}).options, 1, &layout, &error));
  EXPECT_NE(error.find("(--procs 3) but only 1 is visible"), std::string::npos);
  EXPECT_FALSE(resolveRankLayout(parse({}).options, 0, &layout, &error));
  EXPECT_EQ(error, "flashccl perf needs NVIDIA GPUs; none found (cudaGetDeviceCount: 0 devices)");
  EXPECT_EQ(noGpuMessage("cudaErrorNoDevice: no CUDA-capable device is detected"),
            "flashccl perf needs NVIDIA GPUs; none found (cudaGetDeviceCount: cudaErrorNoDevice: no "
            "CUDA-capable device is detected)");
}

TEST(ValidateSizes, DivisibilityOverRanksIsNamed) {
  EXPECT_EQ(validateSizes(parse({"-b", "8", "-e", "1M"}).options, 2), "");
  // 8 B of float over 3 ranks: AllReduce is fine, AllGather is not.
  const std::string problem = validateSizes(parse({"-b", "8", "-e", "64"}).options, 3);
  EXPECT_NE(problem.find("size 8 B cannot be split evenly over 3 ranks for all_gather"),
            std::string::npos)
      << problem;
  EXPECT_NE(problem.find("multiple of 3 x 4 = 12 B"), std::string::npos) << problem;
  // Doubles need 16 B on 2 ranks for ReduceScatter.
  EXPECT_NE(validateSizes(parse({"-b", "8", "-e", "64", "-c", "reduce_scatter", "-d", "double"})
                              .options,
                          2)
                .find("size 8 B cannot be split evenly over 2 ranks for reduce_scatter"),
            std::string::npos);
  // A size that is not a whole number of elements.
  EXPECT_NE(validateSizes(parse({"-b", "2", "-e", "2", "-c", "all_reduce"}).options, 1)
                .find("size 2 B is not a whole number of float elements"),
            std::string::npos);
}

}  // namespace
}  // namespace perf
}  // namespace flashccl
