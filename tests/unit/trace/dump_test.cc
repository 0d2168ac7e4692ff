#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "snapshot_builder.h"
#include "support/temp_dir.h"
#include "trace/dump_file.h"
#include "trace/dump_format.h"

namespace flashccl {
namespace {

using testing::collective;
using testing::SnapshotBuilder;
using testing::TempDir;

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TraceDump sampleDump() {
  TraceCall premul = collective(TraceKind::kAllReduce, 4096, ncclBfloat16);
  premul.op = static_cast<int32_t>(ncclNumOps) + 3;
  TraceCall recv = collective(TraceKind::kRecv, 8, ncclInt64);
  recv.peer = 0;
  TraceDump dump;
  dump.reason = "verdict";
  dump.host = "h1";
  dump.pid = 4242;
  dump.dumpWallNs = 1700000000LL * testing::kSecond;
  dump.hangTimeoutSeconds = 5;
  dump.verdict = {"rank 1 has not called AllReduce seq 4"};
  DumpedComm comm;
  comm.snapshot = SnapshotBuilder(0x9f3a2b1c0d4e5f60ull, 1, 2)
                      .history(2)
                      .call(premul, CallState::kStarted, 12)
                      .call(recv, CallState::kEnqueued, 3)
                      .build();
  comm.snapshot.calls.front().state = CallState::kFailed;  // every state survives the file, the newest too
  comm.snapshot.calls.back().algorithm = "nccl";
  comm.snapshot.calls.back().call.launch = 0;
  TraceEndpoint peer = endpointWithoutChannel(0);
  std::strcpy(peer.host, "h0");
  peer.pid = 11;
  for (uint8_t& byte : peer.token) byte = 0xAB;
  comm.peers = {peer, peer};
  dump.comms.push_back(comm);
  return dump;
}

TEST(DumpFormat, RoundTrip) {
  const TraceDump before = sampleDump();
  TraceDump after;
  std::string error;
  ASSERT_TRUE(dumpFromJson(dumpToJson(before), &after, &error)) << error;
  EXPECT_EQ(after.reason, "verdict");
  EXPECT_EQ(after.host, "h1");
  EXPECT_EQ(after.pid, 4242);
  EXPECT_EQ(after.dumpWallNs, before.dumpWallNs);
  EXPECT_EQ(after.hangTimeoutSeconds, 5);
  EXPECT_EQ(after.verdict, before.verdict);
  ASSERT_EQ(after.comms.size(), 1u);
  const ProgressSnapshot& a = before.comms[0].snapshot;
  const ProgressSnapshot& b = after.comms[0].snapshot;
  EXPECT_EQ(b.identity.commHash, a.identity.commHash);
  EXPECT_EQ(b.identity.rank, 1);
  EXPECT_EQ(b.identity.nranks, 2);
  EXPECT_EQ(b.identity.host, "h0");
  EXPECT_EQ(b.lastCollectiveSeq, 3u);
  EXPECT_EQ(b.lastP2pSeq, 1u);
  EXPECT_EQ(b.takenWallNs, a.takenWallNs);
  ASSERT_EQ(b.calls.size(), a.calls.size());
  for (size_t i = 0; i < a.calls.size(); ++i) {
    EXPECT_EQ(b.calls[i].seq, a.calls[i].seq) << i;
    EXPECT_EQ(b.calls[i].call.kind, a.calls[i].call.kind) << i;
    EXPECT_EQ(b.calls[i].call.count, a.calls[i].call.count) << i;
    EXPECT_EQ(b.calls[i].call.dtype, a.calls[i].call.dtype) << i;
    EXPECT_EQ(b.calls[i].call.peer, a.calls[i].call.peer) << i;
    EXPECT_EQ(b.calls[i].call.launch, a.calls[i].call.launch) << i;
    EXPECT_EQ(b.calls[i].state, a.calls[i].state) << i;
    EXPECT_EQ(b.calls[i].algorithm, a.calls[i].algorithm) << i;
    EXPECT_EQ(b.calls[i].enqueuedAgoNs, a.calls[i].enqueuedAgoNs) << i;
    EXPECT_EQ(b.calls[i].startedAgoNs, a.calls[i].startedAgoNs) << i;
    EXPECT_EQ(b.calls[i].completedAgoNs, a.calls[i].completedAgoNs) << i;
  }
  // A per-communicator operator comes back as the PreMulSum class.
  EXPECT_TRUE(isUserRedOp(b.calls[2].call.op));
  EXPECT_EQ(b.calls[0].call.op, ncclSum);
  ASSERT_EQ(after.comms[0].peers.size(), 2u);
  EXPECT_STREQ(after.comms[0].peers[0].host, "h0");
  EXPECT_EQ(after.comms[0].peers[0].pid, 11);
}

TEST(DumpFormat, SpeaksFlightRecorderAndHoldsNoSecrets) {
  const std::string json = dumpToJson(sampleDump());
  for (const char* field : {"\"collective_seq_id\"", "\"p2p_seq_id\"", "\"profiling_name\": \"nccl:all_reduce\"",
                            "\"state\": \"started\"", "\"state\": \"scheduled\"", "\"time_created_ns\"",
                            "\"time_discovered_started_ns\"", "\"time_discovered_completed_ns\"",
                            "\"pg_status\"", "\"last_enqueued_collective\": 3", "\"is_p2p\": true"}) {
    EXPECT_NE(json.find(field), std::string::npos) << field;
  }
  EXPECT_EQ(json.find("token"), std::string::npos);
  EXPECT_EQ(json.find("abab"), std::string::npos);
  EXPECT_EQ(json.find("ABAB"), std::string::npos);
}

TEST(DumpFormat, RejectsWhatIsNotADump) {
  TraceDump dump;
  std::string error;
  EXPECT_FALSE(dumpFromJson("not json", &dump, &error));
  EXPECT_EQ(error, "not JSON");
  EXPECT_FALSE(dumpFromJson("{\"version\": 99, \"comms\": []}", &dump, &error));
  EXPECT_FALSE(dumpFromJson("{\"version\": 1, \"comms\": [{\"comm_hash\": \"12\", \"rank\": 3, \"nranks\": 2}]}",
                            &dump, &error));
  EXPECT_EQ(error, "comms[0].rank: 3 is not in 0..1");
  EXPECT_FALSE(dumpFromJson("{\"version\": 1, \"comms\": 7}", &dump, &error));
  EXPECT_FALSE(dumpFromJson("{\"version\": 1, \"comms\": [{\"comm_hash\": \"12\", \"rank\": 0, \"nranks\": 1, "
                            "\"entries\": [{\"kind\": \"Nonsense\"}]}]}", &dump, &error));
}

TEST(DumpFile, NewFileOwnerOnly) {
  TempDir dir;
  const mode_t previous = umask(0);
  std::string error;
  const std::string first = writeDumpFile(dir.path(), "h1.example.com", 42, "{}\n", &error);
  umask(previous);
  ASSERT_EQ(first, dir.path() + "/flashccl-trace.h1_example_com.42.0.json") << error;
  struct stat info;
  ASSERT_EQ(lstat(first.c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(readAll(first), "{}\n");
  // Never an existing file: the next dump gets the next number.
  EXPECT_EQ(writeDumpFile(dir.path(), "h1.example.com", 42, "{}\n", &error),
            dir.path() + "/flashccl-trace.h1_example_com.42.1.json");
}

TEST(DumpFile, NeverFollowsASymbolicLink) {
  TempDir dir;
  const std::string victim = dir.write("victim", "precious\n");
  dir.symlink(victim, "flashccl-trace.h.7.0.json");
  dir.symlink(dir.path() + "/does-not-exist", "flashccl-trace.h.7.1.json");
  std::string error;
  const std::string written = writeDumpFile(dir.path(), "h", 7, "dump\n", &error);
  EXPECT_EQ(written, dir.path() + "/flashccl-trace.h.7.2.json") << error;
  EXPECT_EQ(readAll(victim), "precious\n");
  struct stat info;
  EXPECT_EQ(lstat((dir.path() + "/does-not-exist").c_str(), &info), -1);
  ASSERT_EQ(lstat(written.c_str(), &info), 0);
  EXPECT_TRUE(S_ISREG(info.st_mode));
}

TEST(DumpFile, SaysWhyItCannotWrite) {
  std::string error;
  EXPECT_EQ(writeDumpFile("/nonexistent/dir", "h", 1, "x", &error), "");
  EXPECT_NE(error.find("cannot open directory /nonexistent/dir"), std::string::npos) << error;
}

}  // namespace
}  // namespace flashccl
