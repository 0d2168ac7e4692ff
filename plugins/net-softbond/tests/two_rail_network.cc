#include "two_rail_network.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace softbond_test {

bool TwoRailNetwork::run(const std::string& command, std::string* output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return false;
  std::string text;
  char buffer[512];
  while (fgets(buffer, sizeof(buffer), pipe)) text += buffer;
  int status = pclose(pipe);
  if (output) *output = text;
  return status == 0;
}

std::string TwoRailNetwork::unavailableReason() {
  if (geteuid() != 0) return "needs root (network namespaces and veth pairs); CI runs as root";
  if (!run("ip -V")) return "needs iproute2 (the ip command)";
  std::string output;
  const std::string probe = "sbprobe" + std::to_string(getpid());
  if (!run("ip netns add " + probe, &output)) return "cannot create a network namespace: " + output;
  run("ip netns del " + probe);
  return "";
}

TwoRailNetwork::TwoRailNetwork() {
  // Unique per process, so concurrent test processes do not collide; interface names stay
  // within the kernel's 15 characters.
  const int id = getpid() % 100000;
  nsA_ = "sbA" + std::to_string(id);
  nsB_ = "sbB" + std::to_string(id);
  const int subnet = id % 250 + 1;
  for (int r = 0; r < 2; ++r) {
    ifA_[r] = "sb" + std::to_string(id) + "a" + std::to_string(r);
    ifB_[r] = "sb" + std::to_string(id) + "b" + std::to_string(r);
    addrA_[r] = "10." + std::to_string(66 + r) + "." + std::to_string(subnet) + ".1";
    addrB_[r] = "10." + std::to_string(66 + r) + "." + std::to_string(subnet) + ".2";
  }
}

TwoRailNetwork::~TwoRailNetwork() {
  if (!created_) return;
  run("ip netns del " + nsA_);
  run("ip netns del " + nsB_);
}

bool TwoRailNetwork::create(std::string* error) {
  std::vector<std::string> commands = {"ip netns add " + nsA_, "ip netns add " + nsB_};
  created_ = true;
  for (int r = 0; r < 2; ++r) {
    commands.push_back("ip link add " + ifA_[r] + " netns " + nsA_ + " type veth peer name " + ifB_[r] + " netns " + nsB_);
    commands.push_back("ip -n " + nsA_ + " addr add " + addrA_[r] + "/24 dev " + ifA_[r]);
    commands.push_back("ip -n " + nsB_ + " addr add " + addrB_[r] + "/24 dev " + ifB_[r]);
    commands.push_back("ip -n " + nsA_ + " link set " + ifA_[r] + " up");
    commands.push_back("ip -n " + nsB_ + " link set " + ifB_[r] + " up");
  }
  commands.push_back("ip -n " + nsA_ + " link set lo up");
  commands.push_back("ip -n " + nsB_ + " link set lo up");
  for (const std::string& command : commands) {
    std::string output;
    if (!run(command, &output)) {
      *error = command + ": " + output;
      return false;
    }
  }
  return true;
}

std::string TwoRailNetwork::rails(char side, const std::vector<int>& which) const {
  std::string list;
  for (int r : which) list += (list.empty() ? "" : ",") + iface(side, r);
  return list;
}

bool TwoRailNetwork::setLink(char side, int rail, bool up) {
  return run("ip -n " + ns(side) + " link set " + iface(side, rail) + (up ? " up" : " down"));
}

uint64_t TwoRailNetwork::txBytes(char side, int rail) const {
  std::string output;
  run("ip netns exec " + ns(side) + " cat /sys/class/net/" + iface(side, rail) + "/statistics/tx_bytes", &output);
  return strtoull(output.c_str(), nullptr, 10);
}

std::string TwoRailNetwork::impair(int rail, double lossPercent, int delayMs, std::string* error) {
  const std::string dev = iface('A', rail);
  char netem[160];
  snprintf(netem, sizeof(netem), "tc -n %s qdisc add dev %s root netem loss %.1f%% delay %dms", nsA_.c_str(),
           dev.c_str(), lossPercent, delayMs);
  std::string output;
  if (run(netem, &output)) {
    char what[96];
    snprintf(what, sizeof(what), "tc netem: %.1f%% loss, %d ms delay", lossPercent, delayMs);
    return what;
  }
  // No netem in this kernel: drop at random with nftables, and let a tbf queue delay packets.
  const std::string nft = "ip netns exec " + nsA_ + " nft";
  const int percent = static_cast<int>(lossPercent + 0.5);
  std::vector<std::string> commands = {
      nft + " add table inet softbond_loss",
      nft + " 'add chain inet softbond_loss out { type filter hook output priority 0; }'",
      nft + " add rule inet softbond_loss out oifname " + dev + " numgen random mod 100 '<' " +
          std::to_string(percent) + " drop",
      "tc -n " + nsA_ + " qdisc add dev " + dev + " root tbf rate 400mbit burst 256kb latency " +
          std::to_string(delayMs) + "ms"};
  for (const std::string& command : commands) {
    if (!run(command, &output)) {
      *error = "netem unavailable (" + output + "), and " + command + " failed";
      return "";
    }
  }
  char what[160];
  snprintf(what, sizeof(what), "nftables random drop %d%% + tbf 400mbit with up to %d ms queueing (no netem in this kernel)",
           percent, delayMs);
  return what;
}

bool TwoRailNetwork::limitRate(int rail, const std::string& rate, std::string* error) {
  for (char side : {'A', 'B'}) {
    std::string output;
    if (!run("tc -n " + ns(side) + " qdisc replace dev " + iface(side, rail) + " root tbf rate " + rate +
                 " burst 512kb latency 50ms",
             &output)) {
      *error = output;
      return false;
    }
  }
  return true;
}

}  // namespace softbond_test
