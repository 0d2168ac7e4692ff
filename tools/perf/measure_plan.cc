#include "measure_plan.h"

#include <algorithm>

namespace flashccl {
namespace perf {

std::vector<MeasureCase> buildMeasureCases(const PerfOptions& options) {
  std::vector<MeasureCase> cases;
  const std::vector<size_t> sizes = sweepSizes(options);
  for (Collective coll : options.collectives) {
    const std::vector<ReduceOp> ops =
        collectiveHasReduceOp(coll) ? options.reduceOps : std::vector<ReduceOp>{ReduceOp::kNone};
    for (DataType type : options.dataTypes)
      for (ReduceOp op : ops)
        for (size_t bytes : sizes)
          for (Placement place : options.placements) cases.push_back({coll, type, op, bytes, place});
  }
  return cases;
}

size_t bufferBytesNeeded(const std::vector<MeasureCase>& cases) {
  size_t bytes = 0;
  for (const MeasureCase& c : cases) bytes = std::max(bytes, c.bytes);
  return bytes;
}

CaseLayout caseLayout(const MeasureCase& c, int rank, int nranks) {
  CaseLayout layout;
  layout.counts = collectiveCounts(c.collective, c.bytes, c.dataType, nranks);
  const size_t elementBytes = dataTypeSize(c.dataType);
  const size_t sendBytes = layout.counts.sendElements * elementBytes;
  const size_t recvBytes = layout.counts.recvElements * elementBytes;
  const size_t r = static_cast<size_t>(rank);
  if (c.placement == Placement::kOutOfPlace) {
    layout.input = {BufferId::kSend, 0, sendBytes};
    layout.output = {BufferId::kRecv, 0, recvBytes};
    layout.recvPointerOffset = 0;
    layout.poison = {layout.output};
    return layout;
  }
  switch (c.collective) {
    case Collective::kAllReduce:
      layout.input = {BufferId::kRecv, 0, sendBytes};
      layout.output = {BufferId::kRecv, 0, recvBytes};
      layout.recvPointerOffset = 0;
      break;  // the output overwrites the input: nothing to poison
    case Collective::kAllGather:
      layout.input = {BufferId::kRecv, r * sendBytes, sendBytes};
      layout.output = {BufferId::kRecv, 0, recvBytes};
      layout.recvPointerOffset = 0;
      // Every chunk but our own must be written by the collective.
      if (r > 0) layout.poison.push_back({BufferId::kRecv, 0, r * sendBytes});
      if (recvBytes > (r + 1) * sendBytes)
        layout.poison.push_back(
            {BufferId::kRecv, (r + 1) * sendBytes, recvBytes - (r + 1) * sendBytes});
      break;
    case Collective::kReduceScatter:
      layout.input = {BufferId::kRecv, 0, sendBytes};
      layout.output = {BufferId::kRecv, r * recvBytes, recvBytes};
      layout.recvPointerOffset = r * recvBytes;
      break;  // the output chunk is part of the input: nothing to poison
  }
  return layout;
}

}  // namespace perf
}  // namespace flashccl
