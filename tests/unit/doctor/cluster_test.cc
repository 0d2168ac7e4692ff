// Cluster runs: which rank this is under each launcher, the TCP gather to rank 0 (bounded,
// never blocking for ever), and rank 0's summary naming the slowest node, pair and NIC.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <future>
#include <thread>

#include "cluster_gather.h"
#include "cluster_launch.h"
#include "cluster_summary.h"

namespace flashccl {
namespace doctor {
namespace {

TEST(DoctorClusterLaunch, TorchrunOpenMpiAndSlurm) {
  ClusterRole role = detectClusterRole({{"RANK", "3"}, {"WORLD_SIZE", "16"}, {"LOCAL_RANK", "3"},
                                        {"MASTER_ADDR", "node-a"}, {"MASTER_PORT", "29500"}}, "");
  EXPECT_TRUE(role.active);
  EXPECT_EQ(role.launcher, "torchrun");
  EXPECT_EQ(role.rank, 3);
  EXPECT_EQ(role.localRank, 3);
  EXPECT_EQ(role.address, "node-a");
  EXPECT_EQ(role.port, 29500);
  EXPECT_TRUE(role.problem.empty());

  // torchrun's agent serves MASTER_PORT itself.
  role = detectClusterRole({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "29500"},
                            {"TORCHELASTIC_USE_AGENT_STORE", "True"}}, "");
  EXPECT_EQ(role.port, 29501);

  role = detectClusterRole({{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "8"},
                            {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}, "10.0.0.1:4000");
  EXPECT_EQ(role.launcher, "Open MPI");
  EXPECT_EQ(role.localRank, 1);
  EXPECT_EQ(role.address, "10.0.0.1");
  EXPECT_EQ(role.port, 4000);

  role = detectClusterRole({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "0"}}, "");
  EXPECT_EQ(role.launcher, "Slurm");
  EXPECT_NE(role.problem.find("set MASTER_ADDR and MASTER_PORT"), std::string::npos);

  EXPECT_FALSE(detectClusterRole({{"RANK", "0"}, {"WORLD_SIZE", "1"}}, "").active);
  EXPECT_FALSE(detectClusterRole({}, "").active);
  EXPECT_NE(detectClusterRole({{"RANK", "0"}, {"WORLD_SIZE", "2"}}, "host-without-port").problem.find("HOST:PORT"),
            std::string::npos);
  EXPECT_NE(detectClusterRole({{"RANK", "4"}, {"WORLD_SIZE", "2"}}, "h:1").problem.find("rank 4 of 2"),
            std::string::npos);
}

TEST(DoctorClusterGather, EveryRankReportsOnceAndLateComersAreRetried) {
  ReportCollector collector;
  std::string error;
  ASSERT_TRUE(collector.listen(0, &error)) << error;
  const int port = collector.port();
  std::vector<std::string> problems;
  auto arrivals = std::async(std::launch::async, [&] { return collector.collect(4, 20, &problems); });
  std::vector<std::thread> ranks;
  for (int rank = 1; rank < 4; ++rank) {
    ranks.emplace_back([rank, port] {
      std::string why;
      EXPECT_TRUE(sendReport("127.0.0.1", port, rank, "{\"rank\": " + std::to_string(rank) + "}", 20, &why)) << why;
    });
  }
  for (std::thread& t : ranks) t.join();
  const std::map<int, std::string> reports = arrivals.get();
  EXPECT_TRUE(problems.empty()) << problems.front();
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports.at(2), "{\"rank\": 2}");
}

TEST(DoctorClusterGather, AMissingRankAndAStrangerAreProblemsNotHangs) {
  ReportCollector collector;
  std::string error;
  ASSERT_TRUE(collector.listen(0, &error)) << error;
  const int port = collector.port();
  std::vector<std::string> problems;
  auto arrivals = std::async(std::launch::async, [&] { return collector.collect(3, 2, &problems); });
  // Something that is not doctor connects and writes a line.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  const char junk[] = "GET / HTTP/1.0\r\n\r\nxx";
  ASSERT_GT(write(fd, junk, sizeof(junk)), 0);
  close(fd);
  EXPECT_TRUE(sendReport("localhost", port, 1, "{}", 10, &error)) << error;
  const std::map<int, std::string> reports = arrivals.get();
  EXPECT_EQ(reports.size(), 1u);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("not a doctor report"), std::string::npos);
  EXPECT_EQ(problems[1], "rank 2 sent no report within 2 s");
}

