// Topology detection: this machine (no GPU in CI), NVML through a fake libnvidia-ml.so, the
// hwloc and sysfs host layouts, and the cached process-wide result.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include "support/temp_dir.h"
#include "topo/host_layout.h"
#include "topo/nvml_loader.h"
#include "topo/topology_detect.h"

namespace flashccl {
namespace {

bool hasNvidiaDriver() {
  struct stat st;
  return stat("/dev/nvidiactl", &st) == 0;
}

// Detection with the fake NVML posing as `machine`; CUDA off so the result does not depend on
// the host, hwloc off, sysfs from `sysRoot`.
Topology detectWithFakeNvml(const char* machine, const char* library = FLASHCCL_FAKE_NVML_LIBRARY,
                            const std::string& sysRoot = "/nonexistent-sys") {
  setenv("FLASHCCL_FAKE_NVML_MACHINE", machine, 1);
  DetectOptions options;
  options.useCuda = false;
  options.nvmlLibrary = library;
  options.hwlocLibrary = "";
  options.sysRoot = sysRoot;
  Topology topology = detectTopology(options);
  unsetenv("FLASHCCL_FAKE_NVML_MACHINE");
  return topology;
}

bool hasNoteContaining(const Topology& topology, const std::string& text) {
  for (const std::string& note : topology.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(TopologyDetect, ThisMachine) {
  const Topology topology = detectTopology();
  if (!hasNvidiaDriver()) {
    // CI and the development machine: no driver. Zero GPUs, no crash, and the notes say why.
    EXPECT_TRUE(topology.gpus.empty()) << topology.describe();
    EXPECT_EQ(topology.gpuSource, "none");
    EXPECT_EQ(topology.interconnect(), Interconnect::kNone);
    EXPECT_TRUE(hasNoteContaining(topology, "CUDA runtime: ")) << topology.describe();
    EXPECT_TRUE(hasNoteContaining(topology, "NVML: "))
        << topology.describe();
  } else {
    // A GPU machine (by hand): a consistent picture.
    ASSERT_FALSE(topology.gpus.empty()) << topology.describe();
    ASSERT_EQ(topology.links.size(), topology.gpus.size());
    for (size_t i = 0; i < topology.gpus.size(); ++i) {
      EXPECT_FALSE(topology.gpus[i].name.empty());
      EXPECT_FALSE(topology.gpus[i].pciBusId.empty());
      for (size_t j = 0; j < topology.gpus.size(); ++j) {
        if (i == j) continue;
        EXPECT_EQ(topology.links[i][j].path, topology.links[j][i].path);
        EXPECT_NE(topology.links[i][j].path, GpuPath::kUnknown) << i << "-" << j;
      }
    }
    std::cout << topology.describe();
  }
  // Every Linux host has at least one NUMA node in sysfs or hwloc.
  EXPECT_FALSE(topology.numaNodes.empty()) << topology.describe();
  EXPECT_NE(topology.describe().find("interconnect: "), std::string::npos);
}

TEST(TopologyDetect, LocalTopologyIsDetectedOnceForAllThreads) {
  const Topology* seen[4] = {};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&seen, t] { seen[t] = &localTopology(); });
  for (std::thread& thread : threads) thread.join();
  for (int t = 1; t < 4; ++t) EXPECT_EQ(seen[t], seen[0]);
  EXPECT_EQ(&localTopology(), seen[0]);
}

TEST(TopologyDetect, NvmlHgxBoardIsNvswitch) {
  const Topology topology = detectWithFakeNvml("hgx-h200-8");
  EXPECT_EQ(topology.gpuSource, "NVML");
  ASSERT_EQ(topology.gpus.size(), 8u) << topology.describe();
  EXPECT_EQ(topology.gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(topology.gpus[0].pciBusId, "0000:18:00.0");
  EXPECT_EQ(topology.gpus[7].pciBusId, "0000:db:00.0");
  EXPECT_EQ(topology.gpus[0].computeMajor, 9);
  EXPECT_EQ(topology.gpus[0].cudaDevice, -1);  // CUDA was not asked
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      if (i == j) continue;
      EXPECT_EQ(topology.links[i][j].path, GpuPath::kNvswitch);
      EXPECT_EQ(topology.links[i][j].nvlinks, 18);
      EXPECT_TRUE(topology.links[i][j].peerAccess);
    }
  }
  EXPECT_EQ(topology.links[0][1].pcie, PcieDistance::kPix);
  EXPECT_EQ(topology.links[0][2].pcie, PcieDistance::kNode);
  EXPECT_EQ(topology.links[0][4].pcie, PcieDistance::kSys);
  EXPECT_EQ(topology.interconnect(), Interconnect::kNvswitch);
  EXPECT_EQ(topology.summary(), "8 x NVIDIA H200, nvswitch (18 NVLinks per pair)");
  EXPECT_FALSE(hasNoteContaining(topology, "NVML")) << topology.describe();
}

TEST(TopologyDetect, NvmlPairIsDirectNv18) {
  const Topology topology = detectWithFakeNvml("h200-nv18-pair");
  ASSERT_EQ(topology.gpus.size(), 2u);
  EXPECT_EQ(topology.links[0][1].path, GpuPath::kNvlink);
  EXPECT_EQ(topology.links[0][1].nvlinks, 18);
  EXPECT_EQ(topology.interconnect(), Interconnect::kNvlinkDirect);
}

// The 2 x H200 test VM as NVML described it (fake_nvml.cc): both GPUs reach NVSwitch ports only,
// so the pair is NVSwitch-connected with 18 links, and the machine is hopper-2gpu-nvlink's.
TEST(TopologyDetect, NvmlRecordedTwoH200Vm) {
  for (const char* library : {FLASHCCL_FAKE_NVML_LIBRARY, FLASHCCL_FAKE_NVML_NO_REMOTE_TYPE_LIBRARY}) {
    const Topology topology = detectWithFakeNvml("h200-vm-pair", library);
    ASSERT_EQ(topology.gpus.size(), 2u) << library;
    EXPECT_EQ(topology.gpus[0].pciBusId, "0000:00:06.0");
    EXPECT_EQ(topology.gpus[1].pciBusId, "0000:00:07.0");
    EXPECT_EQ(topology.links[0][1].path, GpuPath::kNvswitch) << library;
    EXPECT_EQ(topology.links[0][1].nvlinks, 18) << library;
    EXPECT_EQ(topology.links[0][1].pcie, PcieDistance::kPhb);
    EXPECT_TRUE(topology.links[0][1].peerAccess);
    EXPECT_EQ(topology.summary(), "2 x NVIDIA H200, nvswitch (18 NVLinks per pair)") << library;
  }
}

TEST(TopologyDetect, NvmlPcieBox) {
  const Topology topology = detectWithFakeNvml("l40s-pcie-8");
  ASSERT_EQ(topology.gpus.size(), 8u);
  EXPECT_EQ(topology.gpus[0].name, "NVIDIA L40S");
  EXPECT_EQ(topology.links[0][5].path, GpuPath::kPcie);
  EXPECT_EQ(topology.links[0][5].nvlinks, 0);
  EXPECT_EQ(topology.links[0][5].pcie, PcieDistance::kSys);
  EXPECT_EQ(topology.interconnect(), Interconnect::kPcie);
}

TEST(TopologyDetect, OldNvmlWithoutRemoteTypeStillFindsTheSwitch) {
  const Topology topology =
      detectWithFakeNvml("hgx-h200-8", FLASHCCL_FAKE_NVML_NO_REMOTE_TYPE_LIBRARY);
  ASSERT_EQ(topology.gpus.size(), 8u);
  EXPECT_EQ(topology.interconnect(), Interconnect::kNvswitch);
  EXPECT_EQ(topology.links[2][6].nvlinks, 18);
  EXPECT_TRUE(hasNoteContaining(topology, "no nvmlDeviceGetNvLinkRemoteDeviceType"));

  const Topology pair = detectWithFakeNvml("h200-nv18-pair", FLASHCCL_FAKE_NVML_NO_REMOTE_TYPE_LIBRARY);
  EXPECT_EQ(pair.links[0][1].path, GpuPath::kNvlink);
  EXPECT_EQ(pair.links[0][1].nvlinks, 18);
}

TEST(TopologyDetect, NvmlThatFailsToInitialiseIsANote) {
  const Topology topology = detectWithFakeNvml("init-fails");
  EXPECT_TRUE(topology.gpus.empty());
  EXPECT_TRUE(hasNoteContaining(topology, "NVML: nvmlInit_v2 failed: Driver Not Loaded (9)"))
      << topology.describe();
}

TEST(TopologyDetect, NvmlLoaderReportsMissingLibraryAndSymbols) {
  std::string error;
  EXPECT_EQ(NvmlSession::open("/nonexistent/libnvidia-ml.so.1", &error), nullptr);
  EXPECT_EQ(error.rfind("cannot load /nonexistent/libnvidia-ml.so.1: ", 0), 0u) << error;
  // A library that is not NVML at all (the C library has none of its symbols).
  EXPECT_EQ(NvmlSession::open("libc.so.6", &error), nullptr);
  EXPECT_EQ(error, "libc.so.6 has no nvmlInit_v2 (NVML too old)");
}

// A small sysfs tree: two NUMA nodes, a physical NIC, a virtual one, an RDMA device, a GPU.
class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string pci = "devices/pci0000:00";
    sys_.write("devices/system/node/node0/cpulist", "0-3\n");
    sys_.write("devices/system/node/node0/meminfo", "Node 0 MemTotal:        1048576 kB\n");
    sys_.write("devices/system/node/node1/cpulist", "4-7\n");
    sys_.write("devices/system/node/possible", "0-1\n");  // not a node directory
    sys_.write(pci + "/0000:00:03.0/numa_node", "1\n");
    sys_.write(pci + "/0000:00:04.0/numa_node", "0\n");
    sys_.write(pci + "/0000:00:05.0/virtio2/placeholder", "");
    sys_.write(pci + "/0000:00:05.0/numa_node", "-1\n");
    sys_.mkdir("class/net/eth0");
    sys_.symlink(sys_.path() + "/" + pci + "/0000:00:03.0", "class/net/eth0/device");
    sys_.mkdir("class/net/ens5");  // virtio: the PCI device is one level up
    sys_.symlink(sys_.path() + "/" + pci + "/0000:00:05.0/virtio2", "class/net/ens5/device");
    sys_.write("class/net/lo/type", "772\n");  // no device link: virtual
    sys_.mkdir("class/infiniband/mlx5_0");
    sys_.symlink(sys_.path() + "/" + pci + "/0000:00:04.0", "class/infiniband/mlx5_0/device");
    sys_.write("bus/pci/devices/0000:18:00.0/numa_node", "1\n");
  }
  testing::TempDir sys_;
};

