// `flashccl plan`'s footprint sections: the memory a communicator maps (from the layout code
// set-up uses) and the grid blocks the built-in algorithms launch (counted from their own launch
// code, nothing launched: this machine has no GPU).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "base/config.h"
#include "plan/plan_footprint.h"

namespace flashccl {
namespace {

// The cells of the grid table's line for `size`.
std::vector<std::string> gridCells(const std::string& out, const std::string& size) {
  std::istringstream lines(out.substr(out.find("grid blocks")));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.compare(0, 2 + size.size() + 1, "  " + size + " ") != 0) continue;
    std::istringstream words(line.substr(2 + size.size()));
    std::vector<std::string> cells;
    for (std::string cell; words >> cell;) cells.push_back(cell);
    return cells;
  }
  return {};
}

TEST(PlanFootprint, SaysWhatACommunicatorMapsBeforeAndAfterGrowing) {
  Config config;  // the defaults: 64M buffer, 64K small calls, 1G limit
  config.bufferBytes = 64u << 20;
  std::ostringstream two, eight;
  printFootprint(2, 1, config, two);
  EXPECT_NE(two.str().find("at set-up:   288 KiB"), std::string::npos) << two.str();
  EXPECT_NE(two.str().find("calls up to 64 KiB"), std::string::npos) << two.str();
  EXPECT_NE(two.str().find("grown:       + "), std::string::npos) << two.str();
  EXPECT_NE(two.str().find("FLASHCCL_MEMORY_LIMIT=1 GiB per process and GPU: 16 grown communicators"),
            std::string::npos) << two.str();
  printFootprint(8, 1, config, eight);
  EXPECT_NE(eight.str().find("LL slots 2 x 7 x 132 KiB"), std::string::npos) << eight.str();

  config.smallCallBytes = 0;
  std::ostringstream eager;
  printFootprint(2, 1, config, eager);
  EXPECT_NE(eager.str().find("the full buffer, because FLASHCCL_SMALL_CALL_BYTES=0"), std::string::npos) << eager.str();
  std::ostringstream across;
  config.smallCallBytes = 65536;
  printFootprint(4, 2, config, across);
  EXPECT_NE(across.str().find("spans nodes"), std::string::npos) << across.str();
  std::ostringstream alone;
  printFootprint(1, 1, config, alone);
  EXPECT_NE(alone.str().find("every call goes to NCCL"), std::string::npos) << alone.str();
}

TEST(PlanFootprint, GridBlocksComeFromTheAlgorithmsLaunchCode) {
  std::ostringstream out;
  printGridBlocks(2, 1, out);
  // allreduce_oneshot, allreduce_twoshot, allgather_direct, reducescatter_direct
  const std::vector<std::string> small = gridCells(out.str(), "4 KiB");
  ASSERT_EQ(small.size(), 4u) << out.str();
  EXPECT_EQ(small[0], "1") << out.str();  // 512 packets: one block of 512 threads
  const std::vector<std::string> huge = gridCells(out.str(), "256 MiB");
  ASSERT_EQ(huge.size(), 4u) << out.str();
  EXPECT_EQ(huge[0], "-") << out.str();  // does not fit an LL slot
  for (const std::string& cell : huge) {
    if (cell == "-") continue;
    ASSERT_NE(cell, "?") << out.str();
    const int blocks = std::stoi(cell);
    EXPECT_GT(blocks, 1) << out.str();
    EXPECT_LE(blocks, 132) << out.str();  // half of the GPU's two blocks per SM, at most
  }
  std::ostringstream across;
  printGridBlocks(4, 2, across);
  EXPECT_TRUE(across.str().empty());
}

}  // namespace
}  // namespace flashccl
