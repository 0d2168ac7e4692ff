#include "perf_types.h"

#include "cli_options.h"

namespace flashccl {
namespace perf {
namespace {

const size_t kDataTypeBytes[kNumDataTypes] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};

template <typename T>
bool lookUp(const std::vector<std::string>& names, int count, const std::string& text, T* value) {
  for (int i = 0; i < count; ++i) {
    if (names[static_cast<size_t>(i)] == text) {
      *value = static_cast<T>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

const char* collectiveName(Collective coll) {
  return cli::collectiveNames()[static_cast<size_t>(coll)].c_str();
}

const char* dataTypeName(DataType type) { return cli::dataTypeNames()[static_cast<size_t>(type)].c_str(); }

const char* reduceOpName(ReduceOp op) {
  return op == ReduceOp::kNone ? "none" : cli::reduceOpNames()[static_cast<size_t>(op)].c_str();
}

const char* placementName(Placement place) { return place == Placement::kInPlace ? "in" : "out"; }

bool parseCollective(const std::string& text, Collective* coll) {
  return lookUp(cli::collectiveNames(), 3, text, coll);
}

bool parseDataType(const std::string& text, DataType* type) {
  return lookUp(cli::dataTypeNames(), kNumDataTypes, text, type);
}

bool parseReduceOp(const std::string& text, ReduceOp* op) {
  if (text == "none") {
    *op = ReduceOp::kNone;
    return true;
  }
  return lookUp(cli::reduceOpNames(), kNumMeasuredReduceOps, text, op);
}

size_t dataTypeSize(DataType type) { return kDataTypeBytes[static_cast<int>(type)]; }
bool isIntegerType(DataType type) { return static_cast<int>(type) <= static_cast<int>(DataType::kUint64); }
bool isFloat8Type(DataType type) {
  return type == DataType::kFloat8e4m3 || type == DataType::kFloat8e5m2;
}
bool collectiveHasReduceOp(Collective coll) { return coll != Collective::kAllGather; }

}  // namespace perf
}  // namespace flashccl