TEST_F(FakeSysfs, HostLayout) {
  HostLayout layout;
  std::string why;
  ASSERT_TRUE(readHostLayoutFromSysfs(sys_.path(), &layout, &why)) << why;
  EXPECT_EQ(layout.source, "sysfs");
  ASSERT_EQ(layout.numaNodes.size(), 2u);
  EXPECT_EQ(layout.numaNodes[0].id, 0);
  EXPECT_EQ(layout.numaNodes[0].cpus, "0-3");
  EXPECT_EQ(layout.numaNodes[0].memoryBytes, size_t(1) << 30);
  EXPECT_EQ(layout.numaNodes[1].cpus, "4-7");

  ASSERT_EQ(layout.nics.size(), 3u);  // lo is left out
  EXPECT_EQ(layout.nics[0].name, "ens5");
  EXPECT_EQ(layout.nics[0].pciBusId, "0000:00:05.0");
  EXPECT_EQ(layout.nics[0].numaNode, -1);
  EXPECT_EQ(layout.nics[1].name, "eth0");
  EXPECT_EQ(layout.nics[1].kind, Nic::Kind::kEthernet);
  EXPECT_EQ(layout.nics[1].pciBusId, "0000:00:03.0");
  EXPECT_EQ(layout.nics[1].numaNode, 1);
  EXPECT_EQ(layout.nics[2].name, "mlx5_0");
  EXPECT_EQ(layout.nics[2].kind, Nic::Kind::kRdma);
  EXPECT_EQ(layout.nics[2].numaNode, 0);

  EXPECT_EQ(pciNumaNode(sys_.path(), "0000:18:00.0"), 1);
  EXPECT_EQ(pciNumaNode(sys_.path(), "0000:99:00.0"), -1);
  EXPECT_EQ(pciNumaNode(sys_.path(), ""), -1);
}

