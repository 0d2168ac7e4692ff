#include "result_format.h"

#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "bandwidth.h"
#include "size_list.h"

namespace flashccl {
namespace perf {
namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
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

std::string wrongText(const SizeResult& r) {
  return r.checked ? std::to_string(r.wrong) : std::string("N/A");
}

std::string environmentText(const RunInfo& info) {
  std::string text;
  for (const EnvSetting& env : info.environment) {
    if (!text.empty()) text += " ";
    text += env.name + "=" + (env.set ? env.value : std::string("(unset)"));
  }
  return text;
}

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) out += format("\\u%04x", c);
        else out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string jsonNumber(double value, const char* fmt = "%.3f") {
  if (!std::isfinite(value)) return "null";
  return format(fmt, value);
}

std::string jsonSamples(const std::vector<double>& samples) {
  std::string out = "[";
  for (size_t i = 0; i < samples.size(); ++i) out += (i ? ", " : "") + jsonNumber(samples[i]);
  return out + "]";
}

std::string markdownCell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

double rowBusBw(const SizeResult& r, int nranks, bool flashccl) {
  return busBandwidth(r.collective, nranks, r.bytes,
                      flashccl ? r.timing.flashcclMicros : r.timing.ncclMicros);
}

}  // namespace

std::string timingModeName(const RunInfo& info) {
  if (info.graphOps > 0) return format("CUDA graph, %d operations per graph", info.graphOps);
  return "eager";
}

std::string formatRunHeader(const RunInfo& info) {
  std::string text;
  text += format("# flashccl perf %s: flashccl vs NCCL, side by side on the same communicators\n",
                 info.flashcclVersion.c_str());
  text += format("# nRanks %d: %s\n", info.nranks(), info.layout.describe().c_str());
  text += format("# minBytes %zu maxBytes %zu step: %zu(factor) warmup iters: %d iters: %d "
                 "pairs: %d graph: %d check: %d seed: %" PRIu64 "\n",
                 info.minBytes, info.maxBytes, info.stepFactor, info.warmupIters, info.iters,
                 info.pairs, info.graphOps, info.check ? 1 : 0, info.seed);
  text += "#\n# Using devices\n";
  for (const DeviceInfo& d : info.devices) {
    text += format("#  Rank %2d Pid %6d on %10s device %2d [%s] %s\n", d.rank, d.pid,
                   d.host.c_str(), d.device, d.busId.c_str(), d.name.c_str());
  }
  text += format("# NCCL version %s (%s)\n", info.ncclVersion.c_str(), info.ncclLibrary.c_str());
  text += format("# flashccl version %s\n", info.flashcclVersion.c_str());
  text += "# env: " + environmentText(info) + "\n";
  text += "# command: " + info.command + "\n#\n";
  return text;
}

std::string formatTableHeader(Collective coll, const RunInfo& info) {
  std::string text;
  text += format("# %s on %d rank%s, %s: time per operation (us, median of %d pairs), algbw and "
                 "busbw in GB/s; speedup = median over pairs of NCCL time / flashccl time\n",
                 collectiveName(coll), info.nranks(), info.nranks() == 1 ? "" : "s",
                 timingModeName(info).c_str(), info.pairs);
  text += format("#%12s %12s %9s %6s %5s | %14s %8s %8s | %18s %8s %8s | %7s %7s  %s\n",
                 "size(B)", "count", "type", "redop", "place", "NCCL time(us)", "algbw", "busbw",
                 "flashccl time(us)", "algbw", "busbw", "speedup", "#wrong", "algorithm");
  return text;
}

std::string formatRow(const SizeResult& r, int nranks) {
  const double ncclAlg = algorithmBandwidth(r.bytes, r.timing.ncclMicros);
  const double flashAlg = algorithmBandwidth(r.bytes, r.timing.flashcclMicros);
  return format(" %12zu %12zu %9s %6s %5s | %14.2f %8.2f %8.2f | %18.2f %8.2f %8.2f | %7.2f %7s  %s\n",
                r.bytes, r.count, dataTypeName(r.dataType), reduceOpName(r.op),
                placementName(r.placement), r.timing.ncclMicros, ncclAlg,
                rowBusBw(r, nranks, false), r.timing.flashcclMicros, flashAlg,
                rowBusBw(r, nranks, true), r.timing.speedup, wrongText(r).c_str(),
                r.algorithm.c_str());
}

