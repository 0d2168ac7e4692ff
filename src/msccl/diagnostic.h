// One problem found in an algorithm file, printed as `file:line: what is wrong`.
#pragma once

#include <string>
#include <vector>

namespace flashccl::msccl {

struct Diagnostic {
  std::string file;
  int line = 0;  // 1-based; 0 when the problem has no place in the file (e.g. it cannot be read)
  std::string message;

  std::string str() const;  // "file:line: message", or "file: message" when line is 0
};

// printf into a std::string, for building messages.
std::string formatString(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// All diagnostics, one per line.
std::string joinDiagnostics(const std::vector<Diagnostic>& diagnostics);

}  // namespace flashccl::msccl
