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
#include "base/config_words.h"
#include "base/log.h"
#include "support/temp_dir.h"

namespace flashccl {
namespace {

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

// The WARN lines `parse` makes Config::fromEnvironment() print (through NCCL_DEBUG_FILE).
template <typename Parse>
std::string warningsOf(Parse parse) {
  testing::TempDir dir;
  const std::string log = dir.path() + "/warn.log";
  setenv("NCCL_DEBUG_FILE", log.c_str(), 1);
  setenv("NCCL_DEBUG", "WARN", 1);
  logReset();
  parse();
  unsetenv("NCCL_DEBUG_FILE");
  unsetenv("NCCL_DEBUG");
  logReset();
  std::ifstream in(log);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Values that would reach the kernels as a division by zero, a negative count or an index past
// our tables: each is refused with one WARN that names the variable and the default used.
TEST_F(ConfigEnv, OutOfRangeValuesAreRefusedWithAWarnNamingThem) {
  const struct {
    const char* name;
    const char* value;
  } kBad[] = {{"FLASHCCL_MIN_CHUNK_BYTES", "0"}, {"FLASHCCL_LANES", "-3"},     {"FLASHCCL_LANES", "0"},
              {"FLASHCCL_BUFFER_BYTES", "64Q"},  {"FLASHCCL_BUFFER_BYTES", "4K"}, {"FLASHCCL_LL_MAX_BYTES", "2G"},
              {"FLASHCCL_MIN_CHUNK_BYTES", "1"}};
  const std::string text = warningsOf([&] {
    for (const auto& bad : kBad) {
      setenv(bad.name, bad.value, 1);
      const Config c = Config::fromEnvironment();
      EXPECT_EQ(c.minChunkBytes, 64u << 10) << bad.name << "=" << bad.value;
      EXPECT_EQ(c.lanes, 64) << bad.name << "=" << bad.value;
      EXPECT_EQ(c.bufferBytes, 64u << 20) << bad.name << "=" << bad.value;
      EXPECT_EQ(c.llMaxBytes, 1u << 20) << bad.name << "=" << bad.value;
      unsetenv(bad.name);
    }
  });
  for (const auto& bad : kBad) {
    // FLASHCCL_LANES counts thread blocks: its WARN says so, not "size".
    const bool count = std::string(bad.name) == "FLASHCCL_LANES";
    const std::string expected = std::string(bad.name) + "='" + bad.value + "' is not a " +
                                 (count ? "count from 1 to 64; using the default 64" : "size");
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  EXPECT_NE(text.find("using the default 64K"), std::string::npos) << text;
}

// The issue's newcomer: FLASHCCL_LANES=500 and =2K are counts out of range, not sizes.
TEST_F(ConfigEnv, LanesAreACountFromOneTo64) {
  const std::string text = warningsOf([] {
    for (const char* value : {"500", "2K", "12x"}) {
      setenv("FLASHCCL_LANES", value, 1);
      EXPECT_EQ(Config::fromEnvironment().lanes, 64) << value;
    }
    setenv("FLASHCCL_LANES", "7", 1);
    EXPECT_EQ(Config::fromEnvironment().lanes, 7);
  });
  for (const char* value : {"500", "2K", "12x"}) {
    const std::string expected =
        std::string("FLASHCCL_LANES='") + value + "' is not a count from 1 to 64; using the default 64";
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  EXPECT_EQ(text.find("(e.g. 4096"), std::string::npos) << text;
}

// Variables that take one of a few words: a word not in the list is one WARN naming the variable,
// the value, the words and the default, at first use; the default is used. Case does not matter.
TEST_F(ConfigEnv, WordsOutsideTheirListWarnAndFallBack) {
  // {FLASHCCL_DEBUG, FLASHCCL_HANG_ACTION, FLASHCCL_TRACE} as set, then as Config reads them.
  const char* const kCases[][6] = {{"LOUD", "explode", "maybe", "", "report", "1"},
                                   {"info", "ABORT", "Full", "INFO", "abort", "full"}};
  const std::string text = warningsOf([&] {
    for (const auto& c : kCases) {
      setenv("FLASHCCL_DEBUG", c[0], 1);
      setenv("FLASHCCL_HANG_ACTION", c[1], 1);
      setenv("FLASHCCL_TRACE", c[2], 1);
      const Config config = Config::fromEnvironment();
      EXPECT_EQ(config.debug, c[3]) << c[0];
      EXPECT_EQ(config.hangAction, c[4]) << c[1];
      EXPECT_EQ(config.trace, c[5]) << c[2];
    }
    unsetenv("FLASHCCL_DEBUG");  // the log's own level, before logReset() reads it again
  });
  for (const char* expected :
       {"FLASHCCL_DEBUG='LOUD' is not one of VERSION, WARN, INFO, TRACE, ABORT; using the default (unset)",
        "FLASHCCL_HANG_ACTION='explode' is not one of report, abort, revoke",
        "FLASHCCL_TRACE='maybe' is not one of 0, 1, full, off, on; using the default 1"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  EXPECT_NE(text.find("using the default report"), std::string::npos) << text;
  // Valid words in any case raise nothing.
  EXPECT_EQ(text.find("'info'"), std::string::npos) << text;
  EXPECT_EQ(text.find("'Full'"), std::string::npos) << text;
}

// Every variable that takes words is a row of envParams(), with its default among them (or empty).
TEST(EnvTable, WordDefaultsAreAmongTheWords) {
  for (const EnvWords& entry : envWords()) {
    const EnvParam* row = nullptr;
    for (const EnvParam& p : envParams())
      if (std::string(p.name) == entry.name) row = &p;
    ASSERT_NE(row, nullptr) << entry.name << " has words but no row in envParams()";
    if (!*row->defaultValue) continue;
    const std::string words = std::string(" ") + entry.words + " ";
    EXPECT_NE(words.find(std::string(" ") + row->defaultValue + " "), std::string::npos) << entry.name;
  }
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
      // The net plugin's variables (FLASHCCL_SOFTBOND_*) share the page; the plugin reads them
      // itself and its own test keeps them in step (plugins/net-softbond/tests).
      if (m[1].str().rfind("FLASHCCL_SOFTBOND_", 0) == 0) continue;
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
