#include "select/algorithm_resolver.h"

#include "algo/algorithm.h"
#include "msccl/algorithm_loader.h"

namespace flashccl {

std::shared_ptr<Algorithm> resolveAlgorithm(const std::string& name, int nranks, int nnodes, std::string* error) {
  if (Algorithm* builtin = findBuiltinAlgorithm(name.c_str())) {
    return unownedAlgorithm(builtin);
  }
  if (msccl::looksLikeAlgorithmFile(name)) return msccl::makeMscclAlgorithm(name, nranks, nnodes, error);
  if (error) *error = "unknown algorithm '" + name + "'";
  return nullptr;
}

}  // namespace flashccl
