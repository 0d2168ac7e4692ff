#include "case_checks.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "test_inputs.h"

namespace flashccl_gpu_test {

namespace {

bool isInteger(ncclDataType_t t) { return t <= ncclUint64; }
bool isFp8(ncclDataType_t t) { return t == ncclFloat8e4m3 || t == ncclFloat8e5m2; }

// Machine epsilon of each floating type.
double epsilonOf(ncclDataType_t t) {
  switch (t) {
    case ncclFloat16: return std::ldexp(1.0, -10);
    case ncclBfloat16: return std::ldexp(1.0, -7);
    case ncclFloat32: return std::ldexp(1.0, -23);
    case ncclFloat64: return std::ldexp(1.0, -52);
    case ncclFloat8e4m3: return std::ldexp(1.0, -3);
    case ncclFloat8e5m2: return std::ldexp(1.0, -2);
    default: return 0;
  }
}

double valueAt(const std::vector<char>& bytes, size_t i, ncclDataType_t t) {
  const char* p = bytes.data() + i * typeSize(t);
  switch (t) {
    case ncclFloat16: { __half h; std::memcpy(&h, p, 2); return __half2float(h); }
    case ncclBfloat16: { __nv_bfloat16 h; std::memcpy(&h, p, 2); return __bfloat162float(h); }
    case ncclFloat32: { float f; std::memcpy(&f, p, 4); return f; }
    case ncclFloat64: { double d; std::memcpy(&d, p, 8); return d; }
    case ncclFloat8e4m3: { __nv_fp8_e4m3 f; std::memcpy(&f, p, 1); return static_cast<float>(f); }
    case ncclFloat8e5m2: { __nv_fp8_e5m2 f; std::memcpy(&f, p, 1); return static_cast<float>(f); }
    default: return 0;
  }
}

}  // namespace

bool flashcclShouldRun(ncclDataType_t dtype, ncclRedOp_t op, bool gather) {
  if (gather) return true;
  return !(isFp8(dtype) && (op == ncclAvg || op >= ncclNumOps));
}

double toleranceFor(ncclDataType_t dtype, int nranks) {
  if (nranks <= 2 || isInteger(dtype)) return 0;
  // Each of the n-1 additions may round differently in another order: a few ulps per step.
  return 4.0 * nranks * epsilonOf(dtype);
}

std::string firstDifference(const std::vector<char>& a, const std::vector<char>& b, size_t elementSize) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] != b[i]) {
      std::ostringstream out;
      out << "element " << i / elementSize << " (byte " << i << ")";
      return out.str();
    }
  }
  return a.size() == b.size() ? "" : "sizes differ";
}

std::string compareWithNccl(const std::vector<char>& ours, const std::vector<char>& theirs, ncclDataType_t dtype,
                            int nranks) {
  const double tolerance = toleranceFor(dtype, nranks);
  if (tolerance == 0) {
    const std::string at = firstDifference(ours, theirs, typeSize(dtype));
    return at.empty() ? "" : "bitwise difference from NCCL at " + at;
  }
  const size_t count = ours.size() / typeSize(dtype);
  for (size_t i = 0; i < count; ++i) {
    const double a = valueAt(ours, i, dtype), b = valueAt(theirs, i, dtype);
    if (std::isnan(a) != std::isnan(b) || std::fabs(a - b) > tolerance * std::fmax(1.0, std::fabs(b))) {
      std::ostringstream out;
      out << "element " << i << ": flashccl " << a << ", NCCL " << b << " (relative tolerance " << tolerance << ")";
      return out.str();
    }
  }
  return "";
}

}  // namespace flashccl_gpu_test
