// Verdicts on measured numbers: host link, device memory, the GPU pair matrix. The healthy
// numbers are the 2 x H200 baseline's (physical-floor: copy engine 396 GB/s one way, SM stores
// 368 GB/s, 0.6 us one way over NV18 at 18 x 26.56 GB/s); the faults are those numbers cut down
// the way a lost link or a detour through host memory cuts them.
#include <gtest/gtest.h>

#include <cmath>

#include "bandwidth_checks.h"
#include "link_rates.h"
#include "pair_checks.h"

namespace flashccl {
namespace doctor {
namespace {

Reading<PcieLinkState> gen5x16() {
  Reading<PcieLinkState> link;
  link.known = true;
  link.value = PcieLinkState{5, 16, 5, 16, 5};
  return link;
}

TEST(DoctorLinkRates, RawRatesOfPcieMemoryAndNvlink) {
  EXPECT_NEAR(pcieLinkGBps(4, 16), 31.5, 0.05);
  EXPECT_NEAR(pcieLinkGBps(5, 16), 63.0, 0.05);
  EXPECT_NEAR(pcieLinkGBps(3, 8), 7.88, 0.01);
  EXPECT_EQ(pcieLinkGBps(0, 16), 0.0);
  EXPECT_EQ(pcieLinkName(5, 8), "Gen5 x8");
  EXPECT_NEAR(memoryGBps(6144, 3201), 4917.0, 1.0);   // H200
  EXPECT_NEAR(memoryGBps(5120, 1593), 2039.0, 1.0);   // A100 80GB
  EXPECT_NEAR(nvlinkGBps(18, 26562), 478.1, 0.1);     // H200 NV18
  EXPECT_EQ(nvlinkGBps(0, 26562), 0.0);
}

TEST(DoctorHostLink, AgainstTheLinksRawRate) {
  // Pinned copies reach 80-88% of the raw rate: 53 of 63 GB/s is healthy.
  EXPECT_EQ(judgeHostCopy("h2d", 53.0, gen5x16(), 0.0, "GPU 0").verdict, Verdict::kPass);
  EXPECT_EQ(judgeHostCopy("d2h", 40.0, gen5x16(), 0.0, "GPU 0").verdict, Verdict::kWarn);
  const CheckResult broken = judgeHostCopy("h2d", 20.0, gen5x16(), 0.0, "GPU 0");
  EXPECT_EQ(broken.verdict, Verdict::kFail);
  EXPECT_EQ(broken.expected, ">= 44.1 GB/s (70% of Gen5 x16 = 63.0 GB/s)");
  EXPECT_NE(broken.why.find("32% of what Gen5 x16 carries"), std::string::npos);
  EXPECT_DOUBLE_EQ(broken.value, 20.0);
}

TEST(DoctorHostLink, AnOperatorFloorIsPassOrFail) {
  EXPECT_EQ(judgeHostCopy("h2d", 45.0, gen5x16(), 50.0, "GPU 0").verdict, Verdict::kFail);
  EXPECT_EQ(judgeHostCopy("h2d", 51.0, gen5x16(), 50.0, "GPU 0").verdict, Verdict::kPass);
  EXPECT_EQ(judgeHostCopy("h2d", 51.0, gen5x16(), 50.0, "GPU 0").expected, ">= 50.0 GB/s (--expect)");
}

TEST(DoctorHostLink, UnknownLinkKeepsTheNumberButCannotJudgeIt) {
  Reading<PcieLinkState> unknown;
  unknown.why = "this NVML has no nvmlDeviceGetCurrPcieLinkGeneration";
  const CheckResult check = judgeHostCopy("h2d", 53.0, unknown, 0.0, "GPU 0");
  EXPECT_EQ(check.verdict, Verdict::kSkip);
  EXPECT_EQ(check.measured, "53.0 GB/s");
  EXPECT_NE(check.why.find("h2d_gbps"), std::string::npos);
}

TEST(DoctorMemory, CopyKernelAgainstTheMemoryInterface) {
  const double h200 = memoryGBps(6144, 3201);
  EXPECT_EQ(judgeMemoryBandwidth(4300.0, h200, "NVML", 0.0, "GPU 0").verdict, Verdict::kPass);
  EXPECT_EQ(judgeMemoryBandwidth(3000.0, h200, "NVML", 0.0, "GPU 0").verdict, Verdict::kWarn);
  EXPECT_EQ(judgeMemoryBandwidth(2000.0, h200, "NVML", 0.0, "GPU 0").verdict, Verdict::kFail);
  EXPECT_EQ(judgeMemoryBandwidth(3000.0, h200, "NVML", 3500.0, "GPU 0").verdict, Verdict::kFail);
  EXPECT_EQ(judgeMemoryBandwidth(3000.0, 0.0, "CUDA: 0-bit", 0.0, "GPU 0").verdict, Verdict::kSkip);
}

PairPath nv18() {
  PairPath path;
  path.name = "NV18";
  path.nvlink = true;
  path.rawGBps = nvlinkGBps(18, 26562);
  path.rawSource = "18 links x 26.56 GB/s (NVML)";
  return path;
}

PairMeasurement pair(int from, int to, double ce, double sm, double latency, PairPath path = nv18()) {
  PairMeasurement p;
  p.from = from;
  p.to = to;
  p.path = path;
  p.peerAccess = std::isfinite(sm);
  p.copyEngineGBps = ce;
  p.smStoreGBps = sm;
  p.latencyMicros = latency;
  return p;
}

std::vector<std::string> labels(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("GPU " + std::to_string(i));
  return out;
}

// Summary checks by name (the first check of each name is its summary).
std::map<std::string, CheckResult> summaries(const std::vector<CheckResult>& checks) {
  std::map<std::string, CheckResult> byName;
  for (const CheckResult& check : checks) byName.emplace(check.check, check);
  return byName;
}

TEST(DoctorPairs, TheH200BaselinePasses) {
  std::vector<Matrix> matrices;
  const auto checks = judgePairs({pair(0, 1, 396.5, 368.5, 0.60), pair(1, 0, 392.3, 366.3, 0.62)},
                                 labels(2), Expectations(), &matrices);
  ASSERT_EQ(checks.size(), 3u);  // three summaries, no pair is off
  for (const CheckResult& check : checks) EXPECT_EQ(check.verdict, Verdict::kPass) << check.check;
  auto byName = summaries(checks);
  EXPECT_EQ(byName["copy-engine"].measured, "slowest GPU 1 -> GPU 0: 392.3 GB/s; median 394.4 GB/s over 2 pairs");
  EXPECT_EQ(byName["copy-engine"].expected, ">= 334.7 GB/s (70% of NV18: 18 links x 26.56 GB/s (NVML))");
  EXPECT_EQ(byName["latency"].measured, "highest GPU 1 -> GPU 0: 0.62 us; median 0.61 us over 2 pairs");
  ASSERT_EQ(matrices.size(), 3u);
  EXPECT_DOUBLE_EQ(matrices[0].cells[0][1], 396.5);
  EXPECT_TRUE(std::isnan(matrices[0].cells[0][0]));
}

TEST(DoctorPairs, ALostLinkFailsAndTheSlowestPairIsNamed) {
  std::vector<PairMeasurement> pairs;
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      if (a == b) continue;
      double ce = 396.0;
      if (a == 3 && b == 1) ce = 150.0;  // below 40% of 478: links down or a host detour
      if (a == 2 && b == 0) ce = 300.0;  // below 70%
      pairs.push_back(pair(a, b, ce, 368.0, 0.62));
    }
  }
  const auto checks = judgePairs(pairs, labels(4), Expectations(), nullptr);
  auto byName = summaries(checks);
  EXPECT_EQ(byName["copy-engine"].verdict, Verdict::kFail);
  EXPECT_NE(byName["copy-engine"].measured.find("slowest GPU 3 -> GPU 1: 150.0 GB/s"), std::string::npos);
  EXPECT_NE(byName["copy-engine"].why.find("worst pair: GPU 3 -> GPU 1"), std::string::npos);
  int failRows = 0, warnRows = 0;
  for (const CheckResult& check : checks) {
    if (check.check != "copy-engine" || check.subject.find("->") == std::string::npos) continue;
    if (check.verdict == Verdict::kFail) {
      ++failRows;
      EXPECT_EQ(check.subject, "GPU 3 -> GPU 1");
    }
    if (check.verdict == Verdict::kWarn) {
      ++warnRows;
      EXPECT_EQ(check.subject, "GPU 2 -> GPU 0");
    }
  }
  EXPECT_EQ(failRows, 1);
  EXPECT_EQ(warnRows, 1);
  EXPECT_EQ(byName["sm-store"].verdict, Verdict::kPass);
}

TEST(DoctorPairs, WithoutALinkRateTheClassMedianStillFindsTheOutlier) {
  PairPath unknown;
  unknown.name = "NVLink";
  unknown.nvlink = true;
  std::vector<PairMeasurement> pairs = {pair(0, 1, 396, 368, 0.6, unknown), pair(1, 0, 395, 367, 0.6, unknown),
                                        pair(0, 2, 394, 366, 0.6, unknown), pair(2, 0, 300, 366, 1.9, unknown),
                                        pair(1, 2, 396, 368, 0.6, unknown), pair(2, 1, 393, 365, 0.6, unknown)};
  auto byName = summaries(judgePairs(pairs, labels(3), Expectations(), nullptr));
  EXPECT_EQ(byName["copy-engine"].verdict, Verdict::kWarn);  // 300 < 80% of the median 394.5
  EXPECT_EQ(byName["sm-store"].verdict, Verdict::kPass);
  EXPECT_EQ(byName["latency"].verdict, Verdict::kWarn);      // 1.9 us: above 1.5 and 2x the median
}

TEST(DoctorPairs, PairsWithoutPeerAccessAreCountedNotJudged) {
  PairPath pcie;
  pcie.name = "PCIe SYS";
  pcie.rawGBps = pcieLinkGBps(4, 16);
  pcie.rawSource = "PCIe Gen4 x16";
  const double nan = std::nan("");
  auto byName = summaries(judgePairs({pair(0, 1, 24.0, nan, nan, pcie), pair(1, 0, 23.5, nan, nan, pcie)},
                                     labels(2), Expectations(), nullptr));
  EXPECT_EQ(byName["copy-engine"].verdict, Verdict::kPass);  // 24 of 31.5 GB/s
  EXPECT_EQ(byName["sm-store"].verdict, Verdict::kSkip);
  EXPECT_EQ(byName["latency"].verdict, Verdict::kSkip);
}

TEST(DoctorPairs, OperatorFloorsReplaceTheLinkRate) {
  Expectations expect;
  expect.pairCopyEngineGBps = 390.0;
  expect.pairLatencyMicros = 0.5;
  auto byName = summaries(judgePairs({pair(0, 1, 385, 368, 0.6), pair(1, 0, 395, 368, 0.6)}, labels(2), expect, nullptr));
  EXPECT_EQ(byName["copy-engine"].verdict, Verdict::kFail);
  EXPECT_EQ(byName["latency"].verdict, Verdict::kFail);
  EXPECT_EQ(byName["sm-store"].verdict, Verdict::kPass);
}

}  // namespace
}  // namespace doctor
}  // namespace flashccl
