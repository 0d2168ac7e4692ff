// Two network namespaces, A and B, joined by two veth pairs: two rails, each its own /24. What the
// failover tests break (links down, loss, delay) and the benchmark measures. Needs root and
// iproute2; unavailableReason() says why it cannot be built here (the tests then skip).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace softbond_test {

class TwoRailNetwork {
 public:
  static std::string unavailableReason();

  TwoRailNetwork();
  ~TwoRailNetwork();  // deletes both namespaces (their veths go with them)
  bool create(std::string* error);

  const std::string& ns(char side) const { return side == 'A' ? nsA_ : nsB_; }
  const std::string& iface(char side, int rail) const { return side == 'A' ? ifA_[rail] : ifB_[rail]; }
  // "a0,a1": FLASHCCL_SOFTBOND_RAILS for a side (rails: which of the two, in order).
  std::string rails(char side, const std::vector<int>& which = {0, 1}) const;
  // Prefix that runs a command inside a side's namespace.
  std::vector<std::string> inside(char side) const { return {"ip", "netns", "exec", ns(side)}; }

  bool setLink(char side, int rail, bool up);
  uint64_t txBytes(char side, int rail) const;
  // Loss and delay on one rail's A-side egress: tc netem where the kernel has it; else random drop
  // with nftables plus a tbf rate limit whose queue adds the delay. Returns a description of what
  // was applied ("" on failure, with *error).
  std::string impair(int rail, double lossPercent, int delayMs, std::string* error);
  // Rate limit on both ends of a rail (a NIC's line rate), e.g. "1gbit".
  bool limitRate(int rail, const std::string& rate, std::string* error);

  static bool run(const std::string& command, std::string* output = nullptr);

 private:
  std::string nsA_, nsB_;
  std::string ifA_[2], ifB_[2];
  std::string addrA_[2], addrB_[2];
  bool created_ = false;
};

}  // namespace softbond_test
