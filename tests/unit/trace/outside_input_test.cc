// Issue 23's reproducers: bytes from outside the process (a dump file, a peer's reply) that once
// reached undefined behaviour, an abort or a 270 GiB allocation. Each is now an error that names
// the field and where it is, and the functions that print calls take any value.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <sstream>
#include <thread>

#include "loopback_socket.h"
#include "snapshot_builder.h"
#include "support/temp_dir.h"
#include "trace/dump_format.h"
#include "trace/side_channel_client.h"
#include "trace/wire_format.h"
#ifdef FLASHCCL_HAVE_TRACE_TOOL
#include "trace/dump_merge.h"
#include "trace/trace_tool.h"
#endif

namespace flashccl {
namespace {

using testing::collective;
using testing::SnapshotBuilder;

// A dump of one communicator of 2 ranks whose only entry is `entry`; `comm` adds fields to the
// communicator, replacing those of the same name.
std::string dumpWith(const std::string& entry, const std::string& comm = "") {
  return R"({"version": 1, "comms": [{"comm_hash": "12", "rank": 0, "nranks": 2,)" +
         (comm.empty() ? std::string() : comm + ",") + R"( "entries": [)" + entry + "]}]}";
}

std::string dumpError(const std::string& text) {
  TraceDump dump;
  std::string error;
  EXPECT_FALSE(dumpFromJson(text, &dump, &error)) << text;
  return error;
}

TEST(OutsideInput, DumpEntryWithoutDtypeOrOpIsAnError) {
  // Once dtype -1 and op -1: "AllReduce(0 x unknown, premulsum)", and UB in dtypeName/redOpName.
  EXPECT_EQ(dumpError(dumpWith(R"({"kind": "AllReduce", "collective_seq_id": 1})")),
            "comms[0].entries[0].dtype: missing");
  EXPECT_EQ(dumpError(dumpWith(R"({"kind": "AllReduce", "collective_seq_id": 1, "dtype": "float"})")),
            "comms[0].entries[0].op: missing");
  EXPECT_EQ(dumpError(dumpWith(R"({"kind": "Reduce", "dtype": "float", "op": "mean"})")),
            "comms[0].entries[0].op: \"mean\" is no reduction operator");
  EXPECT_EQ(dumpError(dumpWith(R"({"kind": "AllReduce", "dtype": "float32", "op": "sum"})")),
            "comms[0].entries[0].dtype: \"float32\" is no NCCL data type");
  EXPECT_EQ(dumpError(dumpWith(R"({"kind": "AllGather", "dtype": "float", "op": "sum"})")),
            "comms[0].entries[0].op: set on a call without one");
  EXPECT_EQ(dumpError(dumpWith(R"({"kind": "AllGather", "dtype": "float", "state": "done"})")),
            "comms[0].entries[0].state: \"done\" is no call state");
  EXPECT_EQ(dumpError(dumpWith(R"({"kind": "Nonsense"})")),
            "comms[0].entries[0].kind: \"Nonsense\" is no call NCCL has");
}

TEST(OutsideInput, DumpTimesAndCountsThatOverflowAreErrors) {
  // Once `wall - value` overflowed (signed), and nlohmann's float -> integer conversion was UB.
  EXPECT_EQ(dumpError(dumpWith(R"({"kind": "Send", "dtype": "int8", "time_created_ns": 9600000000000000000})")),
            "comms[0].entries[0].time_created_ns: too large");
  EXPECT_EQ(dumpError(dumpWith(R"({"kind": "Send", "dtype": "int8", "time_created_ns": -9200000000000000000})")),
            "comms[0].entries[0].time_created_ns: -9200000000000000000 is not in 0..9223372036854775807");
  EXPECT_EQ(dumpError(dumpWith("", R"("snapshot_time_ns": 1.7e26)")),
            "comms[0].snapshot_time_ns: not an integer");
  EXPECT_EQ(dumpError(dumpWith("", R"("device_progress": {"launches_started": 1.8e19})")),
            "comms[0].device_progress.launches_started: not an integer of 0 or more");
  EXPECT_EQ(dumpError(dumpWith("", R"("pid": 1e300)")), "comms[0].pid: not an integer");
  EXPECT_EQ(dumpError(R"({"version": 1, "pid": 1e300, "comms": []})"), "pid: not an integer");
  EXPECT_EQ(dumpError(R"({"version": 1, "hang_timeout_s": 1e300, "comms": []})"),
            "hang_timeout_s: not a number in 0.000000..31622400.000000");
  // A stamp a little after the snapshot (taken while it was made) is age 0, not a negative age.
  TraceDump dump;
  std::string error;
  ASSERT_TRUE(dumpFromJson(dumpWith(R"({"kind": "Send", "dtype": "int8", "time_created_ns": 105,
                                        "time_discovered_started_ns": 90})",
                                    R"("snapshot_time_ns": 100)"),
                           &dump, &error))
      << error;
  EXPECT_EQ(dump.comms[0].snapshot.calls[0].enqueuedAgoNs, 0);
  EXPECT_EQ(dump.comms[0].snapshot.calls[0].startedAgoNs, 10);
  EXPECT_EQ(dump.comms[0].snapshot.calls[0].completedAgoNs, -1);
}

