// Element types and reduction operators for our kernels, matching NCCL's arithmetic bit for bit
// (src/device/reduce_kernel.h in NCCL 2.28): half/bf16 use the native half-precision instructions,
// fp8 computes in half and converts back after every operation, integers wrap, min/max use
// fminf/fmaxf-style semantics, ncclAvg is PreMulSum(1/n) for floats and Sum then divide for
// integers. With two ranks every result is therefore bitwise equal to NCCL's.
#pragma once

#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "algo/reduce_spec.h"

namespace flashccl {
namespace dev {

// Bits <-> value for every element type, so packs can travel as plain integers.
template <typename T> struct Elem;

#define FLASHCCL_INT_ELEM(T, U)                                                  \
  template <> struct Elem<T> {                                                   \
    using Bits = U;                                                              \
    __device__ static T fromBits(Bits b) { return static_cast<T>(b); }           \
    __device__ static Bits toBits(T v) { return static_cast<Bits>(v); }          \
    __device__ static T add(T a, T b) { return static_cast<T>(static_cast<U>(a) + static_cast<U>(b)); } \
    __device__ static T mul(T a, T b) { return static_cast<T>(static_cast<U>(a) * static_cast<U>(b)); } \
    __device__ static T min(T a, T b) { return a < b ? a : b; }                  \
    __device__ static T max(T a, T b) { return a < b ? b : a; }                  \
  };
FLASHCCL_INT_ELEM(int8_t, uint8_t)
FLASHCCL_INT_ELEM(uint8_t, uint8_t)
FLASHCCL_INT_ELEM(int32_t, uint32_t)
FLASHCCL_INT_ELEM(uint32_t, uint32_t)
FLASHCCL_INT_ELEM(int64_t, uint64_t)
FLASHCCL_INT_ELEM(uint64_t, uint64_t)
#undef FLASHCCL_INT_ELEM

template <> struct Elem<float> {
  using Bits = uint32_t;
  __device__ static float fromBits(Bits b) { return __uint_as_float(b); }
  __device__ static Bits toBits(float v) { return __float_as_uint(v); }
  // The _rn intrinsics keep the compiler from contracting a premultiply and a sum into one FMA.
  __device__ static float add(float a, float b) { return __fadd_rn(a, b); }
  __device__ static float mul(float a, float b) { return __fmul_rn(a, b); }
  __device__ static float min(float a, float b) { return fminf(a, b); }
  __device__ static float max(float a, float b) { return fmaxf(a, b); }
};

template <> struct Elem<double> {
  using Bits = uint64_t;
  __device__ static double fromBits(Bits b) { return __longlong_as_double(static_cast<long long>(b)); }
  __device__ static Bits toBits(double v) { return static_cast<Bits>(__double_as_longlong(v)); }
  __device__ static double add(double a, double b) { return __dadd_rn(a, b); }
  __device__ static double mul(double a, double b) { return __dmul_rn(a, b); }
  __device__ static double min(double a, double b) { return fmin(a, b); }
  __device__ static double max(double a, double b) { return fmax(a, b); }
};

template <> struct Elem<__half> {
  using Bits = uint16_t;
  __device__ static __half fromBits(Bits b) { return __ushort_as_half(b); }
  __device__ static Bits toBits(__half v) { return __half_as_ushort(v); }
  __device__ static __half add(__half a, __half b) { return __hadd(a, b); }
  __device__ static __half mul(__half a, __half b) { return __hmul(a, b); }
  __device__ static __half min(__half a, __half b) { return __hmin(a, b); }
  __device__ static __half max(__half a, __half b) { return __hmax(a, b); }
};

template <> struct Elem<__nv_bfloat16> {
  using Bits = uint16_t;
  __device__ static __nv_bfloat16 fromBits(Bits b) { return __ushort_as_bfloat16(b); }
  __device__ static Bits toBits(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
  __device__ static __nv_bfloat16 add(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
  __device__ static __nv_bfloat16 mul(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmul(a, b); }
  __device__ static __nv_bfloat16 min(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmin(a, b); }
  __device__ static __nv_bfloat16 max(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmax(a, b); }
};

// fp8: NCCL on sm_90 converts to half, operates in half, converts back (saturating to finite).
template <typename F8> struct Fp8Elem {
  using Bits = uint8_t;
  __device__ static F8 fromBits(Bits b) {
    F8 v;
    v.__x = b;
    return v;
  }
  __device__ static Bits toBits(F8 v) { return v.__x; }
  __device__ static F8 add(F8 a, F8 b) { return F8(__hadd(__half(a), __half(b))); }
  __device__ static F8 mul(F8 a, F8 b) { return F8(__hmul(__half(a), __half(b))); }
  __device__ static F8 min(F8 a, F8 b) { return F8(__hmin(__half(a), __half(b))); }
  __device__ static F8 max(F8 a, F8 b) { return F8(__hmax(__half(a), __half(b))); }
};
template <> struct Elem<__nv_fp8_e4m3> : Fp8Elem<__nv_fp8_e4m3> {};
template <> struct Elem<__nv_fp8_e5m2> : Fp8Elem<__nv_fp8_e5m2> {};

// One reduction operator over T: out = post(combine(...combine(x0', x1')..., xn')) in rank
// order, where xr' = pre(xr). pre() is the PreMulSum scaling, and each rank applies it to its
// own contribution with its own scalar before anyone else sees it (as NCCL does: ranks may pass
// different scalars); a peer's contribution arrives already scaled.
template <typename T, RedKind K>
struct Reducer {
  using E = Elem<T>;
  T scalar;
  uint64_t divisor;

  // A device-resident scalar is read here, when the kernel runs: it may change between calls
  // and between replays of a captured graph.
  __device__ explicit Reducer(const RedArg& arg) : divisor(arg.scalarBits) {
    if (K == RedKind::kPreMulSum) {
      using Bits = typename E::Bits;
      Bits bits = arg.scalarPointer ? *static_cast<const Bits*>(arg.scalarPointer)
                                    : static_cast<Bits>(arg.scalarBits);
      scalar = E::fromBits(bits);
    } else {
      scalar = E::fromBits(0);
    }
  }
  __device__ __forceinline__ T pre(T x) const {
    return K == RedKind::kPreMulSum ? E::mul(x, scalar) : x;
  }
  __device__ __forceinline__ T combine(T a, T b) const {
    switch (K) {
      case RedKind::kProd: return E::mul(a, b);
      case RedKind::kMin: return E::min(a, b);
      case RedKind::kMax: return E::max(a, b);
      default: return E::add(a, b);
    }
  }
  __device__ __forceinline__ T post(T x) const {
    if constexpr (K == RedKind::kSumPostDiv) {
      // Integers only (ncclAvg): the wrapped sum divided, truncating toward zero like NCCL.
      return static_cast<T>(x / static_cast<T>(divisor));
    } else {
      return x;
    }
  }
};

// Packs: `Words` bytes of elements held as raw integers (8 bytes for LL packets, 16 for vectors).
template <typename T, int Bytes>
struct Pack {
  static constexpr int kCount = Bytes / sizeof(T);
  typename Elem<T>::Bits bits[kCount];
};

template <typename T, int Bytes, typename Raw>
__device__ __forceinline__ Pack<T, Bytes> toPack(const Raw& raw) {
  static_assert(sizeof(Raw) == Bytes, "pack size");
  Pack<T, Bytes> p;
  memcpy(&p, &raw, Bytes);
  return p;
}

template <typename Raw, typename T, int Bytes>
__device__ __forceinline__ Raw fromPack(const Pack<T, Bytes>& p) {
  Raw raw;
  memcpy(&raw, &p, Bytes);
  return raw;
}

// acc = combine(acc, x') element-wise, x' = pre(x) when `own` (our contribution) else x (a peer's,
// already scaled by its producer); with `first` acc = x'.
template <typename T, RedKind K, int Bytes>
__device__ __forceinline__ void accumulate(const Reducer<T, K>& red, Pack<T, Bytes>& acc,
                                           const Pack<T, Bytes>& x, bool first, bool own) {
  using E = Elem<T>;
#pragma unroll
  for (int i = 0; i < Pack<T, Bytes>::kCount; ++i) {
    T v = E::fromBits(x.bits[i]);
    if (own) v = red.pre(v);
    acc.bits[i] = E::toBits(first ? v : red.combine(E::fromBits(acc.bits[i]), v));
  }
}

// A rank's own data on its way to a peer: scaled by this rank's PreMulSum scalar (identity for
// every other reduction), so the receiver folds it as it arrives.
template <typename T, RedKind K>
struct ScaleOwn {
  const Reducer<T, K>* red;
  template <typename Raw>
  __device__ __forceinline__ Raw operator()(const Raw& raw) const {
    if constexpr (K != RedKind::kPreMulSum) {
      return raw;
    } else {
      using E = Elem<T>;
      Pack<T, sizeof(Raw)> p = toPack<T, sizeof(Raw)>(raw);
#pragma unroll
      for (int i = 0; i < Pack<T, sizeof(Raw)>::kCount; ++i) p.bits[i] = E::toBits(red->pre(E::fromBits(p.bits[i])));
      return fromPack<Raw>(p);
    }
  }
};

// Data that is moved unchanged (AllGather, results).
struct Unchanged {
  template <typename Raw>
  __device__ __forceinline__ Raw operator()(const Raw& raw) const {
    return raw;
  }
};

template <typename T, RedKind K, int Bytes>
__device__ __forceinline__ void finish(const Reducer<T, K>& red, Pack<T, Bytes>& acc) {
  if constexpr (K == RedKind::kSumPostDiv) {
    using E = Elem<T>;
#pragma unroll
    for (int i = 0; i < Pack<T, Bytes>::kCount; ++i) acc.bits[i] = E::toBits(red.post(E::fromBits(acc.bits[i])));
  }
}

}  // namespace dev
}  // namespace flashccl
