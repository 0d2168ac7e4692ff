// One verdict of `flashccl doctor` and the report of one node: what every check family produces
// and every output (table, JSON, markdown, the cluster table) reads.
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace flashccl {
namespace doctor {

// Ordered by severity, so the worst of several verdicts is their maximum.
enum class Verdict : int { kPass = 0, kSkip = 1, kWarn = 2, kFail = 3 };

const char* verdictName(Verdict verdict);  // "PASS", "SKIP", "WARN", "FAIL"
bool parseVerdict(const std::string& text, Verdict* verdict);

// The check families, in the order doctor runs them; `--checks` takes these names.
extern const char* const kFamilyEnvironment;  // versions, variables, ACS, IOMMU
extern const char* const kFamilyGpu;          // per-GPU NVML state (read-only)
extern const char* const kFamilyBandwidth;    // per-GPU host link and HBM, measured
extern const char* const kFamilyPairs;        // GPU pairs, measured
extern const char* const kFamilyNics;         // NICs and rails
extern const char* const kFamilyCollectives;  // busbw through `flashccl perf`
const std::vector<std::string>& allFamilies();

struct CheckResult {
  std::string family;    // one of the kFamily names
  std::string check;     // short id within the family: "ecc", "pcie-link", "h2d", ...
  std::string subject;   // what it is about: "node", "GPU 0", "GPU 0 -> GPU 1", "mlx5_0/1"
  Verdict verdict = Verdict::kPass;
  std::string measured;  // what doctor found, with units
  std::string expected;  // what a healthy machine shows
  std::string why;       // why it matters and what to do; for SKIP, why it did not run
  // The number behind `measured` when there is one (NaN otherwise), so the cluster summary can
  // compare nodes without parsing text.
  double value = std::nan("");
  std::string unit;  // of `value`: "GB/s", "us", ...
};

CheckResult makeCheck(const std::string& family, const std::string& check,
                      const std::string& subject, Verdict verdict, const std::string& measured,
                      const std::string& expected, const std::string& why);
// A check that did not run: `why` says why not.
CheckResult skipCheck(const std::string& family, const std::string& check,
                      const std::string& subject, const std::string& why);
// Sets value and unit; returns the check for chaining.
CheckResult withValue(CheckResult check, double value, const std::string& unit);

// An N x N measurement (GPU pairs), kept whole for the JSON and markdown reports; the checks
// carry the verdicts. cells[i][j] is from labels[i] to labels[j]; NaN = not measured.
struct Matrix {
  std::string name;  // "copy-engine", "sm-store", "latency"
  std::string unit;  // "GB/s", "us"
  std::vector<std::string> labels;
  std::vector<std::vector<double>> cells;
};

struct NodeReport {
  std::string host;
  int rank = 0;         // in a cluster run; 0 alone
  int worldSize = 1;
  std::string mode;     // "quick" or "full"
  std::string date;     // local time "2026-12-01 14:03:11"
  std::string flashcclVersion;
  std::string machine;  // topology summary: "2 x NVIDIA H200, nvswitch (18 NVLinks per pair)"
  std::string gpuProblem;  // non-empty when no usable GPU was found: the message to show
  std::vector<CheckResult> checks;
  std::vector<Matrix> matrices;

  Verdict worst() const;    // kPass for no checks
  Verdict overall() const;  // worst(), with SKIP counted as PASS: what the report says overall
  int count(Verdict verdict) const;
};

// Process exit status for a report: 2 when a GPU was needed and none was found, 1 on any FAIL,
// else 0.
int exitStatusFor(const NodeReport& report);

// PASS at or above `warnAt`, WARN down to `failAt`, FAIL below (for rates: higher is better).
Verdict ratioVerdict(double measured, double warnAt, double failAt);

// "%.1f"-style formatting without iostreams, for measured/expected texts.
std::string formatNumber(double value, int decimals);

}  // namespace doctor
}  // namespace flashccl
