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

size_t bytesValue(const char* name) {
  size_t result = 0;
  if (parseBytes(value(name), &result)) return result;
  FCCL_WARN("%s='%s' is not a size (e.g. 4096, 2K, 64M, 1G); using the default %s", name,
            value(name).c_str(), param(name).defaultValue);
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
  config.bufferBytes = bytesValue("FLASHCCL_BUFFER_BYTES");
  config.p2pCheck = boolValue("FLASHCCL_P2P_CHECK");
  config.lanes = static_cast<int>(bytesValue("FLASHCCL_LANES"));
  if (config.lanes < 1 || config.lanes > 64) {
    FCCL_WARN("FLASHCCL_LANES=%d is outside 1..64; using 64", config.lanes);
    config.lanes = 64;
  }
  config.minChunkBytes = bytesValue("FLASHCCL_MIN_CHUNK_BYTES");
  config.llMaxBytes = bytesValue("FLASHCCL_LL_MAX_BYTES");
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
