#include "test_inputs.h"

#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace flashccl_gpu_test {

size_t typeSize(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
  }
}

const char* typeName(ncclDataType_t t) {
  static const char* names[] = {"int8", "uint8", "int32", "uint32", "int64", "uint64",
                                "half", "float", "double", "bf16", "e4m3", "e5m2"};
  return names[static_cast<int>(t)];
}

const char* opName(ncclRedOp_t op) {
  static const char* names[] = {"sum", "prod", "max", "min", "avg"};
  return static_cast<int>(op) < 5 ? names[static_cast<int>(op)] : "premulsum";
}

std::vector<char> makeInput(ncclDataType_t dtype, size_t count, int rank, uint32_t seed) {
  std::vector<char> bytes(count * typeSize(dtype));
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(rank) * 0xbf58476d1ce4e5b9ull +
                   static_cast<uint64_t>(dtype);
  for (size_t i = 0; i < count; ++i) {
    // splitmix64: fast enough for 64 MB inputs, deterministic per (seed, rank, dtype).
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    auto small = [&] { return 1 + static_cast<int>((z >>= 2) % 3); };
    const int negative = static_cast<int>(z & 1);
    z >>= 1;
    // Floats: +-(1 + k/16) * 2^e, e in {-1, 0}: never zero, products of 8 stay in range.
    const double f = (negative ? -1.0 : 1.0) * (1.0 + static_cast<int>(z & 15) / 16.0) * ((z & 16) ? 0.5 : 1.0);
    z >>= 5;
    const long long v = small() * (negative ? -1 : 1);
    char* p = bytes.data() + i * typeSize(dtype);
    switch (dtype) {
      case ncclInt8: { int8_t x = static_cast<int8_t>(v); std::memcpy(p, &x, 1); break; }
      case ncclUint8: { uint8_t x = static_cast<uint8_t>(small()); std::memcpy(p, &x, 1); break; }
      case ncclInt32: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
      case ncclUint32: { uint32_t x = static_cast<uint32_t>(small()); std::memcpy(p, &x, 4); break; }
      case ncclInt64: { int64_t x = v; std::memcpy(p, &x, 8); break; }
      case ncclUint64: { uint64_t x = static_cast<uint64_t>(small()); std::memcpy(p, &x, 8); break; }
      case ncclFloat16: { __half x = __float2half(static_cast<float>(f)); std::memcpy(p, &x, 2); break; }
      case ncclBfloat16: { __nv_bfloat16 x = __float2bfloat16(static_cast<float>(f)); std::memcpy(p, &x, 2); break; }
      case ncclFloat32: { float x = static_cast<float>(f); std::memcpy(p, &x, 4); break; }
      case ncclFloat64: { double x = f; std::memcpy(p, &x, 8); break; }
      case ncclFloat8e4m3: { __nv_fp8_e4m3 x(static_cast<float>(f)); std::memcpy(p, &x, 1); break; }
      case ncclFloat8e5m2: { __nv_fp8_e5m2 x(static_cast<float>(f)); std::memcpy(p, &x, 1); break; }
      default: break;
    }
  }
  return bytes;
}

std::vector<char> valueBytes(ncclDataType_t dtype, double value) {
  std::vector<char> bytes(typeSize(dtype));
  char* p = bytes.data();
  const long long i = static_cast<long long>(value);
  switch (dtype) {
    case ncclInt8: case ncclUint8: { int8_t x = static_cast<int8_t>(i); std::memcpy(p, &x, 1); break; }
    case ncclInt32: case ncclUint32: { int32_t x = static_cast<int32_t>(i); std::memcpy(p, &x, 4); break; }
    case ncclInt64: case ncclUint64: { int64_t x = i; std::memcpy(p, &x, 8); break; }
    case ncclFloat16: { __half x = __float2half(static_cast<float>(value)); std::memcpy(p, &x, 2); break; }
    case ncclBfloat16: { __nv_bfloat16 x = __float2bfloat16(static_cast<float>(value)); std::memcpy(p, &x, 2); break; }
    case ncclFloat32: { float x = static_cast<float>(value); std::memcpy(p, &x, 4); break; }
    case ncclFloat64: std::memcpy(p, &value, 8); break;
    case ncclFloat8e4m3: { __nv_fp8_e4m3 x(static_cast<float>(value)); std::memcpy(p, &x, 1); break; }
    case ncclFloat8e5m2: { __nv_fp8_e5m2 x(static_cast<float>(value)); std::memcpy(p, &x, 1); break; }
    default: break;
  }
  return bytes;
}

}  // namespace flashccl_gpu_test
