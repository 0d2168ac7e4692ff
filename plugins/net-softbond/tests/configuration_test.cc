// Settings, the rail list syntax, the fault switch, and how interfaces are grouped into bonds.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "bond_table.h"
#include "fault_injection.h"
#include "rail_spec.h"
#include "settings.h"

namespace flashccl::softbond {
namespace {

Settings settingsFrom(const std::map<std::string, std::string>& env) {
  return readSettings([&](const char* name) -> const char* {
    auto found = env.find(name);
    return found == env.end() ? nullptr : found->second.c_str();
  });
}

TEST(Settings, DefaultsWhenNothingIsSet) {
  Settings s = settingsFrom({});
  EXPECT_EQ(s.backend, BackendKind::kTcp);
  EXPECT_EQ(s.timeoutMs, 1000);
  EXPECT_EQ(s.probeMs, 500);
  EXPECT_EQ(s.streams, 2);
  EXPECT_EQ(s.chunkBytes, 128u * 1024);
  EXPECT_FALSE(s.gdr);
  EXPECT_TRUE(s.rails.empty());
}

TEST(Settings, ReadsEveryVariable) {
  Settings s = settingsFrom({{"FLASHCCL_SOFTBOND_RAILS", "eth0,eth1"},
                             {"FLASHCCL_SOFTBOND_BACKEND", "verbs"},
                             {"FLASHCCL_SOFTBOND_TIMEOUT_MS", "250"},
                             {"FLASHCCL_SOFTBOND_PROBE_MS", "100"},
                             {"FLASHCCL_SOFTBOND_STREAMS", "4"},
                             {"FLASHCCL_SOFTBOND_CHUNK_BYTES", "512K"},
                             {"FLASHCCL_SOFTBOND_GDR", "yes"},
                             {"FLASHCCL_SOFTBOND_IB_GID_INDEX", "3"},
                             {"FLASHCCL_SOFTBOND_FAULT", "rail0:after=1M"}});
  EXPECT_EQ(s.rails, "eth0,eth1");
  EXPECT_EQ(s.backend, BackendKind::kVerbs);
  EXPECT_EQ(s.timeoutMs, 250);
  EXPECT_EQ(s.probeMs, 100);
  EXPECT_EQ(s.streams, 4);
  EXPECT_EQ(s.chunkBytes, 512u * 1024);
  EXPECT_TRUE(s.gdr);
  EXPECT_EQ(s.gidIndex, 3);
  EXPECT_EQ(s.fault, "rail0:after=1M");
}

TEST(Settings, InvalidValuesKeepTheDefault) {
  Settings s = settingsFrom({{"FLASHCCL_SOFTBOND_BACKEND", "udp"},
                             {"FLASHCCL_SOFTBOND_TIMEOUT_MS", "5"},  // below the 50 ms floor
                             {"FLASHCCL_SOFTBOND_STREAMS", "99"},
                             {"FLASHCCL_SOFTBOND_CHUNK_BYTES", "1000"},  // not whole pages
                             {"FLASHCCL_SOFTBOND_GDR", "maybe"}});
  EXPECT_EQ(s.backend, BackendKind::kTcp);
  EXPECT_EQ(s.timeoutMs, 1000);
  EXPECT_EQ(s.streams, 2);
  EXPECT_EQ(s.chunkBytes, 128u * 1024);
  EXPECT_FALSE(s.gdr);
}

TEST(Settings, ByteSizes) {
  uint64_t bytes = 0;
  EXPECT_TRUE(parseByteSize("64M", &bytes));
  EXPECT_EQ(bytes, 64ull << 20);
  EXPECT_TRUE(parseByteSize("4096", &bytes));
  EXPECT_EQ(bytes, 4096u);
  EXPECT_FALSE(parseByteSize("", &bytes));
  EXPECT_FALSE(parseByteSize("12Q", &bytes));
  EXPECT_FALSE(parseByteSize("-1", &bytes));
  EXPECT_FALSE(parseByteSize("99999999999999999999G", &bytes));
}

// docs/environment.md lists every variable the plugin reads, with its default.
TEST(Settings, DocumentationMatches) {
  std::ifstream doc(std::string(SOFTBOND_SOURCE_DIR) + "/docs/environment.md");
  ASSERT_TRUE(doc.good());
  std::map<std::string, std::string> documented;
  std::regex row(R"(^\|\s*`(FLASHCCL_SOFTBOND_[A-Z0-9_]+)`\s*\|\s*([^|]*?)\s*\|)");
  for (std::string line; std::getline(doc, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    std::string value = m[2];
    if (value == "(empty)") value = "";
    if (value.size() >= 2 && value.front() == '`') value = value.substr(1, value.size() - 2);
    EXPECT_FALSE(documented.count(m[1])) << m[1] << " documented twice";
    documented[m[1]] = value;
  }
  std::set<std::string> read;
  readSettings([&](const char* name) -> const char* {
    read.insert(name);
    return nullptr;
  });
  std::set<std::string> names;
  for (const auto& [name, value] : documented) names.insert(name);
  EXPECT_EQ(read, names) << "variables read vs documented";
  const Settings defaults;
  const std::map<std::string, std::string> actual = {
      {"FLASHCCL_SOFTBOND_RAILS", defaults.rails},
      {"FLASHCCL_SOFTBOND_BACKEND", backendName(defaults.backend)},
      {"FLASHCCL_SOFTBOND_TIMEOUT_MS", std::to_string(defaults.timeoutMs)},
      {"FLASHCCL_SOFTBOND_PROBE_MS", std::to_string(defaults.probeMs)},
      {"FLASHCCL_SOFTBOND_STREAMS", std::to_string(defaults.streams)},
      {"FLASHCCL_SOFTBOND_CHUNK_BYTES", std::to_string(defaults.chunkBytes >> 10) + "K"},
      {"FLASHCCL_SOFTBOND_GDR", defaults.gdr ? "1" : "0"},
      {"FLASHCCL_SOFTBOND_IB_GID_INDEX", std::to_string(defaults.gidIndex)},
      {"FLASHCCL_SOFTBOND_FAULT", defaults.fault},
  };
  for (const auto& [name, value] : actual) EXPECT_EQ(documented[name], value) << name << ": default differs in the docs";
}

TEST(RailSpec, BondsAndRails) {
  std::vector<std::vector<std::string>> bonds;
  std::string error;
  ASSERT_TRUE(parseRailSpec("eth0,eth1;eth2,eth3", &bonds, &error)) << error;
  EXPECT_EQ(bonds, (std::vector<std::vector<std::string>>{{"eth0", "eth1"}, {"eth2", "eth3"}}));
  ASSERT_TRUE(parseRailSpec(" lo , lo ", &bonds, &error)) << error;
  EXPECT_EQ(bonds, (std::vector<std::vector<std::string>>{{"lo", "lo"}}));
}

TEST(RailSpec, RejectsWhatItCannotMean) {
  std::vector<std::vector<std::string>> bonds;
  std::string error;
  for (const char* bad : {"", ";", "eth0,", "eth0;;eth1", "a,b,c,d,e", "averyveryverylonginterfacename"})
    EXPECT_FALSE(parseRailSpec(bad, &bonds, &error)) << "'" << bad << "' accepted";
}

TEST(InterfaceFilter, PrefixesExclusionAndExactNames) {
  EXPECT_TRUE(InterfaceFilter("eth").matches("eth0"));
  EXPECT_FALSE(InterfaceFilter("eth").matches("ib0"));
  EXPECT_FALSE(InterfaceFilter("^docker,lo").matches("docker0"));
  EXPECT_TRUE(InterfaceFilter("^docker,lo").matches("ens1"));
  EXPECT_TRUE(InterfaceFilter("=eth0").matches("eth0"));
  EXPECT_FALSE(InterfaceFilter("=eth0").matches("eth01"));
  EXPECT_TRUE(InterfaceFilter("").matches("anything"));
}

TEST(FaultPlan, Syntax) {
  FaultPlan plan;
  std::string error;
  ASSERT_TRUE(parseFaultPlan("rail0:after=64M", &plan, &error)) << error;
  EXPECT_EQ(plan.rail, 0);
  EXPECT_EQ(plan.afterBytes, 64ull << 20);
  EXPECT_EQ(plan.forMs, -1);
  EXPECT_FALSE(plan.reset);
  ASSERT_TRUE(parseFaultPlan("rail1:after=0:for=2500:reset", &plan, &error)) << error;
  EXPECT_EQ(plan.rail, 1);
  EXPECT_EQ(plan.forMs, 2500);
  EXPECT_TRUE(plan.reset);
  for (const char* bad : {"", "rail", "rail9:after=1M", "rail0", "rail0:after=lots", "rail0:after=1M:bogus"})
    EXPECT_FALSE(parseFaultPlan(bad, &plan, &error)) << "'" << bad << "' accepted";
}

TEST(FaultInjector, GoesDarkAfterTheByteCountForTheTimeAsked) {
  FaultInjector injector;
  FaultPlan plan;
  std::string error;
  ASSERT_TRUE(parseFaultPlan("rail1:after=1M:for=1000", &plan, &error));
  injector.arm(plan);
  injector.countPut(1, 512 << 10, 100);
  injector.countPut(0, 4 << 20, 100);  // another rail: does not count
  EXPECT_FALSE(injector.dark(1, 100));
  injector.countPut(1, 512 << 10, 200);
  EXPECT_TRUE(injector.dark(1, 200));
  EXPECT_FALSE(injector.dark(0, 200));
  EXPECT_TRUE(injector.dark(1, 1199));
  EXPECT_FALSE(injector.dark(1, 1200));
  EXPECT_EQ(injector.resetEpoch(1), 0);
}

// A fake sysfs: class/net/<if>/device -> devices/<pci path>, with numa_node and speed.
class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/softbond-sysfs-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    root_ = dir;
  }
  void TearDown() override { (void)!system(("rm -rf " + root_).c_str()); }

