// The plugin's lookup of installed calibrated tables (docs/tuner.md, "Calibrated tables"): the
// directories in the library's order, a table used only with the NCCL it was measured on and
// only for a communicator it has rows for, one INFO note per table refused, and the variables
// (FLASHCCL_TUNER_FILE, FLASHCCL_TOPO_FILE) still deciding before any installed table.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "loaded_nccl.h"
#include "support/machines.h"
#include "support/temp_dir.h"
#include "table_choice.h"

namespace flashccl {
namespace {

using testing::TempDir;

// An installed table as `flashccl tune --install` writes it: measured on NCCL `nccl`, with one
// <tuning> row for `ranks` ranks.
std::string installed(const std::string& nccl, int ranks, const std::string& protocol = "ll") {
  return "<topology name=\"h200-x8-" + std::to_string(ranks) + "ranks\">\n"
         "  <match gpu=\"NVIDIA H200\" gpus=\"8\"/>\n"
         "  <measurement gpu=\"NVIDIA H200\" gpus=\"8\" nccl=\"" + nccl +
         "\" command=\"flashccl tune --install -b 1K\"/>\n"
         "  <selection nodes=\"1\"><row coll=\"allreduce\" ranks=\"" + std::to_string(ranks) +
         "\" algorithm=\"nccl\"/></selection>\n"
         "  <tuning nodes=\"1\" ranks=\"" + std::to_string(ranks) + "\">\n"
         "    <row coll=\"allreduce\" maxBytes=\"64K\" algorithm=\"tree\" protocol=\"" + protocol + "\"/>\n"
         "  </tuning>\n</topology>\n";
}

const char* const kShipped = R"(<topology name="shipped">
  <match gpus="8"/>
  <selection><row coll="allreduce" algorithm="nccl"/></selection>
  <tuning><row coll="broadcast" algorithm="ring" protocol="simple"/></tuning>
</topology>
)";

class CalibratedTuningTest : public ::testing::Test {
 protected:
  CalibratedTuningTest() { dir_.write("topologies/shipped.xml", kShipped); }

  CalibratedSearch search(int ranks = 8, const std::string& nccl = "2.28.9") const {
    CalibratedSearch s;
    s.dirs = {dir_.path() + "/table-dir", dir_.path() + "/cache", dir_.path() + "/etc"};
    s.ncclVersion = nccl;
    s.ncclVersionWhy = nccl.empty() ? "no ncclGetVersion in this process" : "";
    s.nRanks = ranks;
    s.nNodes = 1;
    return s;
  }

  TableChoice choose(const CalibratedSearch& s, const TunerEnvironment& environment = {}) {
    return chooseTuningTable(environment, {dir_.path() + "/topologies"},
                             [](std::string*) { return testing::hgxH200x8(); }, s);
  }

