// What one scenario of the check across nodes found (hierarchy_check.cc): the set-up verdict,
// every case's outcome, and the markdown the launcher puts into bench/results/.
#pragma once

#include <string>
#include <vector>

namespace flashccl_gpu_test::hierarchy {

class ScenarioRecord {
 public:
  ScenarioRecord(std::string scenario, std::string layout) : scenario_(std::move(scenario)), layout_(std::move(layout)) {}

  // The set-up check: what flashcclCommState said, and whether that is what the layout needs.
  void setSetup(bool ok, const std::string& state);
  void addCase(const std::string& name, bool ok, const std::string& detail);
  void setSeconds(double seconds) { seconds_ = seconds; }

  bool passed() const { return setupOk_ && failed_ == 0 && passed_ > 0; }
  int casesPassed() const { return passed_; }
  int casesFailed() const { return failed_; }
  // "PASS 2x2: 1752 cases, set-up armed (412 s)" or "FAIL 2x2: 3 of 1752 cases failed, ..."
  std::string summaryLine() const;
  // A section: heading, layout, set-up, counts, and the failures (the first kMaxListed).
  std::string markdown() const;

  static constexpr size_t kMaxListed = 40;

 private:
  std::string scenario_;
  std::string layout_;
  bool setupOk_ = false;
  std::string setup_ = "not checked";
  int passed_ = 0;
  int failed_ = 0;
  std::vector<std::string> failures_;
  double seconds_ = 0;
};

}  // namespace flashccl_gpu_test::hierarchy
