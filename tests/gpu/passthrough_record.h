// The markdown record of a pass-through check, for bench/results/: a header (date, machine, NCCL
// version, command), a table per mode and collective, the detailed table the records use
// (mode | collective | dtype | size | cases | identical), and every case that was not identical.
#pragma once

#include <string>
#include <vector>

#include "passthrough_results.h"

namespace flashccl_gpu_test::passthrough {

struct RecordHeader {
  std::string date;         // UTC
  std::string machine;      // --machine
  std::string ncclVersion;  // "2.28.9 (/usr/lib/.../libnccl.so.2.28.9)"
  std::string flashcclVersion;
  std::string passThrough;  // FLASHCCL_DISABLE and the communicator state the ranks saw
  std::string ranks;
  std::string environment;
  std::string command;
  std::string summary;      // the final "passthrough check: ..." line
};

// "4 B", "4004 B", "4 MiB": the size column (count x element size of the call's count).
std::string formatBytes(size_t bytes);

// Returns "" or why the file could not be written.
std::string writeRecord(const std::string& path, const RecordHeader& header,
                        const std::vector<const ModeResults*>& modes);

}  // namespace flashccl_gpu_test::passthrough