TEST_F(FakeSysfs, DetectionFallsBackFromMissingHwlocToSysfs) {
  setenv("FLASHCCL_FAKE_NVML_MACHINE", "hgx-h200-8", 1);
  DetectOptions options;
  options.useCuda = false;
  options.nvmlLibrary = FLASHCCL_FAKE_NVML_LIBRARY;
  // A library that is not there: the same outcome whether or not this build had hwloc.h.
  options.hwlocLibrary = "libhwloc-not-installed.so.15";
  options.sysRoot = sys_.path();
  const Topology topology = detectTopology(options);
  unsetenv("FLASHCCL_FAKE_NVML_MACHINE");
  EXPECT_EQ(topology.hostSource, "sysfs");
  EXPECT_EQ(topology.numaNodes.size(), 2u);
  EXPECT_EQ(topology.nics.size(), 3u);
  EXPECT_EQ(topology.gpus[0].numaNode, 1);  // 0000:18:00.0 from bus/pci/devices
  EXPECT_TRUE(hasNoteContaining(topology, "hwloc: cannot load libhwloc-not-installed.so.15"))
      << topology.describe();
  EXPECT_NE(topology.describe().find("mlx5_0  rdma  0000:00:04.0  NUMA 0"), std::string::npos)
      << topology.describe();
}

