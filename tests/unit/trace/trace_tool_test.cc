// `flashccl trace` on dumps: hand-made ones, and the ones a faulty fake job writes.
#ifdef FLASHCCL_HAVE_TRACE_TOOL

#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fake_job.h"
#include "snapshot_builder.h"
#include "support/temp_dir.h"
#include "trace/dump_format.h"
#include "trace/trace_tool.h"

namespace flashccl {
namespace {

using testing::collective;
using testing::SnapshotBuilder;
using testing::TempDir;

struct ToolRun {
  int code = -1;
  std::string out, err;
};

ToolRun runTool(std::vector<std::string> args) {
  args.insert(args.begin(), "trace");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(&arg[0]);
  std::ostringstream out, err;
  ToolRun run;
  run.code = runTrace(static_cast<int>(argv.size()), argv.data(), out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

// One dump file per snapshot, as each rank's process would write it.
void writeDumps(const TempDir& dir, const std::string& sub, const std::vector<ProgressSnapshot>& snapshots) {
  for (const ProgressSnapshot& snapshot : snapshots) {
    TraceDump dump;
    dump.reason = "verdict";
    dump.host = snapshot.identity.host;
    dump.pid = snapshot.identity.pid;
    dump.dumpWallNs = snapshot.takenWallNs;
    dump.hangTimeoutSeconds = 5;
    DumpedComm comm;
    comm.snapshot = snapshot;
    for (int rank = 0; rank < snapshot.identity.nranks; ++rank) {
      TraceEndpoint peer = endpointWithoutChannel(rank);
      std::snprintf(peer.host, sizeof(peer.host), "h%d", rank / 4);
      peer.pid = 1000 + rank;
      comm.peers.push_back(peer);
    }
    dump.comms.push_back(comm);
    dir.write(sub + "/flashccl-trace." + dump.host + "." + std::to_string(dump.pid) + "." +
                  std::to_string(snapshot.identity.commHash) + ".json",
              dumpToJson(dump));
  }
}

std::vector<ProgressSnapshot> stuckJob(uint64_t comm, int missing) {
  std::vector<ProgressSnapshot> snapshots;
  for (int rank = 0; rank < 4; ++rank) {
    SnapshotBuilder builder(comm, rank, 4);
    builder.history(8);
    if (rank != 3) builder.call(collective(TraceKind::kAllReduce, 1024), CallState::kStarted, 9);
    if (rank != missing) snapshots.push_back(builder.build());
  }
  return snapshots;
}

TEST(TraceTool, MergesHostsAndNamesTheRank) {
  TempDir dir;
  std::vector<ProgressSnapshot> stuck = stuckJob(0xa1, -1);
  stuck[2].identity.host = stuck[3].identity.host = "h1";
  writeDumps(dir, "host0", {stuck[0], stuck[1]});
  writeDumps(dir, "host1", {stuck[2], stuck[3]});
  writeDumps(dir, "host1", {SnapshotBuilder(0xb2, 0, 2).history(5).build(),
                            SnapshotBuilder(0xb2, 1, 2).history(5).build()});
  dir.write("host1/notes.json", "{\"not\": \"a dump\"}");
  const std::string jsonPath = dir.path() + "/report.json";
  const ToolRun run = runTool({dir.path(), "--json", jsonPath, "--last", "3"});
  EXPECT_EQ(run.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("flashccl trace: 6 dump file(s) from 4 process(es) on 2 host(s), 2 communicator(s)"),
            std::string::npos) << run.out;
  EXPECT_NE(run.out.find("skipped " + dir.path() + "/host1/notes.json"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("comm 00000000000000a1: 4 ranks, dumps from ranks 0-3"), std::string::npos);
  EXPECT_NE(run.out.find("rank 3 (host h1, pid 1003, GPU 3) has not called AllReduce seq 9 (4 KiB float sum) "
                         "that ranks 0-2 wait in; its last call, AllReduce seq 8, completed 100 s ago"),
            std::string::npos) << run.out;
  EXPECT_NE(run.out.find("comm 00000000000000b2: 2 ranks, dumps from ranks 0-1\n  no hang found"),
            std::string::npos) << run.out;
  // The timeline: the last three calls, rank 3 never entered seq 9.
  EXPECT_NE(run.out.find("       9  AllReduce(1024 x float, sum)  S S S .\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("       7  AllReduce(1024 x float, sum)  C C C C\n"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("       6  AllReduce"), std::string::npos) << run.out;

  std::ifstream in(jsonPath);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(report.is_discarded());
  EXPECT_EQ(report["dump_files"], 6);
  ASSERT_EQ(report["comms"].size(), 2u);
  EXPECT_EQ(report["comms"][0]["comm_hash"], "00000000000000a1");
  EXPECT_EQ(report["comms"][0]["hang"], true);
  EXPECT_EQ(report["comms"][0]["findings"][0]["kind"], "not_called");
  EXPECT_EQ(report["comms"][0]["findings"][0]["ranks"], nlohmann::json::array({3}));
  EXPECT_EQ(report["comms"][0]["timeline"][2]["states"][3], nullptr);
  EXPECT_EQ(report["comms"][1]["hang"], false);
}

// docs/troubleshooting.md: `flashccl trace DUMPS...`: several folders and single files, options
// before, between or after them, -J as in every command.
TEST(TraceTool, SeveralDumpsAndFoldersWithOptionsAnywhere) {
  TempDir dir;
  std::vector<ProgressSnapshot> stuck = stuckJob(0xa1, -1);
  writeDumps(dir, "d1", {stuck[0], stuck[1]});
  writeDumps(dir, "d2", {stuck[2]});
  writeDumps(dir, "d3", {stuck[3]});
  const std::string jsonPath = dir.path() + "/x.json";
  std::string single;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() + "/d3")) single = entry.path().string();
  ASSERT_FALSE(single.empty());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{dir.path() + "/d1", dir.path() + "/d2", single, "-J", jsonPath},
        {"-J", jsonPath, dir.path() + "/d1", dir.path() + "/d2", single},
        {dir.path() + "/d1", "--last", "3", dir.path() + "/d2", "--output_file", jsonPath, single},
        {dir.path(), dir.path() + "/d1", "--json", jsonPath}}) {  // d1 twice: read once
    std::filesystem::remove(jsonPath);
    const ToolRun run = runTool(args);
    EXPECT_EQ(run.code, 1) << ::testing::PrintToString(args) << run.out << run.err;
    EXPECT_NE(run.out.find("flashccl trace: 4 dump file(s)"), std::string::npos)
        << ::testing::PrintToString(args) << run.out;
    EXPECT_NE(run.out.find("rank 3 (host h0, pid 1003, GPU 3) has not called AllReduce seq 9"), std::string::npos)
        << run.out;
    EXPECT_TRUE(std::filesystem::exists(jsonPath)) << ::testing::PrintToString(args);
  }
  const ToolRun missing = runTool({dir.path() + "/d1", dir.path() + "/nope"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err, "flashccl trace: " + dir.path() + "/nope: no such file or directory\n");
}

TEST(TraceTool, ARankWithoutADumpIsNamedFromItsPeers) {
  TempDir dir;
  writeDumps(dir, ".", stuckJob(0xc3, 1));
  const ToolRun run = runTool({dir.path()});
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.out.find("rank 1 (host h0, pid 1001, GPU 1) unreachable (no dump from it"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("rank 3 (host h0, pid 1003, GPU 3) has not called AllReduce seq 9"), std::string::npos)
      << run.out;
}

TEST(TraceTool, HealthyDumpsExitZero) {
  TempDir dir;
  writeDumps(dir, ".", {SnapshotBuilder(0xd4, 0, 2).history(5).build(), SnapshotBuilder(0xd4, 1, 2).history(5).build()});
  const ToolRun run = runTool({dir.path()});
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("no hang found"), std::string::npos);
}

TEST(TraceTool, UsageErrorsAreOneLineAndExitTwo) {
  TempDir dir;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{}, {dir.path() + "/missing"}, {dir.path()}, {dir.path(), "--last", "0"},
        {dir.path(), "--bogus"}}) {
    const ToolRun run = runTool(args);
    EXPECT_EQ(run.code, 2) << ::testing::PrintToString(args);
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_EQ(run.err.rfind("flashccl trace: ", 0), 0u) << run.err;
  }
  EXPECT_EQ(runTool({"--help"}).code, 0);
}

// What a faulty job dumps reads back into the verdict the job printed.
TEST(TraceTool, ReadsWhatAFaultyJobDumped) {
  TempDir dir;
  const std::string dumps = dir.path() + "/dumps";
  mkdir(dumps.c_str(), 0700);
  testing::FakeJob job(FLASHCCL_TRACE_FAKE_RANK, dir.path(), 3,
                       {"--calls", "100", "--scenario", "stop", "--culprit", "1", "--at", "20"},
                       {{"FLASHCCL_HANG_TIMEOUT", "1"},
                        {"FLASHCCL_HANG_ACTION", "abort"},
                        {"FLASHCCL_TRACE_DIR", dumps},
                        {"NCCL_SOCKET_IFNAME", "lo"}});
  job.run(15000);
  const std::string live = "rank 1 (host " + traceHostName() + ", pid " + std::to_string(job.rank(1).pid) +
                           ", GPU 1) has not called AllReduce seq 20 (1 KiB float sum) that ranks 0,2 wait in";
  ASSERT_NE(job.rank(0).err.find(live), std::string::npos) << job.describe();
  const ToolRun run = runTool({dumps});
  EXPECT_EQ(run.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("3 dump file(s) from 3 process(es) on 1 host(s), 1 communicator(s)"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(live), std::string::npos) << run.out;
  // The timeline's row for the call rank 1 never made (the call column is as wide as its widest).
  const size_t row = run.out.find("      20  AllReduce(256 x float, sum)");
  ASSERT_NE(row, std::string::npos) << run.out;
  const std::string line = run.out.substr(row, run.out.find('\n', row) - row);
  EXPECT_EQ(line.substr(line.size() - 5), "S . S") << line;
}

}  // namespace
}  // namespace flashccl

#endif  // FLASHCCL_HAVE_TRACE_TOOL
