// The tune mock test binary doubles as the `flashccl` command: `flashccl tune` starts
// `<this binary> perf ...` for each run, as the real command starts itself.
#include <gtest/gtest.h>

#include <cstring>

#include "subcommands.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "perf") == 0) return flashccl::perfMain(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "tune") == 0) return flashccl::tuneMain(argc - 1, argv + 1);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
