#include "passthrough_unique_id_pipes.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace flashccl_gpu_test::passthrough {
namespace {

void closeFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

}  // namespace

UniqueIdPipes::UniqueIdPipes(int nranks) : pipes_(static_cast<size_t>(nranks)) {
  for (size_t r = 1; r < pipes_.size(); ++r) {
    int fds[2];
    if (pipe(fds) != 0) {
      error_ = std::string("pipe() for the unique id of rank ") + std::to_string(r) + ": " + std::strerror(errno);
      return;
    }
    pipes_[r].read = fds[0];
    pipes_[r].write = fds[1];
  }
}

void UniqueIdPipes::keepFor(int rank) {
  for (size_t r = 0; r < pipes_.size(); ++r) {
    if (rank != 0) closeFd(&pipes_[r].write);
    if (static_cast<int>(r) != rank) closeFd(&pipes_[r].read);
  }
}

void UniqueIdPipes::closeAll() {
  for (Pipe& p : pipes_) {
    closeFd(&p.read);
    closeFd(&p.write);
  }
}

std::string UniqueIdPipes::send(const ncclUniqueId& id) {
  for (size_t r = 1; r < pipes_.size(); ++r) {
    // sizeof(ncclUniqueId) (128) is below PIPE_BUF: one write, never partial, never blocking.
    const ssize_t written = write(pipes_[r].write, &id, sizeof(id));
    if (written != static_cast<ssize_t>(sizeof(id)))
      return "sending the unique id to rank " + std::to_string(r) + ": " +
             (written < 0 ? std::strerror(errno) : "short write");
    closeFd(&pipes_[r].write);
  }
  return "";
}

std::string UniqueIdPipes::receive(int rank, ncclUniqueId* id, double timeoutS) {
  const int fd = pipes_[static_cast<size_t>(rank)].read;
  char* out = reinterpret_cast<char*>(id);
  size_t got = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
  while (got < sizeof(*id)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return "no unique id from rank 0 within " + std::to_string(static_cast<int>(timeoutS)) + " s";
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return std::string("poll() on the unique id pipe: ") + std::strerror(errno);
    if (ready == 0) continue;
    const ssize_t n = read(fd, out + got, sizeof(*id) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "rank 0 ended before sending the unique id";
    got += static_cast<size_t>(n);
  }
  closeFd(&pipes_[static_cast<size_t>(rank)].read);
  return "";
}

}  // namespace flashccl_gpu_test::passthrough
