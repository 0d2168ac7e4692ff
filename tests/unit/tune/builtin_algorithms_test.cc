// flashccl tune's list of flashccl's built-in algorithms is the library's one-node algorithms
// (src/algo/registry.cc): an algorithm added there is measured by `flashccl tune --flashccl-algos
// builtin` too. The algorithms across nodes are left out: FLASHCCL_ALGO refuses them on one node,
// where NCCL would run in their place and its time would be taken for theirs.
#include <gtest/gtest.h>

#include <algorithm>

#include "algo/algorithm.h"
#include "candidates.h"

namespace flashccl {
namespace tune {
namespace {

TEST(BuiltinAlgorithms, TheSameAsTheLibrarysRegistry) {
  std::vector<std::pair<int, std::string>> library, tune;
  for (Algorithm* a : builtinAlgorithms()) {
    if (!a->spansNodes()) library.push_back({static_cast<int>(a->kind()), a->name()});
  }
  for (const FlashcclAlgorithm& a : builtinFlashcclAlgorithms()) tune.push_back({static_cast<int>(a.collective), a.name});
  std::sort(library.begin(), library.end());
  std::sort(tune.begin(), tune.end());
  EXPECT_EQ(tune, library);
}

}  // namespace
}  // namespace tune
}  // namespace flashccl
