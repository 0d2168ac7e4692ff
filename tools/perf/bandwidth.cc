#include "bandwidth.h"

namespace flashccl {
namespace perf {

double busBandwidthFactor(Collective coll, int nranks) {
  if (nranks <= 0) return 0.0;
  const double n = static_cast<double>(nranks);
  switch (coll) {
    case Collective::kAllReduce: return 2.0 * (n - 1.0) / n;
    case Collective::kAllGather:
    case Collective::kReduceScatter: return (n - 1.0) / n;
  }
  return 0.0;
}

double algorithmBandwidth(size_t bytes, double microseconds) {
  if (!(microseconds > 0.0)) return 0.0;
  return static_cast<double>(bytes) / (microseconds * 1.0e3);  // B/us = 1e6 B/s; /1e9 for GB/s
}

double busBandwidth(Collective coll, int nranks, size_t bytes, double microseconds) {
  return algorithmBandwidth(bytes, microseconds) * busBandwidthFactor(coll, nranks);
}

}  // namespace perf
}  // namespace flashccl
