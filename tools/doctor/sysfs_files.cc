#include "sysfs_files.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace flashccl {
namespace doctor {

bool readWholeFile(const std::string& path, std::string* contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *contents = buffer.str();
  return true;
}

bool readNumber(const std::string& path, uint64_t* value) {
  std::string line;
  if (!readFirstLine(path, &line)) return false;
  line = trimmed(line);
  if (line.empty()) return false;
  try {
    size_t used = 0;
    const unsigned long long parsed = std::stoull(line, &used, 0);
    if (used != line.size()) return false;
    *value = parsed;
    return true;
  } catch (...) {
    return false;
  }
}

bool pathExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string resolvePath(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) ? std::string(resolved) : std::string();
}

std::string trimmed(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

}  // namespace doctor
}  // namespace flashccl
