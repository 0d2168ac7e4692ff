// How an NCCL reduction (op, dtype) maps onto our kernels' operators, decided on the host.
// Mirrors NCCL 2.28's hostToDevRedOp: ncclAvg is PreMulSum(1/nranks) for floating types and
// Sum-then-divide for integers; PreMulSum ops made with ncclRedOpCreatePreMulSum carry their
// scalar by value (host residence) or by device pointer.
#pragma once

#include <cstdint>

#include <nccl.h>

namespace flashccl {

class CommView;

namespace dev {
enum class RedKind : int { kSum, kProd, kMin, kMax, kPreMulSum, kSumPostDiv };

struct RedArg {
  uint64_t scalarBits;        // PreMulSum scalar bits (host residence) or SumPostDiv divisor
  const void* scalarPointer;  // PreMulSum scalar in device memory, or nullptr
};
}  // namespace dev

struct ReduceSpec {
  dev::RedKind kind = dev::RedKind::kSum;
  dev::RedArg arg{0, nullptr};
};

// False when our kernels cannot reproduce NCCL's arithmetic for this op and type (then the call
// falls back). Cheap: no allocation; PreMulSum ops are looked up in the communicator.
bool makeReduceSpec(ncclRedOp_t op, ncclDataType_t dtype, const CommView& ctx, ReduceSpec* spec);

}  // namespace flashccl
