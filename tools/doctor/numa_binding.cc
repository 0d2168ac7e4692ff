#include "numa_binding.h"

#include <cstdlib>

#include "sysfs_files.h"

namespace flashccl {
namespace doctor {

std::vector<int> parseCpuList(const std::string& text) {
  std::vector<int> cpus;
  const std::string list = trimmed(text);
  size_t start = 0;
  while (start < list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string range = list.substr(start, comma - start);
    char* end = nullptr;
    const long first = std::strtol(range.c_str(), &end, 10);
    long last = first;
    if (*end == '-') last = std::strtol(end + 1, &end, 10);
    if (range.empty() || *end != '\0' || first < 0 || last < first || last >= CPU_SETSIZE) return {};
    for (long cpu = first; cpu <= last; ++cpu) cpus.push_back(int(cpu));
    start = comma + 1;
  }
  return cpus;
}

ScopedNumaBinding::ScopedNumaBinding(const std::string& sysRoot, int node) {
  if (node < 0) return;
  std::string text;
  if (!readFirstLine(sysRoot + "/devices/system/node/node" + std::to_string(node) + "/cpulist", &text)) return;
  const std::vector<int> cpus = parseCpuList(text);
  if (cpus.empty() || sched_getaffinity(0, sizeof(saved_), &saved_) != 0) return;
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (int cpu : cpus) CPU_SET(cpu, &wanted);
  bound_ = sched_setaffinity(0, sizeof(wanted), &wanted) == 0;
}

ScopedNumaBinding::~ScopedNumaBinding() {
  if (bound_) sched_setaffinity(0, sizeof(saved_), &saved_);
}

}  // namespace doctor
}  // namespace flashccl
