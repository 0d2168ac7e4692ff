// flashccl tune: the NCCL choices it forces and flashccl's algorithms it measures.
#include <gtest/gtest.h>

#include "candidates.h"

namespace flashccl {
namespace tune {
namespace {

TEST(Candidates, CrossProductInListOrder) {
  CandidateLists lists;
  lists.algorithms = {"ring", "tree"};
  lists.protocols = {"ll", "simple"};
  lists.channels = {0, 4};
  const std::vector<NcclChoice> choices = crossProduct(lists);
  ASSERT_EQ(choices.size(), 8u);
  EXPECT_EQ(choices[0].forceEntry(), "ring:ll");
  EXPECT_EQ(choices[1].forceEntry(), "ring:ll:4");
  EXPECT_EQ(choices[2].forceEntry(), "ring:simple");
  EXPECT_EQ(choices[7].forceEntry(), "tree:simple:4");
  EXPECT_EQ(choices[0].label(), "ring/ll");
  EXPECT_EQ(choices[7].label(), "tree/simple, 4 channels");  // the plugin's describeChoice wording
  EXPECT_EQ(crossProduct(CandidateLists()).size(), 18u);     // the defaults: 2 x 3 x 3
}

TEST(Candidates, ListsTakeTheTunersSpellingsAndRefuseNvls) {
  std::vector<std::string> names;
  std::string error;
  ASSERT_TRUE(parseAlgorithmList("Ring,TREE,pat,CollnetDirect,ring", &names, &error)) << error;
  EXPECT_EQ(names, (std::vector<std::string>{"ring", "tree", "pat", "collnet_direct"}));  // repeats dropped
  EXPECT_FALSE(parseAlgorithmList("ring,nvls", &names, &error));
  EXPECT_EQ(error, "'nvls' needs NVLink multicast, which flashccl never turns on (NCCL_NVLS_ENABLE=0)");
  EXPECT_FALSE(parseAlgorithmList("ring,rign", &names, &error));
  EXPECT_EQ(error, "'rign' is not an NCCL algorithm (ring, tree, pat, collnet_direct or collnet_chain)");
  ASSERT_TRUE(parseProtocolList("LL128,Simple", &names, &error)) << error;
  EXPECT_EQ(names, (std::vector<std::string>{"ll128", "simple"}));
  EXPECT_FALSE(parseProtocolList("ll,", &names, &error));
  EXPECT_EQ(error, "'' is not an NCCL protocol (ll, ll128 or simple)");
  std::vector<int> channels;
  ASSERT_TRUE(parseChannelList("0,2,16", &channels, &error)) << error;
  EXPECT_EQ(channels, (std::vector<int>{0, 2, 16}));
  EXPECT_FALSE(parseChannelList("2,-1", &channels, &error));
  EXPECT_EQ(error, "'-1' is not a channel count (0 for NCCL's own, up to 1024)");
  EXPECT_FALSE(parseChannelList("4096", &channels, &error));
}

TEST(Candidates, ExplicitCandidates) {
  std::vector<NcclChoice> choices;
  std::string error;
  ASSERT_TRUE(parseCandidateList("ring:ll,Tree:Simple:4", &choices, &error)) << error;
  ASSERT_EQ(choices.size(), 2u);
  EXPECT_EQ(choices[1].forceEntry(), "tree:simple:4");
  EXPECT_FALSE(parseCandidateList("ring", &choices, &error));
  EXPECT_EQ(error, "'ring' is not algorithm:protocol[:channels] (e.g. ring:ll or tree:simple:4)");
  EXPECT_FALSE(parseCandidateList("ring:ll:2:2", &choices, &error));
  EXPECT_FALSE(parseCandidateList("nvls_tree:simple", &choices, &error));
  EXPECT_NE(error.find("NVLink multicast"), std::string::npos);
}

TEST(Candidates, FlashcclAlgorithms) {
  std::vector<FlashcclAlgorithm> algorithms;
  std::string error;
  ASSERT_TRUE(parseFlashcclAlgorithms("builtin", &algorithms, &error));
  EXPECT_EQ(algorithms.size(), builtinFlashcclAlgorithms().size());
  ASSERT_TRUE(parseFlashcclAlgorithms("none", &algorithms, &error));
  EXPECT_TRUE(algorithms.empty());
  ASSERT_TRUE(parseFlashcclAlgorithms("allgather_ring--gpus_8-channels_8-proto_LL.xml,reducescatter:mine.xml",
                                      &algorithms, &error))
      << error;
  ASSERT_EQ(algorithms.size(), 2u);
  EXPECT_EQ(algorithms[0].collective, perf::Collective::kAllGather);
  EXPECT_EQ(algorithms[1].collective, perf::Collective::kReduceScatter);
  EXPECT_EQ(algorithms[1].name, "mine.xml");
  EXPECT_FALSE(parseFlashcclAlgorithms("mine.xml", &algorithms, &error));
  EXPECT_EQ(error, "'mine.xml': which collective does it implement? Write it as collective:mine.xml");
  EXPECT_FALSE(parseFlashcclAlgorithms("broadcast:x", &algorithms, &error));
  EXPECT_EQ(error, "'broadcast:x': 'broadcast' is not one of allreduce, allgather or reducescatter");
  EXPECT_FALSE(parseFlashcclAlgorithms("allreduce:", &algorithms, &error));
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
