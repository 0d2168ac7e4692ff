// libnccl-tuner-flashccl.so as NCCL uses it: dlopen(RTLD_NOW | RTLD_LOCAL), dlsym of
// ncclTunerPlugin_v5 .. v2, init per communicator with NCCL's logger, getCollInfo with a real
// contiguous float[7][3] cost table passed as float** (cells NCCL cannot use at -1), finalize.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdarg.h>
#include <stdlib.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/nccl_version_text.h"
#include "nccl_tuner_abi.h"
#include "support/temp_dir.h"
#include "tuning_table.h"

namespace flashccl {
namespace {

using namespace nccl_abi;

// ---- NCCL's side: its logger and its cost table --------------------------------------------

struct LogLine {
  LogLevel level;
  unsigned long flags;
  std::string text;
};
std::vector<LogLine> logLines;

void captureLog(LogLevel level, unsigned long flags, const char* /*file*/, int /*line*/,
                const char* fmt, ...) {
  char text[4096];
  va_list args;
  va_start(args, fmt);
  vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  logLines.push_back({level, flags, text});
}

std::vector<std::string> linesAt(LogLevel level) {
  std::vector<std::string> lines;
  for (const LogLine& line : logLines) {
    if (line.level == level) lines.push_back(line.text);
  }
  return lines;
}

// NCCL's stack array; every cell a distinct positive estimate unless marked unavailable.
struct CostTable {
  float cells[kNumAlgorithms][kNumProtocols];

  // As on an 8-GPU PCIe box: no CollNet, no NVLS, no LL128 (PCIe), PAT only at 1 GPU per node.
  static CostTable pcieBox() {
    CostTable table;
    for (int a = 0; a < kNumAlgorithms; ++a) {
      for (int p = 0; p < kNumProtocols; ++p) table.cells[a][p] = 10.0f + float(a * kNumProtocols + p);
    }
    for (int a : {kAlgoCollNetDirect, kAlgoCollNetChain, kAlgoNvls, kAlgoNvlsTree, kAlgoPat}) {
      for (int p = 0; p < kNumProtocols; ++p) table.cells[a][p] = kCostIgnore;
    }
    table.cells[kAlgoTree][kProtoLL128] = kCostIgnore;
    table.cells[kAlgoRing][kProtoLL128] = kCostIgnore;
    return table;
  }
  // Every cell usable.
  static CostTable everything() {
    CostTable table;
    for (int a = 0; a < kNumAlgorithms; ++a) {
      for (int p = 0; p < kNumProtocols; ++p) table.cells[a][p] = 10.0f + float(a * kNumProtocols + p);
    }
    return table;
  }
  float** forNccl() { return reinterpret_cast<float**>(cells); }
  bool operator==(const CostTable& other) const {
    return std::memcmp(cells, other.cells, sizeof(cells)) == 0;
  }
};

// The one cell that changed, which must have become 0.0, or {-1, -1} when none did.
std::pair<int, int> chosenCell(const CostTable& before, const CostTable& after) {
  std::pair<int, int> chosen{-1, -1};
  for (int a = 0; a < kNumAlgorithms; ++a) {
    for (int p = 0; p < kNumProtocols; ++p) {
      if (before.cells[a][p] == after.cells[a][p]) continue;
      EXPECT_EQ(chosen.first, -1) << "more than one cell changed";
      EXPECT_EQ(after.cells[a][p], 0.0f) << "a changed cell must be 0.0";
      EXPECT_GE(before.cells[a][p], 0.0f) << "an unavailable cell was changed";
      chosen = {a, p};
    }
  }
  return chosen;
}

// ---- the plugin, loaded once per process as NCCL loads it -----------------------------------

void* pluginHandle() {
  static void* handle = dlopen(TUNER_PLUGIN_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  return handle;
}

template <typename Plugin>
const Plugin* plugin(const char* symbol) {
  return static_cast<const Plugin*>(dlsym(pluginHandle(), symbol));
}

const TunerV5* v5() { return plugin<TunerV5>("ncclTunerPlugin_v5"); }

class TunerPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(pluginHandle(), nullptr) << dlerror();
    for (const char* name : {"FLASHCCL_TUNER_FORCE", "FLASHCCL_TUNER_FILE", "FLASHCCL_TOPO_FILE",
                             "FLASHCCL_FAKE_NVML_MACHINE", "FLASHCCL_TABLE_DIR"}) {
      unsetenv(name);
    }
    // The per-user cache of whoever runs the tests holds no table these tests see.
    setenv("XDG_CACHE_HOME", (dir_.path() + "/empty-cache").c_str(), 1);
    logLines.clear();
  }
  void TearDown() override {
    for (void* context : contexts_) EXPECT_EQ(v5()->finalize(context), ncclSuccess);
  }

