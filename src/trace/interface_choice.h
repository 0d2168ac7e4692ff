// Which network interface the side channel listens on: the one NCCL would use for its own
// sockets, so that a job whose network is restricted with NCCL_SOCKET_IFNAME keeps our traffic
// where NCCL's is.
//
// NCCL_SOCKET_IFNAME is a comma-separated list of name prefixes ("eth,ib"); a leading '^' turns
// it into a list to exclude ("^docker,lo"); a '=' (after the '^', if any) asks for exact names
// ("=eth0", "^=docker0"). Unset, NCCL tries interfaces named ib*, then anything but docker*, lo*
// and virbr*, then docker*, then lo*, then virbr* (it also tries the subnet of NCCL_COMM_ID, which
// we leave out: it only helps jobs that set NCCL_COMM_ID and no IFNAME). NCCL_SOCKET_FAMILY
// (AF_INET or AF_INET6) restricts the address family. Only interfaces that are running count, and
// the IPv6 loopback address never does, as in NCCL (nor, unlike NCCL, an IPv6 link-local one).
#pragma once

#include <sys/socket.h>

#include <string>
#include <vector>

namespace flashccl {

struct NetInterface {
  std::string name;
  sockaddr_storage address = {};
  bool running = false;

  int family() const { return address.ss_family; }
};

// Every (interface, address) pair of this host, as getifaddrs lists them.
std::vector<NetInterface> listNetInterfaces();

// Whether `name` passes an NCCL_SOCKET_IFNAME value.
bool interfaceMatches(const std::string& name, const std::string& ifnameList);

// AF_INET / AF_INET6 for NCCL_SOCKET_FAMILY's values; AF_UNSPEC for anything else.
int socketFamilyFromEnv(const char* value);

// NCCL's choice among `interfaces`. `ifnameList` is NCCL_SOCKET_IFNAME (nullptr or "": unset).
// Returns false, with the reason, when nothing qualifies.
bool chooseInterface(const std::vector<NetInterface>& interfaces, const char* ifnameList,
                     int family, NetInterface* chosen, std::string* why);

// "eth0 10.1.2.3" for log lines.
std::string interfaceText(const NetInterface& iface);

}  // namespace flashccl
