// Turns the run-time (dtype, reduction kind) of a call into the compile-time template arguments of
// a kernel. Only combinations that exist are instantiated (SumPostDiv is for integers only).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <nccl.h>

#include "algo/reduce_spec.h"

namespace flashccl {
namespace dev {

template <typename T> struct TypeTag { using type = T; };
template <RedKind K> struct KindTag { static constexpr RedKind value = K; };

template <typename T>
constexpr bool kIsIntegerElem = std::is_integral<T>::value;

// Calls fn(TypeTag<T>{}) for the element type of `dtype`; false for an unknown type.
template <typename Fn>
bool withElementType(ncclDataType_t dtype, Fn&& fn) {
  switch (dtype) {
    case ncclInt8: fn(TypeTag<int8_t>{}); return true;
    case ncclUint8: fn(TypeTag<uint8_t>{}); return true;
    case ncclInt32: fn(TypeTag<int32_t>{}); return true;
    case ncclUint32: fn(TypeTag<uint32_t>{}); return true;
    case ncclInt64: fn(TypeTag<int64_t>{}); return true;
    case ncclUint64: fn(TypeTag<uint64_t>{}); return true;
    case ncclFloat16: fn(TypeTag<__half>{}); return true;
    case ncclFloat32: fn(TypeTag<float>{}); return true;
    case ncclFloat64: fn(TypeTag<double>{}); return true;
    case ncclBfloat16: fn(TypeTag<__nv_bfloat16>{}); return true;
    case ncclFloat8e4m3: fn(TypeTag<__nv_fp8_e4m3>{}); return true;
    case ncclFloat8e5m2: fn(TypeTag<__nv_fp8_e5m2>{}); return true;
    default: return false;
  }
}

// Calls fn(KindTag<K>{}) for `kind`; false when the kind does not apply to T.
template <typename T, typename Fn>
bool withRedKind(RedKind kind, Fn&& fn) {
  switch (kind) {
    case RedKind::kSum: fn(KindTag<RedKind::kSum>{}); return true;
    case RedKind::kProd: fn(KindTag<RedKind::kProd>{}); return true;
    case RedKind::kMin: fn(KindTag<RedKind::kMin>{}); return true;
    case RedKind::kMax: fn(KindTag<RedKind::kMax>{}); return true;
    case RedKind::kPreMulSum: fn(KindTag<RedKind::kPreMulSum>{}); return true;
    case RedKind::kSumPostDiv:
      if constexpr (kIsIntegerElem<T>) {
        fn(KindTag<RedKind::kSumPostDiv>{});
        return true;
      } else {
        return false;
      }
  }
  return false;
}

// Calls fn(TypeTag<T>{}, KindTag<K>{}) for `dtype` and `kind`; false when the type is unknown or
// the kind does not apply to it. One place for the reducing kernels' launch switch.
template <typename Fn>
bool withTypeAndRedKind(ncclDataType_t dtype, RedKind kind, Fn&& fn) {
  bool called = false;
  withElementType(dtype, [&](auto typeTag) {
    using T = typename decltype(typeTag)::type;
    called = withRedKind<T>(kind, [&](auto kindTag) { fn(typeTag, kindTag); });
  });
  return called;
}

}  // namespace dev
}  // namespace flashccl
