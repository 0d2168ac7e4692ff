#include "tuning_table.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace flashccl {

namespace {

const char* const kCollectiveNames[nccl_abi::kNumTunedFuncs] = {
    "broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
const char* const kAlgorithmNames[nccl_abi::kNumAlgorithms] = {
    "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
const char* const kProtocolNames[nccl_abi::kNumProtocols] = {"ll", "ll128", "simple"};

// Lower case, without the separators people put in "collnet_direct" or leave out of
// "CollnetDirect".
std::string canonical(const std::string& text, bool dropSeparators) {
  std::string out;
  for (char c : text) {
    if (dropSeparators && (c == '_' || c == '-')) continue;
    out += char(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool findName(const char* const* names, int count, const std::string& text, bool dropSeparators,
              int* index) {
  const std::string wanted = canonical(text, dropSeparators);
  for (int i = 0; i < count; ++i) {
    if (canonical(names[i], dropSeparators) == wanted) {
      *index = i;
      return true;
    }
  }
  return false;
}

size_t upperBound(const TuningRow& row) { return row.maxBytes == 0 ? SIZE_MAX : row.maxBytes; }

// Every call `later` matches apart from its size, `earlier` matches too.
bool coversApartFromSize(const TuningRow& earlier, const TuningRow& later) {
  return (earlier.coll == kAnyCollective || earlier.coll == later.coll) &&
         (earlier.nranks == 0 || earlier.nranks == later.nranks) &&
         (earlier.nnodes == 0 || earlier.nnodes == later.nnodes) &&
         (earlier.pipeOps == 0 || earlier.pipeOps == later.pipeOps) &&
         (earlier.regBuff == RegBuffFilter::kAny || earlier.regBuff == later.regBuff);
}

// When the rows before rows[later] take every call it matches, the sources of those that do;
// else empty. Bands are inclusive at both ends.
std::vector<std::string> rowsThatShadow(const std::vector<TuningRow>& rows, size_t later) {
  const TuningRow& row = rows[later];
  std::vector<const TuningRow*> candidates;
  for (size_t i = 0; i < later; ++i) {
    if (coversApartFromSize(rows[i], row) && rows[i].minBytes <= upperBound(row) &&
        upperBound(rows[i]) >= row.minBytes) {
      candidates.push_back(&rows[i]);
    }
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const TuningRow* a, const TuningRow* b) { return a->minBytes < b->minBytes; });
  std::vector<std::string> sources;
  size_t uncovered = row.minBytes;  // the smallest size no candidate so far takes
  for (const TuningRow* candidate : candidates) {
    if (candidate->minBytes > uncovered) break;  // a gap: calls of that size reach `row`
    sources.push_back(candidate->source);
    if (upperBound(*candidate) >= upperBound(row)) return sources;
    uncovered = std::max(uncovered, upperBound(*candidate) + 1);
  }
  return {};
}

bool sameScope(const TuningRow& a, const TuningRow& b) {
  return a.coll == b.coll && a.nranks == b.nranks && a.nnodes == b.nnodes &&
         a.pipeOps == b.pipeOps && a.regBuff == b.regBuff;
}

}  // namespace

bool TuningRow::forCommunicator(int ranks, int nodes) const {
  return (nranks == 0 || nranks == ranks) && (nnodes == 0 || nnodes == nodes);
}

bool TuningRow::matches(const TunedCall& call) const {
  if (coll != kAnyCollective && coll != call.coll) return false;
  if (call.bytes < minBytes || (maxBytes != 0 && call.bytes > maxBytes)) return false;
  if (pipeOps != 0 && pipeOps != call.numPipeOps) return false;
  if (regBuff == RegBuffFilter::kRegistered && !call.regBuff) return false;
  if (regBuff == RegBuffFilter::kUnregistered && call.regBuff) return false;
  return true;
}

const char* collectiveName(int coll) {
  return coll >= 0 && coll < nccl_abi::kNumTunedFuncs ? kCollectiveNames[coll] : "any collective";
}

const char* algorithmName(int algorithm) {
  return algorithm >= 0 && algorithm < nccl_abi::kNumAlgorithms ? kAlgorithmNames[algorithm] : "nccl";
}

const char* protocolName(int protocol) {
  return protocol >= 0 && protocol < nccl_abi::kNumProtocols ? kProtocolNames[protocol] : "nccl";
}

bool parseCollectiveName(const std::string& text, int* coll) {
  return findName(kCollectiveNames, nccl_abi::kNumTunedFuncs, text, false, coll);
}

bool parseAlgorithmName(const std::string& text, int* algorithm) {
  return findName(kAlgorithmNames, nccl_abi::kNumAlgorithms, text, true, algorithm);
}

bool parseProtocolName(const std::string& text, int* protocol) {
  return findName(kProtocolNames, nccl_abi::kNumProtocols, text, true, protocol);
}

std::string describeChoice(const TuningRow& row) {
  std::string text = row.choosesAlgorithm()
                         ? std::string(algorithmName(row.algorithm)) + "/" + protocolName(row.protocol)
                         : "NCCL's algorithm and protocol";
  if (row.channels > 0) text += ", " + std::to_string(row.channels) + " channels";
  return text;
}

bool checkRowConflicts(const std::vector<TuningRow>& rows, size_t* later, std::string* problem) {
  for (size_t b = 1; b < rows.size(); ++b) {
    *later = b;
    const std::vector<std::string> shadows = rowsThatShadow(rows, b);
    if (!shadows.empty()) {
      std::string names;
      for (const std::string& source : shadows) names += (names.empty() ? "" : ", ") + source;
      *problem = "never applies: " + names +
                 (shadows.size() == 1 ? " comes first and takes" : " come first and take") +
                 " every call it matches";
      return false;
    }
    for (size_t a = 0; a < b; ++a) {
      const size_t low = std::max(rows[a].minBytes, rows[b].minBytes);
      const size_t high = std::min(upperBound(rows[a]), upperBound(rows[b]));
      // Sharing one boundary value is how bands are written (both ends are inclusive).
      if (sameScope(rows[a], rows[b]) && low < high) {
        *problem = "overlaps " + rows[a].source + " (both match " + collectiveName(rows[b].coll) +
                   " calls from " + std::to_string(low) + " to " +
                   (high == SIZE_MAX ? std::string("any number of") : std::to_string(high)) +
                   " bytes)";
        return false;
      }
    }
  }
  return true;
}

}  // namespace flashccl
