#include "tune_machine.h"

#include <dirent.h>

#include "base/config.h"
#include "base/data_dirs.h"
#include "topo/machine_table.h"
#include "topo/topology_detect.h"

namespace flashccl {
namespace tune {

TableMeasurement thisMachine() { return measurementOf(localTopology(), ""); }

std::string defaultInstallDirectory() { return userTableDir(); }

std::vector<FlashcclAlgorithm> shippedPrograms(int ranks) {
  std::string directory = Config::get().algoDir;
  if (directory.empty()) {
    for (const std::string& candidate : dataDirectories("algorithms")) {
      if (!isDirectory(candidate)) continue;
      directory = candidate;
      break;
    }
  }
  std::vector<std::string> names;
  if (DIR* handle = directory.empty() ? nullptr : opendir(directory.c_str())) {
    while (dirent* entry = readdir(handle)) names.push_back(entry->d_name);
    closedir(handle);
  }
  return shippedProgramsFor(names, ranks);
}

}  // namespace tune
}  // namespace flashccl
