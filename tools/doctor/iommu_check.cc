#include "iommu_check.h"

#include "sysfs_files.h"

namespace flashccl {
namespace doctor {

IommuFacts readIommuFacts(const std::string& sysRoot, const std::string& procRoot,
                          const std::vector<std::string>& busIds) {
  IommuFacts facts;
  facts.hardwareEnabled = !listDirectory(sysRoot + "/class/iommu").empty();
  for (const std::string& device : busIds) {
    std::string type;
    if (readFirstLine(sysRoot + "/bus/pci/devices/" + device + "/iommu_group/type", &type)) {
      facts.groupTypes[device] = trimmed(type);
    } else if (pathExists(sysRoot + "/bus/pci/devices/" + device + "/iommu_group")) {
      facts.groupTypes[device] = "?";  // a kernel too old to say (before 5.x)
    }
  }
  readFirstLine(procRoot + "/cmdline", &facts.kernelCommandLine);
  return facts;
}

CheckResult judgeIommu(const IommuFacts& facts) {
  const char* check = "iommu";
  const char* expected = "off, or passthrough (iommu=pt) for the GPUs and NICs";
  const std::string why = "a translating IOMMU remaps every DMA of the GPUs and NICs: GPUDirect "
                          "P2P and RDMA slow down or fail";
  if (!facts.hardwareEnabled && facts.groupTypes.empty()) {
    return makeCheck(kFamilyEnvironment, check, "node", Verdict::kPass, "off", expected, why);
  }
  std::vector<std::string> translated, unknown;
  for (const auto& entry : facts.groupTypes) {
    const std::string& type = entry.second;
    if (type == "DMA" || type == "DMA-FQ") translated.push_back(entry.first + " " + type);
    else if (type == "?") unknown.push_back(entry.first);
  }
  const bool passthroughFlag = facts.kernelCommandLine.find("iommu=pt") != std::string::npos;
  auto list = [](const std::vector<std::string>& items) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
    return text;
  };
  if (!translated.empty()) {
    return makeCheck(kFamilyEnvironment, check, "node", Verdict::kWarn,
                     "translating: " + list(translated), expected,
                     why + "; boot with iommu=pt (and intel_iommu=on or amd_iommu=on only if "
                     "virtualisation needs it)");
  }
  if (!unknown.empty() && !passthroughFlag) {
    return makeCheck(kFamilyEnvironment, check, "node", Verdict::kWarn,
                     "on; this kernel does not say the mode of " + list(unknown), expected,
                     why + "; the kernel command line has no iommu=pt");
  }
  return makeCheck(kFamilyEnvironment, check, "node", Verdict::kPass,
                   facts.groupTypes.empty() ? "on, no GPU or NIC in an IOMMU group"
                                            : "passthrough for the GPUs and NICs",
                   expected, why);
}

}  // namespace doctor
}  // namespace flashccl
