#include "selection_report.h"

#include "result_format.h"

namespace flashccl {
namespace tune {

namespace {

using perf::format;

std::string algorithmName(const TuneSummary& s, int index) {
  const auto& algorithms = s.options->flashcclAlgorithms;
  return index >= 0 && size_t(index) < algorithms.size() ? algorithms[size_t(index)].name : "-";
}

}  // namespace

std::string selectionMarkdown(const TuneSummary& s) {
  const TuneOptions& o = *s.options;
  const TableMeasurement& m = s.measurement;
  std::string text = "# flashccl calibration: " + std::to_string(m.gpus) + " x " + m.gpu + "\n\n";
  text += "| measured on | |\n|---|---|\n";
  text += "| machine | " + std::to_string(m.gpus) + " x " + m.gpu + ", " + m.interconnect + ", " +
          std::to_string(m.links) + " NVLinks per pair |\n";
  text += "| driver, CUDA runtime | " + m.driver + ", " + m.cudaRuntime + " |\n";
  text += "| NCCL | " + m.nccl + " |\n";
  text += "| flashccl | " + m.flashccl + " (" + m.commit + "), kernel generation " + std::to_string(m.kernels) + " |\n";
  text += "| date | " + m.date + " |\n";
  text += "| command | `" + m.command + "` |\n\n";
  text += o.pick == PickRule::kFastest
              ? "Rows picked with `--pick fastest`: flashccl's fastest algorithm at every size, whatever NCCL "
                "measured. For testing that a job runs what a table names; not a measurement to ship.\n\n"
              : format("A row names a flashccl algorithm where it beat NCCL's default by more than the measured "
                       "spread + %.1f%% at every size of the band, for fp32 and bf16, in place and out of place; "
                       "times below are fp32 out of place.\n\n",
                       o.marginPercent);
  for (const CollectiveOutcome& c : s.collectives) {
    text += "## " + std::string(perf::collectiveName(c.results.collective)) + ", " + std::to_string(s.ranks) +
            " ranks\n\n";
    text += "| size (B) | NCCL (us) | best flashccl | (us) | speedup | spread | row |\n";
    text += "|---:|---:|---|---:|---:|---:|---|\n";
    for (const SelectionDecision& d : c.selection) {
      const int shown = d.winner >= 0 ? d.winner : d.best;
      text += format("| %zu | %s | %s | %s | %s | %.1f%% | %s |\n", d.bytes,
                     d.ncclMicros > 0 ? format("%.2f", d.ncclMicros).c_str() : "-", algorithmName(s, shown).c_str(),
                     d.bestMicros > 0 ? format("%.2f", d.bestMicros).c_str() : "-",
                     d.speedup > 0 ? format("%.2f", d.speedup).c_str() : "-", 100.0 * d.spreadFraction,
                     d.winner >= 0 ? algorithmName(s, d.winner).c_str() : ("nccl (" + d.why + ")").c_str());
    }
    text += "\n";
  }
  text += "Timings from one run of the sweep; on a machine shared with other work they say little.\n";
  return text;
}

}  // namespace tune
}  // namespace flashccl
