#include "size_list.h"

#include <cstdio>

namespace flashccl {
namespace perf {

std::vector<size_t> geometricSizes(size_t minBytes, size_t maxBytes, size_t factor) {
  std::vector<size_t> sizes;
  if (minBytes == 0 || minBytes > maxBytes || factor < 2) return sizes;
  for (size_t size = minBytes; size <= maxBytes;) {
    sizes.push_back(size);
    if (size > maxBytes / factor) break;  // the next step would pass max (or overflow)
    size *= factor;
  }
  return sizes;
}

std::vector<size_t> linearSizes(size_t minBytes, size_t maxBytes, size_t stepBytes) {
  std::vector<size_t> sizes;
  if (minBytes == 0 || minBytes > maxBytes || stepBytes == 0) return sizes;
  for (size_t size = minBytes; size <= maxBytes;) {
    sizes.push_back(size);
    if (size > maxBytes - stepBytes) break;  // the next step would pass max (or overflow)
    size += stepBytes;
  }
  return sizes;
}

CollectiveCounts collectiveCounts(Collective coll, size_t bytes, DataType type, int nranks) {
  CollectiveCounts counts;
  const size_t elementBytes = dataTypeSize(type);
  counts.totalElements = bytes / elementBytes;
  const size_t perRank = nranks > 0 ? counts.totalElements / static_cast<size_t>(nranks) : 0;
  switch (coll) {
    case Collective::kAllReduce:
      counts.sendElements = counts.recvElements = counts.callCount = counts.totalElements;
      break;
    case Collective::kAllGather:
      counts.sendElements = counts.callCount = perRank;
      counts.recvElements = counts.totalElements;
      break;
    case Collective::kReduceScatter:
      counts.sendElements = counts.totalElements;
      counts.recvElements = counts.callCount = perRank;
      break;
  }
  return counts;
}

std::string sizeProblem(Collective coll, size_t bytes, DataType type, int nranks) {
  const size_t elementBytes = dataTypeSize(type);
  char text[512];
  if (bytes % elementBytes != 0 || bytes < elementBytes) {
    std::snprintf(text, sizeof(text),
                  "size %zu B is not a whole number of %s elements (%zu B each) for %s; "
                  "use sizes that are multiples of %zu B",
                  bytes, dataTypeName(type), elementBytes, collectiveName(coll), elementBytes);
    return text;
  }
  if (coll == Collective::kAllReduce || nranks <= 1) return "";
  const size_t unit = elementBytes * static_cast<size_t>(nranks);
  if (bytes % unit != 0) {
    std::snprintf(text, sizeof(text),
                  "size %zu B cannot be split evenly over %d ranks for %s with %s (%zu B elements): "
                  "the size is the whole %s, so it must be a multiple of %d x %zu = %zu B "
                  "(e.g. start with -b %zu)",
                  bytes, nranks, collectiveName(coll), dataTypeName(type), elementBytes,
                  coll == Collective::kAllGather ? "gathered output" : "input", nranks, elementBytes,
                  unit, unit);
    return text;
  }
  return "";
}

}  // namespace perf
}  // namespace flashccl
