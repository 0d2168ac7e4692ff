// PreMulSum reduction ops: recorded on the communicator's context so our kernels can run them.
#include <algorithm>
#include <cstring>

#include "base/coll_call.h"
#include "runtime/comm_context.h"
#include "runtime/comm_table.h"
#include "shim/forward.h"

FLASHCCL_EXPORT ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t* op, void* scalar,
                                                      ncclDataType_t datatype,
                                                      ncclScalarResidence_t residence,
                                                      ncclComm_t comm) {
  if (flashccl::isNestedCall()) {
    FLASHCCL_FORWARD(ncclRedOpCreatePreMulSum, (op, scalar, datatype, residence, comm));
  }
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclRedOpCreatePreMulSum, (op, scalar, datatype, residence, comm));
  if (result != ncclSuccess || op == nullptr) return result;
  if (flashccl::CommContext* ctx = flashccl::CommTable::instance().find(comm)) {
    flashccl::PreMulSumOp entry;
    entry.op = *op;
    entry.dtype = datatype;
    entry.residence = residence;
    if (residence == ncclScalarHostImmediate) {
      // The host scalar is only valid during this call: keep its bytes.
      size_t bytes = std::min(flashccl::dtypeSize(datatype), sizeof(entry.hostScalar));
      if (scalar != nullptr) std::memcpy(&entry.hostScalar, scalar, bytes);
    } else {
      entry.deviceScalar = scalar;
    }
    ctx->redOps().add(entry);
  }
  return result;
}
FLASHCCL_ALIAS(ncclResult_t, ncclRedOpCreatePreMulSum,
               (ncclRedOp_t * op, void* scalar, ncclDataType_t datatype,
                ncclScalarResidence_t residence, ncclComm_t comm))

FLASHCCL_EXPORT ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm) {
  if (flashccl::isNestedCall()) FLASHCCL_FORWARD(ncclRedOpDestroy, (op, comm));
  ncclResult_t result;
  FLASHCCL_CALL_REAL(result, ncclRedOpDestroy, (op, comm));
  if (result == ncclSuccess) {
    if (flashccl::CommContext* ctx = flashccl::CommTable::instance().find(comm)) {
      ctx->redOps().remove(op);
    }
  }
  return result;
}
FLASHCCL_ALIAS(ncclResult_t, ncclRedOpDestroy, (ncclRedOp_t op, ncclComm_t comm))
