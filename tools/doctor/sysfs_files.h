// Reading the small text and binary files of sysfs and procfs, beyond base/text_files.h. Every
// reader takes the full path, so the checks can be pointed at a fake tree (`--sysfs-root`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/text_files.h"

namespace flashccl {
namespace doctor {

bool readWholeFile(const std::string& path, std::string* contents);
// The first line as a number ("0x10de" and "42" both work); false when absent or not a number.
bool readNumber(const std::string& path, uint64_t* value);
bool pathExists(const std::string& path);
// realpath(), or "" when the path does not resolve.
std::string resolvePath(const std::string& path);
std::string trimmed(const std::string& text);

}  // namespace doctor
}  // namespace flashccl
