// The host logic of the GPU check across nodes (tests/gpu/hierarchy_*): which cases it runs, the
// algorithm each must have run, how its outputs are compared with NCCL's, its record, the unique
// id it passes through a file, and what its launcher starts (a dry run).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_fp16.h>

#include "hierarchy_cases.h"
#include "hierarchy_id_file.h"
#include "hierarchy_record.h"
#include "support/temp_dir.h"
#include "test_inputs.h"

namespace flashccl_gpu_test::hierarchy {
namespace {

constexpr size_t MiB = 1 << 20;

TEST(HierarchyCheckCases, MatricesCoverEveryTypeOpPlacementAndMode) {
  const std::vector<Coll> all = {Coll::kAllReduce, Coll::kAllGather, Coll::kReduceScatter};
  const std::vector<Case> full = makeCases(all, Matrix::kFull);
  const std::vector<Case> standard = makeCases(all, Matrix::kStandard);
  const std::vector<Case> quick = makeCases(all, Matrix::kQuick);
  // 12 types x 7 ops (AllGather: 1) x 6 sizes x 2 placements x 2 modes.
  EXPECT_EQ(full.size(), size_t(2 * 12 * 7 * 6 * 4 + 12 * 6 * 4));
  EXPECT_LT(standard.size(), full.size());
  EXPECT_LT(quick.size(), standard.size());
  std::set<std::string> names;
  for (const Case& c : full) EXPECT_TRUE(names.insert(c.name()).second) << c.name();
  // Standard leaves out only 64 MiB cases, and keeps every type with sum and every op with float there.
  std::set<std::string> kept;
  for (const Case& c : standard) kept.insert(c.name());
  for (const Case& c : full) {
    const bool largest = c.count * typeSize(c.dtype) == 64 * MiB;
    const bool everyTypeOrOp = c.op == Op::kSum || c.dtype == ncclFloat32;
    EXPECT_EQ(kept.count(c.name()) == 1, !largest || everyTypeOrOp) << c.name();
  }
  // Cases sharing inputs come together: each (collective, type, count) is one run.
  std::set<std::string> finished;
  std::string current;
  for (const Case& c : full) {
    const std::string key = std::to_string(int(c.coll)) + "/" + std::to_string(int(c.dtype)) + "/" + std::to_string(c.count);
    if (key == current) continue;
    EXPECT_TRUE(finished.insert(key).second) << key << " comes back";
    current = key;
  }
}

TEST(HierarchyCheckCases, SizeClassesSpanEightBytesToSixtyFourMiBAndAnOddCount) {
  EXPECT_EQ(sizeClassBytes().front(), 8u);
  EXPECT_EQ(sizeClassBytes().back(), 64 * MiB);
  const std::vector<Case> cases = makeCases({Coll::kAllReduce}, Matrix::kQuick);
  bool odd = false, oneElement = false;
  for (const Case& c : cases) {
    odd = odd || c.count == kOddCount;
    oneElement = oneElement || (c.dtype == ncclFloat64 && c.count == 1);
  }
  EXPECT_TRUE(odd);
  EXPECT_TRUE(oneElement);  // 8 B of doubles: one element, fewer than the ranks
}

TEST(HierarchyCheckCases, ExpectedAlgorithms) {
  const Layout twoByTwo{4, 2, true, true};
  const Layout interleaved{4, 2, false, true};
  const Layout disabled{2, 2, true, false};
  auto expected = [](Coll coll, ncclDataType_t t, Op op, size_t count, const Layout& l, bool pipelined = false) {
    return expectedAlgorithm(Case{coll, t, op, count, false, false}, l, pipelined);
  };
  EXPECT_EQ(expected(Coll::kAllReduce, ncclFloat32, Op::kSum, 16, twoByTwo), "allreduce_hier_oneshot");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclFloat32, Op::kSum, 16 * 1024, twoByTwo), "allreduce_hier_oneshot");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclFloat32, Op::kSum, 16 * 1024 + 1, twoByTwo), "allreduce_hier");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclInt32, Op::kAvg, 16, twoByTwo), "allreduce_hier_oneshot");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclInt32, Op::kAvg, 1 << 20, twoByTwo), "NCCL");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclInt32, Op::kAvg, 16, twoByTwo, true), "NCCL");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclFloat32, Op::kSum, 16, twoByTwo, true), "allreduce_hier");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclFloat8e4m3, Op::kAvg, 16, twoByTwo), "NCCL");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclFloat8e5m2, Op::kPreMulSumHost, 16, twoByTwo), "NCCL");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclFloat8e5m2, Op::kProd, 16, twoByTwo), "allreduce_hier_oneshot");
  EXPECT_EQ(expected(Coll::kAllGather, ncclInt8, Op::kSum, 64 * MiB, twoByTwo), "allgather_hier");  // 256 MiB in all
  EXPECT_EQ(expected(Coll::kReduceScatter, ncclBfloat16, Op::kPreMulSumDevice, 4, twoByTwo), "reducescatter_hier");
  EXPECT_EQ(expected(Coll::kReduceScatter, ncclUint64, Op::kAvg, 4, twoByTwo), "NCCL");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclFloat32, Op::kSum, 1 << 20, interleaved), "allreduce_hier");
  EXPECT_EQ(expected(Coll::kAllGather, ncclFloat32, Op::kSum, 4, interleaved), "NCCL");
  EXPECT_EQ(expected(Coll::kReduceScatter, ncclFloat32, Op::kSum, 4, interleaved), "NCCL");
  EXPECT_EQ(expected(Coll::kAllReduce, ncclFloat32, Op::kSum, 16, disabled), "NCCL");
}

