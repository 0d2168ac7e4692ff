// Writes the binary seed corpora of the harnesses with the project's own encoders, so that the
// seeds are what flashccl really sends and writes: `make_fuzz_seeds DIR` fills DIR/<harness>/.
// tests/fuzz/make_seeds.sh runs it and copies the text seeds (shipped XML files) beside them.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "base/config.h"
#include "snapshot_builder.h"
#include "trace/dump_format.h"
#include "trace/progress_snapshot.h"
#include "trace/wire_format.h"
#include "wire_format.h"

using namespace flashccl;
using testing::collective;
using testing::SnapshotBuilder;

namespace {

std::string root;

void write(const std::string& harness, const std::string& name, const std::string& bytes) {
  const std::string dir = root + "/" + harness;
  mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
}

std::string bytesOf(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }
std::string u16(size_t v) { return std::string{static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff)}; }

// A hang as the verdict sees one: rank 1 is stuck in AllReduce seq 3 that rank 0 never called.
ProgressSnapshot rankSnapshot(int rank, int nranks, bool calledLast) {
  TraceCall premul = collective(TraceKind::kAllReduce, 4096, ncclBfloat16);
  premul.op = static_cast<int32_t>(ncclNumOps) + 2;
  TraceCall send = collective(TraceKind::kSend, 64, ncclInt8);
  send.peer = (rank + 1) % nranks;
  TraceCall root = collective(TraceKind::kBroadcast, 16, ncclFloat64);
  root.peer = 0;
  SnapshotBuilder builder(0x9f3a2b1c0d4e5f60ull, rank, nranks);
  builder.history(2).call(root, CallState::kCompleted, 50, 49).call(send, CallState::kEnqueued, 20);
  if (calledLast) builder.call(premul, CallState::kStarted, 12);
  return builder.build();
}

void traceFrames() {
  FrameHeader reply;
  reply.type = static_cast<uint16_t>(FrameType::kProgressReply);
  reply.length = 100;
  write("trace_frames_fuzz", "header_query", std::string(1, '\0') + encodeQuery(ProgressQuery()).substr(0, kFrameHeaderBytes));
  write("trace_frames_fuzz", "header_reply", std::string(1, '\0') + encodeHeader(reply));
  ProgressQuery query;
  query.askerRank = 3;
  query.waitingSeq = 17;
  query.waitingNs = 5000000000;
  write("trace_frames_fuzz", "query_body", std::string(1, '\1') + encodeQuery(query).substr(kFrameHeaderBytes));
  const std::string first = encodeSnapshot(rankSnapshot(1, 4, true));
  const std::string second = encodeSnapshot(rankSnapshot(0, 4, false));
  write("trace_frames_fuzz", "two_replies", std::string(1, '\2') + u16(first.size()) + first + second);
  const std::string untracked = encodeSnapshot(SnapshotBuilder(7, 0, 2).history(3).untracked().build());
  write("trace_frames_fuzz", "one_reply_untracked", std::string(1, '\2') + u16(untracked.size()) + untracked);
}

void traceDumps() {
  std::string files;
  for (int rank = 0; rank < 2; ++rank) {
    TraceDump dump;
    dump.reason = rank ? "verdict" : "signal";
    dump.host = "h" + std::to_string(rank);
    dump.pid = 100 + rank;
    dump.dumpWallNs = 1700000000LL * testing::kSecond;
    dump.hangTimeoutSeconds = 5;
    dump.verdict = {"rank 0 has not called AllReduce seq 5"};
    DumpedComm comm;
    comm.snapshot = rankSnapshot(rank, 2, rank == 1);
    TraceEndpoint peer = endpointWithoutChannel(rank);
    std::strcpy(peer.host, "h0");
    peer.pid = 100;
    comm.peers = {peer, peer};
    dump.comms.push_back(comm);
    const std::string json = dumpToJson(dump);
    write("trace_dumps_fuzz", "rank" + std::to_string(rank), json);
    files += (rank ? std::string(1, '\0') : std::string()) + json;
  }
  write("trace_dumps_fuzz", "two_ranks", files);
}

// Script ops of side_channel_server_fuzz.cc, each an op byte and a client byte, then its own:
// 0 connect, 1 raw piece (length, bytes), 2 query (token flip, asker, seq, waited, cut),
// 3 close, 4 pause (ms), 5 read.
void sideChannelServer() {
  const std::string goodQuery = std::string("\x02\x00", 2) + std::string(1, '\0') + std::string(20, '\0') + '\0';
  write("side_channel_server_fuzz", "one_good_query",
        std::string("\x00\x00", 2) + goodQuery + std::string("\x05\x00\x03\x00", 4));
  write("side_channel_server_fuzz", "wrong_token",
        std::string("\x00\x00\x02\x00\x85", 5) + std::string(20, '\0') + '\0' + std::string("\x05\x00\x03\x00", 4));
  std::string cut;  // a query cut after 1..15 bytes, each on a connection of its own
  for (int at = 1; at < 16; ++at) {
    cut += std::string("\x00\x00", 2) + '\x02' + static_cast<char>(at - 1) + std::string(21, '\0') +
           static_cast<char>(at);
  }
  write("side_channel_server_fuzz", "cut_frames", cut + std::string("\x04\x00\x0b\x05\x00", 5));
  std::string flood;
  for (int i = 0; i < 12; ++i) flood += std::string("\x00\x00", 2);
  flood += goodQuery + std::string("\x04\x00\x0b\x05\x00", 5);
  write("side_channel_server_fuzz", "flood", flood);
  write("side_channel_server_fuzz", "slow_writer",
        std::string("\x00\x00\x01\x00\x07" "FCTR\x01\x00\x01\x00\x04\x00\x0b\x04\x00\x0b\x05\x00", 21));
}

