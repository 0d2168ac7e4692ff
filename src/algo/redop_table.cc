#include "algo/redop_table.h"

#include <algorithm>

namespace flashccl {

void RedOpTable::add(const PreMulSumOp& op) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (PreMulSumOp& existing : ops_) {
    if (existing.op == op.op) {
      existing = op;  // NCCL reuses the value of a destroyed op
      return;
    }
  }
  ops_.push_back(op);
}

void RedOpTable::remove(ncclRedOp_t op) {
  std::lock_guard<std::mutex> lock(mutex_);
  ops_.erase(std::remove_if(ops_.begin(), ops_.end(), [op](const PreMulSumOp& entry) { return entry.op == op; }),
             ops_.end());
}

bool RedOpTable::find(ncclRedOp_t op, PreMulSumOp* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const PreMulSumOp& entry : ops_) {
    if (entry.op == op) {
      if (out) *out = entry;
      return true;
    }
  }
  return false;
}

}  // namespace flashccl
