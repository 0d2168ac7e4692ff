// The environment family: software found, variables that break or slow NCCL, PCIe ACS read from
// configuration space, the IOMMU mode.
#include <gtest/gtest.h>

#include "fake_sysfs.h"
#include "iommu_check.h"
#include "pcie_acs.h"
#include "software_checks.h"
#include "variable_checks.h"

namespace flashccl {
namespace doctor {
namespace {

using testing::FakeSysfs;
using testing::TempDir;

std::map<std::string, CheckResult> byCheck(const std::vector<CheckResult>& checks) {
  std::map<std::string, CheckResult> out;
  for (const CheckResult& check : checks) out[check.check] = check;
  return out;
}

SoftwareFacts healthySoftware() {
  SoftwareFacts facts;
  facts.driverVersion.known = true;
  facts.driverVersion.value = "580.159.04";
  facts.cudaDriverVersion = 13000;
  facts.cudaRuntimeVersion = 13000;
  facts.ncclPath = "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3";
  facts.ncclVersion = 22803;
  facts.flashcclVersion = "0.1.0";
  return facts;
}

bool existsOnlyLib(const std::string& path) { return path == "/opt/flashccl/lib/libflashccl.so"; }

TEST(DoctorSoftware, VersionsAndWhatFlashcclForwardsTo) {
  auto checks = byCheck(judgeSoftware(healthySoftware(), existsOnlyLib));
  EXPECT_EQ(checks["driver"].verdict, Verdict::kPass);
  EXPECT_EQ(checks["cuda"].measured, "driver supports CUDA 13.0");
  EXPECT_EQ(checks["cuda"].verdict, Verdict::kPass);
  EXPECT_EQ(checks["nccl"].measured, "2.28.3 at /usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3");
  EXPECT_EQ(checks["flashccl"].measured, "not preloaded in this environment");
}

TEST(DoctorSoftware, OldDriverNoNcclAndBrokenPreloadAreCalledOut) {
  SoftwareFacts facts = healthySoftware();
  facts.cudaDriverVersion = 12080;
  facts.ncclPath.clear();
  facts.ncclError = "flashccl found no libnccl.so.2";
  facts.ldPreload = "/opt/other/libfoo.so:/opt/old/libflashccl.so";
  auto checks = byCheck(judgeSoftware(facts, existsOnlyLib));
  EXPECT_EQ(checks["cuda"].verdict, Verdict::kFail);
  EXPECT_EQ(checks["cuda"].measured, "driver supports CUDA 12.8");
  EXPECT_EQ(checks["nccl"].verdict, Verdict::kFail);
  EXPECT_EQ(checks["flashccl"].verdict, Verdict::kWarn);
  EXPECT_NE(checks["flashccl"].measured.find("/opt/old/libflashccl.so"), std::string::npos);

  facts.driverVersion = Reading<std::string>();
  facts.driverVersion.why = "no /proc/driver/nvidia/version";
  facts.cudaDriverVersion = 0;
  checks = byCheck(judgeSoftware(facts, existsOnlyLib));
  EXPECT_EQ(checks["driver"].verdict, Verdict::kFail);
  EXPECT_EQ(checks["cuda"].verdict, Verdict::kFail);
}

TEST(DoctorSoftware, PreloadedAndDisabledWarns) {
  SoftwareFacts facts = healthySoftware();
  facts.ldPreload = "/opt/flashccl/lib/libflashccl.so";
  EXPECT_EQ(byCheck(judgeSoftware(facts, existsOnlyLib))["flashccl"].verdict, Verdict::kPass);
  facts.flashcclDisable = "1";
  EXPECT_EQ(byCheck(judgeSoftware(facts, existsOnlyLib))["flashccl"].verdict, Verdict::kWarn);
  facts.flashcclDisable = "ON";  // the library reads it as on too (parseBool)
  EXPECT_EQ(byCheck(judgeSoftware(facts, existsOnlyLib))["flashccl"].verdict, Verdict::kWarn);
  facts.flashcclDisable = "0";
  EXPECT_EQ(byCheck(judgeSoftware(facts, existsOnlyLib))["flashccl"].verdict, Verdict::kPass);
}

TEST(DoctorSoftware, VersionTexts) {
  EXPECT_EQ(driverVersionFromProc("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  "
                                  "Thu Oct  9 18:11:06 UTC 2025\nGCC version:  gcc 12\n"),
            "580.159.04");
  EXPECT_EQ(driverVersionFromProc("nothing here"), "");
  EXPECT_EQ(cudaVersionText(12080), "12.8");
  EXPECT_EQ(ncclVersionText(22809), "2.28.9");
  EXPECT_EQ(ncclVersionText(2708), "2.7.8");
}

VariableContext hgxContext() {
  VariableContext context;
  context.rdmaDevices = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"};
  for (const std::string& device : context.rdmaDevices) context.rdmaPorts[device] = {1};
  context.interfaces = {"docker0", "eth0", "ib0", "lo"};
  context.nvmlGpuCount = 4;
  for (int i = 0; i < 4; ++i) context.gpuUuids.push_back("GPU-fa4e0000-0000-0000-0000-00000000000" + std::to_string(i));
  context.nvswitch = true;
  return context;
}

CheckResult judgeOne(VariableContext context, const std::string& name, const std::string& value) {
  context.environment[name] = value;
  return byCheck(judgeVariables(context))[name];
}

TEST(DoctorVariables, NothingSetButNvlsOnNvswitchWarns) {
  VariableContext context = hgxContext();
  auto checks = byCheck(judgeVariables(context));
  ASSERT_EQ(checks.size(), 7u);
  for (const auto& entry : checks) {
    if (entry.first == "NCCL_NVLS_ENABLE") continue;
    EXPECT_EQ(entry.second.verdict, Verdict::kPass) << entry.first;
    EXPECT_EQ(entry.second.measured, "unset");
  }
  EXPECT_EQ(checks["NCCL_NVLS_ENABLE"].verdict, Verdict::kWarn);
  EXPECT_EQ(judgeOne(context, "NCCL_NVLS_ENABLE", "0").verdict, Verdict::kPass);
  context.nvswitch = false;
  EXPECT_EQ(byCheck(judgeVariables(context))["NCCL_NVLS_ENABLE"].verdict, Verdict::kPass);
}

TEST(DoctorVariables, SwitchesThatTurnFastPathsOff) {
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_P2P_DISABLE", "1").verdict, Verdict::kWarn);
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_P2P_DISABLE", "0").verdict, Verdict::kPass);
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_SHM_DISABLE", "1").verdict, Verdict::kWarn);
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_IB_DISABLE", "1").verdict, Verdict::kWarn);
  VariableContext noRdma = hgxContext();
  noRdma.rdmaDevices.clear();
  EXPECT_EQ(judgeOne(noRdma, "NCCL_IB_DISABLE", "1").verdict, Verdict::kPass);
}

TEST(DoctorVariables, IbHcaNamingAbsentDevices) {
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_IB_HCA", "mlx5").verdict, Verdict::kPass);  // a prefix
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1").verdict, Verdict::kPass);
  const CheckResult some = judgeOne(hgxContext(), "NCCL_IB_HCA", "mlx5_0,mlx5_6");
  EXPECT_EQ(some.verdict, Verdict::kWarn);
  EXPECT_NE(some.why.find("mlx5_6 does not exist"), std::string::npos);
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_IB_HCA", "=mlx5_6,mlx5_7").verdict, Verdict::kFail);
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_IB_HCA", "mlx5_0:2").verdict, Verdict::kFail);  // no port 2
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_IB_HCA", "=mlx5").verdict, Verdict::kFail);     // exact
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_IB_HCA", "^mlx5_3").verdict, Verdict::kPass);
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_IB_HCA", "^mlx5").verdict, Verdict::kWarn);     // excludes all
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_IB_HCA", "^=mlx5_9").verdict, Verdict::kWarn);  // a typo
}

TEST(DoctorVariables, SocketIfnameNamingNoInterface) {
  const CheckResult none = judgeOne(hgxContext(), "NCCL_SOCKET_IFNAME", "bond0");
  EXPECT_EQ(none.verdict, Verdict::kFail);
  EXPECT_NE(none.why.find("no socket interface found"), std::string::npos);
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_SOCKET_IFNAME", "eth").verdict, Verdict::kPass);
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_SOCKET_IFNAME", "eth").measured, "NCCL_SOCKET_IFNAME=eth -> eth0");
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_SOCKET_IFNAME", "^docker,lo").verdict, Verdict::kPass);
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_SOCKET_IFNAME", "^docker,lo,eth,ib").verdict, Verdict::kFail);
  EXPECT_EQ(judgeOne(hgxContext(), "NCCL_SOCKET_IFNAME", "=eth").verdict, Verdict::kFail);
}

TEST(DoctorVariables, CudaVisibleDevicesGaps) {
  const CheckResult hidden = judgeOne(hgxContext(), "CUDA_VISIBLE_DEVICES", "0,1,5,2");
  EXPECT_EQ(hidden.verdict, Verdict::kFail);
  EXPECT_EQ(hidden.measured, "CUDA_VISIBLE_DEVICES=0,1,5,2 -> CUDA sees 0,1");
  EXPECT_NE(hidden.why.find("hides 2"), std::string::npos);
  EXPECT_EQ(judgeOne(hgxContext(), "CUDA_VISIBLE_DEVICES", "2,3").verdict, Verdict::kPass);
  EXPECT_EQ(judgeOne(hgxContext(), "CUDA_VISIBLE_DEVICES", "").verdict, Verdict::kFail);
  EXPECT_EQ(judgeOne(hgxContext(), "CUDA_VISIBLE_DEVICES", "7,0").verdict, Verdict::kFail);
  EXPECT_EQ(judgeOne(hgxContext(), "CUDA_VISIBLE_DEVICES", "0,9").verdict, Verdict::kWarn);
  EXPECT_EQ(judgeOne(hgxContext(), "CUDA_VISIBLE_DEVICES", "1,1").verdict, Verdict::kWarn);
  EXPECT_EQ(judgeOne(hgxContext(), "CUDA_VISIBLE_DEVICES", "GPU-fa4e0000-0000-0000-0000-000000000002").verdict,
            Verdict::kPass);
  EXPECT_EQ(judgeOne(hgxContext(), "CUDA_VISIBLE_DEVICES", "GPU-fa4e,0").verdict, Verdict::kFail);  // ambiguous
  EXPECT_EQ(judgeOne(hgxContext(), "CUDA_VISIBLE_DEVICES", "GPU-deadbeef").verdict, Verdict::kFail);
  EXPECT_EQ(judgeOne(hgxContext(), "CUDA_VISIBLE_DEVICES", "MIG-1234").verdict, Verdict::kPass);
  VariableContext noNvml = hgxContext();
  noNvml.nvmlGpuCount = -1;
  noNvml.gpuUuids.clear();
  EXPECT_EQ(judgeOne(noNvml, "CUDA_VISIBLE_DEVICES", "0,5").verdict, Verdict::kPass);  // cannot tell
}

TEST(DoctorAcs, ParsesTheCapabilitiesOfAConfigSpace) {
  const PciConfig down = parsePciConfig(FakeSysfs::config(kPciePortSwitchDown, 0x1D));
  EXPECT_TRUE(down.readable);
  EXPECT_EQ(down.portType, kPciePortSwitchDown);
  EXPECT_TRUE(down.hasAcs);
  EXPECT_EQ(down.acsControl, 0x1D);
  EXPECT_EQ(acsControlText(0x1D), "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
  EXPECT_FALSE(parsePciConfig(FakeSysfs::config(0, -1)).hasAcs);
  EXPECT_FALSE(parsePciConfig(std::string(64, '\0')).readable);  // what non-root users get
}

TEST(DoctorAcs, RedirectOnASwitchAboveAGpuFails) {
  TempDir dir;
  FakeSysfs sys(dir);
  const testing::HgxTree tree = buildHgxTree(sys, /*acsControl=*/0x11, /*redirectingSwitch=*/2);
  std::vector<std::string> devices = tree.gpus;
  devices.insert(devices.end(), tree.nics.begin(), tree.nics.end());
  const AcsScan scan = scanAcs(sys.root(), devices);
  EXPECT_EQ(scan.ports.size(), 12u);
  const CheckResult check = judgeAcs(scan, true);
  EXPECT_EQ(check.verdict, Verdict::kFail);
  EXPECT_NE(check.measured.find("ReqRedir+ CmpltRedir+"), std::string::npos);
  EXPECT_NE(check.measured.find("0000:9a:00.0"), std::string::npos);  // the GPU below it
  EXPECT_EQ(check.measured.find("0000:18:00.0"), std::string::npos);
}

TEST(DoctorAcs, RedirectOffPassesAndAFlatOrUnreadableTreeSkips) {
  TempDir dir;
  FakeSysfs sys(dir);
  const testing::HgxTree tree = buildHgxTree(sys, 0x11);
  EXPECT_EQ(judgeAcs(scanAcs(sys.root(), tree.gpus), true).verdict, Verdict::kPass);

  // A VM: GPUs straight on the root bus, no switch to look at.
  TempDir vmDir;
  FakeSysfs vm(vmDir);
  vm.pciDevice("0000:00:06.0", "pci0000:00", -1, FakeSysfs::config(0, -1));
  const CheckResult flat = judgeAcs(scanAcs(vm.root(), {"0000:00:06.0"}), true);
  EXPECT_EQ(flat.verdict, Verdict::kSkip);
  EXPECT_NE(flat.why.find("no PCIe switch"), std::string::npos);

  // Not root: 64 bytes of config each.
  TempDir userDir;
  FakeSysfs user(userDir);
  user.pciDevice("0000:15:01.0", "pci0000:15", 0, std::string(64, '\0'));
  user.pciDevice("0000:16:00.0", "0000:15:01.0", 0, std::string(64, '\0'));
  user.pciDevice("0000:18:00.0", "0000:16:00.0", 0, std::string(64, '\0'));
  const CheckResult unreadable = judgeAcs(scanAcs(user.root(), {"0000:18:00.0"}), true);
  EXPECT_EQ(unreadable.verdict, Verdict::kSkip);
  EXPECT_NE(unreadable.why.find("needs root"), std::string::npos);
}

TEST(DoctorIommu, PassthroughPassesTranslationWarns) {
  TempDir dir;
  FakeSysfs sys(dir);
  const testing::HgxTree tree = buildHgxTree(sys);
  dir.write("proc/cmdline", "BOOT_IMAGE=/vmlinuz intel_iommu=on iommu=pt\n");
  const IommuFacts facts = readIommuFacts(sys.root(), dir.path() + "/proc", tree.gpus);
  EXPECT_TRUE(facts.hardwareEnabled);
  EXPECT_EQ(facts.groupTypes.size(), 8u);
  EXPECT_EQ(judgeIommu(facts).verdict, Verdict::kPass);

  IommuFacts translated = facts;
  translated.groupTypes["0000:18:00.0"] = "DMA-FQ";
  const CheckResult warn = judgeIommu(translated);
  EXPECT_EQ(warn.verdict, Verdict::kWarn);
  EXPECT_EQ(warn.measured, "translating: 0000:18:00.0 DMA-FQ");

  EXPECT_EQ(judgeIommu(IommuFacts()).measured, "off");
  IommuFacts oldKernel;
  oldKernel.hardwareEnabled = true;
  oldKernel.groupTypes["0000:18:00.0"] = "?";
  EXPECT_EQ(judgeIommu(oldKernel).verdict, Verdict::kWarn);
  oldKernel.kernelCommandLine = "iommu=pt";
  EXPECT_EQ(judgeIommu(oldKernel).verdict, Verdict::kPass);
}

}  // namespace
}  // namespace doctor
}  // namespace flashccl
