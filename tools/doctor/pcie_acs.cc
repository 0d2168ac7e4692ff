#include "pcie_acs.h"

#include <map>

#include "sysfs_files.h"
#include "topo/topology.h"

namespace flashccl {
namespace doctor {

namespace {

constexpr size_t kHeaderBytes = 64;          // what non-root users may read
constexpr size_t kExtendedStart = 0x100;     // extended capabilities start here
constexpr uint8_t kCapabilityPcie = 0x10;
constexpr uint16_t kExtendedCapabilityAcs = 0x000D;

uint16_t read16(const std::string& bytes, size_t offset) {
  if (offset + 2 > bytes.size()) return 0;
  return uint16_t(uint8_t(bytes[offset]) | (uint8_t(bytes[offset + 1]) << 8));
}

uint32_t read32(const std::string& bytes, size_t offset) {
  if (offset + 4 > bytes.size()) return 0;
  return uint32_t(read16(bytes, offset)) | (uint32_t(read16(bytes, offset + 2)) << 16);
}

std::string parentDirectory(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
}

std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

PciConfig parsePciConfig(const std::string& config) {
  PciConfig parsed;
  if (config.size() <= kHeaderBytes) return parsed;
  parsed.readable = true;
  // Standard capability list: status bit 4 says it exists, 0x34 points at it.
  if (read16(config, 0x06) & 0x10) {
    size_t pointer = uint8_t(config[0x34]) & ~3u;
    for (int hops = 0; pointer >= 0x40 && pointer + 4 <= config.size() && hops < 48; ++hops) {
      if (uint8_t(config[pointer]) == kCapabilityPcie) {
        parsed.portType = (read16(config, pointer + 2) >> 4) & 0xF;
        break;
      }
      pointer = uint8_t(config[pointer + 1]) & ~3u;
    }
  }
  // Extended capabilities: a chain of 32-bit headers {id:16, version:4, next:12}.
  size_t offset = kExtendedStart;
  for (int hops = 0; offset >= kExtendedStart && offset + 8 <= config.size() && hops < 96; ++hops) {
    const uint32_t header = read32(config, offset);
    if (header == 0 || header == 0xFFFFFFFFu) break;
    if ((header & 0xFFFF) == kExtendedCapabilityAcs) {
      parsed.hasAcs = true;
      parsed.acsControl = read16(config, offset + 6);
      break;
    }
    offset = (header >> 20) & 0xFFC;
  }
  return parsed;
}

std::string acsControlText(uint16_t control) {
  static const char* const kNames[] = {"SrcValid", "TransBlk", "ReqRedir", "CmpltRedir",
                                       "UpstreamFwd", "EgressCtrl", "DirectTrans"};
  std::string text;
  for (int bit = 0; bit < 7; ++bit) {
    text += (text.empty() ? "" : " ") + std::string(kNames[bit]) + ((control >> bit) & 1 ? "+" : "-");
  }
  return text;
}

AcsScan scanAcs(const std::string& sysRoot, const std::vector<std::string>& busIds) {
  AcsScan scan;
  std::map<std::string, size_t> portIndex;
  for (const std::string& device : busIds) {
    const std::string resolved = resolvePath(sysRoot + "/bus/pci/devices/" + device);
    if (resolved.empty()) continue;
    for (std::string dir = parentDirectory(resolved); !dir.empty(); dir = parentDirectory(dir)) {
      const std::string name = baseName(dir);
      if (normalizePciBusId(name).empty() || name.find(':') == std::string::npos) break;
      std::string raw;
      if (!readWholeFile(dir + "/config", &raw)) continue;
      const PciConfig config = parsePciConfig(raw);
      if (!config.readable) {
        scan.unreadable = true;
        continue;
      }
      if (config.portType != kPciePortSwitchDown) continue;
      auto found = portIndex.find(name);
      if (found == portIndex.end()) {
        found = portIndex.emplace(name, scan.ports.size()).first;
        scan.ports.push_back(SwitchPort{name, config, {}});
      }
      scan.ports[found->second].below.push_back(device);
    }
  }
  return scan;
}

CheckResult judgeAcs(const AcsScan& scan, bool haveDevices) {
  const char* check = "pcie-acs";
  const char* expected = "ReqRedir- CmpltRedir- on every switch port above a GPU or NIC";
  if (!haveDevices) return skipCheck(kFamilyEnvironment, check, "node", "no GPU or NIC to look above");
  std::vector<std::string> redirecting;
  for (const SwitchPort& port : scan.ports) {
    if (port.config.hasAcs &&
        (port.config.acsControl & (kAcsRequestRedirect | kAcsCompletionRedirect))) {
      std::string below;
      for (const std::string& device : port.below) below += (below.empty() ? "" : ", ") + device;
      redirecting.push_back(port.busId + " [" + acsControlText(port.config.acsControl) +
                            "] above " + below);
    }
  }
  if (!redirecting.empty()) {
    std::string measured;
    for (const std::string& line : redirecting) measured += (measured.empty() ? "" : "; ") + line;
    return makeCheck(kFamilyEnvironment, check, "node", Verdict::kFail, measured, expected,
                     "the switch sends peer-to-peer traffic up to the root complex: GPU-to-GPU "
                     "and GPUDirect RDMA transfers get slow, or hang with the IOMMU on; turn ACS "
                     "redirect off on these ports (BIOS, or setpci at boot)");
  }
  if (scan.ports.empty()) {
    return skipCheck(kFamilyEnvironment, check, "node",
                     scan.unreadable
                         ? "reading PCIe extended configuration space needs root (run doctor as "
                           "root; `sudo lspci -vvv | grep ACSCtl` shows the same)"
                         : "no PCIe switch between the GPUs/NICs and the root complex (devices on "
                           "root ports, or a VM that hides the switches)");
  }
  return makeCheck(kFamilyEnvironment, check, "node", Verdict::kPass,
                   std::to_string(scan.ports.size()) + " switch port(s) checked, none redirects",
                   expected, "ACS redirect on a switch port turns peer-to-peer traffic into "
                   "root-complex traffic");
}

}  // namespace doctor
}  // namespace flashccl
