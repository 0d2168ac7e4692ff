#include "hierarchy_cases.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "test_inputs.h"

namespace flashccl_gpu_test::hierarchy {

namespace {

constexpr size_t KiB = 1024, MiB = 1024 * KiB;

// The built-in selection bands across nodes (src/topo/builtin_table.cc, docs/multinode.md).
constexpr size_t kOneStepMaxBytes = 64 * KiB;
constexpr size_t kHierarchyMaxBytes = 256 * MiB;

const char* collName(Coll c) {
  return c == Coll::kAllReduce ? "allreduce" : c == Coll::kAllGather ? "allgather" : "reducescatter";
}

const char* opName(Op op) {
  static const char* const names[] = {"sum", "prod", "max", "min", "avg", "premulsum_host", "premulsum_device"};
  return names[static_cast<int>(op)];
}

std::string sizeName(size_t bytes, size_t count) {
  if (count == kOddCount) return "odd";
  if (bytes >= MiB) return std::to_string(bytes / MiB) + "MiB";
  if (bytes >= KiB) return std::to_string(bytes / KiB) + "KiB";
  return std::to_string(bytes) + "B";
}

bool isFp8(ncclDataType_t t) { return t == ncclFloat8e4m3 || t == ncclFloat8e5m2; }
bool isPreMulSum(Op op) { return op == Op::kPreMulSumHost || op == Op::kPreMulSumDevice; }

// Our kernels reproduce NCCL's arithmetic for every type and op but ncclAvg and PreMulSum on fp8,
// which flashccl leaves to NCCL on one node as across nodes.
bool ourKernelsRun(ncclDataType_t t, Op op) { return !(isFp8(t) && (op == Op::kAvg || isPreMulSum(op))); }

// Unit roundoff of each floating type (half the distance from 1 to the next value).
double unitRoundoff(ncclDataType_t t) {
  switch (t) {
    case ncclFloat16: return std::ldexp(1.0, -11);
    case ncclBfloat16: return std::ldexp(1.0, -8);
    case ncclFloat32: return std::ldexp(1.0, -24);
    case ncclFloat64: return std::ldexp(1.0, -53);
    case ncclFloat8e4m3: return std::ldexp(1.0, -4);
    case ncclFloat8e5m2: return std::ldexp(1.0, -3);
    default: return 0;
  }
}

}  // namespace

bool isInteger(ncclDataType_t t) { return t <= ncclUint64; }

double elementValue(ncclDataType_t t, const char* p) {
  switch (t) {
    case ncclInt8: { int8_t v; std::memcpy(&v, p, 1); return v; }
    case ncclUint8: { uint8_t v; std::memcpy(&v, p, 1); return v; }
    case ncclInt32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case ncclUint32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case ncclInt64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case ncclUint64: { uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case ncclFloat16: { __half v; std::memcpy(&v, p, 2); return __half2float(v); }
    case ncclBfloat16: { __nv_bfloat16 v; std::memcpy(&v, p, 2); return __bfloat162float(v); }
    case ncclFloat32: { float v; std::memcpy(&v, p, 4); return v; }
    case ncclFloat64: { double v; std::memcpy(&v, p, 8); return v; }
    case ncclFloat8e4m3: { __nv_fp8_e4m3 v; std::memcpy(&v, p, 1); return static_cast<float>(v); }
    case ncclFloat8e5m2: { __nv_fp8_e5m2 v; std::memcpy(&v, p, 1); return static_cast<float>(v); }
    default: return 0;
  }
}

std::string Case::name() const {
  std::string text = std::string(collName(coll)) + "_" + typeName(dtype);
  if (coll != Coll::kAllGather) text += std::string("_") + opName(op);
  text += "_" + sizeName(count * typeSize(dtype), count);
  text += inPlace ? "_inplace" : "_outofplace";
  text += graph ? "_graph" : "_eager";
  return text;
}

std::vector<size_t> sizeClassBytes() { return {8, 4 * KiB, 256 * KiB, 4 * MiB, 64 * MiB}; }

std::vector<Case> makeCases(const std::vector<Coll>& colls, Matrix matrix) {
  std::vector<Case> cases;
  const Op allOps[] = {Op::kSum, Op::kProd, Op::kMax, Op::kMin, Op::kAvg, Op::kPreMulSumHost, Op::kPreMulSumDevice};
  for (Coll coll : colls) {
    for (int t = 0; t < static_cast<int>(ncclNumTypes); ++t) {
      const ncclDataType_t dtype = static_cast<ncclDataType_t>(t);
      std::vector<size_t> classes = sizeClassBytes();
      std::vector<size_t> counts;
      for (size_t bytes : classes) counts.push_back(std::max<size_t>(1, bytes / typeSize(dtype)));
      counts.push_back(kOddCount);
      for (size_t count : counts) {
        const bool largest = count * typeSize(dtype) >= classes.back();
        for (Op op : allOps) {
          if (coll == Coll::kAllGather && op != Op::kSum) continue;  // no op: one case per type
          const bool everyTypeOrOp = op == Op::kSum || dtype == ncclFloat32;
          if (matrix == Matrix::kQuick && !everyTypeOrOp) continue;
          if (matrix == Matrix::kStandard && largest && !everyTypeOrOp) continue;
          for (bool inPlace : {false, true}) {
            for (bool graph : {false, true}) cases.push_back(Case{coll, dtype, op, count, inPlace, graph});
          }
        }
      }
    }
  }
  return cases;
}

std::string expectedAlgorithm(const Case& c, const Layout& layout, bool pipelinedAllReduce) {
  if (!layout.armed) return "NCCL";
  const size_t rankBytes = c.count * typeSize(c.dtype);
  const size_t totalBytes = c.coll == Coll::kAllReduce ? rankBytes : rankBytes * layout.nranks;
  const bool integerAvg = isInteger(c.dtype) && c.op == Op::kAvg;
  const bool runs = ourKernelsRun(c.dtype, c.op);
  switch (c.coll) {
    case Coll::kAllReduce:
      // Integer ncclAvg divides after the whole sum: only the one-step variant folds last.
      if (pipelinedAllReduce) return runs && !integerAvg ? "allreduce_hier" : "NCCL";
      if (totalBytes <= kOneStepMaxBytes) return runs ? "allreduce_hier_oneshot" : "NCCL";
      return runs && !integerAvg && totalBytes <= kHierarchyMaxBytes ? "allreduce_hier" : "NCCL";
    case Coll::kAllGather:
      return layout.nodeMajor && totalBytes <= kHierarchyMaxBytes ? "allgather_hier" : "NCCL";
    case Coll::kReduceScatter:
      return layout.nodeMajor && runs && !integerAvg && totalBytes <= kHierarchyMaxBytes ? "reducescatter_hier" : "NCCL";
  }
  return "NCCL";
}

Verdict compareWithNccl(const Case& c, int rank, int nranks, const std::vector<std::vector<char>>& inputs,
                        const std::vector<double>& scalars, const std::vector<char>& ours,
                        const std::vector<char>& nccl) {
  Verdict verdict;
  const size_t elem = typeSize(c.dtype);
  if (ours.size() != nccl.size()) {
    verdict.ok = false;
    verdict.detail = "output sizes differ";
    return verdict;
  }
  const bool exact = c.coll == Coll::kAllGather || isInteger(c.dtype) || c.op == Op::kMax || c.op == Op::kMin ||
                     nranks <= 2;
  const double u = unitRoundoff(c.dtype);
  for (size_t i = 0; i < ours.size() / elem; ++i) {
    const char* a = ours.data() + i * elem;
    const char* b = nccl.data() + i * elem;
    if (std::memcmp(a, b, elem) == 0) continue;
    if (exact) {
      verdict.ok = false;
      verdict.detail = "element " + std::to_string(i) + " differs from NCCL's, bitwise";
      return verdict;
    }
    // Which input element fed this output element: ReduceScatter's block of this rank.
    const size_t in = c.coll == Coll::kReduceScatter ? static_cast<size_t>(rank) * c.count + i : i;
    double magnitude = c.op == Op::kProd ? 1.0 : 0.0;
    for (int r = 0; r < nranks; ++r) {
      double x = std::fabs(elementValue(c.dtype, inputs[r].data() + in * elem));
      if (isPreMulSum(c.op)) x *= std::fabs(scalars[r]);
      if (c.op == Op::kAvg) x /= nranks;
      magnitude = c.op == Op::kProd ? magnitude * x : magnitude + x;
    }
    const double tolerance = 2.0 * (nranks - 1) * u * magnitude * 1.01;
    const double va = elementValue(c.dtype, a), vb = elementValue(c.dtype, b);
    if (!(std::fabs(va - vb) <= tolerance)) {
      char text[200];
      std::snprintf(text, sizeof(text),
                    "element %zu: %.9g vs NCCL's %.9g, more than the %.3g two orders of %d ranks can differ by", i, va,
                    vb, tolerance, nranks);
      verdict.ok = false;
      verdict.detail = text;
      return verdict;
    }
  }
  return verdict;
}

}  // namespace flashccl_gpu_test::hierarchy
