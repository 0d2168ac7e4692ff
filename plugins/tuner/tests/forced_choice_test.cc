// FLASHCCL_TUNER_FORCE: the forms `flashccl tune` and people use, and the mistakes.
#include <gtest/gtest.h>

#include "forced_choice.h"

namespace flashccl {
namespace {

using namespace nccl_abi;

TuningTable parseOk(const std::string& text) {
  TuningTable table;
  std::string error;
  EXPECT_TRUE(parseForcedChoice(text, &table, &error)) << error;
  return table;
}

TEST(ForcedChoice, OneChoiceForEveryCollective) {
  const TuningTable table = parseOk("ring:simple:8");
  EXPECT_TRUE(table.forced);
  EXPECT_EQ(table.origin, "FLASHCCL_TUNER_FORCE");
  ASSERT_EQ(table.rows.size(), 1u);
  const TuningRow& row = table.rows[0];
  EXPECT_EQ(row.coll, kAnyCollective);
  EXPECT_EQ(row.algorithm, kAlgoRing);
  EXPECT_EQ(row.protocol, kProtoSimple);
  EXPECT_EQ(row.channels, 8);
  EXPECT_EQ(row.source, "FLASHCCL_TUNER_FORCE entry 1 'ring:simple:8'");
  for (int coll = 0; coll < kNumTunedFuncs; ++coll) {
    EXPECT_TRUE(row.matches({coll, 1, 1, false}));
    EXPECT_TRUE(row.matches({coll, size_t(1) << 40, 4, true}));
  }
}

TEST(ForcedChoice, PerCollectiveEntriesChannelsOnlyAndNcclSpellings) {
  const TuningTable table = parseOk(" allreduce:Tree:LL , allgather:nccl:4, reducescatter:nccl, PAT:Simple");
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_EQ(table.rows[0].coll, kFuncAllReduce);
  EXPECT_EQ(table.rows[0].algorithm, kAlgoTree);
  EXPECT_EQ(table.rows[0].protocol, kProtoLL);
  EXPECT_EQ(table.rows[0].channels, 0);
  EXPECT_EQ(table.rows[1].coll, kFuncAllGather);
  EXPECT_FALSE(table.rows[1].choosesAlgorithm());
  EXPECT_EQ(table.rows[1].channels, 4);
  EXPECT_EQ(table.rows[2].coll, kFuncReduceScatter);
  EXPECT_FALSE(table.rows[2].choosesAlgorithm());
  EXPECT_EQ(table.rows[2].channels, 0);
  EXPECT_EQ(table.rows[3].coll, kAnyCollective);
  EXPECT_EQ(table.rows[3].algorithm, kAlgoPat);
}

TEST(ForcedChoice, MistakesAreNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"ring", "FLASHCCL_TUNER_FORCE=\"ring\": entry 1 'ring': an algorithm needs a protocol after "
               "it (ll, ll128, simple)"},
      {"ring:ll:8:2", "FLASHCCL_TUNER_FORCE=\"ring:ll:8:2\": entry 1 'ring:ll:8:2': too many fields "
                      "(expected [collective:]algorithm:protocol[:channels])"},
      {"ring:ll:x", "FLASHCCL_TUNER_FORCE=\"ring:ll:x\": entry 1 'ring:ll:x': 'x' is not a channel count"},
      {"ring:ll:-2", "FLASHCCL_TUNER_FORCE=\"ring:ll:-2\": entry 1 'ring:ll:-2': '-2' is not a channel count"},
      {"alltoall:ring:ll",
       "FLASHCCL_TUNER_FORCE=\"alltoall:ring:ll\": entry 1 'alltoall:ring:ll': 'alltoall' is neither "
       "a collective (broadcast, reduce, allgather, reducescatter, allreduce) nor an algorithm "
       "(tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat, nccl)"},
      {"allreduce", "FLASHCCL_TUNER_FORCE=\"allreduce\": entry 1 'allreduce': no algorithm after "
                    "the collective"},
      {"ring:ll,,tree:ll", "FLASHCCL_TUNER_FORCE=\"ring:ll,,tree:ll\": entry 2 '': empty entry"},
      {",", "FLASHCCL_TUNER_FORCE=\",\": entry 1 '': empty entry"},
      {"ring:ll,allreduce:tree:ll",
       "FLASHCCL_TUNER_FORCE=\"ring:ll,allreduce:tree:ll\": entry 2 'allreduce:tree:ll': never "
       "applies: FLASHCCL_TUNER_FORCE entry 1 'ring:ll' comes first and takes every call it matches"},
      {"allreduce:ring:ll,allreduce:tree:ll",
       "FLASHCCL_TUNER_FORCE=\"allreduce:ring:ll,allreduce:tree:ll\": entry 2 'allreduce:tree:ll': "
       "never applies: FLASHCCL_TUNER_FORCE entry 1 'allreduce:ring:ll' comes first and takes every "
       "call it matches"},
      {" ", "FLASHCCL_TUNER_FORCE is set but names no choice"},
  };
  for (const auto& [text, expected] : cases) {
    TuningTable table;
    std::string error;
    EXPECT_FALSE(parseForcedChoice(text, &table, &error)) << text;
    EXPECT_EQ(error, expected);
  }
}

TEST(ForcedChoice, ASpecificEntryBeforeTheGeneralOneIsFine) {
  const TuningTable table = parseOk("allreduce:tree:ll,ring:simple");
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_TRUE(table.rows[0].matches({kFuncAllReduce, 8, 1, false}));
  EXPECT_FALSE(table.rows[0].matches({kFuncBroadcast, 8, 1, false}));
}

}  // namespace
}  // namespace flashccl
