// The mock test binary doubles as the `flashccl` command, so `perf --processes N` can re-execute it
// (/proc/self/exe perf ...) the way the real command re-executes itself.
#include <gtest/gtest.h>

#include <cstring>

#include "subcommands.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "perf") == 0) return flashccl::perfMain(argc - 1, argv + 1);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
