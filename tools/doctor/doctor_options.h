// Command line of `flashccl doctor` (CLI11, like every flashccl subcommand): usage errors are
// one line on stderr naming the valid values, exit status 2.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace flashccl {
namespace doctor {

struct DoctorOptions {
  bool full = false;  // --full (longer, larger measurements); --quick is the default
  std::string jsonPath;
  std::string markdownPath;
  std::string expectPath;
  std::set<std::string> families;  // --checks; all when not given
  std::string rendezvous;          // --rendezvous HOST:PORT
  int clusterTimeoutSeconds = 1800;
  // Where doctor reads the machine from; changed by tests and unusual installs.
  std::string sysRoot = "/sys";
  std::string procRoot = "/proc";
  std::string nvmlLibrary = "libnvidia-ml.so.1";
  std::string verbsLibrary = "libibverbs.so.1";
  std::string perfCommand;  // "" = this program (`flashccl perf`)

  bool wants(const std::string& family) const { return families.count(family) > 0; }
};

struct ParsedOptions {
  enum class Result { kRun, kHelp, kUsageError };
  Result result = Result::kRun;
  std::string text;  // help text, or the one-line usage error
  DoctorOptions options;
};

// argv[0] is "doctor".
ParsedOptions parseDoctorOptions(int argc, const char* const* argv);

}  // namespace doctor
}  // namespace flashccl
