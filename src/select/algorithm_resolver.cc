#include "select/algorithm_resolver.h"

#include "algo/algorithm.h"
#include "msccl/algorithm_loader.h"

namespace flashccl {

std::shared_ptr<Algorithm> resolveAlgorithm(const std::string& name, int nranks, int nnodes, std::string* error) {
  if (Algorithm* builtin = findBuiltinAlgorithm(name.c_str())) {
    return unownedAlgorithm(builtin);
  }
  if (msccl::looksLikeAlgorithmFile(name)) return msccl::makeMscclAlgorithm(name, nranks, nnodes, error);
  if (error) {
    // The whole menu, so a typo is one look away from its fix (FLASHCCL_ALGO, selection rows).
    std::string known = "nccl";
    for (const Algorithm* builtin : builtinAlgorithms()) known += std::string(", ") + builtin->name();
    *error = "unknown algorithm '" + name + "' (known: " + known +
             ", or an MSCCL algorithm file NAME.xml in FLASHCCL_ALGO_DIR)";
  }
  return nullptr;
}

}  // namespace flashccl