  // A v5 init, as NCCL runs it for a new communicator.
  void* init(size_t nRanks, size_t nNodes) {
    void* context = nullptr;
    NvlDomainInfoV5 domains{int(nNodes), int(nRanks / nNodes), int(nRanks / nNodes)};
    EXPECT_EQ(v5()->init(&context, 0x1234, nRanks, nNodes, captureLog, &domains, nullptr), ncclSuccess);
    EXPECT_NE(context, nullptr);
    contexts_.push_back(context);
    return context;
  }

  void useTable(const std::string& text) {
    setenv("FLASHCCL_TUNER_FILE", dir_.write("table.xml", text).c_str(), 1);
  }

  struct Outcome {
    std::pair<int, int> cell;  // {-1, -1}: untouched
    int channels;
  };
  Outcome ask(void* context, int coll, size_t bytes, CostTable table = CostTable::pcieBox(),
              int numPipeOps = 1, int regBuff = 0) {
    const CostTable before = table;
    int channels = 0;  // what NCCL passes in
    EXPECT_EQ(v5()->getCollInfo(context, Func(coll), bytes, numPipeOps, table.forNccl(),
                                kNumAlgorithms, kNumProtocols, regBuff, &channels),
              ncclSuccess);
    return {chosenCell(before, table), channels};
  }

  testing::TempDir dir_;
  std::vector<void*> contexts_;
};

const std::pair<int, int> kUntouched{-1, -1};

TEST_F(TunerPlugin, ExportsEveryVersionNcclLooksFor) {
  const char* const symbols[] = {"ncclTunerPlugin_v5", "ncclTunerPlugin_v4", "ncclTunerPlugin_v3",
                                 "ncclTunerPlugin_v2"};
  for (const char* symbol : symbols) {
    const TunerV2* any = plugin<TunerV2>(symbol);  // name first in every version
    ASSERT_NE(any, nullptr) << symbol;
    EXPECT_STREQ(any->name, "flashccl") << symbol;
    EXPECT_NE(any->init, nullptr);
    EXPECT_NE(any->getCollInfo, nullptr);
    EXPECT_NE(any->destroy, nullptr);
  }
  EXPECT_EQ(dlsym(pluginHandle(), "ncclTunerPlugin_v6"), nullptr);
}

const char* const kTable = R"(<tuning ranks="8" nodes="1">
  <group coll="allreduce">
    <row maxBytes="64K" algorithm="tree" protocol="ll" channels="4"/>
    <row minBytes="64K" maxBytes="16M" algorithm="ring" protocol="ll"/>
    <row minBytes="16M" algorithm="ring" protocol="simple" channels="16"/>
  </group>
  <row coll="allgather" minBytes="1M" algorithm="ring" protocol="simple" channels="8"/>
  <row coll="reducescatter" maxBytes="1M" algorithm="ring" protocol="ll"/>
  <row coll="broadcast" algorithm="nccl" channels="2"/>
  <row coll="reduce" minBytes="4K" maxBytes="8K" algorithm="tree" protocol="simple" channels="3"/>
</tuning>
)";

// What kTable says, written out independently of the plugin's matcher.
struct Expected {
  std::pair<int, int> cell;
  int channels;
};
Expected expectedFromTable(int coll, size_t bytes) {
  const size_t k = 1024, m = 1024 * 1024;
  switch (coll) {
    case kFuncAllReduce:
      if (bytes <= 64 * k) return {{kAlgoTree, kProtoLL}, 4};
      if (bytes <= 16 * m) return {{kAlgoRing, kProtoLL}, 0};
      return {{kAlgoRing, kProtoSimple}, 16};
    case kFuncAllGather:
      return bytes >= m ? Expected{{kAlgoRing, kProtoSimple}, 8} : Expected{kUntouched, 0};
    case kFuncReduceScatter:
      return bytes <= m ? Expected{{kAlgoRing, kProtoLL}, 0} : Expected{kUntouched, 0};
    case kFuncBroadcast:
      return {kUntouched, 2};  // NCCL's algorithm, 2 channels
    case kFuncReduce:
      return bytes >= 4 * k && bytes <= 8 * k ? Expected{{kAlgoTree, kProtoSimple}, 3}
                                              : Expected{kUntouched, 0};
  }
  return {kUntouched, 0};
}

