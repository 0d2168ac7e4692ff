// The sweep's progress on stderr: one line rewritten in place with a bar and the time left on a
// terminal; on anything else (logs, CI) a plain line when each run starts and ends, so a long sweep
// is never silent and its log reads top-down.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace flashccl {
namespace tune {

// "[#####---------------] 3/12" for `done` of `total` runs, `width` characters of bar.
std::string progressBar(size_t done, size_t total, int width);
// "1m20s", "45s", "2h03m".
std::string durationText(double seconds);

class ProgressBar {
 public:
  ProgressBar(FILE* out, bool terminal) : out_(out), terminal_(terminal) {}
  ~ProgressBar() { clear(); }
  // Run `index` (from 0) of `total` starts; `secondsSoFar` were spent on the `index` before it.
  void begin(size_t index, size_t total, const std::string& label, double secondsSoFar);
  void end(size_t index, size_t total, const std::string& label, double seconds, const std::string& outcome);
  void clear();  // removes the rewritten line (before other output)

 private:
  FILE* out_;
  bool terminal_;
  bool pending_ = false;
};

}  // namespace tune
}  // namespace flashccl
