#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "base/log.h"

namespace flashccl {
namespace {

class Log : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override {
    clear();
    logReset();
  }
  static void clear() {
    for (const char* name :
         {"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "FLASHCCL_DEBUG"}) {
      unsetenv(name);
    }
  }
};

TEST_F(Log, WarnsByDefaultButNoInfo) {
  logReset();
  EXPECT_TRUE(logEnabled(LogLevel::kWarn, kLogAll));
  EXPECT_FALSE(logEnabled(LogLevel::kInfo, kLogInit));
}

TEST_F(Log, ExplicitVersionSilencesWarn) {
  setenv("NCCL_DEBUG", "VERSION", 1);
  logReset();
  EXPECT_FALSE(logEnabled(LogLevel::kWarn, kLogAll));
  EXPECT_TRUE(logEnabled(LogLevel::kVersion, kLogAll));
}

TEST_F(Log, InfoHonoursSubsystems) {
  setenv("NCCL_DEBUG", "info", 1);
  logReset();
  EXPECT_TRUE(logEnabled(LogLevel::kInfo, kLogInit));  // default INIT,ENV
  EXPECT_TRUE(logEnabled(LogLevel::kInfo, kLogEnv));
  EXPECT_FALSE(logEnabled(LogLevel::kInfo, kLogColl));
  EXPECT_FALSE(logEnabled(LogLevel::kTrace, kLogInit));
  setenv("NCCL_DEBUG_SUBSYS", "COLL,TUNING,NET", 1);
  logReset();
  EXPECT_TRUE(logEnabled(LogLevel::kInfo, kLogColl));
  EXPECT_TRUE(logEnabled(LogLevel::kInfo, kLogTune));
  EXPECT_FALSE(logEnabled(LogLevel::kInfo, kLogInit));
  setenv("NCCL_DEBUG_SUBSYS", "^COLL", 1);
  logReset();
  EXPECT_FALSE(logEnabled(LogLevel::kInfo, kLogColl));
  EXPECT_TRUE(logEnabled(LogLevel::kInfo, kLogInit));
  EXPECT_TRUE(logEnabled(LogLevel::kInfo, kLogGraph));
  setenv("NCCL_DEBUG_SUBSYS", "ALL", 1);
  logReset();
  EXPECT_TRUE(logEnabled(LogLevel::kInfo, kLogCall));
}

TEST_F(Log, FlashcclDebugOverridesNcclDebug) {
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("FLASHCCL_DEBUG", "WARN", 1);
  logReset();
  EXPECT_FALSE(logEnabled(LogLevel::kInfo, kLogInit));
  setenv("NCCL_DEBUG", "WARN", 1);
  setenv("FLASHCCL_DEBUG", "TRACE", 1);
  logReset();
  EXPECT_TRUE(logEnabled(LogLevel::kTrace, kLogInit));
}

TEST_F(Log, WritesNcclStyleLinesToTheDebugFile) {
  char dir[] = "/tmp/flashccl_logXXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("NCCL_DEBUG_FILE", (std::string(dir) + "/log.%h.%p").c_str(), 1);
  logReset();
  FCCL_INFO(kLogInit, "hello %d", 42);
  FCCL_WARN("careful %s", "now");
  FCCL_INFO(kLogColl, "not shown");

  char host[64] = "";
  gethostname(host, sizeof(host) - 1);
  std::string shortHost(host);
  shortHost = shortHost.substr(0, shortHost.find('.'));
  const std::string path = std::string(dir) + "/log." + shortHost + "." + std::to_string(getpid());
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  const std::string prefix = shortHost + ":" + std::to_string(getpid()) + ":";
  EXPECT_NE(text.str().find(prefix), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("] flashccl INFO hello 42\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("] flashccl WARN log_test.cc:"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("careful now\n"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("not shown"), std::string::npos);
  unlink(path.c_str());
  rmdir(dir);
}

// NCCL opens NCCL_DEBUG_FILE at its first init, which for a non-blocking communicator may end
// after ours started writing: once NCCL has it open, adoptNcclLogFile() makes our lines share its
// descriptor (one offset), so neither writer overwrites the other's lines.
TEST_F(Log, JoinsTheDebugFileNcclOpenedLater) {
  char dir[] = "/tmp/flashccl_logXXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/nccl.log";
  setenv("NCCL_DEBUG", "WARN", 1);
  setenv("NCCL_DEBUG_FILE", path.c_str(), 1);
  logReset();
  FCCL_WARN("ours-0");  // our own FILE, at offset 0
  const int nccl = open(path.c_str(), O_WRONLY | O_TRUNC);  // "NCCL" opens it as NCCL does
  ASSERT_GE(nccl, 0);
  ASSERT_EQ(write(nccl, "nccl-1\n", 7), 7);
  adoptNcclLogFile();
  FCCL_WARN("ours-1");
  ASSERT_EQ(write(nccl, "nccl-2\n", 7), 7);
  adoptNcclLogFile();  // joined already: nothing changes
  FCCL_WARN("ours-2");
  close(nccl);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const size_t n1 = all.find("nccl-1\n"), o1 = all.find("ours-1\n"), n2 = all.find("nccl-2\n"),
               o2 = all.find("ours-2\n");
  ASSERT_NE(n1, std::string::npos) << all;
  ASSERT_NE(o1, std::string::npos) << all;
  ASSERT_NE(n2, std::string::npos) << all;
  ASSERT_NE(o2, std::string::npos) << all;
  EXPECT_LT(n1, o1) << all;
  EXPECT_LT(o1, n2) << all;
  EXPECT_LT(n2, o2) << all;
  unlink(path.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace flashccl
