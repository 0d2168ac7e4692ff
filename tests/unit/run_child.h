// Runs a helper program in a child process with a controlled environment, for tests whose
// subject is process-wide state (discovery, the side table, logging settings).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"

namespace flashccl {
namespace testing {

using flashccl::ChildProcess;
using flashccl::SpawnOptions;
using flashccl::environmentWith;

struct ChildResult {
  int exitCode = -1;  // -1: did not exit normally (a crash)
  int signal = 0;
  std::string out;
  std::string err;

  // Value of the first "key=value" line on stdout, or "(missing)".
  std::string value(const std::string& key) const {
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.compare(0, key.size() + 1, key + "=") == 0) return line.substr(key.size() + 1);
    }
    return "(missing)";
  }
};

inline std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs argv[0] with args and waits for it. The child's environment is ours without NCCL_*,
// FLASHCCL_* and LD_PRELOAD (so the developer's settings cannot change a result), plus `env`.
inline ChildResult runChild(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env = {}) {
  std::map<std::string, std::string> set = {{"NCCL_NVLS_ENABLE", "0"}};  // never multicast on our hosts
  for (const auto& kv : env) set[kv.first] = kv.second;
  SpawnOptions options;
  options.environment = environmentWith({"NCCL_", "FLASHCCL_", "LD_PRELOAD="}, set);
  char outPath[] = "/tmp/flashccl_test_out_XXXXXX";
  char errPath[] = "/tmp/flashccl_test_err_XXXXXX";
  options.stdoutFd = mkstemp(outPath);
  options.stderrFd = mkstemp(errPath);
  ChildResult result;
  ChildProcess child;
  std::string error;
  if (ChildProcess::spawn(argv, options, &child, &error)) {
    child.waitForExit();
    if (WIFEXITED(child.status())) result.exitCode = WEXITSTATUS(child.status());
    if (WIFSIGNALED(child.status())) result.signal = WTERMSIG(child.status());
  } else {
    result.err = error;
  }
  close(options.stdoutFd);
  close(options.stderrFd);
  result.out = readFile(outPath);
  result.err += readFile(errPath);
  unlink(outPath);
  unlink(errPath);
  return result;
}

// Output of a shell command (for nm/readelf).
inline std::string commandOutput(const std::string& command) {
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
    pclose(pipe);
  }
  return output;
}

inline std::string directoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace testing
}  // namespace flashccl
