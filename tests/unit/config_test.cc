#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "base/config.h"
#include "base/log.h"
#include "support/temp_dir.h"

namespace flashccl {
namespace {

TEST(ParseBytes, PlainAndSuffixed) {
  size_t bytes = 0;
  ASSERT_TRUE(parseBytes("4096", &bytes));
  EXPECT_EQ(bytes, 4096u);
  ASSERT_TRUE(parseBytes("2K", &bytes));
  EXPECT_EQ(bytes, 2048u);
  ASSERT_TRUE(parseBytes("64M", &bytes));
  EXPECT_EQ(bytes, 64u << 20);
  ASSERT_TRUE(parseBytes("1G", &bytes));
  EXPECT_EQ(bytes, 1u << 30);
  ASSERT_TRUE(parseBytes("64m", &bytes));
  EXPECT_EQ(bytes, 64u << 20);
  ASSERT_TRUE(parseBytes("64MB", &bytes));
  EXPECT_EQ(bytes, 64u << 20);
  ASSERT_TRUE(parseBytes("64MiB", &bytes));
  EXPECT_EQ(bytes, 64u << 20);
  ASSERT_TRUE(parseBytes("0", &bytes));
  EXPECT_EQ(bytes, 0u);
  ASSERT_TRUE(parseBytes("12B", &bytes));
  EXPECT_EQ(bytes, 12u);
}

TEST(ParseBytes, RejectsGarbage) {
  size_t bytes = 77;
  for (const char* bad : {"", "M", "-1", "1.5G", "12X", "64MM", "0x10", "99999999999999999999",
                          "17179869184G"}) {
    EXPECT_FALSE(parseBytes(bad, &bytes)) << bad;
  }
  EXPECT_EQ(bytes, 77u);  // untouched on failure
}

TEST(ParseBool, Words) {
  bool value = false;
  for (const char* yes : {"1", "true", "TRUE", "yes", "on"}) {
    ASSERT_TRUE(parseBool(yes, &value)) << yes;
    EXPECT_TRUE(value) << yes;
  }
  for (const char* no : {"0", "false", "No", "off"}) {
    ASSERT_TRUE(parseBool(no, &value)) << no;
    EXPECT_FALSE(value) << no;
  }
  EXPECT_FALSE(parseBool("2", &value));
  EXPECT_FALSE(parseBool("", &value));
}

class ConfigEnv : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const EnvParam& p : envParams()) unsetenv(p.name);
  }
};

TEST_F(ConfigEnv, Defaults) {
  for (const EnvParam& p : envParams()) unsetenv(p.name);
  Config c = Config::fromEnvironment();
  EXPECT_FALSE(c.disable);
  EXPECT_EQ(c.bufferBytes, 64u << 20);
  EXPECT_TRUE(c.p2pCheck);
  EXPECT_EQ(c.lanes, 64);
  EXPECT_EQ(c.minChunkBytes, 64u << 10);
  EXPECT_EQ(c.llMaxBytes, 1u << 20);
  EXPECT_EQ(c.ncclLibrary, "");
  EXPECT_EQ(c.algo, "");
}

TEST_F(ConfigEnv, FromEnvironment) {
  setenv("FLASHCCL_DISABLE", "1", 1);
  setenv("FLASHCCL_NCCL_LIBRARY", "/opt/nccl/lib/libnccl.so.2", 1);
  setenv("FLASHCCL_ALGO", "allreduce:allreduce_oneshot", 1);
  setenv("FLASHCCL_ALGO_DIR", "/algos", 1);
  setenv("FLASHCCL_TOPO_FILE", "/topo.xml", 1);
  setenv("FLASHCCL_BUFFER_BYTES", "16M", 1);
  setenv("FLASHCCL_P2P_CHECK", "0", 1);
  setenv("FLASHCCL_LANES", "48", 1);
  setenv("FLASHCCL_MIN_CHUNK_BYTES", "64K", 1);
  setenv("FLASHCCL_LL_MAX_BYTES", "1M", 1);
  setenv("FLASHCCL_DEBUG", "INFO", 1);
  Config c = Config::fromEnvironment();
  EXPECT_TRUE(c.disable);
  EXPECT_EQ(c.ncclLibrary, "/opt/nccl/lib/libnccl.so.2");
  EXPECT_EQ(c.algo, "allreduce:allreduce_oneshot");
  EXPECT_EQ(c.algoDir, "/algos");
  EXPECT_EQ(c.topoFile, "/topo.xml");
  EXPECT_EQ(c.bufferBytes, 16u << 20);
  EXPECT_FALSE(c.p2pCheck);
  EXPECT_EQ(c.lanes, 48);
  EXPECT_EQ(c.minChunkBytes, 64u << 10);
  EXPECT_EQ(c.llMaxBytes, 1u << 20);
  EXPECT_EQ(c.debug, "INFO");
}