std::vector<size_t> manySizes() {
  std::vector<size_t> sizes = {0, 1, 4095, 4096, 8192, 8193, 65535, 65536, 65537,
                               (1u << 20) - 1, 1u << 20, (1u << 20) + 1, 16u << 20, (16u << 20) + 1};
  for (size_t bytes = 4; bytes <= (size_t(16) << 30); bytes *= 4) sizes.push_back(bytes);
  return sizes;
}

TEST_F(TunerPlugin, TableRowsSetTheirCellAndChannelsForEveryCollectiveAndSize) {
  useTable(kTable);
  void* context = init(8, 1);
  EXPECT_TRUE(linesAt(kLogWarn).empty());
  for (int coll = 0; coll < kNumTunedFuncs; ++coll) {
    for (size_t bytes : manySizes()) {
      const Expected expected = expectedFromTable(coll, bytes);
      const Outcome outcome = ask(context, coll, bytes, CostTable::everything());
      EXPECT_EQ(outcome.cell, expected.cell) << collectiveName(coll) << " " << bytes;
      EXPECT_EQ(outcome.channels, expected.channels) << collectiveName(coll) << " " << bytes;
    }
  }
}

TEST_F(TunerPlugin, InitSaysWhichTableAndHowManyRowsApply) {
  useTable(kTable);
  init(8, 1);
  init(4, 1);
  const std::vector<std::string> info = linesAt(kLogInfo);
  ASSERT_EQ(info.size(), 2u);
  const std::string file = dir_.path() + "/table.xml";
  EXPECT_EQ(info[0], "TUNER/flashccl: flashccl tuner " FLASHCCL_VERSION_STRING
                     ": 7 of 7 rows apply to 8 ranks, 1 nodes (FLASHCCL_TUNER_FILE=" + file + ")");
  EXPECT_EQ(info[1], "TUNER/flashccl: flashccl tuner " FLASHCCL_VERSION_STRING
                     ": 0 of 7 rows apply to 4 ranks, 1 nodes (FLASHCCL_TUNER_FILE=" + file + ")");
  EXPECT_EQ(logLines[0].flags, kSubsysInit | kSubsysTuning);
}

TEST_F(TunerPlugin, UnmatchedCallsLeaveTheTableAndChannelsAlone) {
  useTable(kTable);
  void* otherRanks = init(4, 1);  // the rows are for 8 ranks on 1 node
  void* otherNodes = init(8, 2);
  for (void* context : {otherRanks, otherNodes}) {
    for (int coll = 0; coll < kNumTunedFuncs; ++coll) {
      for (size_t bytes : manySizes()) {
        const Outcome outcome = ask(context, coll, bytes, CostTable::everything());
        EXPECT_EQ(outcome.cell, kUntouched);
        EXPECT_EQ(outcome.channels, 0) << "an unmatched call must keep NCCL's channel count";
      }
    }
  }
}

TEST_F(TunerPlugin, CellsNcclMarkedUnavailableAreNeverTouched) {
  useTable(R"(<tuning>
  <row coll="allreduce" maxBytes="1M" algorithm="ring" protocol="ll128" channels="6"/>
  <row coll="allgather" algorithm="collnet_direct" protocol="simple"/>
</tuning>)");
  void* context = init(8, 1);
  CostTable table = CostTable::pcieBox();  // LL128 and CollNet at -1
  const CostTable before = table;
  int channels = 0;
  for (int coll : {kFuncAllReduce, kFuncAllGather}) {
    for (int repeat = 0; repeat < 3; ++repeat) {
      EXPECT_EQ(v5()->getCollInfo(context, Func(coll), 4096, 1, table.forNccl(), kNumAlgorithms,
                                  kNumProtocols, 0, &channels),
                ncclSuccess);
    }
  }
  EXPECT_TRUE(table == before);
  EXPECT_EQ(channels, 0) << "the row's channels belong to its choice, which NCCL cannot make";
  // Said once per row at INFO (a table may name cells NCCL_PROTO excludes on purpose).
  const std::vector<std::string> info = linesAt(kLogInfo);
  ASSERT_EQ(info.size(), 3u);
  EXPECT_EQ(info[1], "TUNER/flashccl: allreduce 4096 bytes: ring/ll128 is not available to this "
                     "communicator (NCCL marks it unusable); NCCL's own choice is kept (table.xml:2)");
  EXPECT_TRUE(linesAt(kLogWarn).empty());
}

