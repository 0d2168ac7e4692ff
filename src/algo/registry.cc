#include <cstring>

#include "algo/algorithm.h"
#include "algo/builtin_algorithms.h"

namespace flashccl {

const std::vector<Algorithm*>& builtinAlgorithms() {
  static const std::vector<Algorithm*> algorithms = {
      allreduceOneshotAlgorithm(),
      allreduceTwoshotAlgorithm(),
      allgatherDirectAlgorithm(),
      reducescatterDirectAlgorithm(),
      allreduceHierAlgorithm(),
      allreduceHierOneshotAlgorithm(),
      allgatherHierAlgorithm(),
      reducescatterHierAlgorithm(),
  };
  return algorithms;
}

Algorithm* findBuiltinAlgorithm(const char* name) {
  for (Algorithm* algorithm : builtinAlgorithms()) {
    if (std::strcmp(algorithm->name(), name) == 0) return algorithm;
  }
  return nullptr;
}

}  // namespace flashccl
