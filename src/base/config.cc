#include "base/config.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <strings.h>

#include "base/log.h"

namespace flashccl {

const std::vector<EnvParam>& envParams() {
  static const std::vector<EnvParam> params = {
      {"FLASHCCL_DISABLE", "0",
       "1: pure pass-through. Every call goes to the real NCCL untouched; no set-up, no side table."},
      {"FLASHCCL_NCCL_LIBRARY", "",
       "Path of the real libnccl.so.2 to forward to. Empty: discover it (see docs). A library "
       "that is already loaded wins over this path, with a WARN: two NCCLs in one process do not "
       "work."},
      {"FLASHCCL_DEBUG", "",
       "Log level for flashccl's own lines (VERSION, WARN, INFO, TRACE); overrides NCCL_DEBUG "
       "for them. Empty: NCCL_DEBUG."},
      {"FLASHCCL_ALGO", "",
       "Force an algorithm: 'nccl' (always forward), a name, or 'allreduce:name,allgather:name'."},
      {"FLASHCCL_ALGO_DIR", "",
       "Directory of MSCCL XML algorithms. Empty: share/flashccl/algorithms beside the library."},
      {"FLASHCCL_TOPO_FILE", "",
       "Topology description (XML) to use instead of matching this machine against "
       "topologies/."},
      {"FLASHCCL_BUFFER_BYTES", "64M",
       "Bytes of each rank's communication buffer per communicator (suffixes K, M, G)."},
      {"FLASHCCL_P2P_CHECK", "1",
       "1: verify peer access with a real transfer at set-up; a failure disables flashccl on "
       "that communicator."},
      {"FLASHCCL_LANES", "64",
       "Thread blocks per role in the chunked (large-message) kernels, 1 to 64; fewer leave more "
       "SMs to the application's own kernels, more push NVLink harder."},
      {"FLASHCCL_MIN_CHUNK_BYTES", "64K",
       "Smallest chunk the chunked kernels stream; each chunk costs one flag round trip."},
      {"FLASHCCL_LL_MAX_BYTES", "1M",
       "Per-rank bytes up to which AllGather and ReduceScatter use LL packets (one kernel, one "
       "NVLink trip) rather than chunks."},
  };
  return params;
}

const char* getEnv(const char* name) { return std::getenv(name); }

bool parseBytes(const std::string& text, size_t* bytes) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i == text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  unsigned long long value = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    unsigned digit = text[i] - '0';
    if (value > (std::numeric_limits<unsigned long long>::max() - digit) / 10) return false;
    value = value * 10 + digit;
  }
  std::string suffix;
  for (; i < text.size(); ++i) {
    if (!std::isspace(static_cast<unsigned char>(text[i]))) suffix += static_cast<char>(
        std::toupper(static_cast<unsigned char>(text[i])));
  }
  // "64M", "64MB" and "64MiB" all mean 64 * 2^20: buffer sizes are binary.
  int shift = 0;
  if (!suffix.empty()) {
    const char unit = suffix[0];
    const std::string rest = suffix.substr(1);
    if (rest != "" && rest != "B" && rest != "IB") return false;
    switch (unit) {
      case 'B': shift = 0; if (!rest.empty()) return false; break;
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: return false;
    }
  }
  if (shift && value > (std::numeric_limits<size_t>::max() >> shift)) return false;
  *bytes = static_cast<size_t>(value) << shift;
  return true;
}

bool parseBool(const std::string& text, bool* value) {
  static const char* const kTrue[] = {"1", "true", "yes", "on", "y"};
  static const char* const kFalse[] = {"0", "false", "no", "off", "n"};
  for (const char* word : kTrue) {
    if (strcasecmp(text.c_str(), word) == 0) return *value = true, true;
  }
  for (const char* word : kFalse) {
    if (strcasecmp(text.c_str(), word) == 0) return *value = false, true;
  }
  return false;
}

namespace {

const EnvParam& param(const char* name) {
  for (const EnvParam& p : envParams()) {
    if (std::strcmp(p.name, name) == 0) return p;
  }
  std::abort();  // a Config field without its row: a programming error caught by the unit tests
}

// The value in effect: the environment's, or the table's default when unset or empty.
std::string value(const char* name) {
  const char* set = getEnv(name);
  return (set && *set) ? std::string(set) : std::string(param(name).defaultValue);
}

bool boolValue(const char* name) {
  bool result = false;
  if (parseBool(value(name), &result)) return result;
  FCCL_WARN("%s='%s' is not a boolean (0/1, true/false, yes/no); using the default %s", name,
            value(name).c_str(), param(name).defaultValue);
  parseBool(param(name).defaultValue, &result);
  return result;
}

// A size within [min, max]; anything else (not a size, negative, out of range) is one WARN naming
// the variable, what was given and the default used instead, never a value the kernels would
// divide by or index with.
size_t bytesValue(const char* name, size_t min, size_t max) {
  size_t result = 0;
  if (parseBytes(value(name), &result) && result >= min && result <= max) return result;
  FCCL_WARN("%s='%s' is not a size from %zu to %zu (e.g. 4096, 2K, 64M); using the default %s", name,
            value(name).c_str(), min, max, param(name).defaultValue);
  parseBytes(param(name).defaultValue, &result);
  return result;
}

}  // namespace

Config Config::fromEnvironment() {
  Config config;
  config.disable = boolValue("FLASHCCL_DISABLE");
  config.ncclLibrary = value("FLASHCCL_NCCL_LIBRARY");
  config.debug = value("FLASHCCL_DEBUG");
  config.algo = value("FLASHCCL_ALGO");
  config.algoDir = value("FLASHCCL_ALGO_DIR");
  config.topoFile = value("FLASHCCL_TOPO_FILE");
  // The buffer must hold at least the flag area and the smallest packet and chunk slots; above a
  // gigabyte per communicator and rank it only wastes memory.
  config.bufferBytes = bytesValue("FLASHCCL_BUFFER_BYTES", size_t(1) << 20, size_t(1) << 30);
  config.p2pCheck = boolValue("FLASHCCL_P2P_CHECK");
  config.lanes = static_cast<int>(bytesValue("FLASHCCL_LANES", 1, 64));
  config.minChunkBytes = bytesValue("FLASHCCL_MIN_CHUNK_BYTES", 4096, size_t(1) << 30);
  config.llMaxBytes = bytesValue("FLASHCCL_LL_MAX_BYTES", 0, size_t(1) << 30);
  for (const EnvParam& p : envParams()) {
    const char* set = getEnv(p.name);
    if (set && *set) FCCL_INFO(kLogEnv, "%s set by environment to %s", p.name, set);
  }
  return config;
}

const Config& Config::get() {
  static const Config config = fromEnvironment();
  return config;
}

}  // namespace flashccl