TEST(OutsideInput, DumpFieldsOfTheWrongTypeAreErrorsNotAborts) {
  // Once an uncaught nlohmann::type_error: std::terminate in `flashccl trace`.
  EXPECT_EQ(dumpError(R"({"version": "1", "comms": []})"), "not a flashccl trace dump of version 1");
  EXPECT_EQ(dumpError(R"({"version": 1, "host": 7, "comms": []})"), "host: not a string");
  EXPECT_EQ(dumpError(R"({"version": 1, "comms": {}})"), "comms: not an array");
  EXPECT_EQ(dumpError(R"({"version": 1, "comms": [7]})"), "comms[0]: not an object");
  EXPECT_EQ(dumpError(dumpWith("[]")), "comms[0].entries[0]: not an object");
  EXPECT_EQ(dumpError(dumpWith("", R"("pg_status": [])")), "comms[0].pg_status: not an object");
  EXPECT_EQ(dumpError(dumpWith("", R"("follows_forwarded_calls": "yes")")),
            "comms[0].follows_forwarded_calls: not true or false");
}

TEST(OutsideInput, DumpRanksAreBounded) {
  // Once comm.latest.resize(2000000000): about 270 GiB asked.
  const std::string huge = R"({"version": 1, "comms": [{"comm_hash": "12", "rank": 0, "nranks": 2000000000}]})";
  EXPECT_EQ(dumpError(huge), "comms[0].nranks: 2000000000 is not in 1..65536");
  EXPECT_EQ(dumpError(R"({"version": 1, "comms": [{"comm_hash": "12", "rank": 3, "nranks": 2}]})"),
            "comms[0].rank: 3 is not in 0..1");
  EXPECT_EQ(dumpError(R"({"version": 1, "comms": [{"comm_hash": "12", "nranks": 2}]})"), "comms[0].rank: missing");
  EXPECT_EQ(dumpError(dumpWith("", R"("peers": [{}, {}, {}])")), "comms[0].peers: 3 of them, more than nranks 2");
}

#ifdef FLASHCCL_HAVE_TRACE_TOOL
TEST(OutsideInput, MergedRanksAreBounded) {
  const std::string huge = R"({"version": 1, "comms": [{"comm_hash": "12", "rank": 0, "nranks": 2000000000}]})";
  const MergedDumps merged = mergeDumps({{"/d/a.json", huge}});
  EXPECT_EQ(merged.files, 0);
  ASSERT_EQ(merged.problems.size(), 1u);
  EXPECT_EQ(merged.problems[0], "/d/a.json: comms[0].nranks: 2000000000 is not in 1..65536");
  // Each communicator within the bound, but many of them: bounded together.
  std::string many = R"({"version": 1, "comms": [)";
  const size_t count = kMaxMergedRanks / kMaxTraceRanks + 1;
  for (size_t i = 0; i < count; ++i) {
    many += (i ? "," : "") + std::string(R"({"comm_hash": ")") + std::to_string(i + 1) +
            R"(", "rank": 0, "nranks": 65536})";
  }
  const MergedDumps bounded = mergeDumps({{"/d/many.json", many + "]}"}});
  EXPECT_EQ(bounded.comms.size(), count - 1);
  ASSERT_EQ(bounded.problems.size(), 1u);
  EXPECT_NE(bounded.problems[0].find("/d/many.json: communicator"), std::string::npos) << bounded.problems[0];
  EXPECT_NE(bounded.problems[0].find("more than 262144 ranks in all"), std::string::npos);
}

TEST(OutsideInput, TraceToolSkipsBadDumpsWithTheirFileAndField) {
  testing::TempDir dir;
  dir.write("flashccl-trace.h0.1.0.json", dumpWith(R"({"kind": "AllReduce", "collective_seq_id": 1})"));
  dir.write("flashccl-trace.h1.2.0.json", R"({"version": "1", "comms": []})");
  dir.write("flashccl-trace.h2.3.0.json",
            R"({"version": 1, "comms": [{"comm_hash": "12", "rank": 0, "nranks": 2000000000}]})");
  std::string args[] = {"trace", dir.path()};
  char* argv[] = {&args[0][0], &args[1][0]};
  std::ostringstream out, err;
  EXPECT_EQ(runTrace(2, argv, out, err), 2);
  EXPECT_NE(err.str().find("flashccl-trace.h0.1.0.json: comms[0].entries[0].dtype: missing"), std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("flashccl-trace.h1.2.0.json: not a flashccl trace dump of version 1"),
            std::string::npos);
  EXPECT_NE(err.str().find("flashccl-trace.h2.3.0.json: comms[0].nranks: 2000000000 is not in 1..65536"),
            std::string::npos);
}
#endif

