// The one size parser (src/base/size_text.h): FLASHCCL_* variables, topology files and the
// flashccl command's -b/-e all read sizes through it.
#include <gtest/gtest.h>

#include "base/size_text.h"

namespace flashccl {
namespace {

TEST(ParseBytes, PlainAndSuffixed) {
  const struct {
    const char* text;
    size_t bytes;
  } cases[] = {
      {"4096", 4096},         {"0", 0},           {"12B", 12},          {"2K", 2048},
      {"64M", 64u << 20},     {"64m", 64u << 20}, {"64MB", 64u << 20},  {"64MiB", 64u << 20},
      {"64kb", 65536},        {"1G", 1u << 30},   {" 4G ", size_t(4) << 30},
      {"2T", size_t(2) << 40}, {"1048577", 1048577},
  };
  for (const auto& c : cases) {
    size_t bytes = 77;
    ASSERT_TRUE(parseBytes(c.text, &bytes)) << c.text;
    EXPECT_EQ(bytes, c.bytes) << c.text;
  }
}

TEST(ParseBytes, RejectsGarbage) {
  size_t bytes = 77;
  for (const char* bad : {"", " ", "M", "K", "-1", "+1", "1.5G", "12X", "12Q", "64MM", "0x10",
                          "1 M B", "1 M", "4BB", "99999999999999999999", "17179869184G"}) {
    EXPECT_FALSE(parseBytes(bad, &bytes)) << bad;
  }
  EXPECT_EQ(bytes, 77u);  // untouched on failure
}

TEST(FormatBytes, BinaryUnits) {
  EXPECT_EQ(formatBytes(8), "8 B");
  EXPECT_EQ(formatBytes(65536), "64 KiB");
  EXPECT_EQ(formatBytes(size_t(4) << 30), "4 GiB");
  EXPECT_EQ(formatBytes(1536 * 1024), "1.5 MiB");
}

}  // namespace
}  // namespace flashccl
