// topologies/*.xml: a known machine type (how to recognise it) and its selection table.
// The format is documented in docs/topologies.md; in short:
//
//   <topology name="hopper-2gpu-nvlink" description="...">
//     <match gpu="NVIDIA H100*|NVIDIA H200*" gpus="2" interconnect="nvswitch|nvlink-direct"/>
//     <selection>
//       <group coll="allreduce" ranks="2" nodes="1">
//         <row maxBytes="1M" algorithm="allreduce_oneshot"/>
//         <row minBytes="1M" algorithm="nccl"/>
//       </group>
//     </selection>
//     <measurement gpu=... nccl=... kernels=.../>   what the rows were measured on
//                            (topo/table_measurement.h; docs/topologies.md, "Calibrated tables")
//     <tuning>...</tuning>   NCCL's own choices: read by the tuner plugin (plugins/tuner,
//                            docs/tuner.md); accepted and skipped here
//     <doctor>...</doctor>   busbw floors: read by `flashccl doctor` (tools/doctor,
//                            docs/doctor.md); accepted and skipped here
//   </topology>
#pragma once

#include <string>
#include <vector>

#include "topo/selection_table.h"
#include "topo/table_measurement.h"
#include "topo/topology.h"

namespace flashccl {

// One <match>: every attribute given must hold (an absent attribute matches anything).
struct MachineMatch {
  std::vector<std::string> gpuPatterns;    // globs on the GPU name (case-insensitive); any one
  std::vector<int> gpuCounts;              // any one
  std::vector<Interconnect> interconnects;  // any one
  int line = 0;
};

struct TopologyDescription {
  std::string name;         // <topology name=...>
  std::string description;  // free text, for `flashccl plan` and logs
  std::string path;         // the file it came from
  std::vector<MachineMatch> matches;  // the machine is this type if any one holds; none = the
                                      // file is only used when named (FLASHCCL_TOPO_FILE, --topo)
  SelectionTable table;     // rows in file order; table.name == name
  bool hasMeasurement = false;  // a <measurement> element was given
  TableMeasurement measurement;

  // The GPU count this description is for: the first count of the first <match> that has one;
  // 0 when no <match> gives a count.
  int gpuCount() const;
  // True when some row can apply to a communicator of `nranks` ranks on `nnodes` nodes.
  bool hasRowsFor(int nranks, int nnodes = 1) const;
};

// Parses `text` as the contents of `path` (used in messages and row sources). On failure returns
// false with *error = "path:line: message"; *out is then unspecified.
bool parseTopologyText(const std::string& text, const std::string& path, TopologyDescription* out,
                       std::string* error);
bool parseTopologyFile(const std::string& path, TopologyDescription* out, std::string* error);

// Every *.xml in `dir`, in file-name order. A file that fails to parse is skipped and its error
// appended to *warnings. A missing directory gives an empty list and a warning.
std::vector<TopologyDescription> loadTopologyDirectory(const std::string& dir,
                                                       std::vector<std::string>* warnings);

}  // namespace flashccl