std::string replyWithCall(const TraceCall& call) {
  return encodeSnapshot(SnapshotBuilder(77, 1, 2).history(1).call(call, CallState::kStarted, 3).build());
}

std::string snapshotError(const std::string& bytes) {
  ProgressSnapshot out;
  std::string error;
  EXPECT_FALSE(decodeSnapshot(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &out, &error));
  return error;
}

TEST(OutsideInput, PeerReplyWithAnInvalidDtypeOrOpIsRejected) {
  // Once accepted, and dtypeSize/dtypeName read it inside the job's watchdog.
  TraceCall call = collective(TraceKind::kAllReduce, 8);
  call.dtype = 0x5f656e69;
  EXPECT_EQ(snapshotError(replyWithCall(call)), "call 1: dtype 1600482921 is no NCCL data type");
  call = collective(TraceKind::kAllReduce, 8);
  call.op = -7;
  EXPECT_EQ(snapshotError(replyWithCall(call)), "call 1: op -7 is no reduction operator");
  call = collective(TraceKind::kAllGather, 8);
  call.op = ncclSum;
  EXPECT_EQ(snapshotError(replyWithCall(call)), "call 1: op 0 on a call without one");
  ProgressSnapshot bad = SnapshotBuilder(77, 1, 2).history(1).build();
  bad.calls[0].startedAgoNs = -5;
  EXPECT_EQ(snapshotError(encodeSnapshot(bad)), "call 0: a negative age");
  bad = SnapshotBuilder(77, 0, 1 << 20).build();
  EXPECT_EQ(snapshotError(encodeSnapshot(bad)), "nranks 1048576 is not in 1..65536");
  // What a recorder keeps of an application's invalid dtype or op travels, and prints as such.
  call = collective(TraceKind::kReduce, 8);
  call.dtype = kUnknownDtype;
  call.op = kNoRedOp;
  const std::string ok = replyWithCall(call);
  ProgressSnapshot out;
  std::string error;
  ASSERT_TRUE(decodeSnapshot(reinterpret_cast<const uint8_t*>(ok.data()), ok.size(), &out, &error)) << error;
  EXPECT_EQ(callArgumentsText(out.calls[1].call), "Reduce(8 x unknown, unknown, root -1)");
}

TEST(OutsideInput, TheRecorderKeepsNoOutOfRangeValue) {
  CollCall call = {};
  call.kind = CollKind::kAllReduce;
  call.dtype = static_cast<ncclDataType_t>(99);
  call.op = static_cast<ncclRedOp_t>(-3);
  const TraceCall traced = traceCallOf(call);
  EXPECT_EQ(traced.dtype, kUnknownDtype);
  EXPECT_EQ(traced.op, kNoRedOp);
  EXPECT_EQ(traceCallProblem(traced), "");
  EXPECT_STREQ(dtypeName(int32_t{0x5f656e69}), "unknown");
  EXPECT_EQ(dtypeSize(int32_t{-1}), 0u);
  EXPECT_STREQ(redOpName(int32_t{-1}), "unknown");
  EXPECT_STREQ(redOpName(static_cast<int32_t>(ncclNumOps) + 4), "premulsum");
}

// A hostile peer holding the token answers the watchdog's query with a well-formed frame whose
// call has dtype 0x5f656e69: the client says which field of which call, and keeps nothing.
TEST(OutsideInput, TheClientNamesTheBadFieldOfAPeersReply) {
  TraceEndpoint endpoint;
  const int listener = testing::loopbackSocket(true, &endpoint);
  TraceCall call = collective(TraceKind::kAllReduce, 8);
  call.dtype = 0x5f656e69;
  const std::string body = replyWithCall(call);
  std::thread peer([&] {
    const int fd = accept(listener, nullptr, nullptr);
    uint8_t query[kFrameHeaderBytes + kQueryBodyBytes];
    size_t got = 0;
    while (got < sizeof(query)) {
      const ssize_t n = recv(fd, query + got, sizeof(query) - got, 0);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    FrameHeader header;
    header.type = static_cast<uint16_t>(FrameType::kProgressReply);
    header.length = static_cast<uint32_t>(body.size());
    const std::string frame = encodeHeader(header) + body;
    send(fd, frame.data(), frame.size(), MSG_NOSIGNAL);
    close(fd);
  });
  PeerQuery query;
  query.endpoint = endpoint;
  const std::vector<QueryOutcome> outcomes = queryPeers({query}, 5000);
  peer.join();
  close(listener);
  EXPECT_EQ(outcomes[0].kind, QueryOutcome::Kind::kBadReply);
  EXPECT_EQ(outcomes[0].detail, "malformed progress reply: call 1: dtype 1600482921 is no NCCL data type");
}

}  // namespace
}  // namespace flashccl
