// The lines flashccl tune reads in NCCL's log come from the built plugin itself: it is loaded
// (dlopen, as NCCL does) and called as NCCL calls it, its log lines are written as NCCL writes them
// ("... NCCL INFO <message>"), and tune's reader must find in them what the sweep depends on: the
// init line (ranks and nodes as NCCL gave them), a refused forced choice, a table's rows in use.
#include <gtest/gtest.h>
#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "nccl_log.h"
#include "nccl_tuner_abi.h"

namespace flashccl {
namespace tune {
namespace {

std::string gLog;

void ncclLogger(nccl_abi::LogLevel level, unsigned long, const char* file, int line, const char* fmt, ...) {
  char text[4096];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  // NCCL 2.28's shapes (src/debug.cc): WARN lines start with a newline and name the file.
  if (level == nccl_abi::kLogWarn)
    gLog += "\nhost:1:2 [0] " + std::string(file) + ":" + std::to_string(line) + " NCCL WARN " + text + "\n";
  else
    gLog += "host:1:2 [0] NCCL INFO " + std::string(text) + "\n";
}

const nccl_abi::TunerV5* plugin() {
  static void* handle = dlopen(TUNER_PLUGIN_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  return handle ? static_cast<const nccl_abi::TunerV5*>(dlsym(handle, "ncclTunerPlugin_v5")) : nullptr;
}

// A communicator's life as NCCL lives it: init, one call of `coll` with `bytes` against a cost
// table where `refusedAlgorithm` is unusable, finalize. Returns what was logged.
std::string communicator(int ranks, int nodes, nccl_abi::Func coll, size_t bytes, int refusedAlgorithm) {
  gLog.clear();
  void* context = nullptr;
  EXPECT_EQ(plugin()->init(&context, 1, size_t(ranks), size_t(nodes), ncclLogger, nullptr, nullptr), ncclSuccess);
  float cells[nccl_abi::kNumAlgorithms][nccl_abi::kNumProtocols];
  for (auto& row : cells)
    for (float& cell : row) cell = 10.0f;
  for (float& cell : cells[refusedAlgorithm]) cell = nccl_abi::kCostIgnore;
  int channels = 16;
  EXPECT_EQ(plugin()->getCollInfo(context, coll, bytes, 1, reinterpret_cast<float**>(cells), nccl_abi::kNumAlgorithms,
                                  nccl_abi::kNumProtocols, 0, &channels),
            ncclSuccess);
  plugin()->finalize(context);
  return gLog;
}

class PluginLines : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(plugin(), nullptr) << dlerror();
    for (const char* name : {"FLASHCCL_TUNER_FORCE", "FLASHCCL_TUNER_FILE", "FLASHCCL_TOPO_FILE"}) unsetenv(name);
  }
  void TearDown() override { unsetenv("FLASHCCL_TUNER_FORCE"); unsetenv("FLASHCCL_TUNER_FILE"); }
};

TEST_F(PluginLines, TheBaselinesInitLineGivesRanksAndNodes) {
  setenv("FLASHCCL_TUNER_FORCE", "nccl", 1);
  const NcclLog log = parseNcclLog(communicator(2, 2, nccl_abi::kFuncAllReduce, 4096, nccl_abi::kAlgoPat));
  ASSERT_EQ(log.inits.size(), 1u) << gLog;
  EXPECT_EQ(log.inits[0].ranks, 2);
  EXPECT_EQ(log.inits[0].nodes, 2);
  EXPECT_EQ(log.inits[0].rowsApplied, 1);
  EXPECT_TRUE(log.unavailable.empty());
  EXPECT_TRUE(log.pluginWarnings.empty()) << gLog;
}

TEST_F(PluginLines, AForcedChoiceNcclRefusesIsSeen) {
  setenv("FLASHCCL_TUNER_FORCE", "tree:ll:2", 1);
  const NcclLog log = parseNcclLog(communicator(8, 1, nccl_abi::kFuncAllGather, 1 << 20, nccl_abi::kAlgoTree));
  ASSERT_EQ(log.unavailable.size(), 1u) << gLog;
  EXPECT_EQ(log.unavailable[0].collective, "allgather");
  EXPECT_EQ(log.unavailable[0].bytes, 1u << 20);
  EXPECT_EQ(log.unavailable[0].algorithm, "tree");
  EXPECT_EQ(log.unavailable[0].protocol, "ll");
  EXPECT_TRUE(log.pluginWarnings.empty()) << "a refusal is not a broken setting";
  // Made where NCCL can: nothing to see but the init line.
  EXPECT_TRUE(parseNcclLog(communicator(8, 1, nccl_abi::kFuncAllReduce, 1 << 20, nccl_abi::kAlgoPat)).unavailable.empty());
}

TEST_F(PluginLines, ABrokenSettingIsAWarningThatStopsTheSweep) {
  setenv("FLASHCCL_TUNER_FORCE", "ring:ll129", 1);
  const NcclLog log = parseNcclLog(communicator(2, 1, nccl_abi::kFuncAllReduce, 64, nccl_abi::kAlgoPat));
  ASSERT_EQ(log.pluginWarnings.size(), 1u) << gLog;
  EXPECT_NE(log.pluginWarnings[0].find("FLASHCCL_TUNER_FORCE"), std::string::npos);
}

TEST_F(PluginLines, ATablesRowsInUse) {
  const std::string path = testing::TempDir() + "/plugin-lines.xml";
  std::ofstream(path) << "<tuning ranks=\"2\" nodes=\"1\"><row coll=\"allreduce\" algorithm=\"ring\" "
                         "protocol=\"ll\"/><row coll=\"allgather\" ranks=\"8\" algorithm=\"ring\" protocol=\"ll\"/>"
                         "</tuning>\n";
  setenv("FLASHCCL_TUNER_FILE", path.c_str(), 1);
  const NcclLog log = parseNcclLog(communicator(2, 1, nccl_abi::kFuncAllReduce, 64, nccl_abi::kAlgoPat));
  ASSERT_EQ(log.inits.size(), 1u) << gLog;
  EXPECT_EQ(log.inits[0].rowsApplied, 1);
  EXPECT_EQ(log.inits[0].rowsInTable, 2);
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
