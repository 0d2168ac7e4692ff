// Sends flashccl's log lines to a file for the length of a test, so a test can count them.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "base/log.h"

namespace flashccl {
namespace testing {

class LogCapture {
 public:
  LogCapture() {
    char pattern[] = "/tmp/flashccl-log-XXXXXX";
    const int fd = mkstemp(pattern);
    if (fd >= 0) close(fd);
    path_ = pattern;
    setenv("NCCL_DEBUG_FILE", path_.c_str(), 1);
    setenv("FLASHCCL_DEBUG", "WARN", 1);
    logReset();
  }
  ~LogCapture() {
    unsetenv("NCCL_DEBUG_FILE");
    unsetenv("FLASHCCL_DEBUG");
    logReset();
    unlink(path_.c_str());
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::string text() const {
    std::ifstream in(path_);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }
  // Lines that contain `needle`.
  int count(const std::string& needle) const {
    std::istringstream lines(text());
    std::string line;
    int found = 0;
    while (std::getline(lines, line)) found += line.find(needle) != std::string::npos;
    return found;
  }

 private:
  std::string path_;
};

}  // namespace testing
}  // namespace flashccl
