#include "nccl_log.h"

#include <regex>
#include <sstream>

#include "tuning_table.h"

namespace flashccl {
namespace tune {

namespace {

const std::regex kUnavailable(
    R"(TUNER/flashccl: (\w+) (\d+) bytes: (\w+)/(\w+) is not available to this communicator)");
const std::regex kInit(R"(TUNER/flashccl: flashccl tuner \S+: (.*)$)");
const std::regex kRanksNodes(R"((\d+) ranks, (\d+) nodes)");
const std::regex kRowsApply(R"(^(\d+) of (\d+) rows apply)");
const std::regex kCall(
    R"(NCCL INFO (AllReduce|AllGather|ReduceScatter|Broadcast|Reduce): (\d+) Bytes -> Algo (\w+) proto (\w+) channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\})");

// NCCL's names for the five tuned collectives, as the table spells them.
std::string tableCollective(const std::string& ncclName) {
  int coll = 0;
  return parseCollectiveName(ncclName, &coll) ? collectiveName(coll) : ncclName;
}

std::string tableAlgorithm(const std::string& ncclName) {
  int algorithm = 0;
  return parseAlgorithmName(ncclName, &algorithm) ? algorithmName(algorithm) : ncclName;
}

std::string tableProtocol(const std::string& ncclName) {
  int protocol = 0;
  return parseProtocolName(ncclName, &protocol) ? protocolName(protocol) : ncclName;
}

}  // namespace

NcclLog parseNcclLog(const std::string& text) {
  NcclLog log;
  std::istringstream lines(text);
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, m, kCall)) {
      CallChoice call;
      call.collective = tableCollective(m[1]);
      call.printedBytes = std::stoull(m[2]);
      call.algorithm = tableAlgorithm(m[3]);
      call.protocol = tableProtocol(m[4]);
      call.channels = std::stoi(m[6]) - std::stoi(m[5]) + 1;
      log.calls.push_back(call);
    } else if (std::regex_search(line, m, kUnavailable)) {
      log.unavailable.push_back({m[1], std::stoull(m[2]), m[3], m[4]});
    } else if (std::regex_search(line, m, kInit)) {
      PluginInit init;
      init.summary = m[1];
      std::smatch counts;
      if (std::regex_search(init.summary, counts, kRanksNodes)) {
        init.ranks = std::stoi(counts[1]);
        init.nodes = std::stoi(counts[2]);
      }
      if (std::regex_search(init.summary, counts, kRowsApply)) {
        init.rowsApplied = std::stoi(counts[1]);
        init.rowsInTable = std::stoi(counts[2]);
      }
      log.inits.push_back(init);
    } else if (line.find("WARN TUNER/flashccl: ") != std::string::npos) {
      log.pluginWarnings.push_back(line.substr(line.find("TUNER/flashccl: ")));
    }
  }
  return log;
}

size_t tunerBytes(const CallChoice& call, int ranks) {
  const bool perRank = call.collective == "allgather" || call.collective == "reducescatter";
  return perRank ? call.printedBytes * size_t(ranks) : call.printedBytes;
}

}  // namespace tune
}  // namespace flashccl
