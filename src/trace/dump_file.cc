#include "trace/dump_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flashccl {

namespace {

constexpr int kMaxNameAttempts = 1000;

// Host names become part of a file name: anything but [A-Za-z0-9._-] becomes '_'.
std::string safeName(const std::string& text) {
  std::string name;
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    name += ok ? c : '_';
  }
  return name.empty() ? "host" : name;
}

bool writeAll(int fd, const std::string& contents) {
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t put = write(fd, contents.data() + written, contents.size() - written);
    if (put > 0) {
      written += static_cast<size_t>(put);
    } else if (!(put < 0 && errno == EINTR)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string writeDumpFile(const std::string& dir, const std::string& host, int pid,
                          const std::string& contents, std::string* error) {
  const int dirFd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd < 0) {
    *error = "cannot open directory " + dir + ": " + std::strerror(errno);
    return "";
  }
  const std::string stem = "flashccl-trace." + safeName(host) + "." + std::to_string(pid) + ".";
  int fd = -1;
  std::string name;
  for (int n = 0; n < kMaxNameAttempts && fd < 0; ++n) {
    name = stem + std::to_string(n) + ".json";
    // O_EXCL fails on any existing name, a symbolic link included (dangling or not): a link
    // planted under our name is never followed, and we move on to the next number.
    fd = openat(dirFd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  const int openError = errno;
  close(dirFd);
  if (fd < 0) {
    *error = "cannot create a dump file in " + dir + ": " + std::strerror(openError);
    return "";
  }
  // The umask can only have removed bits; make it exactly owner read/write.
  fchmod(fd, 0600);
  const bool ok = writeAll(fd, contents);
  const int writeError = errno;
  close(fd);
  const std::string path = dir + "/" + name;
  if (!ok) {
    *error = "cannot write " + path + ": " + std::strerror(writeError);
    return "";
  }
  return path;
}

}  // namespace flashccl
