// Per-communicator counters: calls we ran (per algorithm) and calls we forwarded (per reason).
// Printed at INFO when the communicator is destroyed.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace flashccl {

class CommStats {
 public:
  static constexpr int kSlots = 24;

  // `name`/`reason` are static strings (algorithm names, fallback reasons): counters are keyed by
  // the pointer, so the hot path does a short pointer scan and one relaxed increment.
  void countIntercepted(const char* algorithm) { bump(intercepted_, algorithm); }
  void countForwarded(const char* reason) { bump(forwarded_, reason); }

  uint64_t intercepted(const char* algorithm) const { return read(intercepted_, algorithm); }
  uint64_t forwarded(const char* reason) const { return read(forwarded_, reason); }
  uint64_t totalIntercepted() const { return total(intercepted_); }
  uint64_t totalForwarded() const { return total(forwarded_); }

  // "intercepted 12 (allreduce_oneshot 10, allgather_direct 2); forwarded 3 (size above table 3)"
  std::string summary() const;

 private:
  struct Slot {
    std::atomic<const char*> key{nullptr};
    std::atomic<uint64_t> count{0};
  };
  static void bump(Slot* slots, const char* key);
  static uint64_t read(const Slot* slots, const char* key);
  static uint64_t total(const Slot* slots);

  Slot intercepted_[kSlots];
  Slot forwarded_[kSlots];
};

}  // namespace flashccl
