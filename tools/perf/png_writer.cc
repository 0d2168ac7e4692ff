#include "png_writer.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

namespace flashccl {
namespace perf {
namespace {

void appendBigEndian32(std::vector<uint8_t>* out, uint32_t value) {
  out->push_back(static_cast<uint8_t>(value >> 24));
  out->push_back(static_cast<uint8_t>(value >> 16));
  out->push_back(static_cast<uint8_t>(value >> 8));
  out->push_back(static_cast<uint8_t>(value));
}

// A chunk is length, type, data, and the CRC of type + data.
void appendChunk(std::vector<uint8_t>* png, const char type[4], const std::vector<uint8_t>& data) {
  appendBigEndian32(png, static_cast<uint32_t>(data.size()));
  const size_t typeAt = png->size();
  png->insert(png->end(), type, type + 4);
  png->insert(png->end(), data.begin(), data.end());
  appendBigEndian32(png, crc32(png->data() + typeAt, 4 + data.size()));
}

// zlib stream of stored deflate blocks: each block holds at most 65535 bytes behind a 5-byte header
// (BFINAL/BTYPE=00 byte, LEN, ~LEN little-endian).
std::vector<uint8_t> zlibStored(const std::vector<uint8_t>& raw) {
  std::vector<uint8_t> z;
  z.push_back(0x78);  // CMF: deflate, 32K window
  z.push_back(0x01);  // FLG: no dictionary, fastest; (0x78 * 256 + 0x01) % 31 == 0
  size_t offset = 0;
  do {
    const size_t length = raw.size() - offset < 65535 ? raw.size() - offset : 65535;
    const bool final = offset + length == raw.size();
    z.push_back(final ? 1 : 0);
    z.push_back(static_cast<uint8_t>(length & 0xFF));
    z.push_back(static_cast<uint8_t>(length >> 8));
    z.push_back(static_cast<uint8_t>(~length & 0xFF));
    z.push_back(static_cast<uint8_t>((~length >> 8) & 0xFF));
    z.insert(z.end(), raw.begin() + static_cast<long>(offset),
             raw.begin() + static_cast<long>(offset + length));
    offset += length;
  } while (offset < raw.size());
  appendBigEndian32(&z, adler32(raw.data(), raw.size()));
  return z;
}

}  // namespace

RgbImage::RgbImage(int w, int h, uint32_t fillRgb)
    : width(w), height(h), pixels(static_cast<size_t>(w) * static_cast<size_t>(h) * 3) {
  for (size_t i = 0; i < pixels.size(); i += 3) {
    pixels[i] = static_cast<uint8_t>(fillRgb >> 16);
    pixels[i + 1] = static_cast<uint8_t>(fillRgb >> 8);
    pixels[i + 2] = static_cast<uint8_t>(fillRgb);
  }
}

uint32_t RgbImage::at(int x, int y) const {
  const size_t i = (static_cast<size_t>(y) * width + x) * 3;
  return static_cast<uint32_t>(pixels[i]) << 16 | static_cast<uint32_t>(pixels[i + 1]) << 8 |
         pixels[i + 2];
}

void RgbImage::set(int x, int y, uint32_t rgb) {
  if (x < 0 || y < 0 || x >= width || y >= height) return;
  const size_t i = (static_cast<size_t>(y) * width + x) * 3;
  pixels[i] = static_cast<uint8_t>(rgb >> 16);
  pixels[i + 1] = static_cast<uint8_t>(rgb >> 8);
  pixels[i + 2] = static_cast<uint8_t>(rgb);
}

uint32_t crc32(const uint8_t* data, size_t size, uint32_t crc) {
  // Table for the reflected polynomial 0xEDB88320, built once (thread-safe static initialisation).
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

uint32_t adler32(const uint8_t* data, size_t size) {
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < size; ++i) {
    a = (a + data[i]) % 65521;
    b = (b + a) % 65521;
  }
  return b << 16 | a;
}

std::vector<uint8_t> encodePng(const RgbImage& image) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<uint8_t> png(kSignature, kSignature + 8);

  // A plot has a handful of colours: with at most 16 (or 256) of them an indexed image takes half
  // a byte (or one byte) per pixel instead of three, which matters for uncompressed files that get
  // committed to bench/results.
  std::map<uint32_t, uint8_t> palette;
  for (size_t i = 0; i < image.pixels.size() && palette.size() <= 256; i += 3) {
    const uint32_t rgb = static_cast<uint32_t>(image.pixels[i]) << 16 |
                         static_cast<uint32_t>(image.pixels[i + 1]) << 8 | image.pixels[i + 2];
    palette.emplace(rgb, 0);
  }
  const bool indexed = !palette.empty() && palette.size() <= 256;
  const int bitDepth = indexed && palette.size() <= 16 ? 4 : 8;
  std::vector<uint8_t> plte;
  if (indexed) {
    uint8_t next = 0;
    for (auto& entry : palette) {
      entry.second = next++;
      plte.push_back(static_cast<uint8_t>(entry.first >> 16));
      plte.push_back(static_cast<uint8_t>(entry.first >> 8));
      plte.push_back(static_cast<uint8_t>(entry.first));
    }
  }

  std::vector<uint8_t> header;
  appendBigEndian32(&header, static_cast<uint32_t>(image.width));
  appendBigEndian32(&header, static_cast<uint32_t>(image.height));
  header.push_back(static_cast<uint8_t>(bitDepth));
  header.push_back(indexed ? 3 : 2);  // colour type: indexed or RGB
  header.push_back(0);  // compression: deflate
  header.push_back(0);  // filter method 0
  header.push_back(0);  // no interlace
  appendChunk(&png, "IHDR", header);
  if (indexed) appendChunk(&png, "PLTE", plte);

  // Each scanline: filter type 0 (None), then the row's pixels.
  std::vector<uint8_t> raw;
  for (int y = 0; y < image.height; ++y) {
    raw.push_back(0);
    for (int x = 0; x < image.width; ++x) {
      if (!indexed) {
        const uint8_t* p = image.pixels.data() + (static_cast<size_t>(y) * image.width + x) * 3;
        raw.insert(raw.end(), p, p + 3);
        continue;
      }
      const uint8_t index = palette[image.at(x, y)];
      if (bitDepth == 8) raw.push_back(index);
      else if (x % 2 == 0) raw.push_back(static_cast<uint8_t>(index << 4));  // high nibble first
      else raw.back() |= index;
    }
  }
  appendChunk(&png, "IDAT", zlibStored(raw));
  appendChunk(&png, "IEND", {});
  return png;
}

bool writePngFile(const std::string& path, const RgbImage& image, std::string* error) {
  const std::vector<uint8_t> png = encodePng(image);
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  const bool ok = std::fwrite(png.data(), 1, png.size(), file) == png.size();
  const bool closed = std::fclose(file) == 0;
  if (!ok || !closed) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace perf
}  // namespace flashccl
