// The cases of the one-GPU check across nodes (hierarchy_check.cc) and what each must show: which
// algorithm ran (built-in selection bands, docs/multinode.md), and how close to NCCL's output
// ours must be. Host code only, no CUDA calls: the unit tests check it on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nccl.h>

namespace flashccl_gpu_test::hierarchy {

enum class Coll { kAllReduce, kAllGather, kReduceScatter };
// NCCL's ops, and PreMulSum made with ncclRedOpCreatePreMulSum: each rank its own scalar, on the
// host or on the device.
enum class Op { kSum, kProd, kMax, kMin, kAvg, kPreMulSumHost, kPreMulSumDevice };

struct Case {
  Coll coll;
  ncclDataType_t dtype;
  Op op;
  size_t count;  // as NCCL takes it: AllGather sendcount, ReduceScatter recvcount
  bool inPlace;
  bool graph;
  std::string name() const;  // "allreduce_float_sum_4KiB_inplace_eager"
};

// How the check's processes form nodes, as FLASHCCL_NODE_ID tells flashccl (hierarchy_check.sh).
struct Layout {
  int nranks = 0;
  int nnodes = 0;
  bool nodeMajor = true;  // node n holds ranks n * ranksPerNode ...
  bool armed = true;      // nodes of 2 to 8 ranks each, all the same size
};

// Bytes per rank of each size class (AllReduce buffer, AllGather input, ReduceScatter output):
// 8 B to 64 MiB, and an odd count of elements that splits unevenly across local ranks.
std::vector<size_t> sizeClassBytes();
constexpr size_t kOddCount = 1001;

// Which cases a run takes, all of them both in place and out of place, eager and graph:
//   kQuick     every type with sum, every op with float, at every size;
//   kStandard  every type with every op at every size but 64 MiB, which runs every type with sum
//              and every op with float (the largest size is most of a run's time);
//   kFull      every type with every op at every size.
enum class Matrix { kQuick, kStandard, kFull };
// Cases of one (collective, type, count) come together: they share their inputs.
std::vector<Case> makeCases(const std::vector<Coll>& colls, Matrix matrix);

// What flashcclLastAlgorithm must name after the case. `pipelinedAllReduce`: the run sets
// FLASHCCL_ALGO=allreduce:allreduce_hier, so every AllReduce it can run takes the pipelined one.
std::string expectedAlgorithm(const Case& c, const Layout& layout, bool pipelinedAllReduce);

// Ours against NCCL's output of the same call, element by element. Bitwise where the result does
// not depend on the order of operations (AllGather; integers; min and max; two ranks); else
// within the rounding two orders can differ by: 2 (n-1) u times the sum of the magnitudes (the
// product, for prod), u the type's unit roundoff. `inputs[r]`: rank r's input (host bytes);
// `scalars[r]`: rank r's PreMulSum scalar. `rank`: whose output (ReduceScatter: its block).
struct Verdict {
  bool ok = true;
  std::string detail;  // the first element out of bounds, and by how much
};
Verdict compareWithNccl(const Case& c, int rank, int nranks, const std::vector<std::vector<char>>& inputs,
                        const std::vector<double>& scalars, const std::vector<char>& ours,
                        const std::vector<char>& nccl);

// A value of `dtype` at `p`, as a double (every type the check uses, fp8 and half included).
double elementValue(ncclDataType_t dtype, const char* p);
bool isInteger(ncclDataType_t dtype);

}  // namespace flashccl_gpu_test::hierarchy
