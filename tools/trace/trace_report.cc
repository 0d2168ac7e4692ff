#include "trace_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

namespace flashccl {

namespace {

const char* cellOf(CallState state) {
  switch (state) {
    case CallState::kCompleted: return "C";
    case CallState::kStarted: return "S";
    case CallState::kEnqueued: return "E";
    case CallState::kCaptured: return "G";
    case CallState::kUntracked: return "?";
    case CallState::kFailed: return "X";
  }
  return "?";
}

const char* findingKindName(Finding::Kind kind) {
  switch (kind) {
    case Finding::Kind::kMismatch: return "mismatch";
    case Finding::Kind::kNotCalled: return "not_called";
    case Finding::Kind::kUnreachable: return "unreachable";
    case Finding::Kind::kKernelNotStarted: return "kernel_not_started";
    case Finding::Kind::kKernelNotCompleted: return "kernel_not_completed";
    case Finding::Kind::kKernelsStuck: return "kernels_stuck";
    case Finding::Kind::kLaunchFailed: return "launch_failed";
    case Finding::Kind::kP2pWait: return "p2p_wait";
  }
  return "unknown";
}

std::string hashText(uint64_t hash) {
  char text[24];
  std::snprintf(text, sizeof(text), "%016" PRIx64, hash);
  return text;
}

std::vector<int> dumpedRanks(const MergedComm& comm) {
  std::vector<int> ranks;
  for (int rank = 0; rank < comm.nranks; ++rank) {
    if (comm.dumped[rank]) ranks.push_back(rank);
  }
  return ranks;
}

}  // namespace

std::vector<TimelineRow> timelineOf(const MergedComm& comm, size_t lastCalls) {
  std::set<uint64_t> seqs;
  for (int rank = 0; rank < comm.nranks; ++rank) {
    if (!comm.dumped[rank]) continue;
    for (const SnapshotCall& call : comm.latest[rank].calls) {
      if (isCollective(call.call.kind) && call.seq != 0) seqs.insert(call.seq);
    }
  }
  while (seqs.size() > lastCalls) seqs.erase(seqs.begin());
  std::vector<TimelineRow> rows;
  for (uint64_t seq : seqs) {
    TimelineRow row;
    row.seq = seq;
    row.cells.assign(comm.nranks, " ");
    row.states.assign(comm.nranks, "");
    const SnapshotCall* reference = nullptr;
    for (int rank = 0; rank < comm.nranks; ++rank) {
      if (!comm.dumped[rank]) continue;
      const ProgressSnapshot& snapshot = comm.latest[rank];
      const SnapshotCall* call = snapshot.collective(seq);
      if (call == nullptr) {
        // Older than what the rank's dump kept, or never called.
        const bool called = snapshot.lastCollectiveSeq >= seq;
        row.cells[rank] = called ? " " : ".";
        continue;
      }
      row.states[rank] = callStateName(call->state);
      if (reference == nullptr) {
        reference = call;
        row.call = callArgumentsText(call->call);
      }
      row.cells[rank] = callArgumentsText(call->call) == row.call ? cellOf(call->state) : "!";
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<CommAnalysis> analyzeDumps(const MergedDumps& dumps, int64_t timeoutNs, size_t lastCalls) {
  std::vector<CommAnalysis> analyses;
  for (const MergedComm& comm : dumps.comms) {
    CommAnalysis analysis;
    analysis.comm = &comm;
    analysis.findings = analyzeHang(offlineReport(comm, timeoutNs));
    analysis.timeline = timelineOf(comm, lastCalls);
    analyses.push_back(std::move(analysis));
  }
  return analyses;
}

void printTextReport(const MergedDumps& dumps, const std::vector<CommAnalysis>& analyses,
                     std::ostream& out) {
  std::set<std::string> hosts;
  std::set<std::pair<std::string, int>> processes;
  for (const MergedComm& comm : dumps.comms) {
    for (int rank = 0; rank < comm.nranks; ++rank) {
      if (!comm.dumped[rank]) continue;
      hosts.insert(comm.latest[rank].identity.host);
      processes.insert({comm.latest[rank].identity.host, comm.latest[rank].identity.pid});
    }
  }
  out << "flashccl trace: " << dumps.files << " dump file(s) from " << processes.size()
      << " process(es) on " << hosts.size() << " host(s), " << dumps.comms.size()
      << " communicator(s)\n";
  for (const std::string& problem : dumps.problems) out << "  skipped " << problem << "\n";
  for (const CommAnalysis& analysis : analyses) {
    const MergedComm& comm = *analysis.comm;
    out << "\ncomm " << hashText(comm.commHash) << ": " << comm.nranks << " ranks, dumps from "
        << ranksText(dumpedRanks(comm)) << "\n";
    if (anyBlocking(analysis.findings)) {
      out << "  verdict (ages as of each rank's dump):\n";
      for (const Finding& finding : analysis.findings) out << "    " << finding.text << "\n";
    } else {
      out << "  no hang found\n";
      for (const Finding& finding : analysis.findings) out << "    note: " << finding.text << "\n";
    }
    if (analysis.timeline.empty()) continue;
    out << "  timeline (C completed, S started, E enqueued, ? not followed, G in a CUDA graph,\n"
           "            X failed to launch, . not called, ! called something else):\n";
    size_t callWidth = 4;
    for (const TimelineRow& row : analysis.timeline) callWidth = std::max(callWidth, row.call.size());
    // Each rank's column is as wide as its number.
    auto padded = [](std::string text, size_t width) {
      text.resize(std::max(text.size(), width), ' ');
      return text;
    };
    auto rightAligned = [](const std::string& text, size_t width) {
      return std::string(width > text.size() ? width - text.size() : 0, ' ') + text;
    };
    out << "    " << rightAligned("seq", 8) << "  " << padded("call", callWidth) << "  ";
    for (int rank = 0; rank < comm.nranks; ++rank) out << (rank ? " " : "") << rank;
    out << "\n";
    for (const TimelineRow& row : analysis.timeline) {
      out << "    " << rightAligned(std::to_string(row.seq), 8) << "  " << padded(row.call, callWidth) << "  ";
      for (int rank = 0; rank < comm.nranks; ++rank) {
        out << (rank ? " " : "") << padded(row.cells[rank], std::to_string(rank).size());
      }
      out << "\n";
    }
  }
}

std::string jsonReport(const MergedDumps& dumps, const std::vector<CommAnalysis>& analyses) {
  using Json = nlohmann::json;
  Json comms = Json::array();
  for (const CommAnalysis& analysis : analyses) {
    Json findings = Json::array();
    for (const Finding& finding : analysis.findings) {
      findings.push_back({{"kind", findingKindName(finding.kind)},
                          {"seq", finding.seq},
                          {"ranks", finding.ranks},
                          {"blocking", finding.blocking},
                          {"text", finding.text}});
    }
    Json timeline = Json::array();
    for (const TimelineRow& row : analysis.timeline) {
      Json states = Json::array();
      for (const std::string& state : row.states) states.push_back(state.empty() ? Json(nullptr) : Json(state));
      timeline.push_back({{"seq", row.seq}, {"call", row.call}, {"states", states}});
    }
    comms.push_back({{"comm_hash", hashText(analysis.comm->commHash)},
                     {"nranks", analysis.comm->nranks},
                     {"ranks_with_dumps", dumpedRanks(*analysis.comm)},
                     {"hang", anyBlocking(analysis.findings)},
                     {"findings", findings},
                     {"timeline", timeline}});
  }
  Json root{{"dump_files", dumps.files}, {"skipped", dumps.problems}, {"comms", comms}};
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace flashccl
