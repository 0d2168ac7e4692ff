// Where flashccl's data files (topologies/, algorithms/) are found: beside the library that holds
// this code (<libdir>/../share/flashccl/<kind>, the installed and the wheel layout), then in the
// source tree (so a build tree works without an install step).
#pragma once

#include <string>
#include <vector>

namespace flashccl {

// Candidate directories for `kind` ("topologies", "algorithms"), in search order.
std::vector<std::string> dataDirectories(const std::string& kind);

bool isDirectory(const std::string& path);
bool isRegularFile(const std::string& path);
std::string resolvedPath(const std::string& path);  // realpath, or the path itself

// Where calibrated tables (`flashccl tune --install`) are looked up, in order: `tableDir`
// (FLASHCCL_TABLE_DIR) when set, the per-user cache ($XDG_CACHE_HOME/flashccl, else
// $HOME/.cache/flashccl), /etc/flashccl. Here, not in topo/, because the tuner plugin compiles
// this file and must search the same directories as the library (docs/topologies.md, section 8).
std::vector<std::string> calibratedTableDirs(const std::string& tableDir);
// Where `flashccl tune --install` writes by default: the per-user cache ("" without HOME).
std::string userTableDir();

}  // namespace flashccl
