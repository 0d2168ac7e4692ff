#include "algo/reduce_spec.h"

#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "algo/comm_view.h"

namespace flashccl {

namespace {

bool isInteger(ncclDataType_t dtype) {
  switch (dtype) {
    case ncclInt8: case ncclUint8: case ncclInt32: case ncclUint32: case ncclInt64: case ncclUint64:
      return true;
    default:
      return false;
  }
}

bool isFp8(ncclDataType_t dtype) { return dtype == ncclFloat8e4m3 || dtype == ncclFloat8e5m2; }

// The scalar 1/nranks in the element type, converted exactly as NCCL does it.
bool reciprocalBits(ncclDataType_t dtype, int nranks, uint64_t* bits) {
  *bits = 0;
  switch (dtype) {
    case ncclFloat16: {
      __half h = __float2half(float(1.0 / nranks));
      uint16_t raw;
      std::memcpy(&raw, &h, sizeof(raw));
      *bits = raw;
      return true;
    }
    case ncclBfloat16: {
      __nv_bfloat16 h = __float2bfloat16(float(1.0 / nranks));
      uint16_t raw;
      std::memcpy(&raw, &h, sizeof(raw));
      *bits = raw;
      return true;
    }
    case ncclFloat32: {
      float f = float(1.0 / nranks);
      uint32_t raw;
      std::memcpy(&raw, &f, sizeof(raw));
      *bits = raw;
      return true;
    }
    case ncclFloat64: {
      double d = 1.0 / nranks;
      std::memcpy(bits, &d, sizeof(d));
      return true;
    }
    default:
      return false;  // fp8: NCCL's exact ncclAvg recipe is not pinned down; leave it to NCCL
  }
}

}  // namespace

bool makeReduceSpec(ncclRedOp_t op, ncclDataType_t dtype, const CommView& ctx, ReduceSpec* spec) {
  spec->arg = {0, nullptr};
  switch (op) {
    case ncclSum: spec->kind = dev::RedKind::kSum; return true;
    case ncclProd: spec->kind = dev::RedKind::kProd; return true;
    case ncclMin: spec->kind = dev::RedKind::kMin; return true;
    case ncclMax: spec->kind = dev::RedKind::kMax; return true;
    case ncclAvg:
      if (isInteger(dtype)) {
        spec->kind = dev::RedKind::kSumPostDiv;
        spec->arg.scalarBits = static_cast<uint64_t>(ctx.nranks);
        return true;
      }
      spec->kind = dev::RedKind::kPreMulSum;
      return reciprocalBits(dtype, ctx.nranks, &spec->arg.scalarBits);
    default: {
      PreMulSumOp premul;
      if (!ctx.redOps().find(op, &premul) || premul.dtype != dtype || isFp8(dtype)) return false;
      spec->kind = dev::RedKind::kPreMulSum;
      if (premul.residence == ncclScalarDevice) {
        spec->arg.scalarPointer = premul.deviceScalar;
      } else {
        spec->arg.scalarBits = premul.hostScalar;
      }
      return true;
    }
  }
}

}  // namespace flashccl
