// What `flashccl tune` reads in NCCL's debug log (NCCL_DEBUG_FILE of each perf run): the tuner
// plugin's own lines and NCCL's record of every call. The formats are the plugin's
// (plugins/tuner/tuner_plugin.cc, tuner_context.cc) and NCCL 2.28's (docs/tuner.md, "Checking that
// it is applied").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace flashccl {
namespace tune {

// The plugin's WARN for a forced choice NCCL cannot make on the communicator (its cost-table cell
// is -1): "TUNER/flashccl: allgather 1048576 bytes: tree/ll is not available to this communicator".
// NCCL then ran its own choice, whose time must not be credited to the forced one.
struct UnavailableChoice {
  std::string collective;  // the plugin's name: "allgather"
  size_t bytes = 0;        // the first call it happened to (logged once per communicator)
  std::string algorithm;   // "tree"
  std::string protocol;    // "ll"
};

// The plugin's INFO at each communicator's init ("flashccl tuner 0.1.0: 1 of 1 rows apply to 2
// ranks, 2 nodes (FLASHCCL_TUNER_FORCE=nccl)"): proof that NCCL loaded it, and the rank and node
// count NCCL matches table rows against (NCCL counts a node per NCCL_HOSTID, not per host name).
struct PluginInit {
  std::string summary;  // what follows "flashccl tuner <version>: "
  int ranks = 0;
  int nodes = 0;
  int rowsApplied = -1;  // "<k> of <n> rows apply": k and n; -1 when the line says "no table"
  int rowsInTable = -1;
};

// NCCL's INFO (subsystem TUNING) for each call on rank 0: "AllGather: 524288 Bytes -> Algo RING
// proto LL channel{Lo..Hi}={0..1}". NCCL 2.28 prints count x type size, which is per rank for
// all-gather and reduce-scatter.
struct CallChoice {
  std::string collective;  // the plugin's name: "allreduce", "allgather", ...
  size_t printedBytes = 0;
  std::string algorithm;   // the table's spelling: "ring", "collnet_direct"
  std::string protocol;    // "ll", "ll128", "simple"
  int channels = 0;        // Hi - Lo + 1
};

struct NcclLog {
  std::vector<UnavailableChoice> unavailable;
  std::vector<PluginInit> inits;
  std::vector<CallChoice> calls;
  // Every other WARN of the plugin: a table or FLASHCCL_TUNER_FORCE it could not use.
  std::vector<std::string> pluginWarnings;
};

NcclLog parseNcclLog(const std::string& text);

// The whole-buffer size the tuner saw (NCCL's nBytes) for a call NCCL printed.
size_t tunerBytes(const CallChoice& call, int ranks);

}  // namespace tune
}  // namespace flashccl
