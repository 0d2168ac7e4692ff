#include "link_rates.h"

namespace flashccl {
namespace doctor {

double pcieLaneGBps(int generation) {
  switch (generation) {
    case 1: return 2.5 * 8.0 / 10.0 / 8.0;
    case 2: return 5.0 * 8.0 / 10.0 / 8.0;
    case 3: return 8.0 * 128.0 / 130.0 / 8.0;
    case 4: return 16.0 * 128.0 / 130.0 / 8.0;
    case 5: return 32.0 * 128.0 / 130.0 / 8.0;
    case 6: return 64.0 * 242.0 / 256.0 / 8.0;
    default: return 0.0;
  }
}

double pcieLinkGBps(int generation, int width) {
  return width > 0 ? pcieLaneGBps(generation) * width : 0.0;
}

std::string pcieLinkName(int generation, int width) {
  return "Gen" + (generation > 0 ? std::to_string(generation) : std::string("?")) + " x" +
         (width > 0 ? std::to_string(width) : std::string("?"));
}

double memoryGBps(int busWidthBits, int memoryClockMHz) {
  if (busWidthBits <= 0 || memoryClockMHz <= 0) return 0.0;
  return double(busWidthBits) * double(memoryClockMHz) * 1e6 * 2.0 / 8.0 / 1e9;
}

double nvlinkGBps(int links, double perLinkMBps) {
  return links > 0 && perLinkMBps > 0 ? links * perLinkMBps / 1000.0 : 0.0;
}

}  // namespace doctor
}  // namespace flashccl