  TempDir dir_;
};

TEST_F(CalibratedTuningTest, AnInstalledTableMeasuredOnTheLoadedNcclIsUsedBeforeTheShippedOne) {
  dir_.write("cache/h200-x8-8ranks.xml", installed("2.28.9", 8));
  const TableChoice choice = choose(search());
  EXPECT_EQ(choice.warning, "");
  EXPECT_TRUE(choice.notes.empty());
  ASSERT_EQ(choice.table.rows.size(), 1u);
  EXPECT_EQ(choice.table.rows[0].coll, int(nccl_abi::kFuncAllReduce));
  EXPECT_EQ(choice.why, "calibrated table " + dir_.path() +
                            "/cache/h200-x8-8ranks.xml (measured on this machine with NCCL 2.28.9)");
}

TEST_F(CalibratedTuningTest, TheFirstDirectoryInOrderWins) {
  dir_.write("etc/h200-x8-8ranks.xml", installed("2.28.9", 8, "simple"));
  dir_.write("cache/h200-x8-8ranks.xml", installed("2.28.9", 8, "ll128"));
  dir_.write("table-dir/h200-x8-8ranks.xml", installed("2.28.9", 8, "ll"));
  TableChoice choice = choose(search());
  ASSERT_EQ(choice.table.rows.size(), 1u);
  EXPECT_EQ(choice.table.rows[0].protocol, int(nccl_abi::kProtoLL));
  // Without FLASHCCL_TABLE_DIR, the per-user cache comes before /etc/flashccl.
  CalibratedSearch noTableDir = search();
  noTableDir.dirs.erase(noTableDir.dirs.begin());
  choice = choose(noTableDir);
  ASSERT_EQ(choice.table.rows.size(), 1u);
  EXPECT_EQ(choice.table.rows[0].protocol, int(nccl_abi::kProtoLL128));
}

TEST_F(CalibratedTuningTest, ATableMeasuredOnAnotherNcclIsRefusedWithANoteAndTheNextIsTried) {
  dir_.write("table-dir/h200-x8-8ranks.xml", installed("2.27.3", 8));
  dir_.write("etc/h200-x8-8ranks.xml", installed("2.28.9", 8, "simple"));
  const TableChoice choice = choose(search());
  ASSERT_EQ(choice.notes.size(), 1u);
  EXPECT_EQ(choice.notes[0], "calibrated table " + dir_.path() +
                                 "/table-dir/h200-x8-8ranks.xml was measured on NCCL 2.27.3, this "
                                 "process loaded NCCL 2.28.9 (re-run: flashccl tune --install -b 1K); not used");
  ASSERT_EQ(choice.table.rows.size(), 1u);
  EXPECT_EQ(choice.table.rows[0].protocol, int(nccl_abi::kProtoSimple));
  EXPECT_NE(choice.why.find("/etc/h200-x8-8ranks.xml"), std::string::npos) << choice.why;
}

TEST_F(CalibratedTuningTest, NoUsableInstalledTableFallsBackToTheShippedOneWithTheReasons) {
  dir_.write("cache/h200-x8-4ranks.xml", installed("2.28.9", 4));
  dir_.write("cache/unmeasured.xml",
             "<topology name=\"unmeasured\"><match gpus=\"8\"/>"
             "<selection><row coll=\"allreduce\" algorithm=\"nccl\"/></selection>"
             "<tuning><row coll=\"reduce\" algorithm=\"ring\" protocol=\"ll\"/></tuning></topology>");
  dir_.write("cache/other-box.xml", "<topology name=\"other\"><match gpus=\"2\"/>"
             "<selection><row coll=\"allreduce\" algorithm=\"nccl\"/></selection></topology>");
  const TableChoice choice = choose(search(8));
  ASSERT_EQ(choice.notes.size(), 2u);
  EXPECT_EQ(choice.notes[0], "calibrated table " + dir_.path() +
                                 "/cache/h200-x8-4ranks.xml has no <tuning> rows for 8 ranks on 1 "
                                 "node(s); not used");
  EXPECT_EQ(choice.notes[1], "calibrated table " + dir_.path() +
                                 "/cache/unmeasured.xml records no <measurement> (re-run: flashccl "
                                 "tune --install); not used");
  EXPECT_EQ(choice.why.rfind("shipped matches", 0), 0u) << choice.why;
  ASSERT_EQ(choice.table.rows.size(), 1u);
  EXPECT_EQ(choice.table.rows[0].coll, int(nccl_abi::kFuncBroadcast));
}

TEST_F(CalibratedTuningTest, AnUnknownNcclVersionRefusesEveryInstalledTable) {
  dir_.write("cache/h200-x8-8ranks.xml", installed("2.28.9", 8));
  const TableChoice choice = choose(search(8, ""));
  ASSERT_EQ(choice.notes.size(), 1u);
  EXPECT_NE(choice.notes[0].find("the loaded NCCL's version is unknown (no ncclGetVersion in this process)"),
            std::string::npos)
      << choice.notes[0];
  EXPECT_EQ(choice.why.rfind("shipped matches", 0), 0u) << choice.why;
}

TEST_F(CalibratedTuningTest, TheVariablesStillDecideBeforeAnyInstalledTable) {
  dir_.write("cache/h200-x8-8ranks.xml", installed("2.28.9", 8));
  TunerEnvironment environment;
  environment.topoFile = dir_.path() + "/topologies/shipped.xml";
  TableChoice choice = choose(search(), environment);
  EXPECT_EQ(choice.why, "FLASHCCL_TOPO_FILE=" + environment.topoFile);
  EXPECT_TRUE(choice.notes.empty());
  environment = TunerEnvironment();
  environment.tunerFile = dir_.path() + "/topologies/shipped.xml";
  choice = choose(search(), environment);
  EXPECT_EQ(choice.why, "FLASHCCL_TUNER_FILE=" + environment.tunerFile);
}

TEST(LoadedNccl, VersionCodesReadAsNcclWritesThem) {
  EXPECT_EQ(ncclVersionText(22809), "2.28.9");
  EXPECT_EQ(ncclVersionText(21903), "2.19.3");
  EXPECT_EQ(ncclVersionText(2804), "2.8.4");
}

TEST(LoadedNccl, ANcclLoadedLocallyIsFoundAndOneNotLoadedIsSaidSo) {
  std::string why;
  // The test binary links no NCCL; until one is loaded there is none to ask.
  if (dlsym(RTLD_DEFAULT, "ncclGetVersion") == nullptr && dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD) == nullptr) {
    EXPECT_EQ(loadedNcclVersion(&why), "");
    EXPECT_EQ(why, "no ncclGetVersion in this process");
  }
  // RTLD_LOCAL, as PyTorch loads it: the global lookup does not see it, the loaded-object scan does.
  void* nccl = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (nccl == nullptr) GTEST_SKIP() << "no libnccl.so.2 on the library path: " << dlerror();
  using GetVersion = int (*)(int*);
  int code = 0;
  ASSERT_EQ(reinterpret_cast<GetVersion>(dlsym(nccl, "ncclGetVersion"))(&code), 0);
  why.clear();
  EXPECT_EQ(loadedNcclVersion(&why), ncclVersionText(code)) << why;
}

}  // namespace
}  // namespace flashccl
