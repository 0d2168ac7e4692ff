// The vocabulary of `flashccl perf`: which collective, element type, reduction and buffer placement a
// measurement is about. Kept free of nccl.h so the option parser, the formatters and their tests build
// and run on machines without CUDA; rank_driver.cc checks by static_assert that the enums mirror
// ncclDataType_t / ncclRedOp_t. Names are the shared spellings of tools/common/cli_options.h.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace flashccl {
namespace perf {

// Same order as CollKind and cli::collectiveNames().
enum class Collective { kAllReduce, kAllGather, kReduceScatter };

// Same order and meaning as ncclDataType_t (ncclInt8 = 0 ... ncclFloat8e5m2 = 11).
enum class DataType {
  kInt8 = 0,
  kUint8 = 1,
  kInt32 = 2,
  kUint32 = 3,
  kInt64 = 4,
  kUint64 = 5,
  kHalf = 6,
  kFloat = 7,
  kDouble = 8,
  kBfloat16 = 9,
  kFloat8e4m3 = 10,
  kFloat8e5m2 = 11,
};
constexpr int kNumDataTypes = 12;

// Same order as ncclRedOp_t (ncclSum = 0 ... ncclAvg = 4). kNone is what AllGather reports.
enum class ReduceOp { kSum = 0, kProd = 1, kMax = 2, kMin = 3, kAvg = 4, kNone = 5 };
constexpr int kNumMeasuredReduceOps = 5;  // premulsum, in the shared spelling, is not measured yet

enum class Placement { kOutOfPlace, kInPlace };

// "allreduce", "float", "sum" ("none" for kNone), "out" / "in".
const char* collectiveName(Collective coll);
const char* dataTypeName(DataType type);
const char* reduceOpName(ReduceOp op);
const char* placementName(Placement place);

// The printed names back to values (reading a results JSON). False if unknown.
bool parseCollective(const std::string& text, Collective* coll);
bool parseDataType(const std::string& text, DataType* type);
bool parseReduceOp(const std::string& text, ReduceOp* op);

size_t dataTypeSize(DataType type);
bool isIntegerType(DataType type);
bool isFloat8Type(DataType type);
bool collectiveHasReduceOp(Collective coll);  // AllReduce and ReduceScatter do; AllGather does not

}  // namespace perf
}  // namespace flashccl
