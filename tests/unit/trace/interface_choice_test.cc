#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include "trace/interface_choice.h"

namespace flashccl {
namespace {

NetInterface iface(const std::string& name, const char* address, bool running = true) {
  NetInterface result;
  result.name = name;
  result.running = running;
  if (std::string(address).find(':') == std::string::npos) {
    sockaddr_in* in = reinterpret_cast<sockaddr_in*>(&result.address);
    in->sin_family = AF_INET;
    inet_pton(AF_INET, address, &in->sin_addr);
  } else {
    sockaddr_in6* in6 = reinterpret_cast<sockaddr_in6*>(&result.address);
    in6->sin6_family = AF_INET6;
    inet_pton(AF_INET6, address, &in6->sin6_addr);
  }
  return result;
}

std::string chosen(const std::vector<NetInterface>& all, const char* ifname, int family = AF_UNSPEC) {
  NetInterface pick;
  std::string why;
  if (!chooseInterface(all, ifname, family, &pick, &why)) return "none: " + why;
  return interfaceText(pick);
}

TEST(InterfaceMatches, NcclSyntax) {
  EXPECT_TRUE(interfaceMatches("eth0", "eth"));
  EXPECT_TRUE(interfaceMatches("ib1", "eth,ib"));
  EXPECT_FALSE(interfaceMatches("enp1s0", "eth,ib"));
  EXPECT_FALSE(interfaceMatches("eth0", "^eth"));
  EXPECT_TRUE(interfaceMatches("enp1s0", "^docker,lo"));
  EXPECT_FALSE(interfaceMatches("docker0", "^docker,lo"));
  EXPECT_TRUE(interfaceMatches("eth0", "=eth0"));
  EXPECT_FALSE(interfaceMatches("eth01", "=eth0"));
  EXPECT_TRUE(interfaceMatches("eth01", "^=eth0"));
  EXPECT_FALSE(interfaceMatches("eth0", "^=eth0"));
  EXPECT_TRUE(interfaceMatches("eth0", "eth0:1234"));  // NCCL's "name:port" items
}

TEST(ChooseInterface, AsNcclWould) {
  const std::vector<NetInterface> host = {
      iface("lo", "127.0.0.1"),       iface("docker0", "172.17.0.1"),
      iface("eth0", "10.0.0.5"),      iface("ib0", "192.168.1.5"),
      iface("eth1", "10.1.0.5", false),
  };
  // Unset: ib* first, then anything but docker/lo/virbr.
  EXPECT_EQ(chosen(host, nullptr), "ib0 192.168.1.5");
  EXPECT_EQ(chosen(host, ""), "ib0 192.168.1.5");
  EXPECT_EQ(chosen({host[0], host[1], host[2]}, nullptr), "eth0 10.0.0.5");
  EXPECT_EQ(chosen({host[0], host[1]}, nullptr), "docker0 172.17.0.1");
  EXPECT_EQ(chosen({host[0]}, nullptr), "lo 127.0.0.1");
  // Set: the list decides, and an interface that is down never counts.
  EXPECT_EQ(chosen(host, "eth"), "eth0 10.0.0.5");
  EXPECT_EQ(chosen(host, "=eth1"), "none: no running interface matches NCCL_SOCKET_IFNAME==eth1");
  EXPECT_EQ(chosen(host, "lo"), "lo 127.0.0.1");
  EXPECT_EQ(chosen(host, "^ib,eth,lo"), "docker0 172.17.0.1");
  EXPECT_EQ(chosen({}, nullptr), "none: no running network interface");
}

TEST(ChooseInterface, FamilyAndIpv6Rules) {
  const std::vector<NetInterface> host = {
      iface("lo", "::1"), iface("eth0", "fe80::1"), iface("eth0", "fd00::5"), iface("eth0", "10.0.0.5"),
  };
  EXPECT_EQ(chosen(host, "eth"), "eth0 fd00::5");
  EXPECT_EQ(chosen(host, "eth", AF_INET), "eth0 10.0.0.5");
  EXPECT_EQ(chosen(host, "lo"), "none: no running interface matches NCCL_SOCKET_IFNAME=lo");
  EXPECT_EQ(socketFamilyFromEnv("AF_INET6"), AF_INET6);
  EXPECT_EQ(socketFamilyFromEnv("ipv4"), AF_UNSPEC);
  EXPECT_EQ(socketFamilyFromEnv(nullptr), AF_UNSPEC);
}

TEST(ListNetInterfaces, FindsTheLoopback) {
  bool loopback = false;
  for (const NetInterface& found : listNetInterfaces()) loopback |= found.name == "lo" && found.running;
  EXPECT_TRUE(loopback);
}

}  // namespace
}  // namespace flashccl
