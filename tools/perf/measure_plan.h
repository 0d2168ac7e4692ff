// What gets measured, in which order, and where each measurement's data lives in the rank's buffers.
// Every rank builds the same list from the same options, so all ranks issue the same collectives in
// the same order without talking to each other.
#pragma once

#include <cstddef>
#include <vector>

#include "perf_options.h"
#include "perf_types.h"
#include "size_list.h"

namespace flashccl {
namespace perf {

struct MeasureCase {
  Collective collective;
  DataType dataType;
  ReduceOp op;  // kNone for AllGather
  size_t bytes;
  Placement placement;
};

// Order: collective, datatype, op, size, placement (one table per collective; inside it, rows grouped
// by datatype and op with sizes ascending, as nccl-tests prints them).
std::vector<MeasureCase> buildMeasureCases(const PerfOptions& options);

// Each rank owns three device buffers of this many bytes: send, receive and NCCL's reference output.
size_t bufferBytesNeeded(const std::vector<MeasureCase>& cases);

enum class BufferId { kSend, kRecv };

struct Region {
  BufferId buffer = BufferId::kSend;
  size_t offsetBytes = 0;
  size_t bytes = 0;
};

// Where one rank's data sits for one case. In-place calls use the receive buffer for everything, with
// NCCL's in-place conventions: AllGather sends from recvbuff + rank * sendcount; ReduceScatter
// receives into sendbuff + rank * recvcount.
struct CaseLayout {
  CollectiveCounts counts;
  Region input;                // where this rank's inputs go; the call's send pointer
  Region output;               // the call's result on this rank (what gets compared and hashed)
  size_t recvPointerOffset = 0;  // the call's recv pointer: offset into `output.buffer`
  std::vector<Region> poison;  // output bytes to overwrite with 0xFF before a checked call
};

CaseLayout caseLayout(const MeasureCase& c, int rank, int nranks);

}  // namespace perf
}  // namespace flashccl
