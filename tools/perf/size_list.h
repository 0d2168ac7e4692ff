// Message sizes, the way nccl-tests sweeps them: -b MIN -e MAX with -f FACTOR or -i STEP (the text
// of a size is parsed by base/size_text.h). A size is the whole buffer as nccl-tests reports it: the
// AllReduce buffer, the gathered AllGather output, the ReduceScatter input.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/size_text.h"
#include "perf_types.h"

namespace flashccl {
namespace perf {

// MIN, MIN*f, MIN*f^2, ... while <= MAX; MAX itself is not added when the steps skip it (nccl-tests
// does the same). Requires 0 < min <= max and factor >= 2.
std::vector<size_t> geometricSizes(size_t minBytes, size_t maxBytes, size_t factor);

// MIN, MIN+step, MIN+2*step, ... while <= MAX (nccl-tests' -i). Requires 0 < min <= max, step > 0.
std::vector<size_t> linearSizes(size_t minBytes, size_t maxBytes, size_t stepBytes);

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
