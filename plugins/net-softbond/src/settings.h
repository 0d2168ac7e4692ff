// The plugin's environment variables: read once per process (the first init), with their
// defaults and limits in one table (settings.cc). docs/net-plugin.md and docs/environment.md list
// the same variables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace flashccl::softbond {

enum class BackendKind : uint8_t { kTcp = 1, kVerbs = 2 };
const char* backendName(BackendKind kind);

struct Settings {
  std::string rails;                // FLASHCCL_SOFTBOND_RAILS: "eth0,eth1;eth2,eth3" (empty: by locality)
  BackendKind backend = BackendKind::kTcp;  // FLASHCCL_SOFTBOND_BACKEND
  int timeoutMs = 1000;             // FLASHCCL_SOFTBOND_TIMEOUT_MS: silence that fails a rail
  int probeMs = 500;                // FLASHCCL_SOFTBOND_PROBE_MS: reconnect period, and how long a
                                    // recovered rail must stay healthy before it carries data again
  int streams = 2;                  // FLASHCCL_SOFTBOND_STREAMS: TCP data sockets per rail
  size_t chunkBytes = 128 * 1024;   // FLASHCCL_SOFTBOND_CHUNK_BYTES: unit of striping and replay
  bool gdr = false;                 // FLASHCCL_SOFTBOND_GDR: offer CUDA/dmabuf buffers (verbs only)
  int gidIndex = -1;                // FLASHCCL_SOFTBOND_IB_GID_INDEX: RoCE GID (-1: the rail's IP)
  std::string fault;                // FLASHCCL_SOFTBOND_FAULT: test-only fault injection
};

// Reads the variables through `lookup` (getenv in the plugin, a map in tests). Invalid values give
// one WARN each and keep the default.
Settings readSettings(const std::function<const char*(const char*)>& lookup);

// "128K", "4M", "1G" or a plain byte count (binary suffixes, as everywhere in flashccl).
bool parseByteSize(const std::string& text, uint64_t* bytes);

}  // namespace flashccl::softbond
