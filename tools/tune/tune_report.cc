#include "tune_report.h"

#include "result_format.h"

#include <cstdarg>
#include <cstdio>

namespace flashccl {
namespace tune {

namespace {

using perf::format;  // grows its buffer: a long table path is never cut

std::string micros(double value) { return value > 0 ? format("%.2f", value) : "-"; }
std::string ratio(double over, double under) { return over > 0 && under > 0 ? format("%.2f", over / under) : "-"; }

const char* kHeader =
    "#       size  NCCL default  spread  tuned choice                  tuned  with table  speedup"
    "  flashccl best                 time  speedup\n"
    "#        (B)          (us)     (%)                                 (us)        (us)         "
    "                               (us)\n";

std::string sizeLine(const SizeResults& size, const SizeDecision& d, const std::vector<NcclChoice>& candidates) {
  const bool won = d.winner >= 0;
  const double tuned = won ? d.winnerMicros : d.defaultMicros;
  const std::string choice = won ? candidates[size_t(d.winner)].label() : "(NCCL's own)";
  const FlashcclTiming* best = bestFlashccl(size);
  return format("%12zu  %12s  %6.1f  %-26.26s  %9s  %10s  %7s  %-26.26s  %9s  %7s\n", size.bytes,
                micros(d.defaultMicros).c_str(), d.spreadFraction * 100.0, choice.c_str(), micros(tuned).c_str(),
                size.haveWithTable ? micros(size.withTable.median).c_str() : "-",
                ratio(d.defaultMicros, tuned).c_str(), best ? best->algorithm.c_str() : "-",
                best ? micros(best->timing.median).c_str() : "-",
                best ? ratio(d.defaultMicros, best->timing.median).c_str() : "-");
}

}  // namespace

std::string formatReport(const TuneSummary& s) {
  const TuneOptions& o = *s.options;
  std::string text;
  text += "# flashccl tune on " + s.machine + ", " + s.date + "\n";
  text += "# NCCL " + s.ncclVersion + ", flashccl " + s.flashcclVersion + ", plugin " + s.pluginPath + "\n";
  text += format("# %d ranks, %d node%s (as NCCL counts them); %s, out of place; %zu NCCL choices, %d baseline runs\n",
                 s.ranks, s.nodes, s.nodes == 1 ? "" : "s", perf::dataTypeName(o.dataType), s.candidates.size(),
                 o.baselineRuns);
  text += o.pick == PickRule::kFastest
              ? "# pick: the fastest forced choice at every size (--pick fastest: to test tables, not to ship)\n"
              : format("# pick: a forced choice wins where it beats NCCL's default by more than the spread + %.1f%%\n",
                       o.marginPercent);
  text += "# command: " + s.command + "\n";
  for (const CollectiveOutcome& c : s.collectives) {
    text += "\n# " + std::string(perf::collectiveName(c.results.collective)) +
            ": times are medians over each run's block pairs (NCCL default: over its runs); spread: the "
            "run-to-run spread plus the larger within-run one, as fractions of the default's time\n";
    text += kHeader;
    for (size_t i = 0; i < c.decisions.size() && i < c.results.sizes.size(); ++i)
      text += sizeLine(c.results.sizes[i], c.decisions[i], s.candidates);
    if (!c.results.refused.empty()) {
      text += "# NCCL refused on this communicator (not measured):";
      for (size_t i = 0; i < c.results.refused.size(); ++i)
        text += std::string(i ? "," : "") + " " + s.candidates[size_t(c.results.refused[i])].label();
      text += "\n";
    }
    if (c.bands.empty()) {
      text += "# no row: NCCL's own choice at every size\n";
    } else {
      for (const Band& band : c.bands)
        text += "# row: " + sizeText(band.minBytes) + " - " + sizeText(band.maxBytes) + " -> " +
                s.candidates[size_t(band.winner)].label() + "\n";
    }
    if (o.flashcclAlgorithms.empty()) continue;
    if (c.selectionBands.empty()) text += "# flashccl selection: nccl at every size\n";
    for (const SelectionBand& band : c.selectionBands)
      text += format("# flashccl selection row: %s - %s -> %s (speedup %.2f or more, spread up to %.1f%%)\n",
                     sizeText(band.minBytes).c_str(), sizeText(band.maxBytes).c_str(),
                     o.flashcclAlgorithms[size_t(band.winner)].name.c_str(), band.minSpeedup, 100.0 * band.maxSpread);
  }
  text += "\n";
  if (s.verified) text += formatVerify(s.verify, s.tablePath);
  for (const std::string& wrong : s.wrongResults) text += "# WRONG: " + wrong + "\n";
  if (!s.tablePath.empty())
    text += format("# table: %s (%d row%s)\n", s.tablePath.c_str(), s.tableRows, s.tableRows == 1 ? "" : "s");
  if (!s.installedPath.empty())
    text += "# installed: " + s.installedPath + " (the next job on this machine uses it; report: " +
            s.installedReport + ")\n";
  for (const std::string& note : s.notes) text += "# " + note + "\n";
  return text;
}

}  // namespace tune
}  // namespace flashccl
