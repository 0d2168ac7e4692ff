#include "base/config.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <strings.h>

#include "base/config_words.h"
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
      {"FLASHCCL_DLOPEN", "1",
       "Under LD_PRELOAD, an application's dlopen of any libnccl.so* gives flashccl (the way "
       "vLLM and SGLang open NCCL). 0: such a dlopen loads what it names."},
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
      {"FLASHCCL_TABLE_DIR", "",
       "Directory of calibrated tables (flashccl tune --install DIR), searched before the "
       "per-user cache and /etc/flashccl. Empty: those two only."},
      {"FLASHCCL_BUFFER_BYTES", "64M",
       "Bytes of each rank's communication buffer per communicator (suffixes K, M, G); on a "
       "communicator across nodes, as much again for the staging of the steps between nodes."},
      {"FLASHCCL_SMALL_CALL_BYTES", "64K",
       "Largest call (bytes of its largest buffer) a communicator serves from the small packet "
       "buffer it maps at set-up; the first larger call maps the whole FLASHCCL_BUFFER_BYTES "
       "buffer, agreed by every rank (docs/design.md, \"Memory grows with use\"). 0: map the "
       "whole buffer at set-up. At most 1M."},
      {"FLASHCCL_MEMORY_LIMIT", "1G",
       "Peer-buffer bytes flashccl may map per process and GPU, all its communicators together. A "
       "communicator whose growth would pass it keeps its large calls on NCCL (one INFO line); "
       "0: no communicator grows."},
      {"FLASHCCL_P2P_CHECK", "1",
       "1: verify peer access with a real transfer at set-up; a failure disables flashccl on "
       "that communicator."},
      {"FLASHCCL_LANES", "64",
       "Thread blocks per role in the chunked (large-message) kernels, 1 to 64; fewer leave more "
       "SMs to the application's own kernels, more push NVLink harder."},
      {"FLASHCCL_MIN_CHUNK_BYTES", "64K",
       "Smallest chunk the chunked kernels stream; each chunk costs one flag round trip."},
      {"FLASHCCL_UNMEASURED", "0",
       "1: also arm selection tables that were not measured on this machine class (the built-in "
       "table for machines no topology file describes; files whose <selection> says measured=\"no\"). "
       "0: those communicators stay on NCCL, with one INFO line saying why."},
      {"FLASHCCL_LL_MAX_BYTES", "1M",
       "Per-rank bytes up to which AllGather and ReduceScatter use LL packets (one kernel, one "
       "NVLink trip) rather than chunks."},
      {"FLASHCCL_NODE_ID", "",
       "Testing override of which ranks form a node: ranks with equal values are one node (NVLink "
       "peers, CUDA IPC), the others are reached through NCCL. Empty: the operating-system "
       "instance (host name and boot id). With several processes on one GPU, each with its own "
       "NCCL_HOSTID, it lets them stand for several nodes."},
      {"FLASHCCL_TRACE", "1",
       "Fault locator: 1 records every call in a per-communicator flight recorder and runs the "
       "hang watchdog; full also follows calls forwarded to NCCL on the GPU (two CUDA event "
       "records per forwarded call); 0 turns it all off."},
      {"FLASHCCL_TRACE_ENTRIES", "2048",
       "Calls each communicator's flight recorder keeps (rounded up to a power of two)."},
      {"FLASHCCL_HANG_TIMEOUT", "480",
       "Seconds a call may wait before the watchdog asks every rank for its progress and prints "
       "a verdict (fractions allowed)."},
      {"FLASHCCL_HANG_ACTION", "report",
       "What a hang verdict does besides printing and dumping: report, abort (sets the "
       "communicator's asynchronous error so the job ends), or revoke (the same, and the "
       "communicator is revoked so that the application can shrink it)."},
      {"FLASHCCL_TRACE_DIR", "",
       "Directory for flight-recorder dumps (JSON, one file per process and dump). Empty: "
       "$TMPDIR, else /tmp."},
      {"FLASHCCL_TRACE_SIGNAL", "SIGUSR1",
       "Signal that makes every rank of the process dump its flight recorders; none disables."},
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

