#include "passthrough_record.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <tuple>

#include "test_inputs.h"

namespace flashccl_gpu_test::passthrough {
namespace {

// At most this many non-identical cases are listed one by one; the tables count all of them.
constexpr size_t kListedProblems = 200;

struct Tally {
  size_t cases = 0;
  size_t identical = 0;
  size_t differ = 0;
  size_t errors = 0;  // errors and cases without a result
};

void count(const CaseOutcome& outcome, Tally* t) {
  ++t->cases;
  if (outcome.verdict == Verdict::kIdentical) ++t->identical;
  else if (outcome.verdict == Verdict::kDiffers) ++t->differ;
  else ++t->errors;
}

// Groups a mode's cases by `key`, keeping the order in which keys first appear (the case list's
// order: collective, then dtype, then count).
template <typename Key, typename KeyOf>
std::vector<std::pair<Key, Tally>> tallyBy(const ModeResults& mode, KeyOf keyOf) {
  std::vector<std::pair<Key, Tally>> rows;
  std::map<Key, size_t> rowOf;
  for (size_t i = 0; i < mode.cases().size(); ++i) {
    const Key key = keyOf(mode.cases()[i]);
    auto found = rowOf.find(key);
    if (found == rowOf.end()) {
      found = rowOf.emplace(key, rows.size()).first;
      rows.emplace_back(key, Tally{});
    }
    count(mode.outcomes()[i], &rows[found->second].second);
  }
  return rows;
}

void writeSummaryTable(std::ostream& out, const std::vector<const ModeResults*>& modes) {
  out << "| mode | collective | cases | identical | differ | errors or no result |\n"
      << "|---|---|---:|---:|---:|---:|\n";
  for (const ModeResults* mode : modes) {
    for (const auto& [collective, t] :
         tallyBy<int>(*mode, [](const Case& c) { return static_cast<int>(c.collective); })) {
      out << "| " << mode->mode() << " | " << collectiveName(static_cast<Collective>(collective))
          << " | " << t.cases << " | " << t.identical << " | " << t.differ << " | " << t.errors << " |\n";
    }
  }
}

void writeDetailTable(std::ostream& out, const std::vector<const ModeResults*>& modes) {
  out << "| mode | collective | dtype | size | cases | identical |\n"
      << "|---|---|---|---:|---:|---:|\n";
  using Key = std::tuple<int, int, size_t>;
  for (const ModeResults* mode : modes) {
    const auto rows = tallyBy<Key>(*mode, [](const Case& c) {
      return Key{static_cast<int>(c.collective), static_cast<int>(c.dtype), c.count};
    });
    for (const auto& [key, t] : rows) {
      const auto dtype = static_cast<ncclDataType_t>(std::get<1>(key));
      out << "| " << mode->mode() << " | " << collectiveName(static_cast<Collective>(std::get<0>(key)))
          << " | " << typeName(dtype) << " | " << formatBytes(std::get<2>(key) * typeSize(dtype))
          << " | " << t.cases << " | " << t.identical << " |\n";
    }
  }
}

void writeProblems(std::ostream& out, const std::vector<const ModeResults*>& modes) {
  std::vector<std::string> lines;
  size_t notListed = 0;
  for (const ModeResults* mode : modes) {
    for (const std::string& problem : mode->problems()) lines.push_back(mode->mode() + ": " + problem);
    size_t noResult = 0;
    std::string firstNoResult;
    for (size_t i = 0; i < mode->cases().size(); ++i) {
      const CaseOutcome& outcome = mode->outcomes()[i];
      if (outcome.verdict == Verdict::kIdentical) continue;
      if (outcome.verdict == Verdict::kNoResult) {
        if (noResult++ == 0) firstNoResult = describe(mode->cases()[i]);
        continue;
      }
      if (lines.size() >= kListedProblems) ++notListed;
      else lines.push_back(mode->mode() + " " + describe(mode->cases()[i]) + ": " + outcome.detail);
    }
    if (noResult > 0)
      lines.push_back(mode->mode() + ": " + std::to_string(noResult) + " cases without a result, from " +
                      firstNoResult + " on (the mode stopped early)");
  }
  if (lines.empty()) return;
  out << "\n## Not identical, errors and failures\n\n";
  for (const std::string& line : lines) out << "- " << line << "\n";
  if (notListed > 0) out << "- ... and " << notListed << " more cases that were not identical (see the log)\n";
}

}  // namespace

std::string formatBytes(size_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB"};
  size_t value = bytes;
  int unit = 0;
  while (unit < 3 && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return std::to_string(value) + " " + units[unit];
}

std::string writeRecord(const std::string& path, const RecordHeader& header,
                        const std::vector<const ModeResults*>& modes) {
  std::ofstream out(path);
  if (!out) return "cannot write " + path + ": " + std::strerror(errno);
  out << "# flashccl pass-through check: every NCCL collective and send/recv, flashccl against the real NCCL\n\n"
      << "| | |\n|---|---|\n"
      << "| date | " << header.date << " |\n"
      << "| machine | " << header.machine << " |\n"
      << "| NCCL version | " << header.ncclVersion << " |\n"
      << "| flashccl version | " << header.flashcclVersion << " |\n"
      << "| pass-through | " << header.passThrough << " |\n"
      << "| ranks | " << header.ranks << " |\n"
      << "| environment | " << header.environment << " |\n"
      << "| command | `" << header.command << "` |\n"
      << "| result | " << header.summary << " |\n\n"
      << "Each case makes one call (or one group of calls) through flashccl, the `nccl*` functions\n"
      << "libflashccl.so exports, and the same call through the real NCCL's entry points\n"
      << "(`flashcclRealFunction`), on the same communicator and from the same inputs, and compares\n"
      << "the two outputs bitwise on every rank (`identical` counts cases equal on all ranks). Modes:\n"
      << "`threads` is one process with a thread per GPU, `procs` one process per GPU (rank 0 makes the\n"
      << "unique id); `eager` calls directly, `graph` captures each call into a CUDA graph on the rank's\n"
      << "stream, instantiates it and launches it (out-of-place graphs twice). `size` is the call's\n"
      << "count times the element size (AllGather sendcount, ReduceScatter recvcount, the per-peer\n"
      << "count of AlltoAll, Gather and Scatter); a row covers every op, root and placement of that\n"
      << "collective, dtype and count. Dtypes: float, bf16, half, int32, int8, double; ops of the\n"
      << "reducing collectives: sum, prod, max, min, avg; roots: 0 and the last rank; in and out of\n"
      << "place where nccl.h defines in place. `SendRecv` is a ring exchange (send to rank+1, receive\n"
      << "from rank-1) in one group; `GroupedBatch` is AllReduce, Reduce, Broadcast, AllGather,\n"
      << "ReduceScatter, AlltoAll and the ring exchange in one group (sum).\n\n"
      << "## By mode\n\n"
      << "| mode | seconds | cases | identical | differ | errors or no result |\n"
      << "|---|---:|---:|---:|---:|---:|\n";
  for (const ModeResults* mode : modes) {
    const Totals t = mode->totals();
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%.1f", mode->seconds());
    out << "| " << mode->mode() << " | " << seconds << " | " << t.cases << " | " << t.identical << " | "
        << t.differ << " | " << t.errors + t.noResult << " |\n";
  }
  out << "\n## By mode and collective\n\n";
  writeSummaryTable(out, modes);
  out << "\n## By mode, collective, dtype and size\n\n";
  writeDetailTable(out, modes);
  writeProblems(out, modes);
  out.flush();
  if (!out) return "writing " + path + " failed";
  return "";
}

}  // namespace flashccl_gpu_test::passthrough
