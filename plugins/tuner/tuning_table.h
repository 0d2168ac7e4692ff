// A tuning table: rows of (collective, ranks, nodes, byte range, pipelined ops, registered
// buffers) -> (NCCL algorithm, protocol, channels). The first row that matches a call decides;
// no matching row leaves NCCL's own choice untouched. docs/tuner.md describes the file format.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "nccl_tuner_abi.h"

namespace flashccl {

constexpr int kAnyCollective = -1;
constexpr int kNcclChooses = -1;  // algorithm/protocol of a row that leaves them to NCCL

enum class RegBuffFilter : int { kAny = 0, kRegistered = 1, kUnregistered = 2 };

// What NCCL tells the tuner about one call, beyond the communicator's ranks and nodes.
struct TunedCall {
  int coll = nccl_abi::kFuncAllReduce;  // nccl_abi::Func
  size_t bytes = 0;  // NCCL's nBytes: the whole buffer as nccl-tests counts it
  int numPipeOps = 1;
  bool regBuff = false;
};

struct TuningRow {
  int coll = kAnyCollective;  // nccl_abi::Func, or any (forced choices only)
  int nranks = 0;             // 0 = any
  int nnodes = 0;             // 0 = any
  size_t minBytes = 0;        // inclusive
  size_t maxBytes = 0;        // inclusive; 0 = no upper bound
  int pipeOps = 0;            // 0 = any
  RegBuffFilter regBuff = RegBuffFilter::kAny;
  int algorithm = kNcclChooses;  // nccl_abi::Algorithm; set together with protocol
  int protocol = kNcclChooses;   // nccl_abi::Protocol
  int channels = 0;              // 0 = NCCL's own count
  int line = 0;                  // in the file; 0 for forced choices
  std::string source;            // "file.xml:12" or "FLASHCCL_TUNER_FORCE", for log lines

  bool forCommunicator(int ranks, int nodes) const;
  bool matches(const TunedCall& call) const;  // everything but ranks and nodes
  bool choosesAlgorithm() const { return algorithm != kNcclChooses; }
};

struct TuningTable {
  std::string origin;   // the file, or the variable, the rows came from
  bool forced = false;  // from FLASHCCL_TUNER_FORCE: a choice NCCL cannot honour is a WARN
  std::vector<TuningRow> rows;
};

// Names as the table spells them: "allreduce"; "ring", "nvls_tree"; "ll128", "simple".
const char* collectiveName(int coll);
const char* algorithmName(int algorithm);
const char* protocolName(int protocol);
// Case-insensitive; for algorithms and protocols '_' and '-' are ignored, so NCCL_ALGO's own
// spellings (Ring, CollnetDirect, NVLSTree, LL128, Simple) are accepted too.
bool parseCollectiveName(const std::string& text, int* coll);
bool parseAlgorithmName(const std::string& text, int* algorithm);
bool parseProtocolName(const std::string& text, int* protocol);

// "ring/simple, 8 channels", "NCCL's algorithm and protocol, 4 channels".
std::string describeChoice(const TuningRow& row);

// Rows that make a table wrong even though each one is valid: a row that can never apply because
// the rows before it already take every call it would match, or two rows for the same collective,
// ranks, nodes, pipelined ops and registration whose byte ranges share more than a boundary.
// Returns false for the first such pair, with *later = the index of its second row and *problem
// saying what is wrong with it (naming the first row by its source).
bool checkRowConflicts(const std::vector<TuningRow>& rows, size_t* later, std::string* problem);

}  // namespace flashccl
