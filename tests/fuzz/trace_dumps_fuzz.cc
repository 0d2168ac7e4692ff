// Dump files, as `flashccl trace DIR` reads them (copied from many hosts, possibly hand-edited or
// cut short): the input is up to four files separated by NUL bytes (JSON text has none). They
// are merged, analysed and reported in both forms, as the command does.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "dump_merge.h"
#include "quiet_logs.h"
#include "trace_report.h"

using namespace flashccl;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::quietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::pair<std::string, std::string>> files;
  size_t at = 0;
  while (at <= text.size() && files.size() < 4) {
    size_t end = text.find('\0', at);
    if (end == std::string::npos) end = text.size();
    files.push_back({"dump" + std::to_string(files.size()) + ".json", text.substr(at, end - at)});
    at = end + 1;
  }
  const MergedDumps dumps = mergeDumps(files);
  const std::vector<CommAnalysis> analyses = analyzeDumps(dumps, 1000000000, 16);
  std::ostringstream out;
  printTextReport(dumps, analyses, out);
  (void)jsonReport(dumps, analyses);
  return 0;
}
