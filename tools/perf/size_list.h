// Message sizes, the way nccl-tests takes them: -b MIN -e MAX -f FACTOR, with K/M/G suffixes
// (powers of 1024). A size is the whole buffer as nccl-tests reports it: the AllReduce buffer, the
// gathered AllGather output, the ReduceScatter input.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "perf_types.h"

namespace flashccl {
namespace perf {

// "8", "32K", "1M", "4G", "4GB", "4GiB", "1t" -> bytes. False (and *error set) for anything else,
// including 0, fractions, negative numbers and values that overflow 64 bits.
bool parseSizeBytes(const std::string& text, size_t* bytes, std::string* error);

// MIN, MIN*f, MIN*f^2, ... while <= MAX; MAX itself is not added when the steps skip it (nccl-tests
// does the same). Requires 0 < min <= max and factor >= 2.
std::vector<size_t> geometricSizes(size_t minBytes, size_t maxBytes, size_t factor);

// "8 B", "32 KiB", "1 MiB", "1.5 MiB": for messages. "8", "32K", "1M": for plot ticks.
std::string humanBytes(size_t bytes);
std::string shortBytes(size_t bytes);

// Elements per rank for one measurement, derived from the whole-buffer size.
struct CollectiveCounts {
  size_t totalElements = 0;  // the `count` column: bytes / element size
  size_t sendElements = 0;   // what each rank's send buffer holds
  size_t recvElements = 0;   // what each rank's receive buffer holds
  size_t callCount = 0;      // the count argument of the NCCL call (AllGather: sendcount,
                             // ReduceScatter: recvcount)
};
CollectiveCounts collectiveCounts(Collective coll, size_t bytes, DataType type, int nranks);

// Empty when `bytes` can be measured for (coll, type, nranks); otherwise a message naming the size and
// why not (not a whole number of elements, or not divisible evenly over the ranks).
std::string sizeProblem(Collective coll, size_t bytes, DataType type, int nranks);

}  // namespace perf
}  // namespace flashccl
