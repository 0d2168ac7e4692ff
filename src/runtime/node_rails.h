// What a communicator across nodes holds for the algorithms' steps between nodes, behind the
// Hierarchy they read (algo/hierarchy.h): the rail communicator (the real NCCL's, made by
// ncclCommSplit in set-up: rail_setup.h), the rail stream and its events, the staging buffer and
// the call records. Freed with the communicator's context, on its device: the rail is destroyed
// with ncclCommDestroy when the communicator is destroyed (every rank does so then), aborted with
// ncclCommAbort when the communicator is aborted.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include <nccl.h>

#include "algo/hierarchy.h"

namespace flashccl {

class NodeRails {
 public:
  // Stream, events, `stagingBytes` of staging and the call records on `cudaDev`, for `layout`.
  // Null with *why when an allocation failed.
  static std::unique_ptr<NodeRails> allocate(const NodeLayout& layout, int cudaDev, size_t stagingBytes,
                                             std::string* why);
  // The layout and `stagingBytes` only, nothing allocated and no rail: `flashccl plan` attaches
  // one so the algorithms' supports() answer as on a live communicator.
  static std::unique_ptr<NodeRails> describeOnly(const NodeLayout& layout, size_t stagingBytes);
  ~NodeRails();
  NodeRails(const NodeRails&) = delete;
  NodeRails& operator=(const NodeRails&) = delete;

  // The rail ncclCommSplit made for this rank; owned from now on.
  void adoptRail(ncclComm_t rail) { view_.rail = rail; }
  // ncclCommAbort on the rail now (the communicator is being aborted or revoked: NCCL's kernels
  // on the rail must stop waiting as ours do); the destructor then only frees memory.
  void abortRail();
  // ncclCommRevoke on the rail (the watchdog's hang action, from its thread): NCCL's work on it
  // ends, the rail stays, since the application thread may be enqueuing on it at this very
  // moment; it is freed with the communicator. Nothing without a real ncclCommRevoke (NCCL before
  // 2.28.9): NCCL's own error detection and the application's abort end the rail's work then.
  void revokeRail();

  const Hierarchy& view() const { return view_; }

 private:
  NodeRails() = default;
  Hierarchy view_;
  int device_ = -1;  // -1: described only
  // Orders revokeRail (the watchdog's thread) with abortRail and the destructor (the
  // application's), so that a rail is never revoked while it is freed. The algorithms read
  // view_.rail without it: only the application thread sets it to null.
  std::mutex railMutex_;
};

}  // namespace flashccl
