// The built file itself: the name NCCL derives from NCCL_TUNER_PLUGIN=flashccl, only the four
// plugin symbols exported (our code, pugixml and libstdc++ inlines stay local, so nothing clashes
// with the application or libflashccl), and nothing needed beyond the C and C++ runtimes.
#include <gtest/gtest.h>
#include <stdio.h>

#include <cctype>
#include <set>
#include <sstream>
#include <string>

namespace flashccl {
namespace {

std::string run(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0) << command;
  return output;
}

TEST(PluginLibrary, IsNamedAsNcclLooksForIt) {
  const std::string path = TUNER_PLUGIN_LIBRARY;
  EXPECT_EQ(path.substr(path.rfind('/') + 1), "libnccl-tuner-flashccl.so");
}

TEST(PluginLibrary, ExportsOnlyThePluginStructs) {
  // readelf -W --dyn-syms: Num: Value Size Type Bind Vis Ndx Name
  std::istringstream lines(run("readelf -W --dyn-syms " TUNER_PLUGIN_LIBRARY));
  std::set<std::string> exported;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string num, value, size, type, bind, visibility, ndx, name;
    if (!(fields >> num >> value >> size >> type >> bind >> visibility >> ndx >> name)) continue;
    if (std::isdigit(static_cast<unsigned char>(num[0])) && bind != "LOCAL" && ndx != "UND") {
      exported.insert(name);
    }
  }
  EXPECT_EQ(exported, (std::set<std::string>{"ncclTunerPlugin_v2", "ncclTunerPlugin_v3",
                                             "ncclTunerPlugin_v4", "ncclTunerPlugin_v5"}));
}

TEST(PluginLibrary, NeedsOnlyTheCAndCxxRuntimes) {
  std::istringstream lines(run("readelf -d " TUNER_PLUGIN_LIBRARY));
  const std::set<std::string> allowed = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1"};
  int needed = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    const size_t open = line.find('['), close = line.find(']');
    ASSERT_NE(open, std::string::npos) << line;
    const std::string library = line.substr(open + 1, close - open - 1);
    EXPECT_TRUE(allowed.count(library)) << library << " (no libflashccl, CUDA, NVML or libdl link)";
    ++needed;
  }
  EXPECT_GT(needed, 0);
}

}  // namespace
}  // namespace flashccl
