#include "size_list.h"

#include <cctype>
#include <cstdio>
#include <limits>

namespace flashccl {
namespace perf {

bool parseSizeBytes(const std::string& text, size_t* bytes, std::string* error) {
  size_t pos = 0;
  unsigned long long value = 0;
  const unsigned long long kMax = std::numeric_limits<unsigned long long>::max();
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    const unsigned digit = static_cast<unsigned>(text[pos] - '0');
    if (value > (kMax - digit) / 10) {
      *error = "'" + text + "' is too large";
      return false;
    }
    value = value * 10 + digit;
    ++pos;
  }
  if (pos == 0) {
    *error = "'" + text + "' is not a size (expected a whole number of bytes, optionally with a "
             "K, M or G suffix, e.g. 8, 64K, 1M, 4G)";
    return false;
  }
  std::string suffix = text.substr(pos);
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  unsigned shift = 0;
  if (!suffix.empty()) {
    switch (suffix[0]) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      case 'B': shift = 0; break;
      default: shift = 99;
    }
    // After the letter: nothing, "B" or "IB" (so 64K, 64KB and 64KiB all mean 65536).
    const std::string rest = suffix.substr(1);
    const bool restOk = suffix[0] == 'B' ? rest.empty() : (rest.empty() || rest == "B" || rest == "IB");
    if (shift == 99 || !restOk) {
      *error = "'" + text + "' has an unknown suffix '" + text.substr(pos) + "' (use K, M or G)";
      return false;
    }
  }
  if (shift && value > (kMax >> shift)) {
    *error = "'" + text + "' is too large";
    return false;
  }
  value <<= shift;
  if (value == 0) {
    *error = "'" + text + "' is zero; sizes must be at least 1 byte";
    return false;
  }
  *bytes = static_cast<size_t>(value);
  return true;
}

std::vector<size_t> geometricSizes(size_t minBytes, size_t maxBytes, size_t factor) {
  std::vector<size_t> sizes;
  if (minBytes == 0 || minBytes > maxBytes || factor < 2) return sizes;
  for (size_t size = minBytes; size <= maxBytes;) {
    sizes.push_back(size);
    if (size > maxBytes / factor) break;  // the next step would pass max (or overflow)
    size *= factor;
  }
  return sizes;
}

std::string humanBytes(size_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
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

std::string shortBytes(size_t bytes) {
  static const char* kUnits[] = {"", "K", "M", "G", "T"};
  int unit = 0;
  while (bytes >= 1024 && bytes % 1024 == 0 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + kUnits[unit];
}

CollectiveCounts collectiveCounts(Collective coll, size_t bytes, DataType type, int nranks) {
  CollectiveCounts counts;
  const size_t elementBytes = dataTypeSize(type);
  counts.totalElements = bytes / elementBytes;
  const size_t perRank = nranks > 0 ? counts.totalElements / static_cast<size_t>(nranks) : 0;
  switch (coll) {
    case Collective::kAllReduce:
      counts.sendElements = counts.recvElements = counts.callCount = counts.totalElements;
      break;
    case Collective::kAllGather:
      counts.sendElements = counts.callCount = perRank;
      counts.recvElements = counts.totalElements;
      break;
    case Collective::kReduceScatter:
      counts.sendElements = counts.totalElements;
      counts.recvElements = counts.callCount = perRank;
      break;
  }
  return counts;
}

std::string sizeProblem(Collective coll, size_t bytes, DataType type, int nranks) {
  const size_t elementBytes = dataTypeSize(type);
  char text[512];
  if (bytes % elementBytes != 0 || bytes < elementBytes) {
    std::snprintf(text, sizeof(text),
                  "size %zu B is not a whole number of %s elements (%zu B each) for %s; "
                  "use sizes that are multiples of %zu B",
                  bytes, dataTypeName(type), elementBytes, collectiveName(coll), elementBytes);
    return text;
  }
  if (coll == Collective::kAllReduce || nranks <= 1) return "";
  const size_t unit = elementBytes * static_cast<size_t>(nranks);
  if (bytes % unit != 0) {
    std::snprintf(text, sizeof(text),
                  "size %zu B cannot be split evenly over %d ranks for %s with %s (%zu B elements): "
                  "the size is the whole %s, so it must be a multiple of %d x %zu = %zu B "
                  "(e.g. start with -b %zu)",
                  bytes, nranks, collectiveName(coll), dataTypeName(type), elementBytes,
                  coll == Collective::kAllGather ? "gathered output" : "input", nranks, elementBytes,
                  unit, unit);
    return text;
  }
  return "";
}

}  // namespace perf
}  // namespace flashccl