TEST_F(TunerPlugin, AFlatTableOfAnotherShapeIsIndexedByItsOwnWidth) {
  // NCCL passes numAlgo and numProto; the cell is at [algorithm * numProto + protocol].
  useTable(R"(<tuning><row coll="allreduce" algorithm="ring" protocol="simple"/></tuning>)");
  void* context = init(8, 1);
  float cells[kNumAlgorithms][4];
  for (auto& row : cells) {
    for (float& cell : row) cell = 5.0f;
  }
  int channels = 0;
  EXPECT_EQ(v5()->getCollInfo(context, kFuncAllReduce, 64, 1, reinterpret_cast<float**>(cells),
                              kNumAlgorithms, 4, 0, &channels),
            ncclSuccess);
  EXPECT_EQ(cells[kAlgoRing][kProtoSimple], 0.0f);
  EXPECT_EQ(cells[kAlgoRing][3], 5.0f);
  // A table too small for the row's cell is left alone.
  EXPECT_EQ(v5()->getCollInfo(context, kFuncAllReduce, 64, 1, reinterpret_cast<float**>(cells),
                              kNumAlgorithms, 2, 0, &channels),
            ncclSuccess);
  EXPECT_EQ(cells[kAlgoRing][0], 5.0f);
}

TEST_F(TunerPlugin, PipelinedOpsAndRegisteredBuffersPickTheirRows) {
  useTable(R"(<tuning coll="allreduce">
  <row pipeOps="4" algorithm="tree" protocol="simple"/>
  <row regBuff="yes" algorithm="ring" protocol="ll" channels="2"/>
  <row regBuff="no" pipeOps="1" algorithm="ring" protocol="simple"/>
</tuning>)");
  void* context = init(2, 1);
  EXPECT_EQ(ask(context, kFuncAllReduce, 4096, CostTable::pcieBox(), 4, 0).cell,
            std::make_pair(int(kAlgoTree), int(kProtoSimple)));
  const Outcome registered = ask(context, kFuncAllReduce, 4096, CostTable::pcieBox(), 1, 1);
  EXPECT_EQ(registered.cell, std::make_pair(int(kAlgoRing), int(kProtoLL)));
  EXPECT_EQ(registered.channels, 2);
  EXPECT_EQ(ask(context, kFuncAllReduce, 4096, CostTable::pcieBox(), 1, 0).cell,
            std::make_pair(int(kAlgoRing), int(kProtoSimple)));
  EXPECT_EQ(ask(context, kFuncAllReduce, 4096, CostTable::pcieBox(), 2, 0).cell, kUntouched);
}

TEST_F(TunerPlugin, AppliedRowsAreLoggedOncePerRowAndCollective) {
  setenv("FLASHCCL_TUNER_FORCE", "ring:simple:3", 1);
  void* context = init(2, 2);
  for (int repeat = 0; repeat < 3; ++repeat) {
    ask(context, kFuncAllReduce, 1024);
    ask(context, kFuncBroadcast, 2048);
  }
  const std::vector<std::string> info = linesAt(kLogInfo);
  ASSERT_EQ(info.size(), 3u);
  EXPECT_EQ(info[1], "TUNER/flashccl: allreduce 1024 bytes (2 ranks, 2 nodes, 1 pipelined ops, "
                     "regBuff 0) -> ring/simple, 3 channels (FLASHCCL_TUNER_FORCE entry 1 "
                     "'ring:simple:3'; logged once per row and collective)");
  EXPECT_EQ(info[2].rfind("TUNER/flashccl: broadcast 2048 bytes", 0), 0u) << info[2];
  EXPECT_EQ(logLines[1].flags, kSubsysTuning);
}

