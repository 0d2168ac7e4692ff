// A built-in 5x7 bitmap font for the plot's labels (printable ASCII), so the PNG needs no font files.
#pragma once

#include <cstdint>
#include <string>

#include "png_writer.h"

namespace flashccl {
namespace perf {

constexpr int kGlyphWidth = 5;
constexpr int kGlyphHeight = 9;   // 7 rows above the baseline, 2 for the descenders of g j p q y
constexpr int kGlyphAdvance = 6;  // glyph plus one column of space

// Bits of row `row` (0 = top) of character `c`; bit 4 is the leftmost pixel. Characters outside
// printable ASCII draw as '?'.
uint8_t glyphRow(char c, int row);

int textWidth(const std::string& text, int scale);   // pixels
int textHeight(int scale);                           // pixels

// Draws `text` with its top-left corner at (x, y), each font pixel a scale x scale square.
void drawText(RgbImage* image, int x, int y, const std::string& text, uint32_t rgb, int scale);
// Rotated 90 degrees counter-clockwise (reads bottom to top), top-left corner of the rotated box.
void drawTextVertical(RgbImage* image, int x, int y, const std::string& text, uint32_t rgb,
                      int scale);

}  // namespace perf
}  // namespace flashccl
