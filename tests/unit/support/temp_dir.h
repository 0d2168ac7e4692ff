// A temporary directory for one test, removed with everything in it when the test ends.
#pragma once

#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace flashccl {
namespace testing {

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/flashccl-test-XXXXXX";
    const char* made = mkdtemp(pattern);
    path_ = made ? made : "";
  }
  ~TempDir() {
    if (!path_.empty()) {
      nftw(path_.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); },
           16, FTW_DEPTH | FTW_PHYS);
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

  // Writes `contents` to path()/relative, creating parent directories. Returns the full path.
  std::string write(const std::string& relative, const std::string& contents) const {
    const std::string full = path_ + "/" + relative;
    makeParents(full);
    std::ofstream(full) << contents;
    return full;
  }
  std::string mkdir(const std::string& relative) const {
    const std::string full = path_ + "/" + relative;
    makeParents(full + "/x");
    return full;
  }
  // path()/relative -> target (a symlink, as sysfs has them).
  void symlink(const std::string& target, const std::string& relative) const {
    const std::string full = path_ + "/" + relative;
    makeParents(full);
    ::symlink(target.c_str(), full.c_str());
  }

 private:
  static void makeParents(const std::string& file) {
    for (size_t slash = file.find('/', 1); slash != std::string::npos;
         slash = file.find('/', slash + 1)) {
      ::mkdir(file.substr(0, slash).c_str(), 0755);
    }
  }
  std::string path_;
};

}  // namespace testing
}  // namespace flashccl
