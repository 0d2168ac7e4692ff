// The side table: real ncclComm_t pointer -> CommContext. Unknown pointers mean "forward".
//
// Lookups are on the hot path of every intercepted call: a thread-local one-entry cache
// validated by a global generation counter makes the common case one TLS read and one
// relaxed atomic load; inserts and removals take a mutex and bump the generation.
#pragma once

#include <memory>
#include <vector>

#include <nccl.h>

namespace flashccl {

class CommContext;

class CommTable {
 public:
  static CommTable& instance();

  // Takes ownership. Replaces (and destroys) any context still registered for that pointer:
  // NCCL may reuse the address of a destroyed communicator.
  void insert(std::unique_ptr<CommContext> ctx);
  // Detaches the context; the caller destroys it after the real NCCL call has returned.
  std::unique_ptr<CommContext> remove(ncclComm_t comm);
  // nullptr when the pointer is not ours.
  CommContext* find(ncclComm_t comm);
  size_t size();
  // Every context, for diagnostics (`flashccl doctor`) and tests.
  std::vector<CommContext*> all();

 private:
  CommTable() = default;
};

}  // namespace flashccl
