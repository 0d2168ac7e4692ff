// Runs the host side of a host <-> device copy on the GPU's NUMA node: pinned buffers are
// placed where the allocating thread runs, and a buffer on the far socket halves the rate on
// some machines, which would blame the PCIe link for the CPU interconnect.
#pragma once

#include <sched.h>

#include <string>
#include <vector>

namespace flashccl {
namespace doctor {

// "0-55,112-167" -> {0, 1, ..., 55, 112, ..., 167}; empty on a malformed list.
std::vector<int> parseCpuList(const std::string& text);

// Binds the calling thread to the CPUs of NUMA node `node` (read from sysRoot) while it lives;
// does nothing for node < 0 or an unreadable list.
class ScopedNumaBinding {
 public:
  ScopedNumaBinding(const std::string& sysRoot, int node);
  ~ScopedNumaBinding();
  ScopedNumaBinding(const ScopedNumaBinding&) = delete;
  ScopedNumaBinding& operator=(const ScopedNumaBinding&) = delete;
  bool bound() const { return bound_; }

 private:
  cpu_set_t saved_;
  bool bound_ = false;
};

}  // namespace doctor
}  // namespace flashccl