const std::vector<EnvWords>& envWords() {
  // The words FLASHCCL_DEBUG takes are log.cc's levels; FLASHCCL_TRACE's and FLASHCCL_HANG_ACTION's
  // are trace_settings.cc's.
  static const std::vector<EnvWords> words = {
      {"FLASHCCL_DEBUG", "VERSION WARN INFO TRACE ABORT"},
      {"FLASHCCL_TRACE", "0 1 full off on"},
      {"FLASHCCL_HANG_ACTION", "report abort revoke"},
  };
  return words;
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

double secondsValue(const char* name) {
  const std::string text = value(name);
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end != text.c_str() && *end == '\0' && seconds > 0 && seconds < 1e9) return seconds;
  FCCL_WARN("%s='%s' is not a positive number of seconds; using the default %s", name,
            text.c_str(), param(name).defaultValue);
  return std::strtod(param(name).defaultValue, nullptr);
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

// A whole count within [min, max] (no size suffixes: FLASHCCL_LANES=2K is no count of blocks).
int countValue(const char* name, int min, int max) {
  const std::string text = value(name);
  char* end = nullptr;
  const long count = std::strtol(text.c_str(), &end, 10);
  if (!text.empty() && end != text.c_str() && *end == '\0' && count >= min && count <= max)
    return static_cast<int>(count);
  FCCL_WARN("%s='%s' is not a count from %d to %d; using the default %s", name, text.c_str(), min, max,
            param(name).defaultValue);
  return static_cast<int>(std::strtol(param(name).defaultValue, nullptr, 10));
}

// One of the variable's words (envWords()), in their spelling; else a WARN and the default. The WARN
// comes at first use (Config::get), so a typo shows on the job's first call, not when a feature
// that reads the value first runs.
std::string wordValue(const char* name) {
  const std::string text = value(name);
  const EnvParam& row = param(name);
  if (text == row.defaultValue) return text;  // unset, empty, or the default itself
  std::string words, listed;
  for (const EnvWords& entry : envWords())
    if (std::strcmp(entry.name, name) == 0) words = entry.words;
  size_t start = 0;
  while (start < words.size()) {
    size_t space = words.find(' ', start);
    if (space == std::string::npos) space = words.size();
    const std::string word = words.substr(start, space - start);
    if (strcasecmp(word.c_str(), text.c_str()) == 0) return word;  // the row's spelling: "FULL" is "full"
    listed += (listed.empty() ? "" : ", ") + word;
    start = space + 1;
  }
  FCCL_WARN("%s='%s' is not one of %s; using the default %s", name, text.c_str(), listed.c_str(),
            *row.defaultValue ? row.defaultValue : "(unset)");
  return row.defaultValue;
}

}  // namespace

Config Config::fromEnvironment() {
  Config config;
  config.disable = boolValue("FLASHCCL_DISABLE");
  config.ncclLibrary = value("FLASHCCL_NCCL_LIBRARY");
  config.debug = wordValue("FLASHCCL_DEBUG");
  config.algo = value("FLASHCCL_ALGO");
  config.algoDir = value("FLASHCCL_ALGO_DIR");
  config.topoFile = value("FLASHCCL_TOPO_FILE");
  config.tableDir = value("FLASHCCL_TABLE_DIR");
  // The buffer must hold at least the flag area and the smallest packet and chunk slots; above a
  // gigabyte per communicator and rank it only wastes memory.
  config.bufferBytes = bytesValue("FLASHCCL_BUFFER_BYTES", size_t(1) << 20, size_t(1) << 30);
  // Small calls live in LL slots of twice their size per peer and parity: above 1 MiB the "small"
  // buffer of an 8-rank communicator would pass the whole default buffer.
  config.smallCallBytes = bytesValue("FLASHCCL_SMALL_CALL_BYTES", 0, size_t(1) << 20);
  config.memoryLimitBytes = bytesValue("FLASHCCL_MEMORY_LIMIT", 0, size_t(1) << 50);
  config.p2pCheck = boolValue("FLASHCCL_P2P_CHECK");
  config.lanes = countValue("FLASHCCL_LANES", 1, 64);
  config.minChunkBytes = bytesValue("FLASHCCL_MIN_CHUNK_BYTES", 4096, size_t(1) << 30);
  config.llMaxBytes = bytesValue("FLASHCCL_LL_MAX_BYTES", 0, size_t(1) << 30);
  config.nodeId = value("FLASHCCL_NODE_ID");
  config.armUnmeasured = boolValue("FLASHCCL_UNMEASURED");
  config.trace = wordValue("FLASHCCL_TRACE");
  config.traceEntries = bytesValue("FLASHCCL_TRACE_ENTRIES", 16, size_t(1) << 24);
  config.hangTimeoutSeconds = secondsValue("FLASHCCL_HANG_TIMEOUT");
  config.hangAction = wordValue("FLASHCCL_HANG_ACTION");
  config.traceDir = value("FLASHCCL_TRACE_DIR");
  config.traceSignal = value("FLASHCCL_TRACE_SIGNAL");
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
