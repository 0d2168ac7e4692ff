// XML algorithm names -> Algorithms for selection rows and FLASHCCL_ALGO.
//
// A name ending in ".xml" is a path (absolute, or relative to the working directory) or a file
// name inside the algorithm directory: FLASHCCL_ALGO_DIR when set, else the first that exists of
// <libdir>/../share/flashccl/algorithms and the source tree's algorithms/. Each file is parsed and
// validated once per process; every communicator gets its own MscclAlgorithm over it (its device
// image and scratch belong to that communicator).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "msccl/program.h"

namespace flashccl {

class Algorithm;

namespace msccl {

bool looksLikeAlgorithmFile(const std::string& name);  // ends in ".xml"

// The directories searched for a bare file name, in order.
std::vector<std::string> algorithmDirectories();

// The validated program in `name`, from the process-wide cache. Null with *error (which names
// the file and, for an invalid one, every `file:line: problem`) when it cannot be used.
std::shared_ptr<const Program> loadProgramOnce(const std::string& name, std::string* error);

// A new MscclAlgorithm for a communicator of `nranks` ranks on `nnodes` nodes, or null with
// *error. Across nodes a program is refused, with the first of its steps that crosses a node
// (ranks numbered node by node): the executor moves data only through the peer memory of one
// node, and a step between nodes would need NCCL's send/recv on the rails in the middle of the
// executor's kernel, which a kernel cannot call (docs/algorithms.md, "MSCCL programs across
// nodes").
std::shared_ptr<Algorithm> makeMscclAlgorithm(const std::string& name, int nranks, int nnodes, std::string* error);

// "gpu 1 (node 0) sends to gpu 2 (node 1) in thread block 0": the first step of `program` between
// nodes when its gpus are laid on `nnodes` nodes in order, or "" when none is.
std::string firstStepAcrossNodes(const Program& program, int nnodes);

}  // namespace msccl
}  // namespace flashccl
