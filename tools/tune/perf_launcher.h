// Running one `flashccl perf` for the sweep: a child process of the flashccl command itself
// (`<this executable> perf ...`), with the run's environment, its output in the run's directory,
// then its JSON record and NCCL's log read back. An interface, so the sweep's logic is tested with
// canned runs and end to end against the perf mock (tests/unit/tune).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "nccl_log.h"
#include "run_report.h"

namespace flashccl {
namespace tune {

struct RunRequest {
  std::vector<std::string> arguments;              // {"perf", "-b", ...}
  std::map<std::string, std::string> environment;  // set on top of this process's (less droppedVariables())
  std::string directory;                           // created; perf.log, perf.json and NCCL's logs go there
  std::string jsonPath;                            // perf's -J
};

struct RunOutcome {
  bool started = false;
  int exitStatus = -1;       // perf's, when it exited; -1 when it did not start or was killed
  std::string ended;         // "exit status 0", "signal 9 (Killed)"
  double seconds = 0.0;
  bool haveRecord = false;   // rank 0 (or the only process) wrote a record that reads back
  bool recordComplete = false;
  perf::RunReport record;
  std::string recordError;   // why there is no record
  NcclLog log;               // every nccl.*.log in the directory, parsed
  std::string outputPath;    // perf's stdout and stderr
};

class PerfLauncher {
 public:
  virtual ~PerfLauncher() = default;
  virtual RunOutcome run(const RunRequest& request) = 0;
};

class ChildPerfLauncher : public PerfLauncher {
 public:
  explicit ChildPerfLauncher(std::string executable) : executable_(std::move(executable)) {}
  RunOutcome run(const RunRequest& request) override;

 private:
  std::string executable_;
};

// The text of every file in `directory` whose name starts with "nccl." (NCCL_DEBUG_FILE's %h.%p
// make one per process), concatenated in name order.
std::string readNcclLogs(const std::string& directory);

// mkdir -p; false with *error.
bool makeDirectories(const std::string& path, std::string* error);

}  // namespace tune
}  // namespace flashccl
