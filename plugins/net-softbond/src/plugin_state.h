// What the plugin knows process-wide, discovered once at the first init: settings, bonds (the
// devices NCCL sees) and the backend that carries them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bond_table.h"
#include "data_path.h"
#include "nccl_net_abi.h"
#include "settings.h"

namespace flashccl::softbond {

struct PluginState {
  Settings settings;
  std::vector<Bond> bonds;
  Backend* backend = nullptr;  // the one in use (TCP unless verbs was asked for and works)
  std::unique_ptr<Backend> ownedBackend;
  std::vector<std::string> pciPaths;  // stable storage for getProperties' char*
};

// Idempotent: the first call does the discovery, later ones only update the logger.
ncclResult_t initPlugin(ncclDebugLogger_t logger);
// Valid after a successful initPlugin.
const PluginState& pluginState();

// Fills v11 properties for device `dev` (older versions copy what they have from it).
ncclResult_t deviceProperties(int dev, ncclNetProperties_v11_t* props);

}  // namespace flashccl::softbond
