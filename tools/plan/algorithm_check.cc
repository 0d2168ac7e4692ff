#include "plan/algorithm_check.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "msccl/algorithm_file.h"

namespace flashccl {

namespace {

// The *.xml files of `dir`, sorted, as paths; false with *error when it cannot be read.
bool xmlFilesIn(const std::string& dir, std::vector<std::string>* paths, std::string* error) {
  DIR* handle = opendir(dir.c_str());
  if (handle == nullptr) {
    *error = dir + ": " + std::strerror(errno);
    return false;
  }
  std::vector<std::string> names;
  while (dirent* entry = readdir(handle)) {
    const std::string name = entry->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".xml") == 0) names.push_back(name);
  }
  closedir(handle);
  std::sort(names.begin(), names.end());
  const std::string prefix = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  for (const std::string& name : names) paths->push_back(prefix + name);
  if (paths->empty()) {
    *error = "no *.xml files in " + dir;
    return false;
  }
  return true;
}

}  // namespace

AlgorithmFileCheck algorithmFileCheck() { return &msccl::checkAlgorithmFile; }

int checkAlgorithmFiles(const std::string& path, AlgorithmFileCheck check, std::ostream& out,
                        std::ostream& err) {
  if (check == nullptr) {
    err << "flashccl plan --check: this build has no XML algorithm checker; nothing in " << path
        << " was validated\n";
    return 1;
  }
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    err << "flashccl plan --check: " << path << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  std::vector<std::string> paths;
  std::string error;
  if (!S_ISDIR(info.st_mode)) {
    paths.push_back(path);
  } else if (!xmlFilesIn(path, &paths, &error)) {
    err << "flashccl plan --check: " << error << "\n";
    return 1;
  }
  int invalid = 0;
  for (const std::string& file : paths) {
    std::string problem;
    if (check(file, &problem)) {
      out << "ok       " << file << "\n";
    } else {
      ++invalid;
      out << "INVALID  " << (problem.empty() ? file + ": invalid" : problem) << "\n";
    }
  }
  out << paths.size() - invalid << " of " << paths.size() << " algorithm files valid\n";
  return invalid == 0 ? 0 : 1;
}

}  // namespace flashccl
