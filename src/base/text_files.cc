#include "base/text_files.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>

namespace flashccl {

std::vector<std::string> listDirectory(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool readFirstLine(const std::string& path, std::string* line) {
  std::ifstream in(path);
  return in && std::getline(in, *line);
}

}  // namespace flashccl
