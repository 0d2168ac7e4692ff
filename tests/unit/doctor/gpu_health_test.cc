// The per-GPU NVML checks against recorded machines: the fake NVML (hgx-h200-8) answering from
// data/*.nvml, read through the same NvmlHealth the command uses.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <memory>

#include "gpu_health_checks.h"
#include "nvml_health.h"

namespace flashccl {
namespace doctor {
namespace {

std::unique_ptr<NvmlHealth> openFake(const std::string& healthFile) {
  setenv("FLASHCCL_FAKE_NVML_MACHINE", "hgx-h200-8", 1);
  if (healthFile.empty()) unsetenv("FLASHCCL_FAKE_NVML_HEALTH");
  else setenv("FLASHCCL_FAKE_NVML_HEALTH", (std::string(DOCTOR_TEST_DATA) + "/" + healthFile).c_str(), 1);
  std::string error;
  std::unique_ptr<NvmlHealth> nvml = NvmlHealth::open(FLASHCCL_FAKE_NVML_LIBRARY, &error);
  EXPECT_NE(nvml, nullptr) << error;
  return nvml;
}

// Verdicts of one GPU's NVML checks, by check name, read at rest.
std::map<std::string, CheckResult> judgeAtRest(const NvmlHealth& nvml, int index) {
  const GpuHealth gpu = nvml.read(index);
  const std::string subject = gpuSubject(index, gpu.busId);
  std::map<std::string, CheckResult> byName;
  for (const CheckResult& check : judgeMemoryHealth(gpu, subject)) byName[check.check] = check;
  byName["clocks"] = judgeClocks(gpu.atRest.clocks, gpu.atRest.throttleReasons, false, subject);
  byName["pcie-link"] = judgePcieLink(gpu.atRest.pcie, false, subject);
  return byName;
}

TEST(DoctorGpuHealth, HealthyH200ReadsAsNvmlReportsIt) {
  auto nvml = openFake("h200-healthy.nvml");
  ASSERT_NE(nvml, nullptr);
  ASSERT_EQ(nvml->gpuCount(), 8);
  EXPECT_EQ(nvml->driverVersion().value, "580.159.04");
  EXPECT_EQ(nvml->cudaDriverVersion().value, 13000);
  const GpuHealth gpu = nvml->read(3);
  EXPECT_EQ(gpu.name, "NVIDIA H200");
  EXPECT_EQ(gpu.busId, "0000:5d:00.0");
  EXPECT_EQ(gpu.uuid, "GPU-fa4e0000-0000-0000-0000-000000000003");
  ASSERT_TRUE(gpu.memoryBusWidth.known);
  EXPECT_EQ(gpu.memoryBusWidth.value, 6144);
  EXPECT_EQ(gpu.memoryClockMaxMHz.value, 3201);
  EXPECT_DOUBLE_EQ(gpu.nvlinkMBpsPerLink.value, 26562.0);
  ASSERT_TRUE(gpu.atRest.pcie.known);
  EXPECT_EQ(gpu.atRest.pcie.value.maxWidth, 16);
  EXPECT_EQ(nvml->indexOfBusId("0000:5d:00.0"), 3);
  EXPECT_EQ(nvml->indexOfBusId("0000:01:00.0"), -1);
}

TEST(DoctorGpuHealth, HealthyH200PassesEveryCheckAndSkipsRetiredPages) {
  auto nvml = openFake("h200-healthy.nvml");
  ASSERT_NE(nvml, nullptr);
  for (int i = 0; i < nvml->gpuCount(); ++i) {
    auto checks = judgeAtRest(*nvml, i);
    for (const char* name : {"ecc", "ecc-errors", "remapped-rows", "clocks", "pcie-link"}) {
      EXPECT_EQ(checks[name].verdict, Verdict::kPass) << "GPU " << i << " " << name << ": " << checks[name].why;
    }
    // Hopper remaps rows; NVML has no retired pages for it.
    EXPECT_EQ(checks["retired-pages"].verdict, Verdict::kSkip);
    EXPECT_NE(checks["retired-pages"].why.find("remap rows instead"), std::string::npos);
    EXPECT_EQ(checks["pcie-link"].measured, "Gen5 x16 idle");
    EXPECT_NEAR(checks["pcie-link"].value, 63.0, 0.1);
  }
}

TEST(DoctorGpuHealth, DegradedLinkFailsByWidthAtRestAndByGenerationOnlyUnderLoad) {
  auto nvml = openFake("h200-degraded-pcie.nvml");
  ASSERT_NE(nvml, nullptr);
  auto gpu3 = judgeAtRest(*nvml, 3);
  EXPECT_EQ(gpu3["pcie-link"].verdict, Verdict::kFail);
  EXPECT_EQ(gpu3["pcie-link"].measured, "Gen5 x8 idle");
  EXPECT_EQ(gpu3["pcie-link"].expected, "Gen5 x16");
  EXPECT_NE(gpu3["pcie-link"].why.find("x8 instead of x16"), std::string::npos);

  // Gen3 while idle is what power saving looks like...
  auto gpu6 = judgeAtRest(*nvml, 6);
  EXPECT_EQ(gpu6["pcie-link"].verdict, Verdict::kPass);
  EXPECT_NE(gpu6["pcie-link"].why.find("idle"), std::string::npos);
  // ...and a fault when the link is busy.
  const CheckResult busy = judgePcieLink(nvml->sample(6).pcie, true, "GPU 6");
  EXPECT_EQ(busy.verdict, Verdict::kFail);
  EXPECT_EQ(busy.measured, "Gen3 x16 under load");

  for (int i : {0, 1, 2, 4, 5, 7}) EXPECT_EQ(judgeAtRest(*nvml, i)["pcie-link"].verdict, Verdict::kPass);
}

TEST(DoctorGpuHealth, EccErrorsAndPendingRemapFailThatGpuOnly) {
  auto nvml = openFake("h200-ecc-errors.nvml");
  ASSERT_NE(nvml, nullptr);
  auto gpu5 = judgeAtRest(*nvml, 5);
  EXPECT_EQ(gpu5["ecc"].verdict, Verdict::kPass);
  EXPECT_EQ(gpu5["ecc-errors"].verdict, Verdict::kFail);
  EXPECT_EQ(gpu5["ecc-errors"].measured,
            "2 uncorrectable since driver load (2 lifetime), 112 corrected");
  EXPECT_EQ(gpu5["remapped-rows"].verdict, Verdict::kFail);
  EXPECT_NE(gpu5["remapped-rows"].measured.find("remap pending"), std::string::npos);

  auto gpu2 = judgeAtRest(*nvml, 2);
  EXPECT_EQ(gpu2["clocks"].verdict, Verdict::kFail);
  EXPECT_NE(gpu2["clocks"].measured.find("SM 990/1980 MHz"), std::string::npos);
  EXPECT_NE(gpu2["clocks"].measured.find("HwThermalSlowdown"), std::string::npos);

  for (int i : {0, 1, 3, 4, 6, 7}) {
    auto checks = judgeAtRest(*nvml, i);
    EXPECT_EQ(checks["ecc-errors"].verdict, Verdict::kPass) << i;
    EXPECT_EQ(checks["clocks"].verdict, Verdict::kPass) << i;
  }
}

TEST(DoctorGpuHealth, AnNvmlThatKnowsNothingGivesSkipsWithReasons) {
  auto nvml = openFake("");
  ASSERT_NE(nvml, nullptr);
  EXPECT_FALSE(nvml->driverVersion().known);
  auto checks = judgeAtRest(*nvml, 0);
  for (const auto& entry : checks) {
    EXPECT_EQ(entry.second.verdict, Verdict::kSkip) << entry.first;
    EXPECT_NE(entry.second.why.find("not supported"), std::string::npos) << entry.first;
  }
}

TEST(DoctorGpuHealth, ClockVerdictsFollowTheThrottleReasons) {
  Reading<Clocks> clocks;
  clocks.known = true;
  clocks.value = Clocks{1980, 1980, 3201, 3201};
  auto judge = [&](uint64_t bits) {
    Reading<uint64_t> reasons;
    reasons.known = true;
    reasons.value = bits;
    return judgeClocks(clocks, reasons, true, "GPU 0");
  };
  EXPECT_EQ(judge(0).verdict, Verdict::kPass);
  EXPECT_EQ(judge(throttle::kGpuIdle).verdict, Verdict::kPass);
  EXPECT_EQ(judge(throttle::kSwPowerCap).verdict, Verdict::kPass);
  EXPECT_EQ(judge(throttle::kSwThermalSlowdown).verdict, Verdict::kWarn);
  EXPECT_EQ(judge(throttle::kApplicationsClocksSetting).verdict, Verdict::kWarn);
  EXPECT_EQ(judge(throttle::kHwSlowdown).verdict, Verdict::kFail);
  EXPECT_EQ(judge(throttle::kHwPowerBrakeSlowdown | throttle::kSwPowerCap).verdict, Verdict::kFail);
  EXPECT_EQ(throttle::reasonNames(throttle::kSwPowerCap | throttle::kHwSlowdown), "SwPowerCap, HwSlowdown");
}

TEST(DoctorGpuHealth, APlatformSlowerThanTheGpuWarns) {
  Reading<PcieLinkState> link;
  link.known = true;
  link.value = PcieLinkState{4, 16, 4, 16, 5};  // a Gen5 GPU in a Gen4 slot
  const CheckResult check = judgePcieLink(link, true, "GPU 0");
  EXPECT_EQ(check.verdict, Verdict::kWarn);
  EXPECT_NE(check.why.find("stops at Gen4"), std::string::npos);
}

}  // namespace
}  // namespace doctor
}  // namespace flashccl