std::string formatTableFooter(const std::vector<SizeResult>& rows, int nranks) {
  if (rows.empty()) return "";
  double ncclBus = 0.0, flashBus = 0.0, minSpeedup = 0.0, maxSpeedup = 0.0;
  std::vector<double> speedups;
  uint64_t wrong = 0;
  bool checked = true;
  for (const SizeResult& r : rows) {
    ncclBus += rowBusBw(r, nranks, false);
    flashBus += rowBusBw(r, nranks, true);
    speedups.push_back(r.timing.speedup);
    if (speedups.size() == 1 || r.timing.speedup < minSpeedup) minSpeedup = r.timing.speedup;
    if (speedups.size() == 1 || r.timing.speedup > maxSpeedup) maxSpeedup = r.timing.speedup;
    wrong += r.wrong;
    checked = checked && r.checked;
  }
  const double n = static_cast<double>(rows.size());
  return format("# %s: avg busbw NCCL %.2f GB/s, flashccl %.2f GB/s; speedup geomean %.2f "
                "(min %.2f, max %.2f); #wrong %s\n#\n",
                collectiveName(rows.front().collective), ncclBus / n, flashBus / n,
                geometricMean(speedups), minSpeedup, maxSpeedup,
                checked ? std::to_string(wrong).c_str() : "N/A");
}

std::string formatRunFooter(const RunReport& report) {
  bool checked = !report.results.empty();
  size_t wrongRows = 0;
  for (const SizeResult& r : report.results) {
    checked = checked && r.checked;
    if (r.wrong) ++wrongRows;
  }
  if (!checked) return "# results not checked (--no-check)\n";
  const uint64_t wrong = report.totalWrong();
  if (wrong == 0)
    return format("# #wrong total: 0 in %zu rows: flashccl matches NCCL everywhere\n",
                  report.results.size());
  return format("# #wrong total: %" PRIu64 " in %zu of %zu rows: FAILED (flashccl differs from "
                "NCCL; details above on stderr)\n",
                wrong, wrongRows, report.results.size());
}

std::string TablePrinter::begin(const RunInfo& info) {
  info_ = info;
  currentTable_.clear();
  return formatRunHeader(info);
}

std::string TablePrinter::add(const SizeResult& result) {
  std::string text;
  if (currentTable_.empty() || currentTable_.front().collective != result.collective) {
    text += formatTableFooter(currentTable_, info_.nranks());
    currentTable_.clear();
    text += formatTableHeader(result.collective, info_);
  }
  currentTable_.push_back(result);
  return text + formatRow(result, info_.nranks());
}

