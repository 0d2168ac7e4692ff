#include "settings.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "log.h"

namespace flashccl::softbond {

const char* backendName(BackendKind kind) { return kind == BackendKind::kVerbs ? "verbs" : "tcp"; }

bool parseByteSize(const std::string& text, uint64_t* bytes) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long value = strtoull(text.c_str(), &end, 10);
  if (errno != 0) return false;
  int shift = 0;
  if (*end != '\0') {
    switch (*end) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: return false;
    }
    if (end[1] != '\0') return false;
  }
  if (shift && value > (~0ULL >> shift)) return false;
  *bytes = value << shift;
  return true;
}

namespace {

bool parseInt(const char* text, long minimum, long maximum, long* out) {
  errno = 0;
  char* end = nullptr;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < minimum || value > maximum) return false;
  *out = value;
  return true;
}

bool parseBool(const char* text, bool* out) {
  static const char* const kTrue[] = {"1", "true", "yes", "on"};
  static const char* const kFalse[] = {"0", "false", "no", "off"};
  for (const char* word : kTrue)
    if (strcasecmp(text, word) == 0) return *out = true, true;
  for (const char* word : kFalse)
    if (strcasecmp(text, word) == 0) return *out = false, true;
  return false;
}

void warnInvalid(const char* name, const char* value, const char* expected) {
  SB_WARN("ignoring %s=%s: expected %s; keeping the default", name, value, expected);
}

void readInt(const std::function<const char*(const char*)>& lookup, const char* name, long minimum, long maximum,
             int* field) {
  const char* value = lookup(name);
  if (!value || !*value) return;
  long parsed = 0;
  if (parseInt(value, minimum, maximum, &parsed)) {
    *field = static_cast<int>(parsed);
  } else {
    char expected[96];
    snprintf(expected, sizeof(expected), "an integer from %ld to %ld", minimum, maximum);
    warnInvalid(name, value, expected);
  }
}

}  // namespace

Settings readSettings(const std::function<const char*(const char*)>& lookup) {
  Settings s;
  if (const char* v = lookup("FLASHCCL_SOFTBOND_RAILS")) s.rails = v;
  if (const char* v = lookup("FLASHCCL_SOFTBOND_FAULT")) s.fault = v;
  if (const char* v = lookup("FLASHCCL_SOFTBOND_BACKEND"); v && *v) {
    if (strcasecmp(v, "tcp") == 0) s.backend = BackendKind::kTcp;
    else if (strcasecmp(v, "verbs") == 0) s.backend = BackendKind::kVerbs;
    else warnInvalid("FLASHCCL_SOFTBOND_BACKEND", v, "tcp or verbs");
  }
  readInt(lookup, "FLASHCCL_SOFTBOND_TIMEOUT_MS", 50, 600000, &s.timeoutMs);
  readInt(lookup, "FLASHCCL_SOFTBOND_PROBE_MS", 10, 600000, &s.probeMs);
  readInt(lookup, "FLASHCCL_SOFTBOND_STREAMS", 1, 8, &s.streams);
  readInt(lookup, "FLASHCCL_SOFTBOND_IB_GID_INDEX", -1, 255, &s.gidIndex);
  if (const char* v = lookup("FLASHCCL_SOFTBOND_CHUNK_BYTES"); v && *v) {
    uint64_t bytes = 0;
    // Whole 4 KiB pages, up to 4 MiB: a chunk is what one rail carries and what one failure resends.
    if (parseByteSize(v, &bytes) && bytes >= 4096 && bytes <= (4u << 20) && bytes % 4096 == 0)
      s.chunkBytes = bytes;
    else
      warnInvalid("FLASHCCL_SOFTBOND_CHUNK_BYTES", v, "a multiple of 4K from 4K to 4M");
  }
  if (const char* v = lookup("FLASHCCL_SOFTBOND_GDR"); v && *v) {
    if (!parseBool(v, &s.gdr)) warnInvalid("FLASHCCL_SOFTBOND_GDR", v, "0 or 1");
  }
  return s;
}

}  // namespace flashccl::softbond
