// What `flashccl tune` measures besides NCCL's default: NCCL choices forced through the tuner
// plugin's FLASHCCL_TUNER_FORCE (algorithm, protocol, channel cap), and flashccl's own algorithms
// forced through FLASHCCL_ALGO. Names are the tuner table's (plugins/tuner/tuning_table.h).
#pragma once

#include <string>
#include <vector>

#include "perf_types.h"

namespace flashccl {
namespace tune {

struct NcclChoice {
  std::string algorithm;  // "ring", "tree", "pat", "collnet_direct", "collnet_chain"
  std::string protocol;   // "ll", "ll128", "simple"
  int channels = 0;       // 0: NCCL's own count

  // FLASHCCL_TUNER_FORCE's entry: "ring:simple", "tree:ll:4".
  std::string forceEntry() const;
  // "ring/simple", "tree/ll, 4 channels".
  std::string label() const;
  bool operator==(const NcclChoice& other) const {
    return algorithm == other.algorithm && protocol == other.protocol && channels == other.channels;
  }
};

// --algorithms, --protocols, --channels: the sweep is their cross product, in list order.
struct CandidateLists {
  std::vector<std::string> algorithms = {"ring", "tree"};
  std::vector<std::string> protocols = {"ll", "ll128", "simple"};
  std::vector<int> channels = {0, 2, 8};
};
std::vector<NcclChoice> crossProduct(const CandidateLists& lists);

// Comma-separated lists with the tuner's spellings (case-insensitive; NCCL_ALGO's Ring, NVLSTree
// too), stored in the table's spelling. False with *error naming the bad item and the valid ones.
// NVLS algorithms are refused: flashccl never turns NVLink multicast on (docs/design.md, "No NVLink
// multicast").
bool parseAlgorithmList(const std::string& text, std::vector<std::string>* out, std::string* error);
bool parseProtocolList(const std::string& text, std::vector<std::string>* out, std::string* error);
bool parseChannelList(const std::string& text, std::vector<int>* out, std::string* error);
// --candidates: "ring:ll,tree:simple:4", FLASHCCL_TUNER_FORCE's entries without a collective.
bool parseCandidateList(const std::string& text, std::vector<NcclChoice>* out, std::string* error);

struct FlashcclAlgorithm {
  perf::Collective collective = perf::Collective::kAllReduce;
  std::string name;  // a built-in's name or an XML file, as FLASHCCL_ALGO takes it
};

// flashccl's built-in one-node algorithms (src/algo/registry.cc; a unit test keeps the two lists
// equal). Those across nodes are not measured: FLASHCCL_ALGO refuses them on one node.
const std::vector<FlashcclAlgorithm>& builtinFlashcclAlgorithms();

// --flashccl-algos: "all" (the default: the built-ins and every shipped XML program whose rank
// count fits, *shipped = true), "builtin", "none", or a list of names, each "collective:name" or a
// name that starts with its collective ("allreduce_ring--gpus_8-channels_8-proto_LL.xml").
bool parseFlashcclAlgorithms(const std::string& text, std::vector<FlashcclAlgorithm>* out, std::string* error,
                             bool* shipped = nullptr);

// The XML programs in `names` (a directory's file names) for `ranks` ranks, in name order: those
// named "<collective>...--gpus_<ranks>-....xml", as the shipped algorithms/ are.
std::vector<FlashcclAlgorithm> shippedProgramsFor(std::vector<std::string> names, int ranks);

}  // namespace tune
}  // namespace flashccl
