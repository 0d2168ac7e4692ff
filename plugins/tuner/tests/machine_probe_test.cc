// The plugin's NVML view of the machine, against the fake NVML the library's detection tests use
// (machines described in tests/unit/support/fake_nvml.cc).
#include <gtest/gtest.h>
#include <stdlib.h>

#include "machine_probe.h"

namespace flashccl {
namespace {

Topology probe(const char* library, const char* machine, std::string* why) {
  setenv("FLASHCCL_FAKE_NVML_MACHINE", machine, 1);
  const Topology topology = probeMachineWithNvml(library, why);
  unsetenv("FLASHCCL_FAKE_NVML_MACHINE");
  return topology;
}

TEST(MachineProbe, SeesTheMachinesAsTheLibraryDoes) {
  const std::pair<const char*, const char*> machines[] = {
      {"hgx-h200-8", "8 x NVIDIA H200, nvswitch"},
      {"h200-vm-pair", "2 x NVIDIA H200, nvswitch"},  // switch ports outside the VM
      {"h200-nv18-pair", "2 x NVIDIA H200, nvlink-direct"},
      {"l40s-pcie-8", "8 x NVIDIA L40S, pcie"},
  };
  for (const char* library : {TUNER_FAKE_NVML, TUNER_FAKE_NVML_NO_REMOTE_TYPE}) {
    for (const auto& [machine, summary] : machines) {
      std::string why;
      const Topology topology = probe(library, machine, &why);
      EXPECT_EQ(why, "") << machine;
      EXPECT_EQ(topology.gpuSource, "NVML");
      EXPECT_EQ(topology.summary(), summary) << machine << " through " << library;
    }
  }
}

TEST(MachineProbe, GpusCarryTheirPciAddresses) {
  std::string why;
  const Topology topology = probe(TUNER_FAKE_NVML, "hgx-h200-8", &why);
  ASSERT_EQ(topology.gpus.size(), 8u);
  EXPECT_EQ(topology.gpus[0].pciBusId, "0000:18:00.0");
  EXPECT_EQ(topology.gpus[7].pciBusId, "0000:db:00.0");
}

TEST(MachineProbe, NoNvmlMeansNoGpusAndSaysWhy) {
  std::string why;
  Topology topology = probe(TUNER_FAKE_NVML, "init-fails", &why);
  EXPECT_TRUE(topology.gpus.empty());
  EXPECT_EQ(why, "NVML: nvmlInit_v2 failed: Driver Not Loaded (9)");

  topology = probeMachineWithNvml("/nonexistent/libnvidia-ml.so.1", &why);
  EXPECT_TRUE(topology.gpus.empty());
  EXPECT_EQ(why.rfind("NVML: cannot load /nonexistent/libnvidia-ml.so.1: ", 0), 0u) << why;
}

}  // namespace
}  // namespace flashccl