std::string TablePrinter::finish(const RunReport& report) {
  std::string text = formatTableFooter(currentTable_, info_.nranks());
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

std::string formatJson(const RunReport& report) {
  const RunInfo& info = report.info;
  std::string j = "{\n";
  j += "  \"tool\": \"flashccl perf\",\n";
  j += "  \"flashccl_version\": " + jsonString(info.flashcclVersion) + ",\n";
  j += "  \"nccl_version\": " + jsonString(info.ncclVersion) + ",\n";
  j += "  \"nccl_library\": " + jsonString(info.ncclLibrary) + ",\n";
  j += "  \"date\": " + jsonString(info.date) + ",\n";
  j += "  \"host\": " + jsonString(info.host) + ",\n";
  j += "  \"machine\": " + jsonString(info.machine) + ",\n";
  j += "  \"command\": " + jsonString(info.command) + ",\n";
  j += format("  \"ranks\": %d,\n", info.nranks());
  j += "  \"mode\": " + jsonString(info.layout.modeName()) + ",\n";
  j += format("  \"processes\": %d,\n  \"threads\": %d,\n  \"gpus_per_thread\": %d,\n",
              info.layout.processes, info.layout.threads, info.layout.gpusPerThread);
  j += "  \"devices\": [";
  for (size_t i = 0; i < info.devices.size(); ++i) {
    const DeviceInfo& d = info.devices[i];
    j += format("%s\n    {\"rank\": %d, \"device\": %d, \"pid\": %d, \"host\": %s, \"bus_id\": %s, "
                "\"name\": %s}",
                i ? "," : "", d.rank, d.device, d.pid, jsonString(d.host).c_str(),
                jsonString(d.busId).c_str(), jsonString(d.name).c_str());
  }
  j += info.devices.empty() ? "],\n" : "\n  ],\n";
  j += "  \"environment\": {";
  for (size_t i = 0; i < info.environment.size(); ++i) {
    const EnvSetting& e = info.environment[i];
    j += (i ? ", " : "") + jsonString(e.name) + ": " + (e.set ? jsonString(e.value) : "null");
  }
  j += "},\n";
  j += format("  \"settings\": {\"min_bytes\": %zu, \"max_bytes\": %zu, \"step_factor\": %zu, "
              "\"iters\": %d, \"warmup_iters\": %d, \"pairs\": %d, \"graph_ops\": %d, "
              "\"check\": %s, \"seed\": %" PRIu64 "},\n",
              info.minBytes, info.maxBytes, info.stepFactor, info.iters, info.warmupIters,
              info.pairs, info.graphOps, info.check ? "true" : "false", info.seed);
  j += "  \"results\": [";
  for (size_t i = 0; i < report.results.size(); ++i) {
    const SizeResult& r = report.results[i];
    const int n = info.nranks();
    j += i ? ",\n" : "\n";
    j += format("    {\"collective\": \"%s\", \"size_bytes\": %zu, \"count\": %zu, \"dtype\": \"%s\", "
                "\"op\": \"%s\", \"in_place\": %s,\n",
                collectiveName(r.collective), r.bytes, r.count, dataTypeName(r.dataType),
                reduceOpName(r.op), r.placement == Placement::kInPlace ? "true" : "false");
    j += "     \"nccl\": {\"time_us\": " + jsonNumber(r.timing.ncclMicros) +
         ", \"algbw_gbps\": " + jsonNumber(algorithmBandwidth(r.bytes, r.timing.ncclMicros)) +
         ", \"busbw_gbps\": " + jsonNumber(rowBusBw(r, n, false)) +
         ", \"samples_us\": " + jsonSamples(r.ncclSamples) + "},\n";
    j += "     \"flashccl\": {\"time_us\": " + jsonNumber(r.timing.flashcclMicros) +
         ", \"algbw_gbps\": " + jsonNumber(algorithmBandwidth(r.bytes, r.timing.flashcclMicros)) +
         ", \"busbw_gbps\": " + jsonNumber(rowBusBw(r, n, true)) +
         ", \"samples_us\": " + jsonSamples(r.flashcclSamples) + "},\n";
    j += "     \"speedup\": " + jsonNumber(r.timing.speedup, "%.4f") +
         ", \"speedup_min\": " + jsonNumber(r.timing.speedupMin, "%.4f") +
         ", \"speedup_max\": " + jsonNumber(r.timing.speedupMax, "%.4f") +
         ", \"checked\": " + (r.checked ? "true" : "false") +
         ", \"wrong\": " + (r.checked ? std::to_string(r.wrong) : std::string("null")) +
         ", \"check_rule\": " + jsonString(r.checkRule) +
         ", \"algorithm\": " + jsonString(r.algorithm) + "}";
  }
  j += report.results.empty() ? "],\n" : "\n  ],\n";
  j += format("  \"wrong_total\": %" PRIu64 "\n}\n", report.totalWrong());
  return j;
}

std::string formatMarkdown(const RunReport& report) {
  const RunInfo& info = report.info;
  std::string md = "# flashccl perf: flashccl vs NCCL\n\n";
  md += "| | |\n|---|---|\n";
  md += "| date | " + markdownCell(info.date) + " |\n";
  md += "| machine | " + markdownCell(info.machine) + " |\n";
  md += "| NCCL version | " + markdownCell(info.ncclVersion) + " (" +
        markdownCell(info.ncclLibrary) + ") |\n";
  md += "| flashccl version | " + markdownCell(info.flashcclVersion) + " |\n";
  md += format("| ranks | %d: %s |\n", info.nranks(), info.layout.describe().c_str());
  md += format("| timing | %s; %d operations per block after %d warm-up, median of %d "
               "NCCL/flashccl pairs |\n",
               timingModeName(info).c_str(), info.iters, info.warmupIters, info.pairs);
  md += std::string("| check | ") +
        (info.check ? "on: flashccl's output against NCCL's, bitwise or within the tolerance of "
                      "docs/perf.md; all ranks identical"
                    : "off (--no-check)") +
        " |\n";
  md += "| environment | " + markdownCell(environmentText(info)) + " |\n";
  md += "| command | `" + markdownCell(info.command) + "` |\n\n";
  for (const std::vector<SizeResult>& rows : groupByCollective(report.results)) {
    md += std::string("## ") + collectiveName(rows.front().collective) + "\n\n";
    md += "| size | count | type | redop | place | NCCL time (us) | NCCL algbw (GB/s) | "
          "NCCL busbw (GB/s) | flashccl time (us) | flashccl algbw (GB/s) | flashccl busbw (GB/s) "
          "| speedup | #wrong | algorithm |\n";
    md += "|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const SizeResult& r : rows) {
      md += format("| %s | %zu | %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
                   "%s | %s |\n",
                   humanBytes(r.bytes).c_str(), r.count, dataTypeName(r.dataType),
                   reduceOpName(r.op), placementName(r.placement), r.timing.ncclMicros,
                   algorithmBandwidth(r.bytes, r.timing.ncclMicros),
                   rowBusBw(r, info.nranks(), false), r.timing.flashcclMicros,
                   algorithmBandwidth(r.bytes, r.timing.flashcclMicros),
                   rowBusBw(r, info.nranks(), true), r.timing.speedup, wrongText(r).c_str(),
                   markdownCell(r.algorithm).c_str());
    }
    std::string footer = formatTableFooter(rows, info.nranks());
    // "# x: ...\n#\n" -> one plain sentence under the table.
    footer = footer.substr(2, footer.find('\n') - 2);
    md += "\n" + footer + "\n\n";
  }
  md += "Devices:\n\n";
  for (const DeviceInfo& d : info.devices)
    md += format("- rank %d: %s device %d [%s] %s, pid %d\n", d.rank, d.host.c_str(), d.device,
                 d.busId.c_str(), d.name.c_str(), d.pid);
  md += "\n" + formatRunFooter(report).substr(2);
  return md;
}

}  // namespace perf
}  // namespace flashccl
