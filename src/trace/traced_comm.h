// What the watchdog needs of one communicator; the runtime implements it per communicator and
// registers it once the set-up exchange has delivered every rank's TraceEndpoint.
#pragma once

#include <vector>

#include <nccl.h>

#include "trace/flight_recorder.h"
#include "trace/trace_endpoint.h"

namespace flashccl {

class TracedComm {
 public:
  virtual ~TracedComm() = default;
  virtual int rank() const = 0;
  virtual int cudaDev() const = 0;
  // The application's ncclComm_t, shown next to the communicator's hash in verdict lines so that
  // they can be matched with NCCL's and the runtime's own log lines ("comm 0x...").
  virtual const void* ncclHandle() const { return nullptr; }
  // Every rank's record from the set-up exchange, index = rank (nranks records).
  virtual const std::vector<TraceEndpoint>& endpoints() const = 0;
  virtual FlightRecorder& recorder() = 0;
  // The hang action: make the communicator fail with `reason` (its asynchronous error, our
  // kernels' abort flag). Called from the watchdog thread; must return promptly and must not
  // unregister the communicator.
  virtual void abort(ncclResult_t reason) = 0;
  // FLASHCCL_HANG_ACTION=revoke: the same, and the real communicators (this one and its rails
  // across nodes) are revoked (ncclCommRevoke) so that NCCL's own work on them ends too and the
  // application can shrink the communicator. The same rules as abort().
  virtual void revoke(ncclResult_t reason) = 0;
};

}  // namespace flashccl
