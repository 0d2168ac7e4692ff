// Command line of flashccl_passthrough_check.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace flashccl_gpu_test::passthrough {

struct Options {
  // Which modes run. Neither of a pair given means both.
  bool threads = false;
  bool procs = false;
  bool eager = false;
  bool graph = false;
  int ranks = 0;  // 0: every visible GPU, at most 8
  // Every rank on GPU 0, one process each with its own NCCL_HOSTID (procs mode only): NCCL then
  // takes several ranks on one device through its socket transport.
  bool oneGpu = false;
  std::vector<size_t> counts{1, 1001, 1u << 20};
  // A mode that runs longer is stopped and reported. Four modes at the default fit in 240 s.
  double modeTimeoutS = 55;
  double caseTimeoutS = 20;  // one wait for a call or a copy, inside a worker
  std::string markdownPath;
  std::string machine;
  std::string commandLine;
  bool help = false;
};

extern const char* const kUsage;

// False with *error for an unknown flag or a bad value.
bool parseOptions(int argc, char** argv, Options* options, std::string* error);

}  // namespace flashccl_gpu_test::passthrough
