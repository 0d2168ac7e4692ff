// One WARN line per refused side-channel connection, but no more than a set number a minute: a
// port scanner or a misbehaving peer must not flood the application's log. Lines over the limit
// are counted and reported in one line when the minute is over.
#pragma once

#include <cstdint>
#include <string>

namespace flashccl {

class RefusalLog {
 public:
  explicit RefusalLog(int linesPerMinute) : limit_(linesPerMinute) {}
  void refuse(const std::string& line);
  // Reports the lines held back, once their minute is over.
  void flushSuppressed();

 private:
  const int limit_;
  int64_t windowStartNs_ = 0;
  int printed_ = 0;
  int suppressed_ = 0;
};

}  // namespace flashccl
