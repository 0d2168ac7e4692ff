// Runs a helper program in a child process with a controlled environment, for tests whose
// subject is process-wide state (discovery, the side table, logging settings).
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace flashccl {
namespace testing {

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

// Runs argv[0] with args. The child's environment is ours without NCCL_*, FLASHCCL_* and
// LD_PRELOAD (so the developer's settings cannot change a result), plus `env`.
inline ChildResult runChild(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> envStrings;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    if (entry.rfind("NCCL_", 0) == 0 || entry.rfind("FLASHCCL_", 0) == 0 ||
        entry.rfind("LD_PRELOAD=", 0) == 0) {
      continue;
    }
    std::string name = entry.substr(0, entry.find('='));
    if (env.count(name)) continue;
    envStrings.push_back(entry);
  }
  envStrings.push_back("NCCL_NVLS_ENABLE=0");  // docs/design.md, "No NVLink multicast", in every environment we start
  for (const auto& kv : env) envStrings.push_back(kv.first + "=" + kv.second);

  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : envStrings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  char outPath[] = "/tmp/flashccl_test_out_XXXXXX";
  char errPath[] = "/tmp/flashccl_test_err_XXXXXX";
  int outFd = mkstemp(outPath), errFd = mkstemp(errPath);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, outFd, 1);
  posix_spawn_file_actions_adddup2(&actions, errFd, 2);
  ChildResult result;
  pid_t pid = 0;
  if (posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data()) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  } else {
    result.err = "posix_spawn failed for " + argv[0];
  }
  posix_spawn_file_actions_destroy(&actions);
  close(outFd);
  close(errFd);
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