TEST(DoctorClusterGather, NobodyListeningGivesUpAtTheDeadline) {
  std::string error;
  int port = 0;
  {
    ReportCollector probe;  // a port that was free a moment ago, closed again
    ASSERT_TRUE(probe.listen(0, &error));
    port = probe.port();
  }
  EXPECT_FALSE(sendReport("127.0.0.1", port, 1, "{}", 1, &error));
  EXPECT_NE(error.find("gave up after 1 s"), std::string::npos);
}

CheckResult valued(const std::string& family, const std::string& check, const std::string& subject,
                   double value, const std::string& unit, Verdict verdict = Verdict::kPass) {
  return withValue(makeCheck(family, check, subject, verdict, formatNumber(value, 1) + " " + unit, "-", "-"),
                   value, unit);
}

NodeReport node(const std::string& host, int rank, double busbw, double pair, double nicRate) {
  NodeReport report;
  report.host = host;
  report.rank = rank;
  report.machine = "8 x NVIDIA H200, nvswitch (18 NVLinks per pair)";
  report.checks = {valued(kFamilyCollectives, "busbw", "allreduce 1G, 8 ranks", busbw, "GB/s"),
                   valued(kFamilyPairs, "copy-engine", "8 GPUs, 56 ordered pairs", pair, "GB/s"),
                   valued(kFamilyNics, "port-rate", "mlx5_2/1", nicRate, "Gb/s")};
  return report;
}

TEST(DoctorClusterSummary, NamesTheSlowestNodePairAndNic) {
  ClusterReport cluster;
  cluster.worldSize = 32;
  cluster.nodes = {node("node-a", 0, 360, 396, 400), node("node-b", 8, 362, 395, 400),
                   node("node-c", 16, 250, 394, 400), node("node-d", 24, 359, 150, 200)};
  summarizeCluster(&cluster);
  std::map<std::string, CheckResult> checks;
  for (const CheckResult& check : cluster.checks) checks[check.check] = check;
  EXPECT_EQ(checks["nodes"].verdict, Verdict::kPass);
  // node-d's pair is at 38% of the median, below node-c's busbw at 70%.
  EXPECT_EQ(checks["slowest-node"].subject, "node-d");
  EXPECT_EQ(checks["slowest-node"].verdict, Verdict::kWarn);
  EXPECT_NE(checks["slowest-node"].measured.find("pairs/copy-engine"), std::string::npos);
  EXPECT_EQ(checks["slowest-pair"].subject, "node-d: 8 GPUs, 56 ordered pairs");
  EXPECT_EQ(checks["slowest-nic"].subject, "node-d: mlx5_2/1");
  EXPECT_EQ(clusterExitStatus(cluster), 0);  // the node checks themselves passed

  const std::string table = formatClusterTable(cluster);
  EXPECT_NE(table.find("node-c"), std::string::npos);
  EXPECT_NE(table.find("slowest-node  node-d"), std::string::npos);

  cluster.nodes[2].checks[0].verdict = Verdict::kFail;
  EXPECT_EQ(clusterExitStatus(cluster), 1);
  EXPECT_NE(formatClusterTable(cluster).find("FAIL  node-c  collectives/busbw"), std::string::npos);
}

TEST(DoctorClusterSummary, MissingRanksFailAndSharedHostNamesAreTold) {
  ClusterReport cluster;
  cluster.worldSize = 3;
  cluster.nodes = {node("box", 0, 360, 396, 400), node("box", 1, 360, 396, 400)};
  cluster.problems = {"rank 2 sent no report within 1800 s"};
  summarizeCluster(&cluster);
  EXPECT_EQ(cluster.checks[0].check, "nodes");
  EXPECT_EQ(cluster.checks[0].verdict, Verdict::kFail);
  EXPECT_NE(cluster.checks[0].measured.find("rank 2 sent no report"), std::string::npos);
  EXPECT_EQ(nodeName(cluster, cluster.nodes[1]), "box (rank 1)");
  EXPECT_EQ(clusterExitStatus(cluster), 1);
}

}  // namespace
}  // namespace doctor
}  // namespace flashccl
