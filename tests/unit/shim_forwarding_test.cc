// An ordinary NCCL application (linked with -lnccl) with libflashccl.so preloaded: every call
// reaches the real NCCL and comes back with the real answer.
#include <gtest/gtest.h>

#include <nccl.h>

#include <map>
#include <string>
#include <vector>

#include "run_child.h"

namespace flashccl {
namespace {

using testing::ChildResult;
using testing::runChild;

class PreloadedApp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(FLASHCCL_PROBE_NCCL).empty()) GTEST_SKIP() << "no libnccl.so.2 to link with";
  }
  static ChildResult run(const std::vector<std::string>& commands,
                         std::map<std::string, std::string> env = {}, bool preload = true) {
    std::vector<std::string> argv = {FLASHCCL_PROBE_NCCL};
    argv.insert(argv.end(), commands.begin(), commands.end());
    if (preload) env["LD_PRELOAD"] = FLASHCCL_SHARED_LIBRARY;
    return runChild(argv, env);
  }
};

TEST_F(PreloadedApp, GetVersionReportsTheRealNccl) {
  ChildResult plain = run({"version"}, {}, /*preload=*/false);
  ChildResult shim = run({"version", "path"});
  ASSERT_EQ(shim.exitCode, 0) << shim.err;
  EXPECT_EQ(shim.value("version"), plain.value("version"));
  EXPECT_EQ(shim.value("version"), "0," + std::to_string(NCCL_VERSION_CODE));
  EXPECT_NE(shim.value("path"), "(no flashccl)");
  EXPECT_NE(shim.value("path"), "");
}

TEST_F(PreloadedApp, ErrorStringAndUniqueIdAreForwarded) {
  ChildResult plain = run({"errstr", "uniqueid"}, {}, false);
  ChildResult shim = run({"errstr", "uniqueid"});
  ASSERT_EQ(shim.exitCode, 0) << shim.err;
  EXPECT_EQ(shim.value("errstr"), plain.value("errstr"));
  EXPECT_EQ(shim.value("uniqueid"), plain.value("uniqueid"));
}

TEST_F(PreloadedApp, InitRankWithoutGpuReturnsTheRealError) {
  // No GPU here: NCCL fails the init. Through the shim the app must get the same code, not a
  // crash, and no communicator may be left in our table.
  ChildResult plain = run({"initrank1"}, {}, false);
  ChildResult shim = run({"initrank1", "state"});
  ASSERT_EQ(shim.exitCode, 0) << "signal " << shim.signal << "\n" << shim.err;
  EXPECT_EQ(shim.value("initrank1"), plain.value("initrank1"));
  if (plain.value("initrank1").rfind("0,", 0) != 0) EXPECT_EQ(shim.value("state"), "-2,");
}

TEST_F(PreloadedApp, BannerAtInfo) {
  ChildResult shim = run({"version"}, {{"NCCL_DEBUG", "INFO"}});
  ASSERT_EQ(shim.exitCode, 0) << shim.err;
  const std::string banner = std::string("flashccl ") + FLASHCCL_VERSION_STRING +
                             " active over NCCL " + std::to_string(NCCL_MAJOR) + "." +
                             std::to_string(NCCL_MINOR) + "." + std::to_string(NCCL_PATCH);
  EXPECT_NE(shim.err.find(banner), std::string::npos) << shim.err;
  EXPECT_NE(shim.err.find("found by dlsym(RTLD_NEXT)"), std::string::npos) << shim.err;
  EXPECT_NE(shim.err.find(" flashccl INFO "), std::string::npos) << shim.err;
}

TEST_F(PreloadedApp, SilentByDefault) {
  ChildResult shim = run({"version", "errstr"});
  ASSERT_EQ(shim.exitCode, 0);
  EXPECT_EQ(shim.err.find("flashccl"), std::string::npos) << shim.err;
}

TEST_F(PreloadedApp, DisableIsPurePassThrough) {
  ChildResult shim = run({"version", "initrank1", "state"},
                         {{"FLASHCCL_DISABLE", "1"}, {"NCCL_DEBUG", "INFO"}});
  ChildResult plain = run({"version", "initrank1"}, {}, false);
  ASSERT_EQ(shim.exitCode, 0) << shim.err;
  EXPECT_EQ(shim.value("version"), plain.value("version"));
  EXPECT_EQ(shim.value("initrank1"), plain.value("initrank1"));
  EXPECT_EQ(shim.value("state"), "-2,");
  EXPECT_NE(shim.err.find("pure pass-through"), std::string::npos) << shim.err;
}

}  // namespace
}  // namespace flashccl
