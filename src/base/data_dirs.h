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

}  // namespace flashccl
