// The fault locator's side-channel frames, as a peer sends them: the first byte picks a frame
// header (checked for both frame types, as the server and the client do), a query body, or two
// progress replies. Replies that decode are put into one communicator's report as the watchdog
// would (the other ranks unreachable) and analysed, so every decoded field reaches the verdict.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "quiet_logs.h"
#include "trace/progress_snapshot.h"
#include "trace/verdict.h"
#include "trace/wire_format.h"

using namespace flashccl;
using flashccl::fuzz::FuzzInput;

namespace {

// Larger communicators decode too; the report is kept small so that one input stays fast.
constexpr int kMaxAnalysedRanks = 64;

bool decodeOne(FuzzInput& in, size_t length, ProgressSnapshot* snapshot) {
  size_t got = 0;
  const uint8_t* body = in.take(length, &got);
  std::string error;
  return decodeSnapshot(body, got, snapshot, &error);
}

void replies(FuzzInput& in) {
  const size_t firstLength = in.byte() | static_cast<size_t>(in.byte()) << 8;
  ProgressSnapshot first, second;
  const bool haveFirst = decodeOne(in, firstLength, &first);
  const bool haveSecond = decodeOne(in, in.left(), &second);
  if (!haveFirst) return;
  const int nranks = first.identity.nranks;
  if (nranks > kMaxAnalysedRanks) return;
  CommReport report;
  report.commHash = first.identity.commHash;
  report.nranks = nranks;
  report.timeoutNs = 1000000000;
  report.ranks.resize(nranks);
  for (int rank = 0; rank < nranks; ++rank) {
    report.ranks[rank].rank = rank;
    report.ranks[rank].why = "it did not answer";
  }
  const int self = first.identity.rank;
  report.ranks[self].reachable = true;
  report.ranks[self].snapshot = first;
  // As the watchdog takes a reply: the same communicator, size and another rank.
  if (haveSecond && second.identity.commHash == report.commHash && second.identity.nranks == nranks &&
      second.identity.rank != self) {
    report.ranks[second.identity.rank].reachable = true;
    report.ranks[second.identity.rank].snapshot = second;
  }
  for (const Finding& finding : analyzeHang(report)) (void)finding.key();
  for (const SnapshotCall& call : first.calls) {
    (void)callArgumentsText(call.call);
    (void)callWithSizeText(call.call, call.seq, nranks);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::quietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  switch (in.byte() % 3) {
    case 0: {
      uint8_t bytes[kFrameHeaderBytes];
      in.fill(bytes, sizeof(bytes));
      FrameHeader header;
      (void)decodeHeader(bytes, &header);
      (void)headerProblem(header, FrameType::kProgressQuery, kQueryBodyBytes);
      (void)headerProblem(header, FrameType::kProgressReply, kMaxReplyBodyBytes);
      break;
    }
    case 1: {
      size_t got = 0;
      const uint8_t* body = in.take(in.left(), &got);
      ProgressQuery query;
      (void)decodeQueryBody(body, got, &query);
      break;
    }
    default: replies(in); break;
  }
  return 0;
}
