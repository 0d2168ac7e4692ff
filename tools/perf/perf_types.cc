#include "perf_types.h"

#include <algorithm>
#include <cctype>

namespace flashccl {
namespace perf {
namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

struct DataTypeRow {
  DataType type;
  const char* name;
  size_t bytes;
  bool integer;
  const char* aliases[4];
};

// nccl-tests spellings first (int8 ... bfloat16, f8e4m3, f8e5m2), then the ones people type.
const DataTypeRow kDataTypes[kNumDataTypes] = {
    {DataType::kInt8, "int8", 1, true, {"char", "i8", nullptr, nullptr}},
    {DataType::kUint8, "uint8", 1, true, {"u8", nullptr, nullptr, nullptr}},
    {DataType::kInt32, "int32", 4, true, {"int", "i32", nullptr, nullptr}},
    {DataType::kUint32, "uint32", 4, true, {"u32", nullptr, nullptr, nullptr}},
    {DataType::kInt64, "int64", 8, true, {"i64", nullptr, nullptr, nullptr}},
    {DataType::kUint64, "uint64", 8, true, {"u64", nullptr, nullptr, nullptr}},
    {DataType::kHalf, "half", 2, false, {"float16", "fp16", "f16", nullptr}},
    {DataType::kFloat, "float", 4, false, {"float32", "fp32", "f32", nullptr}},
    {DataType::kDouble, "double", 8, false, {"float64", "fp64", "f64", nullptr}},
    {DataType::kBfloat16, "bfloat16", 2, false, {"bf16", nullptr, nullptr, nullptr}},
    {DataType::kFloat8e4m3, "f8e4m3", 1, false, {"fp8e4m3", "float8e4m3", "e4m3", nullptr}},
    {DataType::kFloat8e5m2, "f8e5m2", 1, false, {"fp8e5m2", "float8e5m2", "e5m2", nullptr}},
};

const DataTypeRow& row(DataType type) { return kDataTypes[static_cast<int>(type)]; }

}  // namespace

const char* collectiveName(Collective coll) {
  switch (coll) {
    case Collective::kAllReduce: return "all_reduce";
    case Collective::kAllGather: return "all_gather";
    case Collective::kReduceScatter: return "reduce_scatter";
  }
  return "?";
}

const char* dataTypeName(DataType type) { return row(type).name; }

const char* reduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kProd: return "prod";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kMin: return "min";
    case ReduceOp::kAvg: return "avg";
    case ReduceOp::kNone: return "none";
  }
  return "?";
}

const char* placementName(Placement place) { return place == Placement::kInPlace ? "in" : "out"; }

bool parseCollective(const std::string& text, Collective* coll) {
  std::string name = lowercase(text);
  name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
  name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
  if (name == "allreduce" || name == "ar") *coll = Collective::kAllReduce;
  else if (name == "allgather" || name == "ag") *coll = Collective::kAllGather;
  else if (name == "reducescatter" || name == "rs") *coll = Collective::kReduceScatter;
  else return false;
  return true;
}

bool parseDataType(const std::string& text, DataType* type) {
  const std::string name = lowercase(text);
  for (const DataTypeRow& r : kDataTypes) {
    bool match = name == r.name;
    for (const char* alias : r.aliases) match = match || (alias && name == alias);
    if (match) {
      *type = r.type;
      return true;
    }
  }
  return false;
}

bool parseReduceOp(const std::string& text, ReduceOp* op) {
  const std::string name = lowercase(text);
  for (ReduceOp candidate : allReduceOps()) {
    if (name == reduceOpName(candidate)) {
      *op = candidate;
      return true;
    }
  }
  if (name == "product") *op = ReduceOp::kProd;
  else if (name == "mean" || name == "average") *op = ReduceOp::kAvg;
  else return false;
  return true;
}

size_t dataTypeSize(DataType type) { return row(type).bytes; }
bool isIntegerType(DataType type) { return row(type).integer; }
bool isFloat8Type(DataType type) {
  return type == DataType::kFloat8e4m3 || type == DataType::kFloat8e5m2;
}
bool collectiveHasReduceOp(Collective coll) { return coll != Collective::kAllGather; }

std::vector<Collective> allCollectives() {
  return {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter};
}

std::vector<DataType> allDataTypes() {
  std::vector<DataType> types;
  for (const DataTypeRow& r : kDataTypes) types.push_back(r.type);
  return types;
}

std::vector<ReduceOp> allReduceOps() {
  return {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kAvg};
}

std::string dataTypeNameList() {
  std::string names;
  for (const DataTypeRow& r : kDataTypes) names += std::string(names.empty() ? "" : " ") + r.name;
  return names;
}

std::string reduceOpNameList() { return "sum prod min max avg"; }
std::string collectiveNameList() { return "all_reduce all_gather reduce_scatter"; }

}  // namespace perf
}  // namespace flashccl
