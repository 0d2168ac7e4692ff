// tools/common/launched_rank: which rank a launcher gave this process, and where the ranks meet
// (`flashccl perf --launched`, `flashccl tune --launched`, doctor's cluster runs).
#include <gtest/gtest.h>

#include "launched_rank.h"

namespace flashccl {
namespace {

TEST(LaunchedRank, EachLaunchersVariables) {
  LaunchedRank rank;
  std::string problem;
  ASSERT_TRUE(detectLaunchedRank({{"RANK", "3"}, {"WORLD_SIZE", "16"}, {"LOCAL_RANK", "3"}}, &rank, &problem));
  EXPECT_EQ(rank.launcher, "torchrun");
  EXPECT_EQ(rank.rank, 3);
  EXPECT_EQ(rank.worldSize, 16);
  EXPECT_EQ(rank.localRank, 3);
  ASSERT_TRUE(detectLaunchedRank({{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "8"},
                                  {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}},
                                 &rank, &problem));
  EXPECT_EQ(rank.launcher, "Open MPI");
  EXPECT_EQ(rank.localRank, 1);
  ASSERT_TRUE(detectLaunchedRank({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}, &rank, &problem));
  EXPECT_EQ(rank.launcher, "MPICH/Hydra");
  EXPECT_EQ(rank.localRank, 0);  // not given: 0
  ASSERT_TRUE(detectLaunchedRank({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}}, &rank, &problem));
  EXPECT_EQ(rank.launcher, "Slurm");
  // torchrun under mpirun: torchrun's variables describe the process.
  ASSERT_TRUE(detectLaunchedRank({{"RANK", "1"}, {"WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "0"},
                                  {"OMPI_COMM_WORLD_SIZE", "2"}},
                                 &rank, &problem));
  EXPECT_EQ(rank.launcher, "torchrun");
  EXPECT_EQ(rank.worldSize, 4);
}

TEST(LaunchedRank, NoneOrInconsistent) {
  LaunchedRank rank;
  std::string problem = "stale";
  EXPECT_FALSE(detectLaunchedRank({}, &rank, &problem));
  EXPECT_EQ(problem, "");
  EXPECT_FALSE(detectLaunchedRank({{"RANK", "0"}}, &rank, &problem));  // a size is needed too
  EXPECT_FALSE(detectLaunchedRank({{"RANK", "x"}, {"WORLD_SIZE", "2"}}, &rank, &problem));
  EXPECT_EQ(problem, "");
  EXPECT_FALSE(detectLaunchedRank({{"RANK", "4"}, {"WORLD_SIZE", "2"}}, &rank, &problem));
  EXPECT_EQ(problem, "torchrun says rank 4 of 2 (RANK, WORLD_SIZE)");
}

TEST(LaunchedRank, RendezvousFromNcclCommIdOrMasterAddress) {
  std::string address, problem;
  ASSERT_TRUE(rendezvousAddress({{"NCCL_COMM_ID", "10.0.0.1:4000"}, {"MASTER_ADDR", "x"}, {"MASTER_PORT", "1"}},
                                &address, &problem));
  EXPECT_EQ(address, "10.0.0.1:4000");
  ASSERT_TRUE(rendezvousAddress({{"MASTER_ADDR", "node-0"}, {"MASTER_PORT", "29500"}}, &address, &problem));
  EXPECT_EQ(address, "node-0:29500");
  // torchrun's agent serves its own store on MASTER_PORT.
  ASSERT_TRUE(rendezvousAddress({{"MASTER_ADDR", "node-0"}, {"MASTER_PORT", "29500"},
                                 {"TORCHELASTIC_USE_AGENT_STORE", "True"}},
                                &address, &problem));
  EXPECT_EQ(address, "node-0:29501");
  ASSERT_TRUE(rendezvousAddress({{"MASTER_ADDR", "fe80::1"}, {"MASTER_PORT", "7"}}, &address, &problem));
  EXPECT_EQ(address, "[fe80::1]:7");
  EXPECT_FALSE(rendezvousAddress({{"MASTER_ADDR", "node-0"}}, &address, &problem));
  EXPECT_NE(problem.find("set NCCL_COMM_ID=HOST:PORT"), std::string::npos);
  EXPECT_FALSE(rendezvousAddress({{"MASTER_ADDR", "h"}, {"MASTER_PORT", "65535"},
                                  {"TORCHELASTIC_USE_AGENT_STORE", "True"}},
                                 &address, &problem));
}

TEST(LaunchedRank, ProcessEnvironmentIsThisProcesss) {
  setenv("FLASHCCL_LAUNCHED_RANK_TEST", "a=b", 1);
  EXPECT_EQ(processEnvironment()["FLASHCCL_LAUNCHED_RANK_TEST"], "a=b");
  unsetenv("FLASHCCL_LAUNCHED_RANK_TEST");
}

}  // namespace
}  // namespace flashccl
