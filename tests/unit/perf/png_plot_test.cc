// flashccl perf: the PNG writer (decoded structurally: signature, chunks, CRCs, stored deflate
// blocks, Adler-32), the font, and the plot (series colours where the data says they should be).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "bitmap_font.h"
#include "plot.h"
#include "png_writer.h"
#include "run_report.h"

namespace flashccl {
namespace perf {
namespace {

uint32_t readBigEndian32(const std::vector<uint8_t>& data, size_t at) {
  return static_cast<uint32_t>(data[at]) << 24 | static_cast<uint32_t>(data[at + 1]) << 16 |
         static_cast<uint32_t>(data[at + 2]) << 8 | data[at + 3];
}

struct DecodedPng {
  uint32_t width = 0, height = 0;
  uint8_t bitDepth = 0, colourType = 0;
  std::vector<std::string> chunkOrder;
  std::vector<uint8_t> palette;   // PLTE: RGB triples
  std::vector<uint8_t> raw;       // inflated scanlines (filter byte + pixel data)
  std::vector<uint32_t> pixels;   // 0xRRGGBB, row-major, from raw (+ palette)
  int storedBlocks = 0;
};

// A decoder for exactly what encodePng writes, checking every checksum on the way. Fails the test
// (ADD_FAILURE) on any structural problem.
DecodedPng decodeStoredPng(const std::vector<uint8_t>& png) {
  DecodedPng out;
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (png.size() < 8 || std::memcmp(png.data(), kSignature, 8) != 0) {
    ADD_FAILURE() << "bad PNG signature";
    return out;
  }
  std::vector<uint8_t> zlib;
  size_t at = 8;
  while (at + 12 <= png.size()) {
    const uint32_t length = readBigEndian32(png, at);
    const std::string type(reinterpret_cast<const char*>(&png[at + 4]), 4);
    if (at + 12 + length > png.size()) {
      ADD_FAILURE() << "chunk " << type << " runs past the end";
      return out;
    }
    const uint32_t storedCrc = readBigEndian32(png, at + 8 + length);
    EXPECT_EQ(crc32(&png[at + 4], 4 + length), storedCrc) << "CRC of chunk " << type;
    out.chunkOrder.push_back(type);
    const uint8_t* data = &png[at + 8];
    if (type == "IHDR") {
      EXPECT_EQ(length, 13u);
      out.width = readBigEndian32(png, at + 8);
      out.height = readBigEndian32(png, at + 12);
      out.bitDepth = data[8];
      out.colourType = data[9];
      EXPECT_EQ(data[10], 0) << "compression method";
      EXPECT_EQ(data[11], 0) << "filter method";
      EXPECT_EQ(data[12], 0) << "interlace";
    } else if (type == "PLTE") {
      EXPECT_EQ(length % 3, 0u);
      out.palette.assign(data, data + length);
    } else if (type == "IDAT") {
      zlib.insert(zlib.end(), data, data + length);
    }
    at += 12 + length;
  }
  EXPECT_EQ(at, png.size()) << "trailing bytes after the last chunk";
  // zlib header, stored blocks, Adler-32.
  if (zlib.size() < 6) {
    ADD_FAILURE() << "IDAT too short";
    return out;
  }
  EXPECT_EQ(zlib[0] & 0x0F, 8) << "deflate";
  EXPECT_EQ((zlib[0] * 256 + zlib[1]) % 31, 0) << "zlib header check bits";
  size_t z = 2;
  bool final = false;
  while (!final) {
    if (z + 5 > zlib.size()) {
      ADD_FAILURE() << "truncated deflate block";
      return out;
    }
    final = zlib[z] & 1;
    EXPECT_EQ((zlib[z] >> 1) & 3, 0) << "block type must be stored";
    const uint16_t len = static_cast<uint16_t>(zlib[z + 1] | zlib[z + 2] << 8);
    const uint16_t nlen = static_cast<uint16_t>(zlib[z + 3] | zlib[z + 4] << 8);
    EXPECT_EQ(static_cast<uint16_t>(~len), nlen);
    z += 5;
    if (z + len > zlib.size()) {
      ADD_FAILURE() << "stored block runs past the end";
      return out;
    }
    out.raw.insert(out.raw.end(), zlib.begin() + static_cast<long>(z),
                   zlib.begin() + static_cast<long>(z + len));
    z += len;
    ++out.storedBlocks;
  }
  EXPECT_EQ(z + 4, zlib.size());
  EXPECT_EQ(readBigEndian32(zlib, z), adler32(out.raw.data(), out.raw.size()));
  // Scanlines: a filter byte (0: None) then the pixels, expanded through the palette if indexed.
  const bool indexed = out.colourType == 3;
  EXPECT_TRUE(out.colourType == 2 || indexed);
  EXPECT_EQ(indexed, !out.palette.empty()) << "PLTE goes with indexed colour";
  const size_t rowBytes = indexed ? (out.width * out.bitDepth + 7) / 8 : out.width * 3;
  if (out.raw.size() != out.height * (rowBytes + 1)) {
    ADD_FAILURE() << "image data is " << out.raw.size() << " bytes, expected "
                  << out.height * (rowBytes + 1);
    return out;
  }
  for (uint32_t y = 0; y < out.height; ++y) {
    const uint8_t* row = &out.raw[y * (rowBytes + 1)];
    EXPECT_EQ(row[0], 0) << "filter type of row " << y;
    for (uint32_t x = 0; x < out.width; ++x) {
      if (!indexed) {
        const uint8_t* p = row + 1 + x * 3;
        out.pixels.push_back(static_cast<uint32_t>(p[0]) << 16 | p[1] << 8 | p[2]);
        continue;
      }
      const uint32_t index = out.bitDepth == 8 ? row[1 + x]
                                               : (row[1 + x / 2] >> (x % 2 ? 0 : 4)) & 0xF;
      EXPECT_LT(index * 3 + 2, out.palette.size());
      const uint8_t* p = &out.palette[index * 3];
      out.pixels.push_back(static_cast<uint32_t>(p[0]) << 16 | p[1] << 8 | p[2]);
    }
  }
  return out;
}

TEST(Checksums, KnownValues) {
  const char* text = "123456789";
  EXPECT_EQ(crc32(reinterpret_cast<const uint8_t*>(text), 9), 0xCBF43926u);
  EXPECT_EQ(adler32(reinterpret_cast<const uint8_t*>("Wikipedia"), 9), 0x11E60398u);
  EXPECT_EQ(adler32(nullptr, 0), 1u);
}

TEST(PngWriter, FewColoursGiveAFourBitPalette) {
  RgbImage image(3, 2, 0x000000);
  image.set(0, 0, 0xFF0000);
  image.set(1, 0, 0x00FF00);
  image.set(2, 1, 0x0000FF);
  image.set(5, 5, 0xFFFFFF);  // outside: ignored
  const DecodedPng png = decodeStoredPng(encodePng(image));
  EXPECT_EQ(png.width, 3u);
  EXPECT_EQ(png.height, 2u);
  EXPECT_EQ(png.colourType, 3);
  EXPECT_EQ(png.bitDepth, 4);
  EXPECT_EQ(png.palette.size(), 4u * 3);
  EXPECT_EQ(png.chunkOrder, (std::vector<std::string>{"IHDR", "PLTE", "IDAT", "IEND"}));
  EXPECT_EQ(png.pixels, (std::vector<uint32_t>{0xFF0000, 0x00FF00, 0x000000, 0x000000, 0x000000,
                                               0x0000FF}));
}

TEST(PngWriter, UpTo256ColoursGiveAnEightBitPalette) {
  RgbImage image(20, 10, 0xFFFFFF);
  for (int i = 0; i < 100; ++i) image.set(i % 20, i / 20, 0x010101u * static_cast<uint32_t>(i));
  const DecodedPng png = decodeStoredPng(encodePng(image));
  EXPECT_EQ(png.colourType, 3);
  EXPECT_EQ(png.bitDepth, 8);
  for (int i = 0; i < 200; ++i) ASSERT_EQ(png.pixels[i], image.at(i % 20, i / 20)) << i;
}

TEST(PngWriter, ManyColoursGiveRgbOverSeveralStoredBlocks) {
  RgbImage image(400, 300, 0x123456);
  for (int y = 0; y < 300; ++y)
    for (int x = 0; x < 400; ++x) image.set(x, y, static_cast<uint32_t>(y * 400 + x) * 37u);
  const DecodedPng png = decodeStoredPng(encodePng(image));
  EXPECT_EQ(png.colourType, 2);
  EXPECT_EQ(png.bitDepth, 8);
  EXPECT_TRUE(png.palette.empty());
  ASSERT_EQ(png.raw.size(), 300u * (1 + 400 * 3));
  EXPECT_EQ(png.storedBlocks, 6);  // 360300 bytes in blocks of at most 65535
  ASSERT_EQ(png.pixels.size(), 400u * 300u);
  for (size_t i = 0; i < png.pixels.size(); i += 997)
    ASSERT_EQ(png.pixels[i], (static_cast<uint32_t>(i) * 37u) & 0xFFFFFF) << i;
}

TEST(PngWriter, WritesAFile) {
  const std::string path = ::testing::TempDir() + "/perf_png_test.png";
  std::string error;
  ASSERT_TRUE(writePngFile(path, RgbImage(4, 4, 0xFFFFFF), &error)) << error;
  FILE* file = std::fopen(path.c_str(), "rb");
  ASSERT_NE(file, nullptr);
  std::vector<uint8_t> bytes(1 << 16);
  bytes.resize(std::fread(bytes.data(), 1, bytes.size(), file));
  std::fclose(file);
  std::remove(path.c_str());
  EXPECT_EQ(decodeStoredPng(bytes).width, 4u);
  EXPECT_FALSE(writePngFile("/nonexistent-dir/x.png", RgbImage(1, 1, 0), &error));
  EXPECT_NE(error.find("cannot write"), std::string::npos);
}

TEST(BitmapFont, GlyphsAndText) {
  // '1' has its stem in the middle column on every row but the last, which is the base.
  EXPECT_EQ(glyphRow('1', 0), 0b00100);
  EXPECT_EQ(glyphRow('1', 6), 0b01110);
  EXPECT_EQ(glyphRow('1', 7), 0) << "no descender";
  EXPECT_EQ(glyphRow('g', 8), 0b01110) << "g's descender";
  EXPECT_EQ(glyphRow(' ', 3), 0);
  EXPECT_EQ(glyphRow('\x01', 0), glyphRow('?', 0));
  for (char c = 33; c < 127; ++c) {
    int ink = 0;
    for (int row = 0; row < kGlyphHeight; ++row) ink += glyphRow(c, row) != 0;
    EXPECT_GT(ink, 0) << "glyph for '" << c << "' is blank";
  }
  EXPECT_EQ(textWidth("ab", 2), (2 * kGlyphAdvance - 1) * 2);
  RgbImage image(20, 10, 0xFFFFFF);
  drawText(&image, 0, 0, "1", 0x000000, 1);
  EXPECT_EQ(image.at(2, 0), 0x000000u);  // the stem
  EXPECT_EQ(image.at(0, 0), 0xFFFFFFu);
  EXPECT_EQ(image.at(1, 6), 0x000000u);  // the base
}

TEST(Plot, NiceTicks) {
  EXPECT_EQ(niceTicks(0, 1.2, 5), (std::vector<double>{0, 0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(niceTicks(0, 400, 5), (std::vector<double>{0, 100, 200, 300, 400}));
  EXPECT_TRUE(niceTicks(1, 1, 5).empty());
}

TEST(Plot, TwoPanelsShowEachSeriesInItsColourAtItsPoints) {
  PlotSeries speedupA{"all_reduce", 0x1F77B4, false, {{8, 1.5}, {1024, 2.0}, {1 << 20, 1.0}}};
  PlotSeries speedupB{"all_gather", 0xD62728, false, {{16, 0.8}, {2048, 1.2}}};
  PlotSeries busNccl{"all_reduce NCCL", 0x1F77B4, true, {{8, 10.0}, {1 << 20, 100.0}}};
  PlotSeries busOurs{"all_reduce flashccl", 0x2CA02C, false, {{64, 50.0}, {1 << 20, 300.0}}};
  const std::vector<PlotPanel> panels = {
      {"speedup", "speedup", {speedupA, speedupB}, true},
      {"busbw", "busbw (GB/s)", {busNccl, busOurs}, false}};
  std::vector<PanelGeometry> geometry;
  const RgbImage image = renderPlot("test plot", panels, 1000, 800, &geometry);
  ASSERT_EQ(geometry.size(), 2u);
  EXPECT_LT(geometry[0].bottom, geometry[1].top) << "panels are stacked, not overlapping";
  for (size_t p = 0; p < panels.size(); ++p) {
    for (const PlotSeries& series : panels[p].series) {
      for (const auto& point : series.points) {
        const int x = geometry[p].xToPixel(point.first);
        const int y = geometry[p].yToPixel(point.second);
        EXPECT_GE(x, geometry[p].left);
        EXPECT_LE(x, geometry[p].right);
        EXPECT_GE(y, geometry[p].top);
        EXPECT_LE(y, geometry[p].bottom);
        // Solid series: a filled marker centred on the point; dashed: a hollow square's edge.
        const int probeX = series.dashed ? x - 3 : x;
        EXPECT_EQ(image.at(probeX, y), series.rgb)
            << series.label << " at (" << point.first << ", " << point.second << ")";
      }
    }
  }
  // The log2 axis: equal ratios of size are equal distances.
  const PanelGeometry& g = geometry[0];
  EXPECT_NEAR(g.xToPixel(512) - g.xToPixel(8), 2 * (g.xToPixel(64) - g.xToPixel(8)), 2);
  // Higher values are higher up.
  EXPECT_LT(g.yToPixel(2.0), g.yToPixel(1.0));
  // Somewhere empty inside the plot area is background (or grid), not series ink.
  const uint32_t empty = image.at(g.right - 3, g.top + 3);
  EXPECT_TRUE(empty == kPlotBackground || empty == 0xE4E4E4u) << std::hex << empty;
  // The PNG of it decodes to the same pixels (a palette of the plot's few colours).
  const DecodedPng png = decodeStoredPng(encodePng(image));
  EXPECT_EQ(png.width, 1000u);
  EXPECT_EQ(png.height, 800u);
  EXPECT_EQ(png.colourType, 3);
  ASSERT_EQ(png.pixels.size(), 1000u * 800u);
  for (size_t i = 0; i < png.pixels.size(); i += 101)
    ASSERT_EQ(png.pixels[i], image.at(static_cast<int>(i % 1000), static_cast<int>(i / 1000)));
}

TEST(Plot, PerfPanelsFromAReport) {
  RunReport report;
  report.info.layout.threads = 2;
  report.info.flashcclVersion = "0.1.0";
  report.info.ncclVersion = "2.28.9";
  for (size_t bytes : {8u, 1024u}) {
    SizeResult r;
    r.collective = Collective::kAllReduce;
    r.bytes = bytes;
    r.timing.ncclMicros = 10;
    r.timing.flashcclMicros = 5;
    r.timing.speedup = 2;
    report.results.push_back(r);
  }
  SizeResult g = report.results[0];
  g.collective = Collective::kAllGather;
  report.results.push_back(g);
  const std::vector<PlotPanel> panels = perfPlotPanels(report);
  ASSERT_EQ(panels.size(), 2u);
  ASSERT_EQ(panels[0].series.size(), 2u);  // one speedup line per collective
  EXPECT_EQ(panels[0].series[0].label, "all_reduce");
  EXPECT_EQ(panels[0].series[0].points.size(), 2u);
  EXPECT_TRUE(panels[0].referenceLineAtOne);
  ASSERT_EQ(panels[1].series.size(), 4u);  // NCCL dashed + flashccl solid per collective
  EXPECT_TRUE(panels[1].series[0].dashed);
  EXPECT_EQ(panels[1].series[1].label, "all_reduce flashccl");
  EXPECT_NEAR(panels[1].series[1].points[1].second, 1024.0 / 5e3, 1e-12);  // busbw at 2 ranks
  EXPECT_EQ(perfPlotTitle(report), "flashccl 0.1.0 vs NCCL 2.28.9, 2 ranks");
}

}  // namespace
}  // namespace perf
}  // namespace flashccl
