// `flashccl doctor` end to end, on recorded machines: the fake NVML (an HGX H200 box described by
// data/*.nvml), a fake sysfs tree, a fake libibverbs. Healthy box, degraded PCIe link, ECC errors,
// a broken environment, no GPU at all, usage errors, and a cluster of local processes gathered by
// rank 0.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <map>
#include <nlohmann/json.hpp>

#include "cluster_gather.h"
#include "fake_sysfs.h"
#include "sysfs_files.h"

extern char** environ;

namespace flashccl {
namespace doctor {
namespace {

using testing::FakeSysfs;
using testing::TempDir;

#ifdef FLASHCCL_CLI

struct Outcome {
  int status = -1;
  std::string out, err;
};

// Starts `flashccl doctor ARGS` with this process's environment plus `env`; returns its pid.
pid_t startDoctor(const std::map<std::string, std::string>& env, const std::vector<std::string>& args,
                  const std::string& outPath, const std::string& errPath) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) merged[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                           "PMI_RANK", "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "MASTER_ADDR", "MASTER_PORT",
                           "CUDA_VISIBLE_DEVICES", "LD_PRELOAD"}) {
    merged.erase(name);  // the test decides whether this is a cluster run
  }
  for (const auto& entry : env) merged[entry.first] = entry.second;
  std::vector<std::string> envText;
  for (const auto& entry : merged) envText.push_back(entry.first + "=" + entry.second);
  std::vector<char*> envp, argv;
  for (std::string& text : envText) envp.push_back(&text[0]);
  envp.push_back(nullptr);
  std::vector<std::string> fullArgs = {FLASHCCL_CLI, "doctor"};
  fullArgs.insert(fullArgs.end(), args.begin(), args.end());
  for (std::string& arg : fullArgs) argv.push_back(&arg[0]);
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, FLASHCCL_CLI, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0);
  return pid;
}

Outcome finish(pid_t pid, const std::string& outPath, const std::string& errPath) {
  Outcome outcome;
  int status = 0;
  waitpid(pid, &status, 0);
  outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  readWholeFile(outPath, &outcome.out);
  readWholeFile(errPath, &outcome.err);
  return outcome;
}

class DoctorCommand : public ::testing::Test {
 protected:
  Outcome run(const std::map<std::string, std::string>& env, const std::vector<std::string>& args) {
    const std::string out = dir_.path() + "/out" + std::to_string(runs_), err = dir_.path() + "/err" + std::to_string(runs_);
    ++runs_;
    return finish(startDoctor(env, args, out, err), out, err);
  }

  // The environment of a run on the fake HGX box with health file `nvml`.
  std::map<std::string, std::string> fakeBox(const std::string& nvml) const {
    return {{"FLASHCCL_FAKE_NVML_MACHINE", "hgx-h200-8"},
            {"FLASHCCL_FAKE_NVML_HEALTH", std::string(DOCTOR_TEST_DATA) + "/" + nvml},
            {"FLASHCCL_FAKE_VERBS_DEVICES", "mlx5_0,mlx5_1,mlx5_2,mlx5_3"},
            {"NCCL_NVLS_ENABLE", "0"}};
  }

  std::vector<std::string> fakeBoxArgs(const std::string& sysRoot, const std::string& checks,
                                       const std::string& json) const {
    return {"--checks", checks, "--sysfs-root", sysRoot, "--proc-root", dir_.path() + "/proc",
            "--nvml-library", FLASHCCL_FAKE_NVML_LIBRARY, "--verbs-library", FLASHCCL_FAKE_VERBS_LIBRARY,
            "--json", json};
  }

  // The gpu family on the fake HGX box with health file `nvml`: verdicts by "check subject".
  std::map<std::string, std::string> gpuFamily(const std::string& nvml, Outcome* outcome) {
    FakeSysfs sys(dir_);
    buildHgxTree(sys);
    const std::string json = dir_.path() + "/gpu.json";
    *outcome = run(fakeBox(nvml), fakeBoxArgs(sys.root(), "gpu", json));
    return verdicts(readJson(json));
  }

  // Verdicts from a JSON report, by "check subject".
  static std::map<std::string, std::string> verdicts(const nlohmann::json& report) {
    std::map<std::string, std::string> out;
    for (const auto& check : report["checks"]) {
      out[check["check"].get<std::string>() + " " + check["subject"].get<std::string>()] = check["verdict"];
    }
    return out;
  }

  static nlohmann::json readJson(const std::string& path) {
    std::string text;
    EXPECT_TRUE(readWholeFile(path, &text)) << path;
    return nlohmann::json::parse(text, nullptr, false);
  }

  TempDir dir_;
  int runs_ = 0;
};