TEST_F(TunerPlugin, ForcedChoiceAppliesToEveryCallItNames) {
  setenv("FLASHCCL_TUNER_FORCE", "allreduce:tree:ll:2,ring:simple", 1);
  setenv("FLASHCCL_TUNER_FILE", dir_.write("ignored.xml", kTable).c_str(), 1);  // force wins
  void* context = init(16, 2);
  for (size_t bytes : manySizes()) {
    const Outcome allreduce = ask(context, kFuncAllReduce, bytes);
    EXPECT_EQ(allreduce.cell, std::make_pair(int(kAlgoTree), int(kProtoLL)));
    EXPECT_EQ(allreduce.channels, 2);
    for (int coll : {kFuncBroadcast, kFuncReduce, kFuncAllGather, kFuncReduceScatter}) {
      const Outcome other = ask(context, coll, bytes);
      EXPECT_EQ(other.cell, std::make_pair(int(kAlgoRing), int(kProtoSimple)));
      EXPECT_EQ(other.channels, 0);
    }
  }
  EXPECT_TRUE(linesAt(kLogWarn).empty());
}

TEST_F(TunerPlugin, AForcedChoiceNcclCannotMakeIsAWarningOncePerCollective) {
  setenv("FLASHCCL_TUNER_FORCE", "ring:ll128:4", 1);  // LL128 is -1 on a PCIe box
  void* context = init(8, 1);
  for (int repeat = 0; repeat < 3; ++repeat) {
    for (int coll : {kFuncAllReduce, kFuncAllGather}) {
      const Outcome outcome = ask(context, coll, 1 << 20);
      EXPECT_EQ(outcome.cell, kUntouched);
      EXPECT_EQ(outcome.channels, 0);
    }
  }
  const std::vector<std::string> warnings = linesAt(kLogWarn);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "TUNER/flashccl: allreduce 1048576 bytes: ring/ll128 is not available to "
                         "this communicator (NCCL marks it unusable); NCCL's own choice is kept "
                         "(FLASHCCL_TUNER_FORCE entry 1 'ring:ll128:4')");
  EXPECT_EQ(warnings[1].rfind("TUNER/flashccl: allgather 1048576 bytes: ring/ll128", 0), 0u);
}

// A table that cannot be used: init and every getCollInfo still succeed, exactly one WARN names
// the file, the line and the problem, and NCCL's choices stay untouched.
struct BadTable {
  const char* name;
  const char* text;       // written to table.xml; nullptr: FLASHCCL_TUNER_FILE names no file
  const char* force;      // FLASHCCL_TUNER_FORCE instead, when set
  const char* warning;    // expected after "TUNER/flashccl: "; $F is the table's path
};

// Named in test lists by its case name, not its bytes.
void PrintTo(const BadTable& c, std::ostream* os) { *os << c.name; }

