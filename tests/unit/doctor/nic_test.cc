// NICs and rails: the sysfs inventory, the verbs probe (a fake libibverbs), port state, rate and
// GID verdicts, GPU-to-NIC locality, and per-rail traffic from port counters read before and
// after a run -- with the seeding probe's recorded alltoall counters (885 GB on mlx5_0 and
// mlx5_6, 295 GB on mlx5_1 and mlx5_7).
#include <gtest/gtest.h>
#include <stdlib.h>

#include "fake_sysfs.h"
#include "nic_checks.h"
#include "nic_inventory.h"
#include "rail_traffic.h"
#include "verbs_probe.h"

namespace flashccl {
namespace doctor {
namespace {

using testing::FakeSysfs;
using testing::TempDir;

VerbsProbe seesAll(const NicInventory& nics) {
  VerbsProbe probe;
  probe.loaded = true;
  probe.devices = nics.rdmaDevices;
  return probe;
}

std::vector<CheckResult> withCheck(const std::vector<CheckResult>& checks, const std::string& name) {
  std::vector<CheckResult> out;
  for (const CheckResult& check : checks) {
    if (check.check == name) out.push_back(check);
  }
  return out;
}

TEST(DoctorNics, InventoryOfAnHgxBox) {
  TempDir dir;
  FakeSysfs sys(dir);
  buildHgxTree(sys);
  const NicInventory nics = readNicInventory(sys.root());
  ASSERT_EQ(nics.rdmaPorts.size(), 4u);
  EXPECT_EQ(nics.rdmaDevices, (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
  const RdmaPort& port = nics.rdmaPorts[2];
  EXPECT_EQ(port.name(), "mlx5_2/1");
  EXPECT_TRUE(port.active());
  EXPECT_EQ(port.physState, "LinkUp");
  EXPECT_DOUBLE_EQ(port.rateGbps, 400.0);
  EXPECT_EQ(port.linkLayer, "InfiniBand");
  EXPECT_EQ(port.pciBusId, "0000:9b:00.0");
  EXPECT_EQ(port.numaNode, 1);
  EXPECT_EQ(nics.interfaces, (std::vector<std::string>{"docker0", "ib0", "ib1", "ib2", "ib3", "lo"}));
}

TEST(DoctorNics, HealthyRailsPass) {
  TempDir dir;
  FakeSysfs sys(dir);
  buildHgxTree(sys);
  const NicInventory nics = readNicInventory(sys.root());
  const auto checks = judgeNics(nics, seesAll(nics), 0.0);
  for (const CheckResult& check : checks) EXPECT_EQ(check.verdict, Verdict::kPass) << check.check << " " << check.subject;
  EXPECT_EQ(withCheck(checks, "port-rate").size(), 4u);
}

TEST(DoctorNics, ADownPortASlowPortAndRoceGidsAreJudged) {
  TempDir dir;
  FakeSysfs sys(dir);
  sys.pciDevice("0000:19:00.0", "pci0000:15", 0, FakeSysfs::config(0, -1));
  sys.pciDevice("0000:3b:00.0", "pci0000:37", 0, FakeSysfs::config(0, -1));
  sys.pciDevice("0000:9b:00.0", "pci0000:97", 1, FakeSysfs::config(0, -1));
  sys.pciDevice("0000:bb:00.0", "pci0000:b7", 1, FakeSysfs::config(0, -1));
  FakeSysfs::Port v2;
  v2.linkLayer = "Ethernet";
  v2.rate = "400 Gb/sec (4X NDR)";
  v2.gidTypes = {"IB/RoCE v1", "RoCE v2", "IB/RoCE v1", "RoCE v2"};
  FakeSysfs::Port slow = v2;
  slow.rate = "200 Gb/sec (4X HDR)";
  FakeSysfs::Port v1Only = v2;
  v1Only.gidTypes = {"IB/RoCE v1"};
  FakeSysfs::Port down = v2;
  down.state = "1: DOWN";
  down.physState = "3: Disabled";
  sys.rdmaDevice("mlx5_0", "0000:19:00.0", {v2});
  sys.rdmaDevice("mlx5_1", "0000:3b:00.0", {slow});
  sys.rdmaDevice("mlx5_2", "0000:9b:00.0", {v1Only});
  sys.rdmaDevice("mlx5_3", "0000:bb:00.0", {down});
  const NicInventory nics = readNicInventory(sys.root());
  EXPECT_EQ(nics.rdmaPorts[0].gidTypes.size(), 4u);  // the zero GID after them is not counted
  const auto checks = judgeNics(nics, seesAll(nics), 0.0);
  std::map<std::string, Verdict> verdicts;
  for (const CheckResult& check : checks) verdicts[check.check + " " + check.subject.substr(0, 8)] = check.verdict;
  EXPECT_EQ(verdicts["port-rate mlx5_0/1"], Verdict::kPass);
  EXPECT_EQ(verdicts["port-rate mlx5_1/1"], Verdict::kWarn);
  EXPECT_EQ(verdicts["gid mlx5_0/1"], Verdict::kPass);
  EXPECT_EQ(verdicts["gid mlx5_2/1"], Verdict::kWarn);
  EXPECT_EQ(verdicts["port-state mlx5_3/1"], Verdict::kWarn);
  EXPECT_EQ(verdicts.count("port-rate mlx5_3/1"), 0u);  // a down port has no rate to judge
  EXPECT_EQ(withCheck(checks, "gid")[0].measured, "2 x IB/RoCE v1, 2 x RoCE v2");

  // An operator's floor makes the slow port a failure.
  const auto floored = withCheck(judgeNics(nics, seesAll(nics), 400.0), "port-rate");
  EXPECT_EQ(floored[1].verdict, Verdict::kFail);
  EXPECT_EQ(floored[1].expected, "400 Gb/s (--expect)");
}

TEST(DoctorNics, TheVerbsStackMustSeeAndOpenWhatSysfsShows) {
  TempDir dir;
  FakeSysfs sys(dir);
  buildHgxTree(sys);
  const NicInventory nics = readNicInventory(sys.root());

  setenv("FLASHCCL_FAKE_VERBS_DEVICES", "mlx5_0,mlx5_1,mlx5_2,mlx5_3", 1);
  unsetenv("FLASHCCL_FAKE_VERBS_UNOPENABLE");
  VerbsProbe probe = probeVerbs(FLASHCCL_FAKE_VERBS_LIBRARY);
  ASSERT_TRUE(probe.loaded) << probe.why;
  EXPECT_EQ(probe.devices.size(), 4u);
  EXPECT_EQ(withCheck(judgeNics(nics, probe, 0), "verbs")[0].verdict, Verdict::kPass);

  setenv("FLASHCCL_FAKE_VERBS_DEVICES", "mlx5_0,mlx5_1", 1);  // no provider for the others
  probe = probeVerbs(FLASHCCL_FAKE_VERBS_LIBRARY);
  CheckResult verbs = withCheck(judgeNics(nics, probe, 0), "verbs")[0];
  EXPECT_EQ(verbs.verdict, Verdict::kFail);
  EXPECT_NE(verbs.why.find("mlx5_2, mlx5_3 is in sysfs but not in libibverbs' list"), std::string::npos);

  setenv("FLASHCCL_FAKE_VERBS_DEVICES", "mlx5_0,mlx5_1,mlx5_2,mlx5_3", 1);
  setenv("FLASHCCL_FAKE_VERBS_UNOPENABLE", "mlx5_1", 1);  // no /dev/infiniband in the container
  probe = probeVerbs(FLASHCCL_FAKE_VERBS_LIBRARY);
  verbs = withCheck(judgeNics(nics, probe, 0), "verbs")[0];
  EXPECT_EQ(verbs.verdict, Verdict::kFail);
  EXPECT_NE(verbs.measured.find("cannot open mlx5_1: Permission denied"), std::string::npos);
  unsetenv("FLASHCCL_FAKE_VERBS_UNOPENABLE");

  probe = probeVerbs("/nonexistent/libibverbs.so.1");
  EXPECT_FALSE(probe.loaded);
  EXPECT_EQ(withCheck(judgeNics(nics, probe, 0), "verbs")[0].verdict, Verdict::kFail);
}

TEST(DoctorNics, NoRdmaDeviceIsOneSkip) {
  TempDir dir;
  FakeSysfs sys(dir);
  sys.netInterface("lo");
  const auto checks = judgeNics(readNicInventory(sys.root()), VerbsProbe(), 0.0);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, Verdict::kSkip);
}

TEST(DoctorNics, EachGpuHasANicBelowItsSwitch) {
  TempDir dir;
  FakeSysfs sys(dir);
  const testing::HgxTree tree = buildHgxTree(sys);
  const NicInventory nics = readNicInventory(sys.root());
  std::vector<GpuPlacement> gpus;
  for (size_t i = 0; i < tree.gpus.size(); ++i) {
    gpus.push_back(GpuPlacement{"GPU " + std::to_string(i), tree.gpus[i], int(i) / 4});
  }
  const auto checks = judgeNicLocality(gpus, nics, sys.root());
  ASSERT_EQ(checks.size(), 8u);
  EXPECT_EQ(checks[0].measured, "closest mlx5_0/1: PIX/PXB");
  EXPECT_EQ(checks[5].measured, "closest mlx5_2/1: PIX/PXB");
  for (const CheckResult& check : checks) EXPECT_EQ(check.verdict, Verdict::kPass);

  EXPECT_EQ(pciDistance(sys.root(), tree.gpus[0], 0, tree.nics[1], 0), "NODE");
  EXPECT_EQ(pciDistance(sys.root(), tree.gpus[0], 0, tree.nics[3], 1), "SYS");
}

TEST(DoctorNics, AGpuWhoseNicsAreAllOnTheOtherSocketWarns) {
  TempDir dir;
  FakeSysfs sys(dir);
  sys.pciDevice("0000:18:00.0", "pci0000:15", 0, FakeSysfs::config(0, -1));
  sys.pciDevice("0000:9b:00.0", "pci0000:97", 1, FakeSysfs::config(0, -1));
  sys.rdmaDevice("mlx5_0", "0000:9b:00.0", {FakeSysfs::Port()});
  const auto checks = judgeNicLocality({GpuPlacement{"GPU 0", "0000:18:00.0", 0}}, readNicInventory(sys.root()), sys.root());
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, Verdict::kWarn);
  EXPECT_EQ(checks[0].measured, "closest mlx5_0/1: SYS");
}

// The probe's 4 rails: port_xmit_data / port_rcv_data count 4-byte words.
void seedCounters(FakeSysfs& sys, const std::vector<std::pair<double, double>>& gigabytes) {
  const char* names[4] = {"mlx5_0", "mlx5_1", "mlx5_6", "mlx5_7"};
  for (int i = 0; i < 4; ++i) {
    sys.setCounters(names[i], 1, uint64_t(gigabytes[size_t(i)].first * 1e9 / 4),
                    uint64_t(gigabytes[size_t(i)].second * 1e9 / 4));
  }
}

TEST(DoctorRails, TheProbesAlltoallImbalanceFailsWithItsNumbers) {
  TempDir dir;
  FakeSysfs sys(dir);
  const char* buses[4] = {"0000:19:00.0", "0000:3b:00.0", "0000:9b:00.0", "0000:bb:00.0"};
  const char* names[4] = {"mlx5_0", "mlx5_1", "mlx5_6", "mlx5_7"};
  for (int i = 0; i < 4; ++i) {
    sys.pciDevice(buses[i], "pci0000:15", 0, FakeSysfs::config(0, -1));
    sys.rdmaDevice(names[i], buses[i], {FakeSysfs::Port()});
  }
  const NicInventory nics = readNicInventory(sys.root());
  const std::vector<PortTraffic> before = readPortTraffic(sys.root(), nics);
  // Host 172.72.8.12's counters over the alltoall run (seed 003).
  seedCounters(sys, {{885.54, 885.51}, {295.19, 295.19}, {885.53, 885.51}, {295.19, 295.19}});
  const std::vector<PortTraffic> after = readPortTraffic(sys.root(), nics);
  ASSERT_EQ(after.size(), 4u);
  EXPECT_EQ(after[1].xmitBytes, 295190000000ull);

  const auto checks = judgeRailTraffic(before, after, {"mlx5_0/1", "mlx5_1/1", "mlx5_6/1", "mlx5_7/1"},
                                       "the collective run");
  ASSERT_EQ(checks.size(), 5u);
  EXPECT_EQ(checks[0].verdict, Verdict::kFail);
  EXPECT_EQ(checks[0].measured,
            "4 rails, 4722.85 GB during the collective run; most uneven mlx5_0/1 at +50% of the mean");
  EXPECT_EQ(checks[1].measured, "xmit 885.54 GB, recv 885.51 GB (+50% of the mean)");
  EXPECT_EQ(checks[2].measured, "xmit 295.19 GB, recv 295.19 GB (-50% of the mean)");
  for (size_t i = 1; i < checks.size(); ++i) EXPECT_EQ(checks[i].verdict, Verdict::kFail) << checks[i].subject;
  EXPECT_EQ(checks[2].expected, "within 20% of the mean 1180.71 GB");
}

TEST(DoctorRails, BalancedRailsPassAndTooLittleTrafficSkips) {
  auto traffic = [](std::vector<double> gigabytes) {
    std::vector<PortTraffic> out;
    for (size_t i = 0; i < gigabytes.size(); ++i) {
      out.push_back(PortTraffic{"mlx5_" + std::to_string(i) + "/1", uint64_t(gigabytes[i] * 1e9), uint64_t(gigabytes[i] * 1e9)});
    }
    return out;
  };
  const std::vector<std::string> ports = {"mlx5_0/1", "mlx5_1/1", "mlx5_2/1", "mlx5_3/1"};
  const auto zero = traffic({0, 0, 0, 0});
  EXPECT_EQ(judgeRailTraffic(zero, traffic({590, 600, 580, 590}), ports, "x")[0].verdict, Verdict::kPass);
  EXPECT_EQ(judgeRailTraffic(zero, traffic({590, 600, 420, 590}), ports, "x")[0].verdict, Verdict::kWarn);
  const CheckResult idle = judgeRailTraffic(zero, traffic({0.01, 0.01, 0.01, 0.01}), ports, "the collective run")[0];
  EXPECT_EQ(idle.verdict, Verdict::kSkip);
  EXPECT_NE(idle.why.find("0.08 GB through the NICs"), std::string::npos);
  // A counter that went backwards (reset) is left out, not read as a huge number.
  const auto reset = judgeRailTraffic(traffic({500, 500, 500, 500}), traffic({1090, 1100, 10, 1090}), ports, "x");
  EXPECT_EQ(reset[0].verdict, Verdict::kPass);
  EXPECT_NE(reset[0].measured.find("no usable counters on mlx5_2/1"), std::string::npos);
  EXPECT_EQ(judgeRailTraffic(zero, traffic({5, 5, 5, 5}), {"mlx5_0/1"}, "x")[0].verdict, Verdict::kSkip);
}

}  // namespace
}  // namespace doctor
}  // namespace flashccl