TEST_F(DoctorCommand, HealthyBoxPasses) {
  FakeSysfs sys(dir_);
  buildHgxTree(sys);
  const std::string json = dir_.path() + "/healthy.json";
  const Outcome outcome = run(fakeBox("h200-healthy.nvml"), fakeBoxArgs(sys.root(), "gpu,nics", json));
  EXPECT_EQ(outcome.status, 0) << outcome.out << outcome.err;
  const nlohmann::json report = readJson(json);
  EXPECT_EQ(report["verdict"], "PASS");
  EXPECT_EQ(report["counts"]["FAIL"], 0);
  EXPECT_EQ(report["counts"]["WARN"], 0);
  EXPECT_GE(report["counts"]["PASS"].get<int>(), 8 * 5 + 4 * 3 + 1 + 8);
  EXPECT_EQ(report["machine"], "8 x NVIDIA H200, nvswitch (18 NVLinks per pair)");
  EXPECT_NE(outcome.out.find("== gpu"), std::string::npos);
  EXPECT_NE(outcome.err.find("doctor: NICs"), std::string::npos);  // the progress line
}

TEST_F(DoctorCommand, DegradedPcieLinkFails) {
  Outcome outcome;
  auto v = gpuFamily("h200-degraded-pcie.nvml", &outcome);
  EXPECT_EQ(outcome.status, 1) << outcome.out;
  EXPECT_EQ(v["pcie-link GPU 3 (0000:5d:00.0)"], "FAIL");
  EXPECT_EQ(v["pcie-link GPU 2 (0000:3a:00.0)"], "PASS");
  EXPECT_EQ(v["pcie-link GPU 6 (0000:ba:00.0)"], "PASS");  // Gen3 at rest is power saving
  EXPECT_NE(outcome.out.find("the link trained at x8 instead of x16"), std::string::npos);
}

TEST_F(DoctorCommand, EccErrorsFail) {
  Outcome outcome;
  auto v = gpuFamily("h200-ecc-errors.nvml", &outcome);
  EXPECT_EQ(outcome.status, 1) << outcome.out;
  EXPECT_EQ(v["ecc-errors GPU 5 (0000:ab:00.0)"], "FAIL");
  EXPECT_EQ(v["remapped-rows GPU 5 (0000:ab:00.0)"], "FAIL");
  EXPECT_EQ(v["clocks GPU 2 (0000:3a:00.0)"], "FAIL");
  EXPECT_EQ(v["ecc-errors GPU 4 (0000:9a:00.0)"], "PASS");
}

TEST_F(DoctorCommand, EnvironmentFaultsOnTheFakeBox) {
  FakeSysfs sys(dir_);
  buildHgxTree(sys, /*acsControl=*/0, /*redirectingSwitch=*/1);
  dir_.write("proc/cmdline", "iommu=pt\n");
  std::map<std::string, std::string> env = fakeBox("h200-healthy.nvml");
  env["NCCL_IB_HCA"] = "=mlx5_8,mlx5_9";
  env["NCCL_SOCKET_IFNAME"] = "bond0";
  env["CUDA_VISIBLE_DEVICES"] = "0,1,8,2";
  env.erase("NCCL_NVLS_ENABLE");
  const std::string json = dir_.path() + "/env.json";
  const Outcome outcome = run(env, fakeBoxArgs(sys.root(), "environment", json));
  EXPECT_EQ(outcome.status, 1) << outcome.out;
  auto v = verdicts(readJson(json));
  EXPECT_EQ(v["driver node"], "PASS");  // from the fake NVML
  EXPECT_EQ(v["NCCL_IB_HCA node"], "FAIL");
  EXPECT_EQ(v["NCCL_SOCKET_IFNAME node"], "FAIL");
  EXPECT_EQ(v["CUDA_VISIBLE_DEVICES node"], "FAIL");
  EXPECT_EQ(v["NCCL_NVLS_ENABLE node"], "WARN");  // unset on an NVSwitch box
  EXPECT_EQ(v["pcie-acs node"], "FAIL");
  EXPECT_EQ(v["iommu node"], "PASS");
  EXPECT_EQ(v["NCCL_P2P_DISABLE node"], "PASS");
}

TEST_F(DoctorCommand, NoGpuRunsWhatItCanThenExitsTwo) {
  TempDir empty;
  FakeSysfs sys(empty);
  sys.netInterface("lo");
  const std::string json = dir_.path() + "/nogpu.json";
  // No NVML, and (should this run on a GPU machine) no GPU for CUDA either.
  const Outcome outcome = run({{"CUDA_VISIBLE_DEVICES", ""}},
                              {"--sysfs-root", sys.root(), "--nvml-library", "/nonexistent/libnvidia-ml.so.1",
                               "--json", json});
  EXPECT_EQ(outcome.status, 2) << outcome.out;
  EXPECT_NE(outcome.out.find("== environment"), std::string::npos);
  EXPECT_NE(outcome.out.find("flashccl doctor: no GPU found"), std::string::npos);
  EXPECT_NE(outcome.out.find("-> NO GPU"), std::string::npos);
  const nlohmann::json report = readJson(json);
  EXPECT_EQ(report["exit_status"], 2);
  EXPECT_TRUE(report["gpu_problem"].is_string());
}