const BadTable kBadTables[] = {
    {"MalformedXml", "<tuning>\n  <row coll=\"allreduce\" algorithm=\"ring\"\n</tuning>\n", nullptr,
     "$F:3: XML error: Error parsing start element tag (FLASHCCL_TUNER_FILE=$F); the table is not "
     "used, NCCL keeps its own choices"},
    {"BadNumber", "<tuning>\n<row coll=\"allreduce\" maxBytes=\"64Q\" algorithm=\"ring\" protocol=\"ll\"/>\n</tuning>",
     nullptr,
     "$F:2: maxBytes=\"64Q\" is not a size (bytes, or a number with K, M, G or T) "
     "(FLASHCCL_TUNER_FILE=$F); the table is not used, NCCL keeps its own choices"},
    {"BadChannels", "<tuning>\n\n<row coll=\"allreduce\" algorithm=\"ring\" protocol=\"ll\" channels=\"8.5\"/>\n</tuning>",
     nullptr,
     "$F:3: channels=\"8.5\" is not a channel count (0 or absent: NCCL's own) "
     "(FLASHCCL_TUNER_FILE=$F); the table is not used, NCCL keeps its own choices"},
    {"UnknownAlgorithm", "<tuning>\n<row coll=\"allreduce\" algorithm=\"rings\" protocol=\"ll\"/>\n</tuning>",
     nullptr,
     "$F:2: unknown algorithm 'rings' (expected tree, ring, collnet_direct, collnet_chain, nvls, "
     "nvls_tree, pat or nccl) (FLASHCCL_TUNER_FILE=$F); the table is not used, NCCL keeps its own "
     "choices"},
    {"UnknownCollective", "<tuning>\n<row coll=\"all_reduce\" algorithm=\"ring\" protocol=\"ll\"/>\n</tuning>",
     nullptr,
     "$F:2: unknown collective 'all_reduce' (expected broadcast, reduce, allgather, reducescatter or "
     "allreduce) (FLASHCCL_TUNER_FILE=$F); the table is not used, NCCL keeps its own choices"},
    {"OverlappingRows",
     "<tuning coll=\"allreduce\">\n<row maxBytes=\"1M\" algorithm=\"ring\" protocol=\"ll\"/>\n"
     "<row minBytes=\"64K\" maxBytes=\"4M\" algorithm=\"ring\" protocol=\"simple\"/>\n</tuning>",
     nullptr,
     "$F:3: overlaps table.xml:2 (both match allreduce calls from 65536 to 1048576 bytes) "
     "(FLASHCCL_TUNER_FILE=$F); the table is not used, NCCL keeps its own choices"},
    {"MissingFile", nullptr, nullptr,
     "FLASHCCL_TUNER_FILE=$F: no such file, and no topology of that name in " FLASHCCL_SOURCE_DIR
     "/topologies; NCCL keeps its own choices"},
    {"BadForce", nullptr, "allreduce:ring:ll:eight",
     "FLASHCCL_TUNER_FORCE=\"allreduce:ring:ll:eight\": entry 1 'allreduce:ring:ll:eight': 'eight' "
     "is not a channel count; nothing is forced, NCCL keeps its own choices"},
};

class BadTableTest : public TunerPlugin, public ::testing::WithParamInterface<BadTable> {};

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

TEST_P(BadTableTest, IsOneWarningAndNcclKeepsItsChoices) {
  const BadTable& bad = GetParam();
  const std::string path = dir_.path() + "/table.xml";
  if (bad.force != nullptr) {
    setenv("FLASHCCL_TUNER_FORCE", bad.force, 1);
  } else if (bad.text != nullptr) {
    useTable(bad.text);
  } else {
    setenv("FLASHCCL_TUNER_FILE", path.c_str(), 1);
  }
  void* context = init(8, 1);
  const std::vector<std::string> warnings = linesAt(kLogWarn);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "TUNER/flashccl: " + replaceAll(bad.warning, "$F", path));
  for (int coll = 0; coll < kNumTunedFuncs; ++coll) {
    for (size_t bytes : manySizes()) {
      const Outcome outcome = ask(context, coll, bytes);
      EXPECT_EQ(outcome.cell, kUntouched);
      EXPECT_EQ(outcome.channels, 0);
    }
  }
  EXPECT_EQ(linesAt(kLogWarn).size(), 1u) << "getCollInfo adds no warnings of its own";
}

INSTANTIATE_TEST_SUITE_P(Cases, BadTableTest, ::testing::ValuesIn(kBadTables),
                         [](const ::testing::TestParamInfo<BadTable>& info) {
                           return std::string(info.param.name);
                         });

