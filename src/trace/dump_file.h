// Writes a dump file the way a file inside someone else's job must be written: a new file only
// (never an existing one, never through a symbolic link), readable by its owner only.
#pragma once

#include <string>

namespace flashccl {

// Creates `dir`/flashccl-trace.<host>.<pid>.<n>.json with the first free n (O_CREAT | O_EXCL |
// O_NOFOLLOW, mode 0600, relative to an O_DIRECTORY descriptor of `dir`) and writes `contents`.
// Returns the path, or "" with the reason in `error`.
std::string writeDumpFile(const std::string& dir, const std::string& host, int pid,
                          const std::string& contents, std::string* error);

}  // namespace flashccl