TEST_F(DoctorCommand, UsageErrorsAreOneLineAndExitTwo) {
  Outcome outcome = run({}, {"--checks", "gpu,disks"});
  EXPECT_EQ(outcome.status, 2);
  EXPECT_EQ(outcome.err,
            "flashccl doctor: --checks: unknown family 'disks' (valid: environment,gpu,bandwidth,pairs,nics,collectives)\n");
  EXPECT_EQ(outcome.out, "");
  outcome = run({}, {"--expect", "/nonexistent/floors.json"});
  EXPECT_EQ(outcome.status, 2);
  EXPECT_NE(outcome.err.find("--expect /nonexistent/floors.json: cannot open"), std::string::npos);
  outcome = run({{"RANK", "1"}, {"WORLD_SIZE", "2"}}, {});
  EXPECT_EQ(outcome.status, 2);
  EXPECT_NE(outcome.err.find("set MASTER_ADDR and MASTER_PORT"), std::string::npos);
}

TEST_F(DoctorCommand, ClusterOfLocalProcessesReportsToRankZero) {
  int port = 0;
  {
    ReportCollector probe;
    std::string error;
    ASSERT_TRUE(probe.listen(0, &error)) << error;
    port = probe.port();
  }
  // Three "nodes" (each its own sysfs tree and NVML description; node 1's GPU 3 link is
  // degraded) and a fourth rank that is local rank 1 of node 2, which only says it joined.
  const char* health[3] = {"h200-healthy.nvml", "h200-degraded-pcie.nvml", "h200-healthy.nvml"};
  std::vector<pid_t> pids;
  std::vector<std::pair<std::string, std::string>> logs;
  std::vector<std::unique_ptr<TempDir>> trees;
  const std::string json = dir_.path() + "/cluster.json";
  for (int rank = 0; rank < 4; ++rank) {
    trees.emplace_back(new TempDir());
    FakeSysfs sys(*trees.back());
    buildHgxTree(sys);
    std::map<std::string, std::string> env = fakeBox(health[rank < 3 ? rank : 2]);
    env["RANK"] = std::to_string(rank);
    env["WORLD_SIZE"] = "4";
    env["LOCAL_RANK"] = rank == 3 ? "1" : "0";
    env["MASTER_ADDR"] = "127.0.0.1";
    env["MASTER_PORT"] = std::to_string(port);
    std::vector<std::string> args = fakeBoxArgs(sys.root(), "gpu,nics", rank == 0 ? json : dir_.path() + "/unused.json");
    args.push_back("--cluster-timeout");
    args.push_back("60");
    logs.emplace_back(dir_.path() + "/c" + std::to_string(rank) + ".out", dir_.path() + "/c" + std::to_string(rank) + ".err");
    pids.push_back(startDoctor(env, args, logs.back().first, logs.back().second));
  }
  std::vector<Outcome> outcomes;
  for (size_t i = 0; i < pids.size(); ++i) outcomes.push_back(finish(pids[i], logs[i].first, logs[i].second));

  EXPECT_EQ(outcomes[0].status, 1) << outcomes[0].out << outcomes[0].err;  // node 1 has a FAIL
  EXPECT_EQ(outcomes[1].status, 1) << outcomes[1].err;
  EXPECT_EQ(outcomes[2].status, 0) << outcomes[2].err;
  EXPECT_EQ(outcomes[3].status, 0) << outcomes[3].err;
  EXPECT_NE(outcomes[1].err.find("rank 1"), std::string::npos);
  EXPECT_FALSE(pathExists(dir_.path() + "/unused.json"));  // only rank 0 writes files

  const std::string& table = outcomes[0].out;
  EXPECT_NE(table.find("cluster of 4 ranks, 3 node(s)"), std::string::npos) << table;
  EXPECT_NE(table.find("(rank 1)  gpu/pcie-link  GPU 3 (0000:5d:00.0)"), std::string::npos) << table;
  EXPECT_NE(table.find("slowest-node  "), std::string::npos);

  const nlohmann::json report = readJson(json);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["world_size"], 4);
  EXPECT_EQ(report["nodes"].size(), 3u);
  EXPECT_TRUE(report["problems"].empty());
  EXPECT_EQ(report["exit_status"], 1);
  std::map<std::string, nlohmann::json> cluster;
  for (const auto& check : report["cluster"]) cluster[check["check"]] = check;
  EXPECT_EQ(cluster["nodes"]["verdict"], "PASS");
  // The x8 link is the measurement furthest below the cluster's median.
  EXPECT_NE(cluster["slowest-node"]["subject"].get<std::string>().find("(rank 1)"), std::string::npos);
  EXPECT_NE(cluster["slowest-node"]["measured"].get<std::string>().find("gpu/pcie-link GPU 3"), std::string::npos);
}

#else
TEST(DoctorCommand, NeedsTheFlashcclCommand) { GTEST_SKIP() << "built without tools/ (FLASHCCL_BUILD_TOOLS=OFF)"; }
#endif

}  // namespace
}  // namespace doctor
}  // namespace flashccl
