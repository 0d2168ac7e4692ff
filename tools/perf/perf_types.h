// The vocabulary of `flashccl perf`: which collective, element type, reduction and buffer placement a
// measurement is about. Kept free of nccl.h so the option parser, the formatters and their tests build
// and run on machines without CUDA; nccl_mapping.h translates to ncclDataType_t / ncclRedOp_t.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace flashccl {
namespace perf {

enum class Collective { kAllReduce, kAllGather, kReduceScatter };

// Same order and meaning as ncclDataType_t (ncclInt8 = 0 ... ncclFloat8e5m2 = 11), so the mapping is
// a cast checked by a static_assert in nccl_mapping.h.
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

enum class Placement { kOutOfPlace, kInPlace };

// Names as printed in tables and accepted on the command line: "all_reduce", "float", "sum", "out".
const char* collectiveName(Collective coll);
const char* dataTypeName(DataType type);
const char* reduceOpName(ReduceOp op);
const char* placementName(Placement place);  // "out" / "in"

// Parsers accept the printed name plus common aliases (allreduce, fp32, bf16, ...). False if unknown.
bool parseCollective(const std::string& text, Collective* coll);
bool parseDataType(const std::string& text, DataType* type);
bool parseReduceOp(const std::string& text, ReduceOp* op);

size_t dataTypeSize(DataType type);
bool isIntegerType(DataType type);
bool isFloat8Type(DataType type);
bool collectiveHasReduceOp(Collective coll);  // AllReduce and ReduceScatter do; AllGather does not

std::vector<Collective> allCollectives();
std::vector<DataType> allDataTypes();
std::vector<ReduceOp> allReduceOps();  // sum prod min max avg

// Accepted names, for error messages and --help ("int8 uint8 ... f8e5m2").
std::string dataTypeNameList();
std::string reduceOpNameList();
std::string collectiveNameList();

}  // namespace perf
}  // namespace flashccl
