#include "result_format.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "bandwidth.h"
#include "size_list.h"

namespace flashccl {
namespace perf {
namespace {


std::string wrongText(const SizeResult& r) { return r.checked ? std::to_string(r.wrong) : std::string("N/A"); }

std::string environmentText(const std::vector<EnvSetting>& settings) {
  std::string text;
  for (const EnvSetting& env : settings)
    text += (text.empty() ? "" : " ") + env.name + "=" + (env.set ? env.value : std::string("(unset)"));
  return text;
}

std::string setByPerfText(const RunInfo& info) {
  return info.environmentSetByPerf.empty() ? "nothing" : environmentText(info.environmentSetByPerf);
}

std::string markdownCell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

double flashBusBw(const SizeResult& r, int nranks) {
  return busBandwidth(r.collective, nranks, r.bytes, r.timing.flashccl.median);
}
double ncclBusBw(const SizeResult& r, int nranks) {
  return busBandwidth(r.collective, nranks, r.bytes, r.timing.nccl.median);
}

// One placement's block of a row: flashccl's time, algbw, busbw, #wrong as nccl-tests prints them,
// then NCCL's time, the speedup and both libraries' spread.
std::string rowBlock(const SizeResult* r, int nranks) {
  if (!r) return format(" %8s %7s %7s %6s %8s %7s %5s %5s", "-", "-", "-", "-", "-", "-", "-", "-");
  const double t = r->timing.flashccl.median;
  return format(" %8.2f %7.2f %7.2f %6s %8.2f %7.2f %5.1f %5.1f", t, algorithmBandwidth(r->bytes, t),
                flashBusBw(*r, nranks), wrongText(*r).c_str(), r->timing.nccl.median, r->timing.speedup,
                r->timing.flashccl.rangePercent(), r->timing.nccl.rangePercent());
}

bool sameSize(const SizeResult& a, const SizeResult& b) {
  return a.collective == b.collective && a.dataType == b.dataType && a.op == b.op && a.bytes == b.bytes &&
         a.cycle == b.cycle;
}

}  // namespace

std::string format(const char* fmt, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, fmt);
  const int n = std::vsnprintf(buffer, sizeof(buffer), fmt, args);
  va_end(args);
  if (n < 0) return "";
  if (static_cast<size_t>(n) < sizeof(buffer)) return std::string(buffer, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(n) + 1, '\0');
  va_start(args, fmt);
  std::vsnprintf(&big[0], big.size(), fmt, args);
  va_end(args);
  big.resize(static_cast<size_t>(n));
  return big;
}

std::string timingModeName(const RunInfo& info) {
  std::string mode = info.graphReplays > 0
                         ? format("CUDA graph of %d iterations, %d replays", info.iters, info.graphReplays)
                         : std::string("eager");
  if (info.aggIters > 1) mode += format(", %d operations per iteration", info.aggIters);
  if (info.blocking) mode += ", blocking";
  if (info.cpuTime) mode += ", host clock";
  return mode;
}

std::string formatRunHeader(const RunInfo& info) {
  std::string text;
  text += format("# flashccl perf %s (%s): flashccl vs NCCL, side by side on the same communicators\n",
                 info.flashcclVersion.c_str(), info.flashcclCommit.c_str());
  text += format("# nRanks %d: %s\n", info.nranks(), info.layout.describe().c_str());
  const std::string step =
      info.stepBytes ? format("%zu(bytes)", info.stepBytes) : format("%zu(factor)", info.stepFactor);
  text += format("# minBytes %zu maxBytes %zu step: %s warmup iters: %d iters: %d agg iters: %d "
                 "validation: %d graph: %d cycles: %d pairs: %d average: %d seed: %" PRIu64 "\n",
                 info.minBytes, info.maxBytes, step.c_str(), info.warmupIters, info.iters, info.aggIters,
                 info.check ? 1 : 0, info.graphReplays, info.cycles, info.pairs, info.average, info.seed);
  text += "#\n# Using devices\n";
  for (const DeviceInfo& d : info.devices)
    text += format("#  Rank %2d Pid %6d on %10s device %2d [%s] %s\n", d.rank, d.pid, d.host.c_str(),
                   d.device, d.busId.c_str(), d.name.c_str());
  text += format("# NCCL version %s (%s)\n", info.ncclVersion.c_str(), info.ncclLibrary.c_str());
  text += format("# flashccl version %s, commit %s\n", info.flashcclVersion.c_str(), info.flashcclCommit.c_str());
  text += "# env: " + environmentText(info.environment) + "\n";
  text += "# set by perf for both libraries: " + setByPerfText(info) + "\n";
  text += "# command: " + info.command + "\n#\n";
  return text;
}

std::string formatTableHeader(Collective coll, const RunInfo& info) {
  std::string text;
  text += format("# %s on %d rank%s, %s; time = median of %d pairs of blocks, flashccl's; nccl = NCCL's "
                 "time; speedup = median of the pairs' NCCL/flashccl ratios; spread f/n = flashccl's/NCCL's "
                 "(max-min)/median of the pairs' times\n",
                 collectiveName(coll), info.nranks(), info.nranks() == 1 ? "" : "s", timingModeName(info).c_str(),
                 info.pairs);
  const char* block = " %8s %7s %7s %6s %8s %7s %5s %5s";
  // The placement names centred over their blocks, as nccl-tests does.
  const size_t keyWidth = format("#%11s %12s %9s %6s %5s", "", "", "", "", "").size();
  const size_t blockWidth = format(block, "", "", "", "", "", "", "", "").size();
  auto centred = [&](const std::string& name) {
    const size_t left = (blockWidth - name.size()) / 2;
    return std::string(left, ' ') + name + std::string(blockWidth - left - name.size(), ' ');
  };
  std::string groups = "#" + std::string(keyWidth - 1, ' ') + centred("out-of-place") + centred("in-place");
  while (groups.back() == ' ') groups.pop_back();
  text += groups + "\n";
  text += format("#%11s %12s %9s %6s %5s", "size", "count", "type", "redop", "root") +
          format(block, "time", "algbw", "busbw", "#wrong", "nccl", "speedup", "f", "n") +
          format(block, "time", "algbw", "busbw", "#wrong", "nccl", "speedup", "f", "n") + "  algorithm\n";
  text += format("#%11s %12s %9s %6s %5s", "(B)", "(elements)", "", "", "") +
          format(block, "(us)", "(GB/s)", "(GB/s)", "", "(us)", "", "sprd%", "sprd%") +
          format(block, "(us)", "(GB/s)", "(GB/s)", "", "(us)", "", "sprd%", "sprd%") + "\n";
  return text;
}

std::string formatRow(const SizeResult* outOfPlace, const SizeResult* inPlace, int nranks) {
  const SizeResult& any = outOfPlace ? *outOfPlace : *inPlace;
  std::string algorithm = any.algorithm;
  if (outOfPlace && inPlace && outOfPlace->algorithm != inPlace->algorithm)
    algorithm = outOfPlace->algorithm + " / " + inPlace->algorithm;
  return format(" %11zu %12zu %9s %6s %5d", any.bytes, any.count, dataTypeName(any.dataType),
                reduceOpName(any.op), any.root) +
         rowBlock(outOfPlace, nranks) + rowBlock(inPlace, nranks) + "  " + algorithm + "\n";
}

std::string formatTableFooter(const std::vector<SizeResult>& rows, int nranks) {
  if (rows.empty()) return "";
  double ncclBus = 0.0, flashBus = 0.0;
  std::vector<double> speedups;
  uint64_t wrong = 0;
  bool checked = true;
  for (const SizeResult& r : rows) {
    ncclBus += ncclBusBw(r, nranks);
    flashBus += flashBusBw(r, nranks);
    speedups.push_back(r.timing.speedup);
    wrong += r.wrong;
    checked = checked && r.checked;
  }
  const double n = static_cast<double>(rows.size());
  const auto [lo, hi] = std::minmax_element(speedups.begin(), speedups.end());
  return format("# %s: avg busbw NCCL %.2f GB/s, flashccl %.2f GB/s; speedup geomean %.2f (min %.2f, max "
                "%.2f); #wrong %s\n#\n",
                collectiveName(rows.front().collective), ncclBus / n, flashBus / n, geometricMean(speedups), *lo,
                *hi, checked ? std::to_string(wrong).c_str() : "N/A");
}

std::string formatRunFooter(const RunReport& report) {
  bool checked = !report.results.empty();
  size_t wrongRows = 0;
  double busbw = 0.0;
  for (const SizeResult& r : report.results) {
    checked = checked && r.checked;
    if (r.wrong) ++wrongRows;
    busbw += flashBusBw(r, report.info.nranks());
  }
  const uint64_t wrong = report.totalWrong();
  std::string text = format("# Out of bounds values : %" PRIu64 " %s\n", wrong, wrong ? "FAILED" : "OK");
  text += format("# Avg bus bandwidth    : %g\n",
                 report.results.empty() ? 0.0 : busbw / static_cast<double>(report.results.size()));
  if (!checked) return text + "# results not checked (-c 0)\n";
  if (wrong == 0)
    return text + format("# #wrong total: 0 in %zu results: flashccl matches NCCL everywhere\n",
                         report.results.size());
  return text + format("# #wrong total: %" PRIu64 " in %zu of %zu results: FAILED (flashccl differs from "
                       "NCCL; details above on stderr)\n",
                       wrong, wrongRows, report.results.size());
}

std::string TablePrinter::begin(const RunInfo& info) {
  info_ = info;
  currentTable_.clear();
  pending_.clear();
  return formatRunHeader(info);
}

std::string TablePrinter::flushPending() {
  if (pending_.empty()) return "";
  const SizeResult r = pending_.front();
  pending_.clear();
  return formatRow(&r, nullptr, info_.nranks());
}

std::string TablePrinter::add(const SizeResult& result) {
  std::string text;
  const bool partner = !pending_.empty() && result.placement == Placement::kInPlace && sameSize(pending_.front(), result);
  if (!partner) text += flushPending();
  if (currentTable_.empty() || currentTable_.front().collective != result.collective) {
    text += formatTableFooter(currentTable_, info_.nranks());
    currentTable_.clear();
    text += formatTableHeader(result.collective, info_);
  }
  currentTable_.push_back(result);
  if (partner) {
    const SizeResult outOfPlace = pending_.front();
    pending_.clear();
    return text + formatRow(&outOfPlace, &result, info_.nranks());
  }
  if (result.placement == Placement::kOutOfPlace) {
    pending_.push_back(result);  // printed with its in-place partner, or alone when none comes
    return text;
  }
  return text + formatRow(nullptr, &result, info_.nranks());
}

std::string TablePrinter::finish(const RunReport& report) {
  std::string text = flushPending() + formatTableFooter(currentTable_, info_.nranks());
  currentTable_.clear();
  return text + formatRunFooter(report);
}

std::vector<std::vector<SizeResult>> groupByCollective(const std::vector<SizeResult>& results) {
  std::vector<std::vector<SizeResult>> groups;
  for (const SizeResult& r : results) {
    std::vector<SizeResult>* group = nullptr;
    for (auto& g : groups)
      if (g.front().collective == r.collective) group = &g;
    if (!group) {
      groups.emplace_back();
      group = &groups.back();
    }
    group->push_back(r);
  }
  return groups;
}

std::string formatMarkdown(const RunReport& report) {
  const RunInfo& info = report.info;
  std::string md = "# flashccl perf: flashccl vs NCCL\n\n";
  md += "| | |\n|---|---|\n";
  md += "| date | " + markdownCell(info.date) + " |\n";
  md += "| machine | " + markdownCell(info.machine) + " |\n";
  md += "| NCCL version | " + markdownCell(info.ncclVersion) + " (" + markdownCell(info.ncclLibrary) + ") |\n";
  md += "| flashccl version | " + markdownCell(info.flashcclVersion) + " |\n";
  md += "| commit | " + markdownCell(info.flashcclCommit) + " |\n";
  md += format("| ranks | %d: %s |\n", info.nranks(), info.layout.describe().c_str());
  md += format("| timing | %s; %d iterations per block after %d warm-up, median of %d NCCL/flashccl pairs; "
               "ranks' times combined with -a %d |\n",
               timingModeName(info).c_str(), info.iters, info.warmupIters, info.pairs, info.average);
  md += std::string("| check | ") +
        (info.check ? "on: flashccl's output against NCCL's, bitwise or within the tolerance of "
                      "docs/perf.md; all ranks identical"
                    : "off (-c 0)") +
        " |\n";
  md += "| environment | " + markdownCell(environmentText(info.environment)) + " |\n";
  md += "| set by perf for both libraries | " + markdownCell(setByPerfText(info)) + " |\n";
  md += "| command | `" + markdownCell(info.command) + "` |\n\n";
  for (const std::vector<SizeResult>& rows : groupByCollective(report.results)) {
    md += std::string("## ") + collectiveName(rows.front().collective) + "\n\n";
    md += "| size | count | type | redop | place | NCCL time (us) | NCCL busbw (GB/s) | NCCL spread (%) | "
          "flashccl time (us) | flashccl busbw (GB/s) | flashccl spread (%) | speedup | #wrong | algorithm |\n";
    md += "|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const SizeResult& r : rows) {
      md += format("| %s | %zu | %s | %s | %s | %.2f | %.2f | %.1f | %.2f | %.2f | %.1f | %.2f | %s | %s |\n",
                   formatBytes(r.bytes).c_str(), r.count, dataTypeName(r.dataType), reduceOpName(r.op),
                   placementName(r.placement), r.timing.nccl.median, ncclBusBw(r, info.nranks()),
                   r.timing.nccl.rangePercent(), r.timing.flashccl.median, flashBusBw(r, info.nranks()),
                   r.timing.flashccl.rangePercent(), r.timing.speedup, wrongText(r).c_str(),
                   markdownCell(r.algorithm).c_str());
    }
    std::string footer = formatTableFooter(rows, info.nranks());
    footer = footer.substr(2, footer.find('\n') - 2);  // "# x: ...\n#\n" -> one sentence
    md += "\n" + footer + "\n\n";
  }
  md += "Spread: (max - min) / median of the pairs' times. Devices:\n\n";
  for (const DeviceInfo& d : info.devices)
    md += format("- rank %d: %s device %d [%s] %s, pid %d\n", d.rank, d.host.c_str(), d.device, d.busId.c_str(),
                 d.name.c_str(), d.pid);
  const std::string footer = formatRunFooter(report);
  md += "\n" + footer.substr(footer.rfind("# ") + 2);
  return md;
}

}  // namespace perf
}  // namespace flashccl
