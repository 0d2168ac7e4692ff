#include "net_interfaces.h"

#include <dirent.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include <fstream>
#include <map>

namespace flashccl::softbond {
namespace {

bool readFirstLine(const std::string& path, std::string* line) {
  std::ifstream file(path);
  return static_cast<bool>(std::getline(file, *line));
}

int readInt(const std::string& path, int fallback) {
  std::string line;
  if (!readFirstLine(path, &line)) return fallback;
  char* end = nullptr;
  long value = strtol(line.c_str(), &end, 10);
  return end == line.c_str() ? fallback : static_cast<int>(value);
}

// A link-local IPv6 address needs a scope id to be reachable; a bond rail would have to carry it
// through the handle, so such addresses are not used.
bool usable(const sockaddr* address) {
  if (!address) return false;
  if (address->sa_family == AF_INET) return true;
  if (address->sa_family != AF_INET6) return false;
  const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
  return !IN6_IS_ADDR_LINKLOCAL(&a);
}

}  // namespace

void readSysfsFacts(const std::string& sysfsRoot, NetInterface* iface) {
  const std::string netDir = sysfsRoot + "/class/net/" + iface->name;
  char resolved[PATH_MAX];
  if (realpath((netDir + "/device").c_str(), resolved)) {
    iface->pciPath = resolved;
    iface->numaNode = readInt(netDir + "/device/numa_node", -1);
    // An RDMA device behind the netdev (RoCE, IPoIB) shows up as device/infiniband/<name>.
    if (DIR* dir = opendir((netDir + "/device/infiniband").c_str())) {
      while (dirent* entry = readdir(dir)) {
        if (entry->d_name[0] != '.') {
          iface->rdmaDevice = entry->d_name;
          break;
        }
      }
      closedir(dir);
    }
    // dev_port counts from 0 for the ports of one PCI function; verbs ports count from 1.
    iface->rdmaPort = readInt(netDir + "/dev_port", 0) + 1;
  }
  int speed = readInt(netDir + "/speed", 0);
  iface->speedMbps = speed > 0 ? speed : 0;
}

std::vector<NetInterface> listInterfaces(const std::string& sysfsRoot) {
  std::vector<NetInterface> result;
  std::map<std::string, size_t> byName;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return result;
  for (ifaddrs* entry = list; entry; entry = entry->ifa_next) {
    if (!usable(entry->ifa_addr)) continue;
    auto found = byName.find(entry->ifa_name);
    if (found != byName.end()) {
      // Keep one address per interface; IPv4 wins.
      NetInterface& existing = result[found->second];
      if (existing.address.family() == AF_INET6 && entry->ifa_addr->sa_family == AF_INET) {
        existing.address.length = sizeof(sockaddr_in);
        memcpy(&existing.address.storage, entry->ifa_addr, sizeof(sockaddr_in));
      }
      continue;
    }
    NetInterface iface;
    iface.name = entry->ifa_name;
    iface.up = (entry->ifa_flags & IFF_UP) && (entry->ifa_flags & IFF_RUNNING);
    iface.loopback = entry->ifa_flags & IFF_LOOPBACK;
    iface.address.length = entry->ifa_addr->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    memcpy(&iface.address.storage, entry->ifa_addr, iface.address.length);
    iface.address.setPort(0);
    readSysfsFacts(sysfsRoot, &iface);
    byName[iface.name] = result.size();
    result.push_back(iface);
  }
  freeifaddrs(list);
  return result;
}

}  // namespace flashccl::softbond
