#include "base/size_text.h"

#include <cctype>
#include <cstdio>
#include <limits>

namespace flashccl {

bool parseBytes(const std::string& text, size_t* bytes) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  size_t i = begin;
  if (i == end || !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  unsigned long long value = 0;
  for (; i < end && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const unsigned digit = static_cast<unsigned>(text[i] - '0');
    if (value > (std::numeric_limits<unsigned long long>::max() - digit) / 10) return false;
    value = value * 10 + digit;
  }
  std::string suffix;
  for (; i < end; ++i) suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
  // "64M", "64MB" and "64MiB" all mean 64 * 2^20: buffer sizes are binary.
  int shift = 0;
  if (!suffix.empty()) {
    const std::string rest = suffix.substr(1);
    switch (suffix[0]) {
      case 'B': shift = 0; break;
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: return false;
    }
    const bool restOk = suffix[0] == 'B' ? rest.empty() : (rest.empty() || rest == "B" || rest == "IB");
    if (!restOk) return false;
  }
  if (value > std::numeric_limits<size_t>::max() >> shift) return false;
  *bytes = static_cast<size_t>(value) << shift;
  return true;
}

std::string formatBytes(size_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0 || value == static_cast<double>(static_cast<size_t>(value)))
    std::snprintf(text, sizeof(text), "%zu %s", static_cast<size_t>(value), kUnits[unit]);
  else
    std::snprintf(text, sizeof(text), "%.1f %s", value, kUnits[unit]);
  return text;
}

}  // namespace flashccl