  NetInterface add(const std::string& name, const std::string& pci, int numa, int speed) {
    const std::string netDir = root_ + "/class/net/" + name;
    (void)!system(("mkdir -p " + netDir).c_str());
    if (!pci.empty()) {
      const std::string device = root_ + "/devices/" + pci;
      (void)!system(("mkdir -p " + device).c_str());
      std::ofstream(device + "/numa_node") << numa << "\n";
      EXPECT_EQ(symlink(device.c_str(), (netDir + "/device").c_str()), 0);
    }
    std::ofstream(netDir + "/speed") << speed << "\n";
    NetInterface iface;
    iface.name = name;
    iface.up = true;
    iface.address.length = sizeof(sockaddr_in);
    iface.address.storage.ss_family = AF_INET;
    readSysfsFacts(root_, &iface);
    return iface;
  }

  std::string root_;
};

TEST_F(FakeSysfs, ReadsLocalityAndSpeed) {
  NetInterface eth = add("eth0", "pci0000:3a/0000:3a:02.0/0000:3b:00.0", 1, 100000);
  EXPECT_EQ(eth.numaNode, 1);
  EXPECT_EQ(eth.speedMbps, 100000);
  EXPECT_NE(eth.pciPath.find("pci0000:3a/0000:3a:02.0/0000:3b:00.0"), std::string::npos);
  NetInterface veth = add("veth0", "", -1, -1);
  EXPECT_TRUE(veth.pciPath.empty());
  EXPECT_EQ(veth.speedMbps, 0);
}

TEST_F(FakeSysfs, GroupsByNumaNodeAndRootComplex) {
  std::vector<NetInterface> interfaces = {
      add("ens1f0", "pci0000:3a/0000:3a:02.0/0000:3b:00.0", 0, 100000),
      add("ens1f1", "pci0000:3a/0000:3a:02.0/0000:3b:00.1", 0, 100000),
      add("ens2f0", "pci0000:ae/0000:ae:02.0/0000:af:00.0", 1, 100000),
      add("ens2f1", "pci0000:ae/0000:ae:02.0/0000:af:00.1", 1, 100000),
      add("docker0", "", -1, -1),
  };
  std::vector<Bond> bonds = chooseBonds(Settings(), interfaces, "");
  ASSERT_EQ(bonds.size(), 2u);
  EXPECT_EQ(bonds[0].name, "ens1f0+ens1f1");
  EXPECT_EQ(bonds[1].name, "ens2f0+ens2f1");
  EXPECT_EQ(bonds[0].speedMbps, 200000);
  EXPECT_NE(bonds[0].pciPath.find("0000:3b:00.0"), std::string::npos);
  EXPECT_NE(bonds[0].guid, bonds[1].guid);
}

TEST_F(FakeSysfs, VirtualInterfacesWhenThereIsNoNicAndLoopbackLast) {
  NetInterface lo = add("lo", "", -1, -1);
  lo.loopback = true;
  std::vector<Bond> bonds = chooseBonds(Settings(), {add("veth0", "", -1, -1), add("veth1", "", -1, -1), lo}, "");
  ASSERT_EQ(bonds.size(), 1u);
  EXPECT_EQ(bonds[0].name, "veth0+veth1");
  EXPECT_EQ(bonds[0].speedMbps, 20000);  // unknown speed counts as NCCL's 10 Gb/s default
  bonds = chooseBonds(Settings(), {lo}, "");
  ASSERT_EQ(bonds.size(), 1u);
  EXPECT_EQ(bonds[0].name, "lo");
}

TEST_F(FakeSysfs, NamedRailsWinAndNamesStayUnique) {
  std::vector<NetInterface> interfaces = {add("eth0", "pci0000:00/0000:00:03.0", 0, 25000),
                                          add("eth1", "pci0000:00/0000:00:04.0", 0, 25000)};
  Settings settings;
  settings.rails = "eth1;eth1;eth0,missing";
  std::vector<Bond> bonds = chooseBonds(settings, interfaces, "");
  ASSERT_EQ(bonds.size(), 3u);
  EXPECT_EQ(bonds[0].name, "eth1");
  EXPECT_EQ(bonds[1].name, "eth1#1");
  EXPECT_EQ(bonds[2].name, "eth0");  // the missing rail is left out with a WARN
}

TEST_F(FakeSysfs, SocketIfnameFiltersAutomaticRails) {
  std::vector<NetInterface> interfaces = {add("eth0", "pci0000:00/0000:00:03.0", 0, 25000),
                                          add("ib0", "pci0000:00/0000:00:04.0", 0, 100000)};
  std::vector<Bond> bonds = chooseBonds(Settings(), interfaces, "ib");
  ASSERT_EQ(bonds.size(), 1u);
  EXPECT_EQ(bonds[0].name, "ib0");
}

}  // namespace
}  // namespace flashccl::softbond
