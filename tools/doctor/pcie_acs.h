// Environment, part three: PCIe Access Control Services on the switch ports above the GPUs and
// NICs. With ACS P2P Request/Completion Redirect on, a switch sends peer-to-peer traffic between
// devices below it up to the root complex instead of across the switch: GPU-to-GPU copies and
// GPUDirect RDMA get slow, or hang with the IOMMU on (NCCL's troubleshooting guide; lspci shows
// it as "ACSCtl: ... ReqRedir+ CmpltRedir+").
//
// Read from sysfs config space directly (no lspci needed). The extended configuration space, where
// the ACS capability lives, is readable by root only: other users see 64 bytes, and the check is
// skipped with that reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "check_result.h"

namespace flashccl {
namespace doctor {

// PCIe capability port types (PCI Express Capabilities register, bits 7:4).
constexpr int kPciePortRoot = 4;
constexpr int kPciePortSwitchUp = 5;
constexpr int kPciePortSwitchDown = 6;

// What one configuration space says; from a raw config file.
struct PciConfig {
  bool readable = false;     // more than the 64-byte header was readable
  int portType = -1;         // -1 = no PCIe capability
  bool hasAcs = false;
  uint16_t acsControl = 0;
};
PciConfig parsePciConfig(const std::string& config);

// ACS Control bits.
constexpr uint16_t kAcsRequestRedirect = 1u << 2;
constexpr uint16_t kAcsCompletionRedirect = 1u << 3;
std::string acsControlText(uint16_t control);  // "SrcValid+ TransBlk- ReqRedir+ ..."

struct SwitchPort {
  std::string busId;            // the downstream switch port
  PciConfig config;
  std::vector<std::string> below;  // the GPUs and NICs under it
};

struct AcsScan {
  std::vector<SwitchPort> ports;  // every switch downstream port above one of the devices
  bool unreadable = false;        // some port's extended config space could not be read
};

// Walks from each device in `busIds` up its sysfs path (sysRoot/bus/pci/devices/<id>) and reads
// every switch downstream port on the way.
AcsScan scanAcs(const std::string& sysRoot, const std::vector<std::string>& busIds);
CheckResult judgeAcs(const AcsScan& scan, bool haveDevices);

}  // namespace doctor
}  // namespace flashccl
