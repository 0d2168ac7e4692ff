// Reading the small text and binary files of sysfs and procfs. Every reader takes the full path,
// so the checks can be pointed at a fake tree (`--sysfs-root`) in tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashccl {
namespace doctor {

// Names in a directory, sorted, without "." and ".."; empty when it cannot be read.
std::vector<std::string> listDirectory(const std::string& path);
bool readFirstLine(const std::string& path, std::string* line);
bool readWholeFile(const std::string& path, std::string* contents);
// The first line as a number ("0x10de" and "42" both work); false when absent or not a number.
bool readNumber(const std::string& path, uint64_t* value);
bool pathExists(const std::string& path);
// realpath(), or "" when the path does not resolve.
std::string resolvePath(const std::string& path);
std::string trimmed(const std::string& text);

}  // namespace doctor
}  // namespace flashccl
