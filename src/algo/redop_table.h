// The PreMulSum reductions a communicator knows (ncclRedOpCreatePreMulSum), so our kernels can
// run them too. Written by the app's create/destroy calls, read by every launch that names one.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include <nccl.h>

namespace flashccl {

// A PreMulSum reduction created on a communicator: each rank passes its own scalar.
struct PreMulSumOp {
  ncclRedOp_t op = ncclNumOps;
  ncclDataType_t dtype = ncclFloat32;
  ncclScalarResidence_t residence = ncclScalarHostImmediate;
  uint64_t hostScalar = 0;             // the scalar's bytes when it lives on the host
  const void* deviceScalar = nullptr;  // when it lives on the device: read when a kernel runs
};

class RedOpTable {
 public:
  void add(const PreMulSumOp& op);
  void remove(ncclRedOp_t op);
  bool find(ncclRedOp_t op, PreMulSumOp* out) const;

 private:
  mutable std::mutex mutex_;
  std::vector<PreMulSumOp> ops_;
};

}  // namespace flashccl