TEST_F(TunerPlugin, TheOlderVersionsApplyTheSameTable) {
  useTable(R"(<tuning coll="allreduce">
  <row regBuff="yes" algorithm="tree" protocol="ll"/>
  <row maxBytes="1M" algorithm="ring" protocol="ll" channels="2"/>
  <row minBytes="1M" algorithm="collnet_chain" protocol="simple"/>
</tuning>)");

  // v4: v5's getCollInfo behind the older init.
  const TunerV4* v4 = plugin<TunerV4>("ncclTunerPlugin_v4");
  void* context = nullptr;
  ASSERT_EQ(v4->init(8, 1, captureLog, &context), ncclSuccess);
  CostTable table = CostTable::pcieBox();
  int channels = 0;
  EXPECT_EQ(v4->getCollInfo(context, kFuncAllReduce, 4096, 1, table.forNccl(), kNumAlgorithms,
                            kNumProtocols, 1, &channels),
            ncclSuccess);
  EXPECT_EQ(table.cells[kAlgoTree][kProtoLL], 0.0f);
  EXPECT_EQ(v4->destroy(context), ncclSuccess);

  // v3: no regBuff, so the registered-buffer row never applies.
  const TunerV3* v3 = plugin<TunerV3>("ncclTunerPlugin_v3");
  ASSERT_EQ(v3->init(8, 1, captureLog, &context), ncclSuccess);
  table = CostTable::pcieBox();
  EXPECT_EQ(v3->getCollInfo(context, kFuncAllReduce, 4096, 1, table.forNccl(), kNumAlgorithms,
                            kNumProtocols, &channels),
            ncclSuccess);
  EXPECT_EQ(table.cells[kAlgoRing][kProtoLL], 0.0f);
  EXPECT_EQ(table.cells[kAlgoTree][kProtoLL], CostTable::pcieBox().cells[kAlgoTree][kProtoLL]);
  EXPECT_EQ(channels, 2);
  EXPECT_EQ(v3->destroy(context), ncclSuccess);

  // v2: no cost table; the plugin names the choice, and NCCL says whether CollNet can run.
  const TunerV2* v2 = plugin<TunerV2>("ncclTunerPlugin_v2");
  ASSERT_EQ(v2->init(8, 1, captureLog, &context), ncclSuccess);
  int algorithm = kUndefined, protocol = kUndefined;
  channels = 0;
  EXPECT_EQ(v2->getCollInfo(context, kFuncAllReduce, 4096, 0, 0, 1, &algorithm, &protocol, &channels),
            ncclSuccess);
  EXPECT_EQ(algorithm, kAlgoRing);
  EXPECT_EQ(protocol, kProtoLL);
  EXPECT_EQ(channels, 2);
  algorithm = protocol = kUndefined;
  channels = 0;
  EXPECT_EQ(v2->getCollInfo(context, kFuncAllReduce, 8 << 20, 0, 1, 1, &algorithm, &protocol, &channels),
            ncclSuccess);
  EXPECT_EQ(algorithm, kUndefined) << "no CollNet support: the CollNet row is not applied";
  EXPECT_EQ(protocol, kUndefined);
  EXPECT_EQ(v2->getCollInfo(context, kFuncAllReduce, 8 << 20, 1, 0, 1, &algorithm, &protocol, &channels),
            ncclSuccess);
  EXPECT_EQ(algorithm, kAlgoCollNetChain);
  EXPECT_EQ(protocol, kProtoSimple);
  algorithm = protocol = kUndefined;
  EXPECT_EQ(v2->getCollInfo(context, kFuncBroadcast, 4096, 1, 1, 1, &algorithm, &protocol, &channels),
            ncclSuccess);
  EXPECT_EQ(algorithm, kUndefined) << "unmatched: untouched";
  EXPECT_EQ(v2->destroy(context), ncclSuccess);
}

TEST_F(TunerPlugin, NullContextsAndTablesAreHarmless) {
  CostTable table = CostTable::pcieBox();
  int channels = 0;
  EXPECT_EQ(v5()->getCollInfo(nullptr, kFuncAllReduce, 4096, 1, table.forNccl(), kNumAlgorithms,
                              kNumProtocols, 0, &channels),
            ncclSuccess);
  EXPECT_EQ(v5()->finalize(nullptr), ncclSuccess);
  setenv("FLASHCCL_TUNER_FORCE", "ring:ll", 1);
  void* context = init(2, 1);
  EXPECT_EQ(v5()->getCollInfo(context, kFuncAllReduce, 4096, 1, nullptr, kNumAlgorithms,
                              kNumProtocols, 0, nullptr),
            ncclSuccess);
  EXPECT_EQ(v5()->init(nullptr, 0, 2, 1, captureLog, nullptr, nullptr), ncclSuccess);
}