void netWire() {
  using namespace softbond;
  ListenHandle handle;
  handle.railCount = 2;
  for (int r = 0; r < 2; ++r) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&handle.rails[r].storage);
    v4->sin_family = AF_INET;
    v4->sin_port = htons(40000 + r);
    v4->sin_addr.s_addr = htonl(0x0a000001 + r);
    handle.rails[r].length = sizeof(sockaddr_in);
  }
  handle.listenId = 42;
  uint8_t bytes[kHandleBytes];
  encodeHandle(handle, bytes);
  write("net_wire_fuzz", "handle", std::string(1, '\0') + std::string(reinterpret_cast<char*>(bytes), kHandleBytes));
  Hello hello;
  hello.lane = 1;
  hello.laneCount = 3;
  hello.railCount = 2;
  hello.chunkBytes = 128 * 1024;
  uint8_t helloBytes[kHelloBytes];
  encodeHello(hello, helloBytes);
  write("net_wire_fuzz", "hello", std::string(1, '\1') + std::string(reinterpret_cast<char*>(helloBytes), kHelloBytes));
  Cts cts;
  cts.message = 3;
  cts.capacity = 1 << 20;
  AckEntry acks[3] = {{3, 0}, {3, 1}, {4, 0}};
  VerbsQpInfo qp;
  qp.qpNumber = 77;
  const std::vector<std::vector<uint8_t>> frames = {encodePing(1000), encodeCts(cts), encodeAck(acks, 3),
                                                    encodeRailDown(1), encodeVerbsQp(qp), encodeBye()};
  std::string control;
  for (const auto& frame : frames) {
    // Each frame in two pieces: a length byte, then that many of its bytes.
    const size_t half = frame.size() / 2;
    control += static_cast<char>(half - 1) + bytesOf(frame).substr(0, half);
    control += static_cast<char>(frame.size() - half - 1) + bytesOf(frame).substr(half);
  }
  write("net_wire_fuzz", "control_stream", std::string(1, '\2') + control);
  // A window of 4 KiB chunks, two posted buffers (8 KiB, 0 B), their chunks in order and again.
  std::string window = std::string("\x03\x00\x02", 3) + std::string("\x00\x20\x00\x00", 4) + std::string(4, '\0');
  for (const ChunkHeader& chunk : {ChunkHeader{4096, 0, 0, 8192}, ChunkHeader{4096, 0, 4096, 8192},
                                   ChunkHeader{0, 1, 0, 0}, ChunkHeader{4096, 0, 0, 8192}}) {
    uint8_t header[kChunkHeaderBytes];
    encodeChunkHeader(chunk, header);
    window += std::string(reinterpret_cast<char*>(header), kChunkHeaderBytes);
  }
  write("net_wire_fuzz", "receive_window", window);
}

void environment() {
  std::string defaults;
  for (const EnvParam& p : envParams()) defaults += std::string(p.name) + "=" + p.defaultValue + "\n";
  write("environment_fuzz", "defaults", defaults);
  write("environment_fuzz", "set",
        "FLASHCCL_BUFFER_BYTES=64M\nFLASHCCL_LANES=8\nFLASHCCL_HANG_TIMEOUT=2.5\nFLASHCCL_TRACE=full\n"
        "FLASHCCL_TRACE_SIGNAL=SIGUSR2\nFLASHCCL_HANG_ACTION=abort\nFLASHCCL_TUNER_FORCE=ring:ll128:4\n"
        "FLASHCCL_SOFTBOND_RAILS=eth0,eth1;eth2,eth3\nFLASHCCL_SOFTBOND_CHUNK_BYTES=256K\n"
        "FLASHCCL_SOFTBOND_BACKEND=verbs\nNCCL_SOCKET_IFNAME=^lo,docker\nNCCL_SOCKET_FAMILY=AF_INET6\n");
  write("environment_fuzz", "bad",
        "FLASHCCL_BUFFER_BYTES=18446744073709551616\nFLASHCCL_LANES=-1\nFLASHCCL_HANG_TIMEOUT=1e400\n"
        "FLASHCCL_TRACE_ENTRIES=0x10\nFLASHCCL_TUNER_FORCE=allreduce:\nFLASHCCL_SOFTBOND_RAILS=;;,\n"
        "FLASHCCL_SOFTBOND_STREAMS=99999999999\nFLASHCCL_SOFTBOND_TIMEOUT_MS=-5\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds DIR\n");
    return 2;
  }
  root = argv[1];
  mkdir(root.c_str(), 0755);
  traceFrames();
  traceDumps();
  sideChannelServer();
  netWire();
  environment();
  return 0;
}
