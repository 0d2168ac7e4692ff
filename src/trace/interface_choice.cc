#include "trace/interface_choice.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cstring>

namespace flashccl {

namespace {

std::vector<std::string> splitList(const std::string& list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string item = list.substr(start, comma - start);
    // NCCL accepts "name:port" items; the port says nothing about which interface.
    const size_t colon = item.find(':');
    if (colon != std::string::npos) item.resize(colon);
    if (!item.empty()) items.push_back(item);
    start = comma + 1;
  }
  return items;
}

// The IPv6 loopback is skipped as NCCL skips it; link-local addresses too, unlike NCCL: a
// peer could not reach one without our interface's scope id, which the endpoint does not carry.
bool unusableIpv6(const NetInterface& iface) {
  if (iface.family() != AF_INET6) return false;
  const sockaddr_in6* in6 = reinterpret_cast<const sockaddr_in6*>(&iface.address);
  return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) || IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr);
}

// The first usable interface passing `list`, one address per interface name.
bool firstMatch(const std::vector<NetInterface>& interfaces, const std::string& list, int family,
                NetInterface* chosen) {
  for (const NetInterface& iface : interfaces) {
    if (!iface.running) continue;
    if (iface.family() != AF_INET && iface.family() != AF_INET6) continue;
    if (family != AF_UNSPEC && iface.family() != family) continue;
    if (unusableIpv6(iface)) continue;
    if (!interfaceMatches(iface.name, list)) continue;
    *chosen = iface;
    return true;
  }
  return false;
}

}  // namespace

std::vector<NetInterface> listNetInterfaces() {
  std::vector<NetInterface> found;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return found;
  for (ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr) continue;
    const int family = entry->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    NetInterface iface;
    iface.name = entry->ifa_name;
    std::memcpy(&iface.address, entry->ifa_addr,
                family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6));
    iface.running = (entry->ifa_flags & IFF_RUNNING) != 0;
    found.push_back(iface);
  }
  freeifaddrs(list);
  return found;
}

bool interfaceMatches(const std::string& name, const std::string& ifnameList) {
  std::string list = ifnameList;
  const bool exclude = !list.empty() && list[0] == '^';
  if (exclude) list.erase(0, 1);
  const bool exact = !list.empty() && list[0] == '=';
  if (exact) list.erase(0, 1);
  bool listed = false;
  for (const std::string& item : splitList(list)) {
    if (exact ? name == item : name.compare(0, item.size(), item) == 0) {
      listed = true;
      break;
    }
  }
  return listed != exclude;
}

int socketFamilyFromEnv(const char* value) {
  if (value == nullptr) return AF_UNSPEC;
  if (std::strcmp(value, "AF_INET") == 0) return AF_INET;
  if (std::strcmp(value, "AF_INET6") == 0) return AF_INET6;
  return AF_UNSPEC;
}

bool chooseInterface(const std::vector<NetInterface>& interfaces, const char* ifnameList,
                     int family, NetInterface* chosen, std::string* why) {
  // NCCL ignores a one-character value ("^" or "=" alone) and picks by itself.
  if (ifnameList != nullptr && std::strlen(ifnameList) > 1) {
    if (firstMatch(interfaces, ifnameList, family, chosen)) return true;
    *why = std::string("no running interface matches NCCL_SOCKET_IFNAME=") + ifnameList;
    return false;
  }
  for (const char* list : {"ib", "^docker,lo,virbr", "docker", "lo", "virbr"}) {
    if (firstMatch(interfaces, list, family, chosen)) return true;
  }
  *why = "no running network interface";
  return false;
}

std::string interfaceText(const NetInterface& iface) {
  char text[INET6_ADDRSTRLEN] = "";
  if (iface.family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&iface.address)->sin_addr, text,
              sizeof(text));
  } else if (iface.family() == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&iface.address)->sin6_addr, text,
              sizeof(text));
  }
  return iface.name + " " + text;
}

}  // namespace flashccl
