#include "passthrough_results.h"

#include <utility>

namespace flashccl_gpu_test::passthrough {
namespace {

// An error outweighs a difference, which outweighs identity: the case shows its worst rank.
int weight(Verdict v) {
  switch (v) {
    case Verdict::kNoResult: return 0;
    case Verdict::kIdentical: return 1;
    case Verdict::kDiffers: return 2;
    case Verdict::kError: return 3;
  }
  return 0;
}

}  // namespace

void Totals::add(const Totals& other) {
  cases += other.cases;
  identical += other.identical;
  differ += other.differ;
  errors += other.errors;
  noResult += other.noResult;
}

ModeResults::ModeResults(std::string mode, const std::vector<Case>* cases, int nranks, FILE* out)
    : mode_(std::move(mode)), cases_(cases), nranks_(nranks), out_(out), outcomes_(cases->size()) {}

void ModeResults::onLine(const std::string& line) {
  Message m;
  if (!parseMessage(line, &m)) {
    std::fprintf(out_, "[%s] unexpected worker line: %s\n", mode_.c_str(), line.c_str());
    return;
  }
  switch (m.kind) {
    case Message::Kind::kFact:
      facts_[m.key] = m.text;
      std::fprintf(out_, "[%s] %s: %s\n", mode_.c_str(), m.key.c_str(), m.text.c_str());
      return;
    case Message::Kind::kRankError:
      problems_.push_back("rank " + std::to_string(m.rank) + ": " + m.text);
      std::fprintf(out_, "[%s] rank %d ERROR: %s\n", mode_.c_str(), m.rank, m.text.c_str());
      return;
    case Message::Kind::kCase: break;
  }
  if (m.index >= outcomes_.size()) {
    std::fprintf(out_, "[%s] worker reported unknown case %zu\n", mode_.c_str(), m.index);
    return;
  }
  CaseOutcome& outcome = outcomes_[m.index];
  if (weight(m.verdict) > weight(outcome.verdict)) {
    outcome.verdict = m.verdict;
    if (m.verdict == Verdict::kDiffers)
      outcome.detail = "DIFFERS at element " + std::to_string(m.element) + " (rank " +
                       std::to_string(m.rank) + ": " + m.text + ")";
    if (m.verdict == Verdict::kError)
      outcome.detail = "ERROR (rank " + std::to_string(m.rank) + ": " + m.text + ")";
  }
  if (++outcome.ranksReported == nranks_) printCase(m.index);
}

void ModeResults::printCase(size_t index) {
  const CaseOutcome& outcome = outcomes_[index];
  const std::string verdict = outcome.verdict == Verdict::kIdentical ? "ok" : outcome.detail;
  std::fprintf(out_, "[%s] %s: %s\n", mode_.c_str(), describe((*cases_)[index]).c_str(), verdict.c_str());
}

void ModeResults::finish(const SupervisedRun& run) {
  seconds_ = run.seconds;
  size_t missing = 0;
  size_t firstMissing = 0;
  for (size_t i = 0; i < outcomes_.size(); ++i) {
    CaseOutcome& outcome = outcomes_[i];
    if (outcome.ranksReported == nranks_) continue;
    // Some ranks reported: a difference or error they saw stands; "identical" from only some
    // ranks is no result.
    if (outcome.verdict == Verdict::kIdentical) outcome.verdict = Verdict::kNoResult;
    if (outcome.verdict != Verdict::kNoResult) {
      outcome.detail += " [" + std::to_string(outcome.ranksReported) + " of " +
                        std::to_string(nranks_) + " ranks reported]";
      printCase(i);
      continue;
    }
    outcome.detail = "no result";
    if (missing++ == 0) firstMissing = i;
  }
  if (missing > 0)
    std::fprintf(out_, "[%s] %zu cases got no result, from %s on (the mode stopped early)\n",
                 mode_.c_str(), missing, describe((*cases_)[firstMissing]).c_str());
  std::vector<std::string> ended = run.failures;
  if (run.interrupted) ended.insert(ended.begin(), "interrupted (SIGINT or SIGTERM)");
  for (const std::string& problem : ended) {
    std::fprintf(out_, "[%s] %s\n", mode_.c_str(), problem.c_str());
    problems_.push_back(problem);
  }
  const Totals t = totals();
  std::fprintf(out_, "[%s] %zu cases in %.1f s: %zu identical, %zu differ, %zu errors, %zu without a result\n",
               mode_.c_str(), t.cases, seconds_, t.identical, t.differ, t.errors, t.noResult);
}

Totals ModeResults::totals() const {
  Totals t;
  t.cases = outcomes_.size();
  for (const CaseOutcome& outcome : outcomes_) {
    switch (outcome.verdict) {
      case Verdict::kIdentical: ++t.identical; break;
      case Verdict::kDiffers: ++t.differ; break;
      case Verdict::kError: ++t.errors; break;
      case Verdict::kNoResult: ++t.noResult; break;
    }
  }
  return t;
}

}  // namespace flashccl_gpu_test::passthrough