TEST(HostLayout, EmptySysfsSaysSo) {
  testing::TempDir empty;
  HostLayout layout;
  std::string why;
  EXPECT_FALSE(readHostLayoutFromSysfs(empty.path(), &layout, &why));
  EXPECT_EQ(why, "no NUMA or network information under " + empty.path());
}

TEST(HostLayout, HwlocWhenInstalled) {
  HostLayout layout;
  std::string why;
  if (!readHostLayoutWithHwloc("libhwloc.so.15", &layout, &why)) {
    // Not installed (or not compiled in): the reason must say which, never be empty.
    EXPECT_FALSE(why.empty());
    GTEST_SKIP() << "hwloc not usable here: " << why;
  }
  EXPECT_EQ(layout.source.rfind("hwloc", 0), 0u);
  ASSERT_FALSE(layout.numaNodes.empty());
  EXPECT_FALSE(layout.numaNodes[0].cpus.empty());
  // hwloc and sysfs must agree on how many NUMA nodes this host has.
  HostLayout sysfs;
  if (readHostLayoutFromSysfs("/sys", &sysfs, &why)) {
    EXPECT_EQ(layout.numaNodes.size(), sysfs.numaNodes.size());
  }
  EXPECT_FALSE(readHostLayoutWithHwloc("libc.so.6", &layout, &why));
  EXPECT_EQ(why, "libc.so.6 is not hwloc (no hwloc_get_api_version)");
}

}  // namespace
}  // namespace flashccl
