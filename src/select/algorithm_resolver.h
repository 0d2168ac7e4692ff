// Name -> Algorithm for selection rows and FLASHCCL_ALGO: built-in kernels first, then MSCCL XML
// files (a path, or a file name inside the algorithm directory).
#pragma once

#include <memory>
#include <string>

namespace flashccl {

class Algorithm;

std::shared_ptr<Algorithm> resolveAlgorithm(const std::string& name, int nranks, int nnodes, std::string* error);

}  // namespace flashccl
