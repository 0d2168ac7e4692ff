#include "calibrated_table.h"

#include <cctype>
#include <cstdio>

namespace flashccl {
namespace tune {

namespace {

std::string attribute(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + xmlAttributeText(value) + "\"";
}

std::string measurementElement(const TableMeasurement& m) {
  return "  <measurement" + attribute("gpu", m.gpu) + attribute("gpus", std::to_string(m.gpus)) +
         attribute("interconnect", m.interconnect) + attribute("links", std::to_string(m.links)) +
         attribute("driver", m.driver) + attribute("cuda", m.cudaRuntime) + attribute("nccl", m.nccl) +
         attribute("flashccl", m.flashccl) + attribute("kernels", std::to_string(m.kernels)) +
         attribute("commit", m.commit) + attribute("date", m.date) + attribute("command", m.command) + "/>\n";
}

std::string selectionElement(const CalibratedTable& t) {
  // No nodes attribute: flashccl's one-node algorithms only ever run on one node (the Selector
  // drops them elsewhere), and NCCL's node count is not flashccl's where ranks share a GPU under
  // different NCCL_HOSTIDs (the one-GPU check).
  std::string text = "  <selection" + attribute("measured", t.measuredLabel) + ">\n";
  for (const SelectionRows& rows : t.selection) {
    text += "    <group" + attribute("coll", perf::collectiveName(rows.collective)) +
            attribute("ranks", std::to_string(t.facts.ranks)) + ">\n";
    for (const SelectionBand& band : rows.bands) {
      char numbers[96];
      std::snprintf(numbers, sizeof(numbers), " speedup=\"%.3f\" spread=\"%.3f\"", band.minSpeedup, band.maxSpread);
      text += "      <row" + attribute("minBytes", sizeText(band.minBytes)) +
              attribute("maxBytes", sizeText(band.maxBytes)) +
              attribute("algorithm", t.algorithms[size_t(band.winner)].name) + numbers + "/>\n";
    }
    text += "      <row algorithm=\"nccl\"/>\n";
    text += "    </group>\n";
  }
  return text + "  </selection>\n";
}

}  // namespace

std::string xmlAttributeText(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string calibratedTableName(const TableMeasurement& measurement, int ranks, int nodes) {
  std::string slug;
  for (char c : measurement.gpu.empty() ? std::string("gpu") : measurement.gpu)
    slug += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(static_cast<unsigned char>(c))) : '-';
  std::string squeezed;
  for (char c : slug)
    if (!(c == '-' && (squeezed.empty() || squeezed.back() == '-'))) squeezed += c;
  while (!squeezed.empty() && squeezed.back() == '-') squeezed.pop_back();
  return squeezed + "-x" + std::to_string(measurement.gpus) + "-" + std::to_string(ranks) + "ranks" +
         (nodes > 1 ? "-" + std::to_string(nodes) + "nodes" : "");
}

std::string calibratedTableText(const CalibratedTable& t) {
  std::string text = "<?xml version=\"1.0\"?>\n<!--\n";
  for (const std::string& line : t.facts.provenance) text += "  " + commentSafe(line) + "\n";
  text += "-->\n";
  const TableMeasurement& m = t.measurement;
  text += "<topology" + attribute("name", t.name) +
          attribute("description", "calibrated by flashccl tune on " + std::to_string(m.gpus) + " x " + m.gpu +
                                       " (" + m.interconnect + "), " + m.date) +
          ">\n";
  // Exactly this machine: the same model, count and interconnect (the rest is compared through
  // <measurement> at load, with an INFO line naming what changed).
  text += "  <match" + attribute("gpu", m.gpu) + attribute("gpus", std::to_string(m.gpus)) +
          attribute("interconnect", m.interconnect) + "/>\n";
  text += measurementElement(m);
  text += selectionElement(t);
  text += tuningSection(t.tuning, t.facts, 2);
  return text + "</topology>\n";
}

}  // namespace tune
}  // namespace flashccl
