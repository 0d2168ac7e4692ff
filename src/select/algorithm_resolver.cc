#include "select/algorithm_resolver.h"

#include "algo/algorithm.h"

namespace flashccl {

Algorithm* resolveAlgorithm(const std::string& name, int nranks, std::string* error) {
  if (Algorithm* builtin = findBuiltinAlgorithm(name.c_str())) return builtin;
  if (error) *error = "unknown algorithm '" + name + "'";
  return nullptr;
}

}  // namespace flashccl
