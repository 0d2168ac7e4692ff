#include "bond_table.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "log.h"
#include "rail_spec.h"

namespace flashccl::softbond {
namespace {

// What NCCL's socket transport assumes for an interface whose speed sysfs does not know.
constexpr int kUnknownSpeedMbps = 10000;

uint64_t fnv1a(const std::string& text, uint64_t hash = 1469598103934665603ULL) {
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ULL;
  return hash;
}

Bond makeBond(std::vector<NetInterface> rails) {
  Bond bond;
  bond.rails = std::move(rails);
  for (const NetInterface& rail : bond.rails) {
    bond.name += (bond.name.empty() ? "" : "+") + rail.name;
    if (bond.pciPath.empty()) bond.pciPath = rail.pciPath;
    bond.speedMbps += rail.speedMbps > 0 ? rail.speedMbps : kUnknownSpeedMbps;
  }
  return bond;
}

// "/sys/devices/pci0000:3a/0000:3a:02.0/..." -> "pci0000:3a": interfaces under one root complex
// share the PCIe path to the CPU, so traffic striped across them stays local.
std::string rootComplex(const std::string& pciPath) {
  size_t start = pciPath.find("/pci");
  if (start == std::string::npos) return "";
  size_t end = pciPath.find('/', start + 1);
  return pciPath.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
}

void appendInGroupsOfFour(std::vector<NetInterface> members, std::vector<Bond>* bonds) {
  std::sort(members.begin(), members.end(),
            [](const NetInterface& a, const NetInterface& b) { return a.name < b.name; });
  for (size_t i = 0; i < members.size(); i += kMaxRailsPerBond) {
    size_t end = std::min(members.size(), i + kMaxRailsPerBond);
    bonds->push_back(makeBond(std::vector<NetInterface>(members.begin() + i, members.begin() + end)));
  }
}

std::vector<Bond> namedBonds(const std::string& spec, const std::vector<NetInterface>& interfaces) {
  std::vector<std::vector<std::string>> names;
  std::string error;
  std::vector<Bond> bonds;
  if (!parseRailSpec(spec, &names, &error)) {
    SB_WARN("FLASHCCL_SOFTBOND_RAILS=%s: %s; no devices", spec.c_str(), error.c_str());
    return bonds;
  }
  for (const std::vector<std::string>& bondNames : names) {
    std::vector<NetInterface> rails;
    for (const std::string& name : bondNames) {
      auto found = std::find_if(interfaces.begin(), interfaces.end(),
                                [&](const NetInterface& iface) { return iface.name == name; });
      if (found == interfaces.end()) {
        SB_WARN("FLASHCCL_SOFTBOND_RAILS: interface %s has no usable address; rail left out", name.c_str());
        continue;
      }
      rails.push_back(*found);
    }
    if (!rails.empty()) bonds.push_back(makeBond(rails));
  }
  return bonds;
}

std::vector<Bond> bondsByLocality(const std::vector<NetInterface>& interfaces, const std::string& socketIfname) {
  // Without NCCL_SOCKET_IFNAME, skip what NCCL's socket transport skips by default.
  InterfaceFilter filter(socketIfname.empty() ? "^docker,lo,virbr" : socketIfname);
  std::map<std::tuple<int, std::string>, std::vector<NetInterface>> physical;
  std::vector<NetInterface> virtualOnes, loopback;
  for (const NetInterface& iface : interfaces) {
    // Loopback is the last resort (as in NCCL), even though the default filter leaves it out.
    if (iface.loopback && (socketIfname.empty() || filter.matches(iface.name))) loopback.push_back(iface);
    if (iface.loopback || !filter.matches(iface.name) || !iface.up) continue;
    if (iface.pciPath.empty()) virtualOnes.push_back(iface);
    else physical[{iface.numaNode, rootComplex(iface.pciPath)}].push_back(iface);
  }
  std::vector<Bond> bonds;
  for (auto& [locality, members] : physical) appendInGroupsOfFour(members, &bonds);
  if (bonds.empty()) appendInGroupsOfFour(virtualOnes, &bonds);
  if (bonds.empty()) appendInGroupsOfFour(loopback, &bonds);
  return bonds;
}

}  // namespace

std::vector<Bond> chooseBonds(const Settings& settings, const std::vector<NetInterface>& interfaces,
                              const std::string& socketIfname) {
  std::vector<Bond> bonds = settings.rails.empty() ? bondsByLocality(interfaces, socketIfname)
                                                   : namedBonds(settings.rails, interfaces);
  if (bonds.size() > static_cast<size_t>(kMaxBonds)) bonds.resize(kMaxBonds);
  std::set<std::string> seen;
  for (size_t i = 0; i < bonds.size(); ++i) {
    // "eth0;eth0" is legal and would give two devices of one name; NCCL needs them distinct.
    if (!seen.insert(bonds[i].name).second) bonds[i].name += "#" + std::to_string(i);
    seen.insert(bonds[i].name);
    uint64_t hash = fnv1a(bonds[i].name);
    for (const NetInterface& rail : bonds[i].rails) hash = fnv1a(rail.pciPath, hash);
    bonds[i].guid = hash;
  }
  return bonds;
}

}  // namespace flashccl::softbond
