#include "hierarchy_record.h"

#include <cstdio>

namespace flashccl_gpu_test::hierarchy {

void ScenarioRecord::setSetup(bool ok, const std::string& state) {
  setupOk_ = ok;
  setup_ = state;
}

void ScenarioRecord::addCase(const std::string& name, bool ok, const std::string& detail) {
  if (ok) {
    ++passed_;
    return;
  }
  ++failed_;
  if (failures_.size() < kMaxListed) failures_.push_back(name + (detail.empty() ? "" : ": " + detail));
}

std::string ScenarioRecord::summaryLine() const {
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%.0f s", seconds_);
  const int total = passed_ + failed_;
  std::string line = std::string(passed() ? "PASS " : "FAIL ") + scenario_ + ": ";
  if (failed_ > 0) {
    line += std::to_string(failed_) + " of " + std::to_string(total) + " cases failed";
  } else {
    line += std::to_string(total) + " cases";
  }
  line += ", set-up " + setup_ + (setupOk_ ? "" : " (not what this layout needs)") + " (" + seconds + ")";
  return line;
}

std::string ScenarioRecord::markdown() const {
  std::string text = "### " + scenario_ + ": " + (passed() ? "PASS" : "FAIL") + "\n\n";
  text += "- Layout: " + layout_ + "\n";
  text += "- Set-up: " + setup_ + (setupOk_ ? "" : " **(not what this layout needs)**") + "\n";
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%.0f s", seconds_);
  text += "- Cases: " + std::to_string(passed_) + " passed, " + std::to_string(failed_) + " failed (" + seconds + ")\n";
  if (!failures_.empty()) {
    text += "\n| failed case |\n|---|\n";
    for (const std::string& failure : failures_) text += "| " + failure + " |\n";
    if (static_cast<size_t>(failed_) > failures_.size()) {
      text += "| ... and " + std::to_string(failed_ - static_cast<int>(failures_.size())) + " more |\n";
    }
  }
  return text + "\n";
}

}  // namespace flashccl_gpu_test::hierarchy
