// Rows: names, which calls a row matches, and which pairs of rows make a table wrong.
#include <gtest/gtest.h>

#include "tuning_table.h"

namespace flashccl {
namespace {

using namespace nccl_abi;

TEST(TuningTable, NamesRoundTripAndAcceptNcclSpellings) {
  for (int coll = 0; coll < kNumTunedFuncs; ++coll) {
    int parsed = -1;
    EXPECT_TRUE(parseCollectiveName(collectiveName(coll), &parsed));
    EXPECT_EQ(parsed, coll);
  }
  for (int algorithm = 0; algorithm < kNumAlgorithms; ++algorithm) {
    int parsed = -1;
    EXPECT_TRUE(parseAlgorithmName(algorithmName(algorithm), &parsed));
    EXPECT_EQ(parsed, algorithm);
  }
  // NCCL_ALGO and NCCL_PROTO spell them this way.
  const std::pair<const char*, int> ncclAlgorithms[] = {
      {"Tree", kAlgoTree}, {"Ring", kAlgoRing}, {"CollnetDirect", kAlgoCollNetDirect},
      {"CollNetChain", kAlgoCollNetChain}, {"NVLS", kAlgoNvls}, {"NVLSTree", kAlgoNvlsTree},
      {"PAT", kAlgoPat}};
  for (const auto& [name, algorithm] : ncclAlgorithms) {
    int parsed = -1;
    EXPECT_TRUE(parseAlgorithmName(name, &parsed)) << name;
    EXPECT_EQ(parsed, algorithm) << name;
  }
  const std::pair<const char*, int> ncclProtocols[] = {
      {"LL", kProtoLL}, {"LL128", kProtoLL128}, {"Simple", kProtoSimple}};
  for (const auto& [name, protocol] : ncclProtocols) {
    int parsed = -1;
    EXPECT_TRUE(parseProtocolName(name, &parsed)) << name;
    EXPECT_EQ(parsed, protocol) << name;
  }
  int ignored = 0;
  EXPECT_FALSE(parseCollectiveName("all_reduce", &ignored));  // collectives as flashccl spells them
  EXPECT_FALSE(parseAlgorithmName("nccl", &ignored));
  EXPECT_FALSE(parseProtocolName("ll256", &ignored));
  EXPECT_FALSE(parseAlgorithmName("", &ignored));
}

TEST(TuningTable, RowMatchesEveryConditionItHas) {
  TuningRow row;
  row.coll = kFuncAllReduce;
  row.nranks = 8;
  row.nnodes = 1;
  row.minBytes = 1024;
  row.maxBytes = 4096;
  row.pipeOps = 2;
  row.regBuff = RegBuffFilter::kRegistered;
  EXPECT_TRUE(row.forCommunicator(8, 1));
  EXPECT_FALSE(row.forCommunicator(4, 1));
  EXPECT_FALSE(row.forCommunicator(8, 2));

  const TunedCall call{kFuncAllReduce, 2048, 2, true};
  EXPECT_TRUE(row.matches(call));
  for (size_t bytes : {size_t(1024), size_t(4096)}) {  // both ends inclusive
    TunedCall edge = call;
    edge.bytes = bytes;
    EXPECT_TRUE(row.matches(edge)) << bytes;
  }
  TunedCall other = call;
  other.coll = kFuncAllGather;
  EXPECT_FALSE(row.matches(other));
  other = call;
  other.bytes = 1023;
  EXPECT_FALSE(row.matches(other));
  other.bytes = 4097;
  EXPECT_FALSE(row.matches(other));
  other = call;
  other.numPipeOps = 1;
  EXPECT_FALSE(row.matches(other));
  other = call;
  other.regBuff = false;
  EXPECT_FALSE(row.matches(other));

  row.regBuff = RegBuffFilter::kUnregistered;
  EXPECT_TRUE(row.matches(other));
  EXPECT_FALSE(row.matches(call));
}

TEST(TuningTable, EmptyConditionsMatchAnything) {
  TuningRow row;  // any collective, ranks, nodes, size, pipelined ops, registration
  EXPECT_TRUE(row.forCommunicator(3, 7));
  for (int coll = 0; coll < kNumTunedFuncs; ++coll) {
    EXPECT_TRUE(row.matches({coll, 0, 1, false}));
    EXPECT_TRUE(row.matches({coll, SIZE_MAX, 9, true}));
  }
}

TEST(TuningTable, DescribesTheChoice) {
  TuningRow row;
  EXPECT_EQ(describeChoice(row), "NCCL's algorithm and protocol");
  row.channels = 4;
  EXPECT_EQ(describeChoice(row), "NCCL's algorithm and protocol, 4 channels");
  row.algorithm = kAlgoNvlsTree;
  row.protocol = kProtoLL128;
  EXPECT_EQ(describeChoice(row), "nvls_tree/ll128, 4 channels");
}

TuningRow band(int coll, size_t minBytes, size_t maxBytes, const char* source) {
  TuningRow row;
  row.coll = coll;
  row.minBytes = minBytes;
  row.maxBytes = maxBytes;
  row.source = source;
  return row;
}

TEST(TuningTable, ConflictsNameTheLaterRowAndTheEarlierOne) {
  size_t later = 0;
  std::string problem;
  // Different collectives never conflict; bands that touch at one value do not either.
  std::vector<TuningRow> rows = {band(kFuncAllReduce, 0, 100, "a"), band(kFuncAllGather, 0, 100, "b"),
                                 band(kFuncAllReduce, 100, 0, "c")};
  EXPECT_TRUE(checkRowConflicts(rows, &later, &problem)) << problem;

  rows.push_back(band(kFuncAllReduce, 50, 60, "d"));
  EXPECT_FALSE(checkRowConflicts(rows, &later, &problem));
  EXPECT_EQ(later, 3u);
  EXPECT_EQ(problem, "never applies: a comes first and takes every call it matches");

  rows.back() = band(kFuncAllGather, 99, 0, "e");
  EXPECT_FALSE(checkRowConflicts(rows, &later, &problem));
  EXPECT_EQ(later, 3u);
  EXPECT_EQ(problem, "overlaps b (both match allgather calls from 99 to 100 bytes)");

  // Two earlier bands together take every size of a later row for 8 ranks.
  rows.back() = band(kFuncAllReduce, 0, 1000, "f");
  rows.back().nranks = 8;
  EXPECT_FALSE(checkRowConflicts(rows, &later, &problem));
  EXPECT_EQ(problem, "never applies: a, c come first and take every call it matches");

  // With a gap between them, the later row still gets the sizes in the gap.
  rows[2].minBytes = 102;
  EXPECT_TRUE(checkRowConflicts(rows, &later, &problem)) << problem;
  rows[2].minBytes = 101;  // 100 by a, 101 and up by c: no gap
  EXPECT_FALSE(checkRowConflicts(rows, &later, &problem));
}

TEST(TuningTable, RowsForOtherRankCountsOrRegistrationsDoNotOverlap) {
  std::vector<TuningRow> rows = {band(kFuncAllReduce, 0, 0, "a"), band(kFuncAllReduce, 0, 0, "b"),
                                 band(kFuncAllReduce, 0, 0, "c")};
  rows[0].nranks = 8;
  rows[1].nranks = 4;
  rows[2].regBuff = RegBuffFilter::kRegistered;  // any ranks, after the specific ones
  size_t later = 0;
  std::string problem;
  EXPECT_TRUE(checkRowConflicts(rows, &later, &problem)) << problem;
  rows.push_back(band(kFuncAllReduce, 0, 0, "d"));
  rows.back().regBuff = RegBuffFilter::kRegistered;
  rows.back().nnodes = 2;
  EXPECT_FALSE(checkRowConflicts(rows, &later, &problem));
  EXPECT_EQ(problem, "never applies: c comes first and takes every call it matches");
}

}  // namespace
}  // namespace flashccl
