// Per-call configs (docs/design.md, "Per-call configs").
#include "runtime/coll_config.h"

#include <cstddef>

namespace flashccl {

namespace {

// True when `config` is long enough to hold the member at `offset` of `size` bytes.
bool holds(const ncclCollConfig_t* config, size_t offset, size_t size) {
  return config->size >= offset + size;
}
#define FCCL_HOLDS(config, member) \
  holds(config, offsetof(ncclCollConfig_t, member), sizeof((config)->member))

bool isSet(int value) { return value != NCCL_CONFIG_UNDEF_INT; }

}  // namespace

const char* collConfigForwardReason(const ncclCollConfig_t* config, int maxGridBlocks) {
  if (config == nullptr) return nullptr;
  if (config->size < offsetof(ncclCollConfig_t, ext) || config->magic != NCCL_API_MAGIC) {
    return "per-call config not made by NCCL_COLLCONFIG_INITIALIZER (left to NCCL's checks)";
  }
  if (FCCL_HOLDS(config, algSelection) && config->algSelection != nullptr &&
      config->algSelection[0] != '\0') {
    return "per-call config selects NCCL algorithms (algSelection)";
  }
  if (FCCL_HOLDS(config, minCTAs) && isSet(config->minCTAs) && config->minCTAs > 1) {
    return "per-call config minCTAs above 1 (flashccl's grid for a small message is one block)";
  }
  if (FCCL_HOLDS(config, maxCTAs) && isSet(config->maxCTAs) &&
      (maxGridBlocks <= 0 || config->maxCTAs < maxGridBlocks)) {
    return "per-call config maxCTAs below the grid flashccl's kernels may launch";
  }
  if (FCCL_HOLDS(config, cgaClusterSize) && isSet(config->cgaClusterSize) &&
      config->cgaClusterSize > 1) {
    return "per-call config asks for a thread-block cluster (cgaClusterSize)";
  }
  if (FCCL_HOLDS(config, CTAPolicy) && isSet(config->CTAPolicy)) {
    return "per-call config sets a CTA policy";
  }
  if (FCCL_HOLDS(config, launchCompletionEvent) && config->launchCompletionEvent != nullptr) {
    return "per-call config asks for a launch-completion event";
  }
  // nvlsCTAs caps NVLS channels, which flashccl never uses (docs/design.md, "No NVLink
  // multicast"); userProfilerTag and ext do not change what runs.
  return nullptr;
}

}  // namespace flashccl
