#include "check_result.h"

#include <algorithm>
#include <cstdio>

namespace flashccl {
namespace doctor {

const char* const kFamilyEnvironment = "environment";
const char* const kFamilyGpu = "gpu";
const char* const kFamilyBandwidth = "bandwidth";
const char* const kFamilyPairs = "pairs";
const char* const kFamilyNics = "nics";
const char* const kFamilyCollectives = "collectives";

const std::vector<std::string>& allFamilies() {
  static const std::vector<std::string> families = {kFamilyEnvironment, kFamilyGpu,
                                                    kFamilyBandwidth,   kFamilyPairs,
                                                    kFamilyNics,        kFamilyCollectives};
  return families;
}

const char* verdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass: return "PASS";
    case Verdict::kSkip: return "SKIP";
    case Verdict::kWarn: return "WARN";
    case Verdict::kFail: return "FAIL";
  }
  return "?";
}

bool parseVerdict(const std::string& text, Verdict* verdict) {
  for (Verdict v : {Verdict::kPass, Verdict::kSkip, Verdict::kWarn, Verdict::kFail}) {
    if (text == verdictName(v)) {
      *verdict = v;
      return true;
    }
  }
  return false;
}

CheckResult makeCheck(const std::string& family, const std::string& check,
                      const std::string& subject, Verdict verdict, const std::string& measured,
                      const std::string& expected, const std::string& why) {
  CheckResult result;
  result.family = family;
  result.check = check;
  result.subject = subject;
  result.verdict = verdict;
  result.measured = measured;
  result.expected = expected;
  result.why = why;
  return result;
}

CheckResult skipCheck(const std::string& family, const std::string& check,
                      const std::string& subject, const std::string& why) {
  return makeCheck(family, check, subject, Verdict::kSkip, "-", "-", why);
}

CheckResult withValue(CheckResult check, double value, const std::string& unit) {
  check.value = value;
  check.unit = unit;
  return check;
}

Verdict NodeReport::worst() const {
  Verdict worst = Verdict::kPass;
  for (const CheckResult& check : checks) worst = std::max(worst, check.verdict);
  return worst;
}

Verdict NodeReport::overall() const {
  const Verdict verdict = worst();
  return verdict == Verdict::kSkip ? Verdict::kPass : verdict;
}

int NodeReport::count(Verdict verdict) const {
  return int(std::count_if(checks.begin(), checks.end(),
                           [&](const CheckResult& check) { return check.verdict == verdict; }));
}

int exitStatusFor(const NodeReport& report) {
  if (!report.gpuProblem.empty()) return 2;
  return report.worst() == Verdict::kFail ? 1 : 0;
}

Verdict ratioVerdict(double measured, double warnAt, double failAt) {
  if (measured >= warnAt) return Verdict::kPass;
  return measured >= failAt ? Verdict::kWarn : Verdict::kFail;
}

std::string formatNumber(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

}  // namespace doctor
}  // namespace flashccl