// Without any variable, the plugin finds the shipped topology file that matches the machine, the
// way the library does. The fake NVML, loaded first, is what the plugin's
// dlopen("libnvidia-ml.so.1") finds.
TEST_F(TunerPlugin, WithoutVariablesTheMachinesTopologyFileDecides) {
  ASSERT_NE(dlopen(TUNER_FAKE_NVML, RTLD_NOW | RTLD_LOCAL), nullptr) << dlerror();
  setenv("FLASHCCL_FAKE_NVML_MACHINE", "hgx-h200-8", 1);
  init(8, 1);
  std::vector<std::string> info = linesAt(kLogInfo);
  ASSERT_EQ(info.size(), 1u);
  // The shipped files carry no tuning rows yet (none measured): NCCL keeps its choices.
  EXPECT_EQ(info[0], "TUNER/flashccl: flashccl tuner " FLASHCCL_VERSION_STRING
                     ": no table (hopper-8gpu-nvswitch matches 8 x NVIDIA H200, nvswitch: "
                     FLASHCCL_SOURCE_DIR "/topologies/hopper-8gpu-nvswitch.xml has no <tuning> "
                     "section); NCCL chooses for 8 ranks, 1 nodes");

  logLines.clear();
  setenv("FLASHCCL_FAKE_NVML_MACHINE", "init-fails", 1);
  init(8, 1);
  info = linesAt(kLogInfo);
  ASSERT_EQ(info.size(), 1u);
  EXPECT_NE(info[0].find("no table (cannot tell which topology file fits: NVML: nvmlInit_v2 "
                         "failed: Driver Not Loaded (9) (FLASHCCL_TUNER_FILE names one))"),
            std::string::npos)
      << info[0];
  EXPECT_TRUE(linesAt(kLogWarn).empty());
}

TEST_F(TunerPlugin, WithoutVariablesAnInstalledTableOfTheLoadedNcclDecides) {
  // The NCCL that "loaded" the plugin, loaded RTLD_LOCAL as PyTorch loads it.
  void* nccl = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (nccl == nullptr) GTEST_SKIP() << "no libnccl.so.2 on the library path: " << dlerror();
  int code = 0;
  ASSERT_EQ(reinterpret_cast<int (*)(int*)>(dlsym(nccl, "ncclGetVersion"))(&code), 0);
  const std::string version = ncclVersionText(code);
  ASSERT_NE(dlopen(TUNER_FAKE_NVML, RTLD_NOW | RTLD_LOCAL), nullptr) << dlerror();
  setenv("FLASHCCL_FAKE_NVML_MACHINE", "hgx-h200-8", 1);
  auto installed = [](const std::string& measuredOn) {
    return "<topology name=\"h200-x8-8ranks\">\n  <match gpu=\"NVIDIA H200\" gpus=\"8\"/>\n"
           "  <measurement gpu=\"NVIDIA H200\" gpus=\"8\" nccl=\"" + measuredOn + "\"/>\n"
           "  <selection><row coll=\"allreduce\" ranks=\"8\" algorithm=\"nccl\"/></selection>\n"
           "  <tuning ranks=\"8\"><row coll=\"allreduce\" algorithm=\"tree\" protocol=\"ll\"/></tuning>\n"
           "</topology>\n";
  };
  setenv("FLASHCCL_TABLE_DIR", (dir_.path() + "/tables").c_str(), 1);
  const std::string stale = dir_.write("tables/h200-x8-8ranks.xml", installed("1.0.0"));
  const std::string current = dir_.write("empty-cache/flashccl/h200-x8-8ranks.xml", installed(version));
  void* context = init(8, 1);
  const std::vector<std::string> info = linesAt(kLogInfo);
  ASSERT_EQ(info.size(), 2u);
  EXPECT_EQ(info[0], "TUNER/flashccl: calibrated table " + stale + " was measured on NCCL 1.0.0, this "
                     "process loaded NCCL " + version + " (re-run: flashccl tune --install); not used");
  EXPECT_EQ(info[1], "TUNER/flashccl: flashccl tuner " FLASHCCL_VERSION_STRING ": 1 of 1 rows apply "
                     "to 8 ranks, 1 nodes (calibrated table " + current +
                     " (measured on this machine with NCCL " + version + "))");
  EXPECT_EQ(ask(context, kFuncAllReduce, 1024).cell, std::make_pair(int(kAlgoTree), int(kProtoLL)));
  EXPECT_TRUE(linesAt(kLogWarn).empty());
}

}  // namespace
}  // namespace flashccl
