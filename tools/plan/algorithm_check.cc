#include "plan/algorithm_check.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "msccl/algorithm_file.h"

namespace flashccl {

AlgorithmFileCheck algorithmFileCheck() { return &msccl::checkAlgorithmFile; }

int checkAlgorithmDirectory(const std::string& dir, AlgorithmFileCheck check, std::ostream& out,
                            std::ostream& err) {
  if (check == nullptr) {
    err << "flashccl plan --check: this build has no XML algorithm checker (src/msccl/"
           "algorithm_file.h is not wired in yet); nothing in "
        << dir << " was validated\n";
    return 1;
  }
  DIR* handle = opendir(dir.c_str());
  if (handle == nullptr) {
    err << "flashccl plan --check: " << dir << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  std::vector<std::string> names;
  while (dirent* entry = readdir(handle)) {
    const std::string name = entry->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".xml") == 0) names.push_back(name);
  }
  closedir(handle);
  std::sort(names.begin(), names.end());
  if (names.empty()) {
    err << "flashccl plan --check: no *.xml files in " << dir << "\n";
    return 1;
  }
  int invalid = 0;
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    std::string error;
    if (check(path, &error)) {
      out << "ok       " << path << "\n";
    } else {
      ++invalid;
      out << "INVALID  " << (error.empty() ? path + ": invalid" : error) << "\n";
    }
  }
  out << names.size() - invalid << " of " << names.size() << " algorithm files valid\n";
  return invalid == 0 ? 0 : 1;
}

}  // namespace flashccl
