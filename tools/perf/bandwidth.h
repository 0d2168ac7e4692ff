// Bandwidth the way nccl-tests defines it (its doc/PERFORMANCE.md), so our columns can be read next to
// theirs: algbw = size / time; busbw = algbw x factor, where the factor makes a perfect
// send/receive algorithm hit the link's peak whatever the rank count is.
#pragma once

#include <cstddef>

#include "perf_types.h"

namespace flashccl {
namespace perf {

// AllReduce 2(n-1)/n; AllGather and ReduceScatter (n-1)/n (their size is the whole array).
double busBandwidthFactor(Collective coll, int nranks);

// GB/s (10^9 bytes per second) for `bytes` moved in `microseconds`; 0 when the time is not positive.
double algorithmBandwidth(size_t bytes, double microseconds);
double busBandwidth(Collective coll, int nranks, size_t bytes, double microseconds);

}  // namespace perf
}  // namespace flashccl
