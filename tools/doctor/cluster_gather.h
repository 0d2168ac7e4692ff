// Rank 0 collects every rank's report over TCP: one connection per rank, one bounded message
// each (a 20-byte header, then at most kMaxReportBytes of JSON), acknowledged with one byte.
// Nothing here blocks forever: connects retry until a deadline, reads time out.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace flashccl {
namespace doctor {

constexpr size_t kMaxReportBytes = 16u << 20;

class ReportCollector {
 public:
  ReportCollector() = default;
  ~ReportCollector();
  ReportCollector(const ReportCollector&) = delete;
  ReportCollector& operator=(const ReportCollector&) = delete;

  // Listens on every address, `port` (0 = any free port; port() then says which).
  bool listen(int port, std::string* error);
  int port() const { return port_; }
  // Reports of ranks 1..worldSize-1, until all arrived or `timeoutSeconds` passed. Bad messages
  // and ranks that never report are described in *problems.
  std::map<int, std::string> collect(int worldSize, int timeoutSeconds,
                                     std::vector<std::string>* problems);

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Connects to rank 0 (retrying until `timeoutSeconds`) and hands over `payload`.
bool sendReport(const std::string& host, int port, int rank, const std::string& payload,
                int timeoutSeconds, std::string* error);

}  // namespace doctor
}  // namespace flashccl
