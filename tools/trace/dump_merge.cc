#include "dump_merge.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace flashccl {

MergedDumps mergeDumps(const std::vector<std::pair<std::string, std::string>>& files) {
  MergedDumps merged;
  std::map<uint64_t, MergedComm> byHash;
  size_t ranksHeld = 0;  // per-rank rows allocated, over every communicator
  for (const auto& file : files) {
    TraceDump dump;
    std::string error;
    if (!dumpFromJson(file.second, &dump, &error)) {
      merged.problems.push_back(file.first + ": " + error);
      continue;
    }
    ++merged.files;
    merged.timeoutSeconds = std::max(merged.timeoutSeconds, dump.hangTimeoutSeconds);
    for (DumpedComm& dumped : dump.comms) {
      const CommIdentity& id = dumped.snapshot.identity;
      if (byHash.count(id.commHash) == 0) {
        // Each communicator is bounded (kMaxTraceRanks) but a file may name many: so are they all.
        if (ranksHeld + static_cast<size_t>(id.nranks) > kMaxMergedRanks) {
          merged.problems.push_back(file.first + ": communicator " + std::to_string(id.commHash) +
                                    " skipped: the dumps' communicators hold more than " +
                                    std::to_string(kMaxMergedRanks) + " ranks in all");
          continue;
        }
        ranksHeld += static_cast<size_t>(id.nranks);
      }
      MergedComm& comm = byHash[id.commHash];
      if (comm.nranks == 0) {
        comm.commHash = id.commHash;
        comm.nranks = id.nranks;
        comm.dumped.assign(id.nranks, false);
        comm.latest.resize(id.nranks);
        comm.peers.resize(id.nranks);
      }
      if (id.nranks != comm.nranks) {
        merged.problems.push_back(file.first + ": communicator " + std::to_string(id.commHash) +
                                  " has " + std::to_string(id.nranks) + " ranks here, " +
                                  std::to_string(comm.nranks) + " elsewhere");
        continue;
      }
      if (dumped.peers.size() == static_cast<size_t>(comm.nranks)) {
        for (int rank = 0; rank < comm.nranks; ++rank) {
          if (comm.peers[rank].magic == 0) comm.peers[rank] = dumped.peers[rank];
        }
      }
      if (!comm.dumped[id.rank] || dumped.snapshot.takenWallNs > comm.latest[id.rank].takenWallNs) {
        comm.dumped[id.rank] = true;
        comm.latest[id.rank] = std::move(dumped.snapshot);
      }
    }
  }
  for (auto& entry : byHash) merged.comms.push_back(std::move(entry.second));
  return merged;
}

bool readDumpFiles(const std::vector<std::string>& named, std::vector<std::pair<std::string, std::string>>* files,
                   std::string* error) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  for (const std::string& path : named) {
    std::error_code code;
    if (fs::is_regular_file(path, code)) {
      paths.push_back(path);
      continue;
    }
    if (!fs::is_directory(path, code)) {
      *error = path + ": no such file or directory";
      return false;
    }
    std::vector<std::string> found;
    for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, code), end;
         !code && it != end; it.increment(code)) {
      if (it->is_regular_file(code) && it->path().extension() == ".json") found.push_back(it->path().string());
    }
    if (code) {
      *error = "cannot read " + path + ": " + code.message();
      return false;
    }
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  // A file named twice (a folder and a file in it) is read once.
  std::vector<std::string> unique;
  for (const std::string& path : paths)
    if (std::find(unique.begin(), unique.end(), path) == unique.end()) unique.push_back(path);
  for (const std::string& path : unique) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    files->push_back({path, text.str()});
  }
  return true;
}

CommReport offlineReport(const MergedComm& comm, int64_t timeoutNs) {
  CommReport report;
  report.commHash = comm.commHash;
  report.nranks = comm.nranks;
  report.timeoutNs = timeoutNs;
  report.ranks.resize(comm.nranks);
  for (int rank = 0; rank < comm.nranks; ++rank) {
    RankReport& r = report.ranks[rank];
    r.rank = rank;
    r.reachable = comm.dumped[rank];
    if (r.reachable) {
      r.snapshot = comm.latest[rank];
    } else {
      r.endpoint = comm.peers[rank];
      r.why = "no dump from it: its process may be gone, or its dumps were not copied here";
    }
  }
  return report;
}

}  // namespace flashccl
