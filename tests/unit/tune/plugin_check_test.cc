// flashccl tune finds the tuner plugin and makes sure it is flashccl's before sweeping with it.
#include <gtest/gtest.h>

#include "plugin_check.h"

namespace flashccl {
namespace tune {
namespace {

TEST(PluginCheck, TheBuiltPluginIsAccepted) {
  std::string error;
  EXPECT_TRUE(checkTunerPlugin(TUNER_PLUGIN_LIBRARY, &error)) << error;
}

TEST(PluginCheck, AnythingElseIsNamed) {
  std::string error;
  EXPECT_FALSE(checkTunerPlugin("/nonexistent/libnccl-tuner-flashccl.so", &error));
  EXPECT_EQ(error.rfind("the tuner plugin /nonexistent/libnccl-tuner-flashccl.so cannot be loaded: ", 0), 0u) << error;
  EXPECT_FALSE(checkTunerPlugin(NOT_A_TUNER_LIBRARY, &error));
  EXPECT_EQ(error, std::string(NOT_A_TUNER_LIBRARY) + " is not an NCCL tuner plugin (no ncclTunerPlugin_v5 ... v2)");
}

TEST(PluginCheck, SearchedBesideTheCommandInstalledAndBuilt) {
  EXPECT_EQ(pluginSearchPaths("/opt/flashccl/bin/flashccl", ""),
            (std::vector<std::string>{"/opt/flashccl/bin/../lib/libnccl-tuner-flashccl.so",
                                      "/opt/flashccl/bin/../plugins/tuner/libnccl-tuner-flashccl.so"}));
  // NCCL_TUNER_PLUGIN first when it is a path; a bare name is NCCL's library search, not a file here.
  EXPECT_EQ(pluginSearchPaths("/b/tools/flashccl", "/x/libnccl-tuner-flashccl.so").front(),
            "/x/libnccl-tuner-flashccl.so");
  EXPECT_EQ(pluginSearchPaths("/b/tools/flashccl", "flashccl").size(), 2u);
  const std::string built = TUNER_PLUGIN_LIBRARY;
  EXPECT_EQ(firstExistingFile({"/nonexistent.so", built}), built);
  EXPECT_EQ(firstExistingFile({"/nonexistent.so"}), "");
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
