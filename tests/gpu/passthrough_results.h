// The supervisor's view of one mode's run: every rank's verdict per case, merged (a case is
// identical only when it is identical on every rank), printed one line per case as the last rank
// reports it, plus the facts and failures the workers sent.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "passthrough_cases.h"
#include "passthrough_channel.h"
#include "passthrough_supervisor.h"

namespace flashccl_gpu_test::passthrough {

struct CaseOutcome {
  Verdict verdict = Verdict::kNoResult;
  int ranksReported = 0;
  std::string detail;  // for kDiffers and kError: which rank, and what
};

struct Totals {
  size_t cases = 0;
  size_t identical = 0;
  size_t differ = 0;
  size_t errors = 0;
  size_t noResult = 0;  // the mode stopped (failure, time-out) before every rank reported
  void add(const Totals& other);
};

class ModeResults {
 public:
  ModeResults(std::string mode, const std::vector<Case>* cases, int nranks, FILE* out);

  void onLine(const std::string& line);
  // After the run: settles cases only some ranks reported, prints a line for the cases without
  // a result and one per failure.
  void finish(const SupervisedRun& run);

  const std::string& mode() const { return mode_; }
  const std::vector<Case>& cases() const { return *cases_; }
  const std::vector<CaseOutcome>& outcomes() const { return outcomes_; }
  const std::vector<std::string>& problems() const { return problems_; }
  const std::map<std::string, std::string>& facts() const { return facts_; }
  double seconds() const { return seconds_; }
  Totals totals() const;

 private:
  void printCase(size_t index);

  std::string mode_;
  const std::vector<Case>* cases_;
  int nranks_;
  FILE* out_;
  std::vector<CaseOutcome> outcomes_;
  std::vector<std::string> problems_;
  std::map<std::string, std::string> facts_;
  double seconds_ = 0;
};

}  // namespace flashccl_gpu_test::passthrough
