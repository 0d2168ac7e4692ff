// The selection table compiled into the library: used when no topologies/*.xml file matches this
// machine. Rows carry the crossovers measured on 2 x H200 (bench/results/); other rank counts get
// the conservative rows (sizes where one-shot kernels are safe bets on any NVLink box).
#pragma once

#include "topo/selection_table.h"

namespace flashccl {

const SelectionTable& builtinSelectionTable();

}  // namespace flashccl
