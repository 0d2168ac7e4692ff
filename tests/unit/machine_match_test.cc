// Recognising a machine: Topology classification, glob patterns, and hand-built machines matched
// against the shipped topologies/*.xml.
#include <gtest/gtest.h>

#include "support/machines.h"
#include "topo/machine_match.h"
#include "topo/topology_file.h"

namespace flashccl {
namespace {

using testing::hgxA100x8;
using testing::hgxH200x8;
using testing::h200PairNv18;
using testing::l40sPciex8;
using testing::nvlinkLink;
using testing::nvswitchLink;
using testing::pcieLink;
using testing::uniformMachine;

std::vector<TopologyDescription> shippedTopologies() {
  std::vector<std::string> warnings;
  std::vector<TopologyDescription> descriptions =
      loadTopologyDirectory(FLASHCCL_SOURCE_DIR "/topologies", &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  return descriptions;
}

// The name of the shipped topology that matches, "" for none; fails the test on an overlap.
std::string shippedMatch(const Topology& machine) {
  const std::vector<TopologyDescription> shipped = shippedTopologies();
  std::vector<std::string> others;
  const TopologyDescription* found = findMatchingDescription(shipped, machine, &others);
  EXPECT_TRUE(others.empty()) << machine.summary() << " also matches " << others.front();
  return found ? found->name : "";
}

TEST(Topology, InterconnectFollowsTheWeakestPair) {
  EXPECT_EQ(Topology().interconnect(), Interconnect::kNone);
  EXPECT_EQ(uniformMachine("G", 1, GpuLink()).interconnect(), Interconnect::kNone);
  EXPECT_EQ(hgxH200x8().interconnect(), Interconnect::kNvswitch);
  EXPECT_EQ(h200PairNv18().interconnect(), Interconnect::kNvlinkDirect);
  EXPECT_EQ(l40sPciex8().interconnect(), Interconnect::kPcie);
  EXPECT_EQ(uniformMachine("G", 3, GpuLink()).interconnect(), Interconnect::kUnknown);

  // Four GPUs on two NVLink bridges: pairs across the bridges talk over PCIe.
  Topology bridged = uniformMachine("NVIDIA H100 NVL", 4, pcieLink(PcieDistance::kSys));
  bridged.setLink(0, 1, nvlinkLink(12));
  bridged.setLink(2, 3, nvlinkLink(12));
  EXPECT_EQ(bridged.interconnect(), Interconnect::kPcie);
}

TEST(Topology, SummaryAndDescribe) {
  EXPECT_EQ(Topology().summary(), "no GPU");
  EXPECT_EQ(hgxH200x8().summary(), "8 x NVIDIA H200, nvswitch (18 NVLinks per pair)");
  EXPECT_EQ(h200PairNv18().summary(), "2 x NVIDIA H200, nvlink-direct (18 NVLinks per pair)");
  EXPECT_EQ(l40sPciex8().summary(), "8 x NVIDIA L40S, pcie");

  Topology machine = h200PairNv18();
  machine.gpus[0].pciBusId = "0000:18:00.0";
  machine.gpus[0].computeMajor = 9;
  machine.gpus[1].cudaDevice = -1;
  machine.notes.push_back("hwloc: not here");
  const std::string text = machine.describe();
  EXPECT_NE(text.find("GPU0  NVIDIA H200  0000:18:00.0  sm_90  cuda:0"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU1  NVIDIA H200  (not visible to CUDA in this process)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  GPU0      X   NV18\n  GPU1   NV18      X\n"), std::string::npos) << text;
  EXPECT_NE(text.find("interconnect: nvlink-direct"), std::string::npos) << text;
  EXPECT_NE(text.find("notes:\n  hwloc: not here\n"), std::string::npos) << text;

  const std::string switched = hgxH200x8().describe();
  EXPECT_NE(switched.find("SW18"), std::string::npos) << switched;
  const std::string pcie = l40sPciex8().describe();
  EXPECT_NE(pcie.find("NODE"), std::string::npos) << pcie;
}

TEST(Topology, PciBusIdsAreNormalised) {
  EXPECT_EQ(normalizePciBusId("00000000:1A:00.0"), "0000:1a:00.0");  // NVML
  EXPECT_EQ(normalizePciBusId("0000:1a:00.0"), "0000:1a:00.0");      // CUDA, sysfs
  EXPECT_EQ(normalizePciBusId("1a:00.1"), "0000:1a:00.1");
  EXPECT_EQ(normalizePciBusId("0001:c3:1f.7"), "0001:c3:1f.7");
  EXPECT_EQ(normalizePciBusId("eth0"), "");
  EXPECT_EQ(normalizePciBusId("0000:1a:20.0"), "");  // device numbers stop at 0x1f
  EXPECT_EQ(normalizePciBusId("0000:1a:00.0x"), "");
  EXPECT_EQ(normalizePciBusId("0000:1a:00.0 "), "");
  EXPECT_EQ(normalizePciBusId(""), "");
}

TEST(Glob, MatchesWholeNamesCaseInsensitively) {
  EXPECT_TRUE(globMatches("NVIDIA H100*", "NVIDIA H100 80GB HBM3"));
  EXPECT_TRUE(globMatches("nvidia h200*", "NVIDIA H200"));
  EXPECT_TRUE(globMatches("*", ""));
  EXPECT_TRUE(globMatches("*A100*", "NVIDIA A100-SXM4-80GB"));
  EXPECT_TRUE(globMatches("NVIDIA ?100*", "NVIDIA H100 PCIe"));
  EXPECT_TRUE(globMatches("a*b*c", "aXXbYYbZc"));
  EXPECT_FALSE(globMatches("NVIDIA H100*", "NVIDIA H800"));
  EXPECT_FALSE(globMatches("NVIDIA H200", "NVIDIA H200 NVL"));  // whole name, not a prefix
  EXPECT_FALSE(globMatches("?", ""));
  EXPECT_FALSE(globMatches("a*b*c", "aXXbYYbZ"));
}

TEST(MachineMatch, EveryAttributeMustHold) {
  MachineMatch match;
  match.gpuPatterns = {"NVIDIA H100*", "NVIDIA H200*"};
  match.gpuCounts = {2, 4};
  match.interconnects = {Interconnect::kNvswitch, Interconnect::kNvlinkDirect};
  std::string why;
  EXPECT_TRUE(machineMatches(match, h200PairNv18(), &why)) << why;
  EXPECT_FALSE(machineMatches(match, hgxH200x8(), &why));
  EXPECT_EQ(why, "GPU count 8 not listed");
  EXPECT_FALSE(machineMatches(match, uniformMachine("NVIDIA A100-SXM4-80GB", 2, nvlinkLink(12)), &why));
  EXPECT_EQ(why, "GPU 'NVIDIA A100-SXM4-80GB' does not match the gpu patterns");
  EXPECT_FALSE(machineMatches(match, uniformMachine("NVIDIA H200", 2, pcieLink(PcieDistance::kSys)), &why));
  EXPECT_EQ(why, "interconnect pcie is not nvswitch|nvlink-direct");
  EXPECT_FALSE(machineMatches(match, Topology(), &why));
  EXPECT_EQ(why, "no GPU detected");

  // Mixed GPU models: every GPU must match.
  Topology mixed = h200PairNv18();
  mixed.gpus[1].name = "NVIDIA L4";
  EXPECT_FALSE(machineMatches(match, mixed, &why));
  EXPECT_EQ(why, "GPU 'NVIDIA L4' does not match the gpu patterns");
}

TEST(MachineMatch, DescriptionWithoutMatchIsOnlyUsedWhenNamed) {
  TopologyDescription description;
  description.name = "manual";
  std::string why;
  EXPECT_FALSE(descriptionMatches(description, hgxH200x8(), &why));
  EXPECT_EQ(why, "has no <match> (used only when named)");
}

TEST(MachineMatch, FirstMatchInOrderWinsAndOverlapsAreReported) {
  TopologyDescription first, second, other;
  first.name = "first";
  second.name = "second";
  other.name = "other";
  MachineMatch eight;
  eight.gpuCounts = {8};
  MachineMatch two;
  two.gpuCounts = {2};
  first.matches = {eight};
  second.matches = {two, eight};
  other.matches = {two};
  std::vector<std::string> others;
  const TopologyDescription* found = findMatchingDescription({other, first, second}, hgxH200x8(), &others);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->name, "first");
  EXPECT_EQ(others, std::vector<std::string>{"second"});
}

// The machines the shipped files are written for, and some they must not claim.
TEST(ShippedTopologies, RecogniseTheirMachines) {
  EXPECT_EQ(shippedMatch(hgxH200x8()), "hopper-8gpu-nvswitch");
  EXPECT_EQ(shippedMatch(uniformMachine("NVIDIA H100 80GB HBM3", 8, nvswitchLink(18))),
            "hopper-8gpu-nvswitch");
  EXPECT_EQ(shippedMatch(h200PairNv18()), "hopper-2gpu-nvlink");
  EXPECT_EQ(shippedMatch(uniformMachine("NVIDIA H200", 2, nvswitchLink(18))), "hopper-2gpu-nvlink");
  EXPECT_EQ(shippedMatch(uniformMachine("NVIDIA H100 80GB HBM3", 4, nvswitchLink(18))),
            "hopper-4gpu-nvlink");
  EXPECT_EQ(shippedMatch(uniformMachine("NVIDIA H200 NVL", 4, nvlinkLink(6))), "hopper-4gpu-nvlink");
  EXPECT_EQ(shippedMatch(hgxA100x8()), "a100-8gpu-nvswitch");
  EXPECT_EQ(shippedMatch(l40sPciex8()), "pcie-8gpu");
  EXPECT_EQ(shippedMatch(uniformMachine("NVIDIA H100 PCIe", 8, pcieLink(PcieDistance::kSys))),
            "pcie-8gpu");

  // Not described: fall back to the built-in table.
  EXPECT_EQ(shippedMatch(uniformMachine("NVIDIA H200", 3, nvswitchLink(18))), "");  // 3 GPUs
  EXPECT_EQ(shippedMatch(uniformMachine("Unknown GPU", 3, GpuLink())), "");
  EXPECT_EQ(shippedMatch(uniformMachine("NVIDIA H800", 8, nvswitchLink(8))), "");  // cut-down NVLink
  EXPECT_EQ(shippedMatch(uniformMachine("NVIDIA A100-SXM4-80GB", 4, nvswitchLink(12))), "");
  EXPECT_EQ(shippedMatch(uniformMachine("NVIDIA L40S", 4, pcieLink(PcieDistance::kNode))), "");
  EXPECT_EQ(shippedMatch(Topology()), "");
  Topology bridged = uniformMachine("NVIDIA H100 NVL", 4, pcieLink(PcieDistance::kSys));
  bridged.setLink(0, 1, nvlinkLink(12));
  bridged.setLink(2, 3, nvlinkLink(12));
  EXPECT_EQ(shippedMatch(bridged), "");
}

}  // namespace
}  // namespace flashccl
