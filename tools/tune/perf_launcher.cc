#include "perf_launcher.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "child_process.h"
#include "report_json.h"
#include "sweep_plan.h"

namespace flashccl {
namespace tune {

bool makeDirectories(const std::string& path, std::string* error) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at < path.size() && path[at] != '/') continue;
    const std::string prefix = path.substr(0, at);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      *error = "cannot create " + prefix + ": " + std::strerror(errno);
      return false;
    }
  }
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    *error = path + " is not a directory";
    return false;
  }
  return true;
}

std::string readNcclLogs(const std::string& directory) {
  std::vector<std::string> names;
  if (DIR* dir = opendir(directory.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.compare(0, 5, "nccl.") == 0) names.push_back(name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  std::string text;
  for (const std::string& name : names) {
    std::ifstream file(directory + "/" + name, std::ios::binary);
    std::stringstream content;
    content << file.rdbuf();
    text += content.str();
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  return text;
}

RunOutcome ChildPerfLauncher::run(const RunRequest& request) {
  RunOutcome outcome;
  outcome.outputPath = request.directory + "/perf.log";
  std::string error;
  if (!makeDirectories(request.directory, &error)) {
    outcome.ended = error;
    return outcome;
  }
  const int output = open(outcome.outputPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (output < 0) {
    outcome.ended = "cannot write " + outcome.outputPath + ": " + std::strerror(errno);
    return outcome;
  }
  std::vector<std::string> argv = {executable_};
  argv.insert(argv.end(), request.arguments.begin(), request.arguments.end());
  SpawnOptions spawn;
  spawn.environment = environmentWith(droppedVariables(), request.environment);
  spawn.stdoutFd = output;
  spawn.stderrFd = output;
  const auto start = std::chrono::steady_clock::now();
  ChildProcess child;
  outcome.started = ChildProcess::spawn(argv, spawn, &child, &error);
  close(output);
  if (!outcome.started) {
    outcome.ended = error;
    return outcome;
  }
  child.waitForExit();
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.ended = describeWaitStatus(child.status());
  if (WIFEXITED(child.status())) outcome.exitStatus = WEXITSTATUS(child.status());
  outcome.haveRecord = perf::readReportFile(request.jsonPath, &outcome.record, &outcome.recordComplete,
                                            &outcome.recordError);
  outcome.log = parseNcclLog(readNcclLogs(request.directory));
  return outcome;
}

}  // namespace tune
}  // namespace flashccl
