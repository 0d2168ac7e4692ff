// Reading the small text files of sysfs and procfs: a directory's entries, a file's first line.
// Shared by topology detection and `flashccl doctor`.
#pragma once

#include <string>
#include <vector>

namespace flashccl {

// Names in a directory, sorted, without "." and ".."; empty when it cannot be read.
std::vector<std::string> listDirectory(const std::string& path);
// False when the file cannot be opened or is empty.
bool readFirstLine(const std::string& path, std::string* line);

}  // namespace flashccl
