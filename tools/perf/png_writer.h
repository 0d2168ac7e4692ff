// A self-contained PNG encoder: indexed colour (4 or 8 bits per pixel) when the image has at most 256
// colours, else 8-bit RGB; no filtering; the image data in stored (uncompressed) deflate blocks. The
// GPU machines may lack libpng/zlib development packages, and a plot does not need compression.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace flashccl {
namespace perf {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // width * height * 3, row-major, top row first

  RgbImage() = default;
  RgbImage(int w, int h, uint32_t fillRgb);
  uint32_t at(int x, int y) const;  // 0xRRGGBB
  void set(int x, int y, uint32_t rgb);  // ignores points outside the image
};

uint32_t crc32(const uint8_t* data, size_t size, uint32_t crc = 0);  // the PNG/zlib CRC-32
uint32_t adler32(const uint8_t* data, size_t size);                  // the zlib checksum

std::vector<uint8_t> encodePng(const RgbImage& image);
// False with *error when the file cannot be written.
bool writePngFile(const std::string& path, const RgbImage& image, std::string* error);

}  // namespace perf
}  // namespace flashccl
