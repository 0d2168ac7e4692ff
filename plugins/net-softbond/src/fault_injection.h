// FLASHCCL_SOFTBOND_FAULT: a test-only switch that fails one rail of this process mid-run, for
// machines where no one can pull a cable or run `ip link set down` (the GPU machine).
//
//   rail<N>:after=<size>[:for=<ms>][:reset]
//
// After this process has put <size> bytes of payload on rail N (all connections together), rail N
// goes dark in this process: its sockets are neither read nor written, exactly what a dead link
// looks like from both ends, for <ms> milliseconds (default: for good). With `:reset` the rail's
// sockets are closed instead (a socket error), once; the rail is then reconnected like after any
// socket error. Examples: rail0:after=64M   rail1:after=1G:for=5000   rail0:after=0:reset
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace flashccl::softbond {

struct FaultPlan {
  int rail = -1;          // -1: no fault planned
  uint64_t afterBytes = 0;
  int64_t forMs = -1;     // -1: until the process ends (blackhole only)
  bool reset = false;     // close the sockets instead of going dark
};

// Parses the syntax above; on failure returns false with *error saying what is wrong.
bool parseFaultPlan(const std::string& text, FaultPlan* plan, std::string* error);

class FaultInjector {
 public:
  void arm(const FaultPlan& plan);
  // Called by SendConnection::schedule for every chunk put on `rail`.
  void countPut(int rail, uint64_t bytes, int64_t nowMs);
  // Rail is dark now (blackhole mode).
  bool dark(int rail, int64_t nowMs) const;
  // Reset mode: how many times the rail's sockets were to be closed so far (0 or 1). A connection
  // closes its sockets when this exceeds what it has already handled.
  int resetEpoch(int rail) const;
  bool armed() const { return plan_.rail >= 0; }

 private:
  FaultPlan plan_;
  std::atomic<uint64_t> putBytes_{0};
  std::atomic<int64_t> triggeredAtMs_{-1};
};

FaultInjector& faultInjector();

}  // namespace flashccl::softbond