TEST_F(ConfigEnv, InvalidValuesFallBackToDefaults) {
  setenv("FLASHCCL_BUFFER_BYTES", "lots", 1);
  setenv("FLASHCCL_P2P_CHECK", "maybe", 1);
  setenv("FLASHCCL_LANES", "1000", 1);
  Config c = Config::fromEnvironment();
  EXPECT_EQ(c.lanes, 64);
  EXPECT_EQ(c.bufferBytes, 64u << 20);
  EXPECT_TRUE(c.p2pCheck);
}

// Values that would reach the kernels as a division by zero, a negative count or an index past
// our tables: each is refused with one WARN that names the variable and the default used.
TEST_F(ConfigEnv, OutOfRangeValuesAreRefusedWithAWarnNamingThem) {
  testing::TempDir dir;
  const std::string log = dir.path() + "/warn.log";
  setenv("NCCL_DEBUG_FILE", log.c_str(), 1);
  setenv("NCCL_DEBUG", "WARN", 1);
  logReset();
  const struct {
    const char* name;
    const char* value;
  } kBad[] = {{"FLASHCCL_MIN_CHUNK_BYTES", "0"}, {"FLASHCCL_LANES", "-3"},     {"FLASHCCL_LANES", "0"},
              {"FLASHCCL_BUFFER_BYTES", "64Q"},  {"FLASHCCL_BUFFER_BYTES", "4K"}, {"FLASHCCL_LL_MAX_BYTES", "2G"},
              {"FLASHCCL_MIN_CHUNK_BYTES", "1"}};
  for (const auto& bad : kBad) {
    setenv(bad.name, bad.value, 1);
    const Config c = Config::fromEnvironment();
    EXPECT_EQ(c.minChunkBytes, 64u << 10) << bad.name << "=" << bad.value;
    EXPECT_EQ(c.lanes, 64) << bad.name << "=" << bad.value;
    EXPECT_EQ(c.bufferBytes, 64u << 20) << bad.name << "=" << bad.value;
    EXPECT_EQ(c.llMaxBytes, 1u << 20) << bad.name << "=" << bad.value;
    unsetenv(bad.name);
  }
  unsetenv("NCCL_DEBUG_FILE");
  unsetenv("NCCL_DEBUG");
  logReset();
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& bad : kBad) {
    const std::string expected = std::string(bad.name) + "='" + bad.value + "' is not a size";
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  EXPECT_NE(text.find("using the default 64K"), std::string::npos) << text;
}

TEST(EnvTable, EveryDefaultParses) {
  for (const EnvParam& p : envParams()) {
    EXPECT_EQ(std::string(p.name).rfind("FLASHCCL_", 0), 0u) << p.name;
    EXPECT_GT(std::string(p.description).size(), 10u) << p.name;
  }
}

// docs/environment.md carries the same table: names and defaults must match, both ways.
TEST(EnvTable, DocumentationMatches) {
  std::ifstream doc(std::string(FLASHCCL_SOURCE_DIR) + "/docs/environment.md");
  ASSERT_TRUE(doc.good()) << "docs/environment.md is missing";
  std::map<std::string, std::string> documented;  // name -> default
  std::regex row(R"(^\|\s*`(FLASHCCL_[A-Z0-9_]+)`\s*\|\s*([^|]*?)\s*\|)");
  std::string line;
  while (std::getline(doc, line)) {
    std::smatch m;
    if (std::regex_search(line, m, row)) {
      std::string def = m[2];
      if (def.size() >= 2 && def.front() == '`' && def.back() == '`') def = def.substr(1, def.size() - 2);
      if (def == "(empty)" || def == "—" || def == "-") def = "";
      EXPECT_FALSE(documented.count(m[1])) << m[1] << " documented twice";
      documented[m[1]] = def;
    }
  }
  for (const EnvParam& p : envParams()) {
    ASSERT_TRUE(documented.count(p.name)) << p.name << " is not in docs/environment.md";
    EXPECT_EQ(documented[p.name], p.defaultValue) << p.name << ": default differs in the docs";
    documented.erase(p.name);
  }
  for (const auto& extra : documented) {
    ADD_FAILURE() << extra.first << " is documented but not in envParams()";
  }
}

}  // namespace
}  // namespace flashccl
