// Every FLASHCCL_* environment variable, declared in one place with its default and meaning.
// docs/environment.md carries the same table; a unit test keeps the two in step.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/size_text.h"  // parseBytes, for the sizes below

namespace flashccl {

struct EnvParam {
  const char* name;
  const char* defaultValue;
  const char* description;
};

// The one table. Adding a variable means adding a row here and a field in Config.
const std::vector<EnvParam>& envParams();

struct Config {
  bool disable = false;          // FLASHCCL_DISABLE: pure pass-through to the real NCCL
  std::string ncclLibrary;       // FLASHCCL_NCCL_LIBRARY: path of the real libnccl.so.2
  std::string debug;             // FLASHCCL_DEBUG: log level for flashccl's own lines
  std::string algo;              // FLASHCCL_ALGO: force an algorithm (or "nccl")
  std::string algoDir;           // FLASHCCL_ALGO_DIR: directory of MSCCL XML algorithms
  std::string topoFile;          // FLASHCCL_TOPO_FILE: topology description to use
  size_t bufferBytes = 0;        // FLASHCCL_BUFFER_BYTES: peer buffer bytes per communicator
  bool p2pCheck = true;          // FLASHCCL_P2P_CHECK: verify peer access with a real transfer
  int lanes = 64;                // FLASHCCL_LANES: thread blocks per role in the chunked kernels
  size_t minChunkBytes = 65536;  // FLASHCCL_MIN_CHUNK_BYTES: smallest chunk the chunked kernels use
  size_t llMaxBytes = 1048576;   // FLASHCCL_LL_MAX_BYTES: AllGather/ReduceScatter per-rank bytes
                                 // up to which the direct kernels use LL packets
  std::string nodeId;            // FLASHCCL_NODE_ID: which ranks form a node (testing override)
  bool armUnmeasured = false;    // FLASHCCL_UNMEASURED: arm selection tables not measured on
                                 // this machine class
  // The fault locator (src/trace, docs/trace.md); its words are checked where they are used.
  std::string trace = "1";         // FLASHCCL_TRACE: 0, 1, full
  size_t traceEntries = 2048;      // FLASHCCL_TRACE_ENTRIES: flight-recorder ring per communicator
  double hangTimeoutSeconds = 480; // FLASHCCL_HANG_TIMEOUT
  std::string hangAction = "report";  // FLASHCCL_HANG_ACTION: report, abort, revoke
  std::string traceDir;            // FLASHCCL_TRACE_DIR: where dumps go (empty: $TMPDIR or /tmp)
  std::string traceSignal = "SIGUSR1";  // FLASHCCL_TRACE_SIGNAL: signal that asks for a dump

  // Parsed once, at first use; never changes afterwards (the hot path reads it without locks).
  static const Config& get();
  // Parses the current environment into a fresh Config (tests and `flashccl plan` use this).
  static Config fromEnvironment();
};

// Switches: "1", "yes", "on", "0", "no", "off", ...
bool parseBool(const std::string& text, bool* value);
// Environment lookup through one function, so a test can see exactly what is read.
const char* getEnv(const char* name);

}  // namespace flashccl
