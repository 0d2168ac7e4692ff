#include "base/coll_call.h"

namespace flashccl {

const char* collKindName(CollKind kind) {
  switch (kind) {
    case CollKind::kAllReduce: return "allreduce";
    case CollKind::kAllGather: return "allgather";
    case CollKind::kReduceScatter: return "reducescatter";
  }
  return "unknown";
}

const char* collKindTitle(CollKind kind) {
  switch (kind) {
    case CollKind::kAllReduce: return "AllReduce";
    case CollKind::kAllGather: return "AllGather";
    case CollKind::kReduceScatter: return "ReduceScatter";
  }
  return "Unknown";
}

// The switches take the raw integer: a value from outside the process (a peer's frame, a dump
// file) may be no ncclDataType_t at all, and converting it to the enum first would be undefined.
size_t dtypeSize(int32_t dtype) {
  switch (dtype) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
    default: return 0;
  }
}

size_t dtypeSize(ncclDataType_t dtype) { return dtypeSize(static_cast<int32_t>(dtype)); }

const char* dtypeName(int32_t dtype) {
  switch (dtype) {
    case ncclInt8: return "int8";
    case ncclUint8: return "uint8";
    case ncclInt32: return "int32";
    case ncclUint32: return "uint32";
    case ncclInt64: return "int64";
    case ncclUint64: return "uint64";
    case ncclFloat16: return "half";
    case ncclFloat32: return "float";
    case ncclFloat64: return "double";
    case ncclBfloat16: return "bfloat16";
    case ncclFloat8e4m3: return "f8e4m3";
    case ncclFloat8e5m2: return "f8e5m2";
    default: return "unknown";
  }
}

const char* dtypeName(ncclDataType_t dtype) { return dtypeName(static_cast<int32_t>(dtype)); }

const char* redOpName(int32_t op) {
  switch (op) {
    case ncclSum: return "sum";
    case ncclProd: return "prod";
    case ncclMax: return "max";
    case ncclMin: return "min";
    case ncclAvg: return "avg";
    default: return op >= static_cast<int32_t>(ncclNumOps) ? "premulsum" : "unknown";
  }
}

const char* redOpName(ncclRedOp_t op) { return redOpName(static_cast<int32_t>(op)); }

size_t totalBytes(const CollCall& call, int nranks) {
  const size_t bytes = call.count * dtypeSize(call.dtype);
  return call.kind == CollKind::kAllReduce ? bytes : bytes * static_cast<size_t>(nranks);
}

bool isInPlace(const CollCall& call, int rank) {
  const char* send = static_cast<const char*>(call.send);
  const char* recv = static_cast<const char*>(call.recv);
  const size_t shard = call.count * dtypeSize(call.dtype) * static_cast<size_t>(rank);
  switch (call.kind) {
    case CollKind::kAllReduce: return send == recv;
    case CollKind::kAllGather: return send == recv + shard;
    case CollKind::kReduceScatter: return send + shard == recv;
  }
  return false;
}

}  // namespace flashccl
