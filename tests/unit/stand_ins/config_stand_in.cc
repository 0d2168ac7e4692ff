// Weak stand-in for src/core/config.cc (see README.md): the fields the topology and plan code
// read, straight from the environment.
#include <cstdlib>

#include "core/config.h"

namespace flashccl {

__attribute__((weak)) const char* getEnv(const char* name) { return std::getenv(name); }

__attribute__((weak)) Config Config::fromEnvironment() {
  Config config;
  auto text = [](const char* name) {
    const char* value = getEnv(name);
    return value ? std::string(value) : std::string();
  };
  config.algo = text("FLASHCCL_ALGO");
  config.algoDir = text("FLASHCCL_ALGO_DIR");
  config.topoFile = text("FLASHCCL_TOPO_FILE");
  return config;
}

__attribute__((weak)) const Config& Config::get() {
  static const Config config = fromEnvironment();
  return config;
}

}  // namespace flashccl
