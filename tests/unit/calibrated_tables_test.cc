// Calibrated tables (docs/topologies.md, "Calibrated tables"): where the library looks for them
// and in which order, the refusal of a table whose recorded measurement no longer holds (one
// test per compared field: an INFO note naming the field, both values and the command to re-run,
// and the next table used), shipped tables measured on older kernels counted as unmeasured, and
// two ranks that found different tables staying on NCCL with words naming both.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/kernel_generation.h"
#include "runtime/table_agreement.h"
#include "select/selector.h"
#include "support/machines.h"
#include "support/sample_measurement.h"
#include "support/temp_dir.h"
#include "topo/builtin_table.h"
#include "topo/machine_table.h"
#include "topo/table_measurement.h"
#include "topo/topology_file.h"

namespace flashccl {
namespace {

using testing::hgxH200x8;
using testing::TempDir;

// What the process "runs on" in these tests: an 8 x H200 board.
TableMeasurement now() { return testing::sampleMeasurement(); }

// A calibrated table for 8 ranks whose <measurement> is `m` (attribute `name`=`value` overrides
// one field's text) and whose only row names `algorithm`.
std::string calibrated(const std::string& name, const TableMeasurement& m, const std::string& algorithm,
                       const std::string& field = "", const std::string& value = "") {
  auto attr = [&](const char* key, const std::string& v) {
    return std::string(" ") + key + "=\"" + (field == key ? value : v) + "\"";
  };
  return "<topology name=\"" + name + "\">\n  <match gpu=\"NVIDIA H200\" gpus=\"8\"/>\n  <measurement" +
         attr("gpu", m.gpu) + attr("gpus", std::to_string(m.gpus)) + attr("interconnect", m.interconnect) +
         attr("links", std::to_string(m.links)) + attr("driver", m.driver) + attr("cuda", m.cudaRuntime) +
         attr("nccl", m.nccl) + attr("flashccl", m.flashccl) + attr("kernels", std::to_string(m.kernels)) +
         " command=\"flashccl tune --install -b 1K\"/>\n"
         "  <selection nodes=\"1\" measured=\"flashccl tune\">\n    <row coll=\"allreduce\" ranks=\"8\" algorithm=\"" +
         algorithm + "\"/>\n  </selection>\n</topology>\n";
}

const char* const kShipped = R"(<topology name="shipped">
  <match gpus="8"/>
  <selection measured="bench/results/old.md">
    <row coll="allreduce" ranks="8" algorithm="allreduce_twoshot"/>
  </selection>
</topology>
)";

TEST(CalibratedTables, DirectoriesInOrderTableDirUserCacheThenSystem) {
  const char* savedXdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = savedXdg ? savedXdg : "";
  setenv("XDG_CACHE_HOME", "/home/u/.xdg", 1);
  EXPECT_EQ(calibratedTableDirs("/shared/tables"),
            (std::vector<std::string>{"/shared/tables", "/home/u/.xdg/flashccl", "/etc/flashccl"}));
  EXPECT_EQ(userTableDir(), "/home/u/.xdg/flashccl");
  // No XDG_CACHE_HOME (or a relative one, which XDG says to ignore): ~/.cache/flashccl.
  setenv("XDG_CACHE_HOME", "relative", 1);
  const char* home = std::getenv("HOME");
  if (home && *home) EXPECT_EQ(userTableDir(), std::string(home) + "/.cache/flashccl");
  EXPECT_EQ(calibratedTableDirs("").back(), "/etc/flashccl");
  if (savedXdg) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");
}

TEST(CalibratedTables, TheFirstDirectoryWithAHoldingTableWinsBeforeTheShippedOne) {
  TempDir dir;
  dir.write("topologies/shipped.xml", kShipped);
  dir.write("shared/a.xml", calibrated("from-table-dir", now(), "allreduce_oneshot"));
  dir.write("cache/a.xml", calibrated("from-cache", now(), "allreduce_oneshot"));
  const TableMeasurement m = now();
  const std::vector<std::string> shipped = {dir.path() + "/topologies"};
  std::vector<std::string> order = {dir.path() + "/missing", dir.path() + "/shared", dir.path() + "/cache"};

  MachineTopologyChoice choice = chooseMachineTopology("", shipped, hgxH200x8(), order, &m);
  ASSERT_EQ(choice.calibrated.size(), 2u);
  std::string source;
  EXPECT_EQ(selectionTableFor(choice, 8, &source).name, "from-table-dir");
  EXPECT_NE(source.find("calibrated on this machine"), std::string::npos) << source;
  // A rank count the calibrated tables have no rows for: the shipped table.
  EXPECT_EQ(selectionTableFor(choice, 4, &source).name, "built-in");
  // Without the first directory, the cache's; without any, the shipped one.
  order.erase(order.begin() + 1);
  choice = chooseMachineTopology("", shipped, hgxH200x8(), order, &m);
  EXPECT_EQ(selectionTableFor(choice, 8, &source).name, "from-cache");
  choice = chooseMachineTopology("", shipped, hgxH200x8(), {}, &m);
  EXPECT_EQ(selectionTableFor(choice, 8, &source).name, "shipped");
  // FLASHCCL_TOPO_FILE still overrides everything.
  choice = chooseMachineTopology(dir.path() + "/topologies/shipped.xml", shipped, hgxH200x8(), order, &m);
  EXPECT_TRUE(choice.calibrated.empty());
  EXPECT_EQ(selectionTableFor(choice, 8, &source).name, "shipped");
}

TEST(CalibratedTables, AStaleTableIsRefusedForEachRecordedFieldAndTheNextOneIsUsed) {
  const TableMeasurement m = now();
  const std::vector<std::pair<std::string, std::string>> changes = {
      {"gpu", "NVIDIA H100"}, {"gpus", "4"},      {"interconnect", "pcie"}, {"links", "12"},  {"driver", "12.8"},
      {"cuda", "12.9"},       {"nccl", "2.27.3"}, {"flashccl", "0.8.0"},    {"kernels", "0"},
  };
  // Every compared field has its case here.
  ASSERT_EQ(comparedFields(m, m).size(), changes.size());
  for (const auto& change : changes) {
    SCOPED_TRACE(change.first);
    TempDir dir;
    dir.write("first/stale.xml", calibrated("stale", m, "allreduce_oneshot", change.first, change.second));
    dir.write("second/good.xml", calibrated("good", m, "allreduce_twoshot"));
    const MachineTopologyChoice choice = chooseMachineTopology(
        "", {}, hgxH200x8(), {dir.path() + "/first", dir.path() + "/second"}, &m);
    ASSERT_EQ(choice.calibrated.size(), 1u);
    EXPECT_EQ(choice.calibrated[0]->name, "good");
    ASSERT_EQ(choice.notes.size(), 1u);
    const std::string& note = choice.notes[0];
    // The field, both values, the command that made the table.
    const MeasurementField field = [&] {
      for (const MeasurementField& f : comparedFields(m, m))
        if (change.first == f.name) return f;
      return MeasurementField{"?", "", ""};
    }();
    EXPECT_NE(note.find(change.first + ": the table says " + change.second + ", this process has " + field.current),
              std::string::npos)
        << note;
    EXPECT_NE(note.find("stale"), std::string::npos) << note;
    EXPECT_NE(note.find("re-run: flashccl tune --install -b 1K"), std::string::npos) << note;
    std::string source;
    EXPECT_EQ(selectionTableFor(choice, 8, &source).name, "good");
  }
}

TEST(CalibratedTables, ATableWithoutAMeasurementIsNotUsedFromACalibratedDirectory) {
  TempDir dir;
  dir.write("cache/shipped-copy.xml", kShipped);
  const TableMeasurement m = now();
  const MachineTopologyChoice choice = chooseMachineTopology("", {}, hgxH200x8(), {dir.path() + "/cache"}, &m);
  EXPECT_TRUE(choice.calibrated.empty());
  ASSERT_EQ(choice.notes.size(), 1u);
  EXPECT_NE(choice.notes[0].find("records no <measurement>"), std::string::npos) << choice.notes[0];
}

TEST(CalibratedTables, AShippedTableMeasuredOnOlderKernelsCountsAsUnmeasured) {
  TempDir dir;
  dir.write("topologies/shipped.xml", kShipped);
  MachineTopologyChoice choice = chooseMachineTopology("", {dir.path() + "/topologies"}, hgxH200x8());
  ASSERT_NE(choice.description, nullptr);
  EXPECT_TRUE(choice.description->table.unmeasured);
  ASSERT_EQ(choice.notes.size(), 1u);
  EXPECT_NE(choice.notes[0].find("kernel generation 0"), std::string::npos) << choice.notes[0];
  // One that records the current generation stays measured.
  std::string current = kShipped;
  current.insert(current.find("  <selection"), "  <measurement kernels=\"" + std::to_string(kKernelGeneration) + "\"/>\n");
  dir.write("topologies/shipped.xml", current);
  choice = chooseMachineTopology("", {dir.path() + "/topologies"}, hgxH200x8());
  ASSERT_NE(choice.description, nullptr);
  EXPECT_FALSE(choice.description->table.unmeasured);
  EXPECT_TRUE(choice.notes.empty());
}

std::shared_ptr<Algorithm> resolveNothing(const std::string&, int, int, std::string*) { return nullptr; }

TEST(CalibratedTables, TwoRanksWithDifferentTablesStayOnNcclNamingBoth) {
  const TableMeasurement m = now();
  TopologyDescription mine, theirs;
  std::string error;
  ASSERT_TRUE(parseTopologyText(calibrated("cached-here", m, "nccl"), "a.xml", &mine, &error)) << error;
  ASSERT_TRUE(parseTopologyText(calibrated("cached-there", m, "nccl"), "b.xml", &theirs, &error)) << error;
  ASSERT_NE(mine.table.contentHash, theirs.table.contentHash);
  std::string warnings;
  const auto a = Selector::build(mine.table, "", 8, 1, resolveNothing, &warnings);
  const auto b = Selector::build(theirs.table, "", 8, 1, resolveNothing, &warnings);
  const auto builtin = Selector::build(builtinSelectionTable(), "", 8, 1, resolveNothing, &warnings);
  const TableIdentity first = tableIdentityOf(a.get());
  EXPECT_EQ(tableDisagreement(1, tableIdentityOf(a.get()), first), "");
  const std::string words = tableDisagreement(1, tableIdentityOf(b.get()), first);
  EXPECT_NE(words.find("rank 1 selects from the table 'cached-there'"), std::string::npos) << words;
  EXPECT_NE(words.find("but rank 0 from 'cached-here'"), std::string::npos) << words;
  EXPECT_NE(words.find("every rank stays on NCCL"), std::string::npos) << words;
  // A rank that found no calibrated table (the built-in one) against one that did.
  EXPECT_NE(tableDisagreement(1, tableIdentityOf(builtin.get()), first).find("'built-in'"), std::string::npos);
}

}  // namespace
}  // namespace flashccl