std::vector<char> floats(const std::vector<float>& values) {
  std::vector<char> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(HierarchyCheckCompare, BitwiseWhereOrderCannotMatter) {
  const std::vector<std::vector<char>> inputs(4, floats({1.0f, 1.0f}));
  const std::vector<double> scalars(4, 1.0);
  const std::vector<char> nccl = floats({4.0f, 4.0f});
  const std::vector<char> off = floats({4.0f, std::nextafter(4.0f, 5.0f)});
  // Max of floats, AllGather, integers: one ulp is a failure.
  EXPECT_FALSE(compareWithNccl(Case{Coll::kAllReduce, ncclFloat32, Op::kMax, 2, false, false}, 0, 4, inputs, scalars, off, nccl).ok);
  EXPECT_FALSE(compareWithNccl(Case{Coll::kAllGather, ncclFloat32, Op::kSum, 2, false, false}, 0, 4, inputs, scalars, off, nccl).ok);
  EXPECT_FALSE(compareWithNccl(Case{Coll::kAllReduce, ncclFloat32, Op::kSum, 2, false, false}, 0, 2, inputs, scalars, off, nccl).ok);
  // A float sum over four ranks may differ by the rounding of another order.
  const Verdict sum = compareWithNccl(Case{Coll::kAllReduce, ncclFloat32, Op::kSum, 2, false, false}, 0, 4, inputs, scalars, off, nccl);
  EXPECT_TRUE(sum.ok) << sum.detail;
  EXPECT_TRUE(compareWithNccl(Case{Coll::kAllReduce, ncclFloat32, Op::kMax, 2, false, false}, 0, 4, inputs, scalars, nccl, nccl).ok);
}

TEST(HierarchyCheckCompare, FloatTolerancesAreTheRoundingOfTwoOrders) {
  // Four ranks of 1.5: sums differ by at most 2 * 3 * 2^-24 * 6 between orders.
  const std::vector<std::vector<char>> inputs(4, floats({1.5f}));
  const std::vector<double> scalars(4, 1.0);
  const Case c{Coll::kAllReduce, ncclFloat32, Op::kSum, 1, false, false};
  const double bound = 2 * 3 * std::ldexp(1.0, -24) * 6;
  EXPECT_TRUE(compareWithNccl(c, 0, 4, inputs, scalars, floats({static_cast<float>(6 + 0.9 * bound)}), floats({6.0f})).ok);
  const Verdict far = compareWithNccl(c, 0, 4, inputs, scalars, floats({6.01f}), floats({6.0f}));
  EXPECT_FALSE(far.ok);
  EXPECT_NE(far.detail.find("element 0"), std::string::npos) << far.detail;
  // ReduceScatter: rank 1's output element 0 comes from input element count + 0.
  std::vector<std::vector<char>> rs(4, floats({1.0f, 1000.0f}));
  const Case scatter{Coll::kReduceScatter, ncclFloat32, Op::kSum, 1, false, false};
  const std::vector<char> ncclOut = floats({4000.0f});
  EXPECT_TRUE(compareWithNccl(scatter, 1, 4, rs, scalars, floats({std::nextafter(4000.0f, 5000.0f)}), ncclOut).ok);
  // Rank 0's element comes from the inputs' first element (1.0 each): a 0.001 slip is out of bounds.
  EXPECT_FALSE(compareWithNccl(scatter, 0, 4, rs, scalars, floats({4.001f}), floats({4.0f})).ok);
}

TEST(HierarchyCheckCompare, ElementValuesOfEveryType) {
  for (int t = 0; t < static_cast<int>(ncclNumTypes); ++t) {
    const ncclDataType_t dtype = static_cast<ncclDataType_t>(t);
    const std::vector<char> one = makeInput(dtype, 64, 0, 3);
    for (size_t i = 0; i < 64; ++i) {
      const double v = elementValue(dtype, one.data() + i * typeSize(dtype));
      EXPECT_GE(std::fabs(v), 0.4) << t;  // the inputs are never zero, never huge
      EXPECT_LE(std::fabs(v), 3.0) << t;
    }
  }
}

TEST(HierarchyCheckIdFile, RoundTripAndTimeOut) {
  flashccl::testing::TempDir dir;
  const std::string path = dir.path() + "/id";
  ncclUniqueId written, read;
  for (size_t i = 0; i < sizeof(written.internal); ++i) written.internal[i] = static_cast<char>(i * 7);
  EXPECT_EQ(readIdFile(path, 0.05, &read).find("no unique id in"), 0u);
  EXPECT_EQ(writeIdFile(path, written), "");
  EXPECT_EQ(readIdFile(path, 1, &read), "");
  EXPECT_EQ(std::memcmp(written.internal, read.internal, sizeof(read.internal)), 0);
}

TEST(HierarchyCheckRecord, SummaryAndMarkdown) {
  ScenarioRecord record("2x2", "2 nodes, 4 ranks");
  record.setSetup(true, "armed");
  record.addCase("allreduce_float_sum_8B_outofplace_eager", true, "");
  EXPECT_TRUE(record.passed());
  EXPECT_EQ(record.summaryLine().rfind("PASS 2x2: 1 cases, set-up armed", 0), 0u) << record.summaryLine();
  record.addCase("allgather_half_4KiB_inplace_graph", false, "rank 0: element 3 differs from NCCL's, bitwise");
  EXPECT_FALSE(record.passed());
  EXPECT_EQ(record.summaryLine().rfind("FAIL 2x2: 1 of 2 cases failed", 0), 0u) << record.summaryLine();
  const std::string md = record.markdown();
  EXPECT_NE(md.find("### 2x2: FAIL"), std::string::npos) << md;
  EXPECT_NE(md.find("| allgather_half_4KiB_inplace_graph: rank 0: element 3 differs from NCCL's, bitwise |"),
            std::string::npos) << md;
  ScenarioRecord wrongSetup("uneven", "2 nodes, 3 ranks");
  wrongSetup.setSetup(false, "armed");
  wrongSetup.addCase("a", true, "");
  EXPECT_FALSE(wrongSetup.passed());
  EXPECT_NE(wrongSetup.markdown().find("(not what this layout needs)"), std::string::npos);
  ScenarioRecord nothingRan("x", "y");
  nothingRan.setSetup(true, "armed");
  EXPECT_FALSE(nothingRan.passed());  // a scenario that ran no case proves nothing
}

// The launcher's dry run: every rank its own NCCL_HOSTID, the node ids of its scenario, sockets
// on lo and NVLS off everywhere.
TEST(HierarchyCheckLauncher, DryRunStartsEveryRankAsItsOwnHost) {
  flashccl::testing::TempDir dir;
  const std::string command = std::string(FLASHCCL_SOURCE_DIR) + "/tests/gpu/hierarchy_check.sh " + dir.path() +
                              " --dry-run --build-dir /nonexistent 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char chunk[4096];
  while (size_t n = fread(chunk, 1, sizeof(chunk), pipe)) output.append(chunk, n);
  ASSERT_EQ(pclose(pipe), 0) << output;
  std::map<std::string, std::vector<std::string>> nodesOf;
  std::set<std::string> hostIds;
  std::istringstream lines(output);
  std::string line;
  int ranks = 0;
  while (std::getline(lines, line)) {
    ++ranks;
    const std::string scenario = line.substr(0, line.find(' '));
    const size_t host = line.find("NCCL_HOSTID=");
    ASSERT_NE(host, std::string::npos) << line;
    EXPECT_TRUE(hostIds.insert(line.substr(host, line.find(' ', host) - host)).second) << line;
    const size_t node = line.find("FLASHCCL_NODE_ID=");
    ASSERT_NE(node, std::string::npos) << line;
    nodesOf[scenario].push_back(line.substr(node + 17, line.find(' ', node) - node - 17));
    EXPECT_NE(line.find("NCCL_SOCKET_IFNAME=lo"), std::string::npos) << line;
    EXPECT_NE(line.find("NCCL_NVLS_ENABLE=0"), std::string::npos) << line;
    // The rows across nodes are not measured: without the opt-in every call would be NCCL's.
    EXPECT_NE(line.find("FLASHCCL_UNMEASURED=1"), std::string::npos) << line;
  }
  EXPECT_EQ(ranks, 4 + 4 + 4 + 2 + 3 + 4);
  EXPECT_EQ(nodesOf["2x2"], (std::vector<std::string>{"n0", "n0", "n1", "n1"}));
  EXPECT_EQ(nodesOf["2x2-interleaved"], (std::vector<std::string>{"n0", "n1", "n0", "n1"}));
  EXPECT_EQ(nodesOf["2x1"], (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(nodesOf["uneven"], (std::vector<std::string>{"n0", "n0", "n1"}));
  EXPECT_NE(output.find("--expect-disabled one\\ rank\\ on\\ each"), std::string::npos) << output;
  EXPECT_NE(output.find("FLASHCCL_ALGO=allreduce:allreduce_hier"), std::string::npos) << output;
}

}  // namespace
}  // namespace flashccl_gpu_test::hierarchy
