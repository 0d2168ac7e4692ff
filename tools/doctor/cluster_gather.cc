#include "cluster_gather.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>

namespace flashccl {
namespace doctor {

namespace {

constexpr char kMagic[4] = {'F', 'C', 'D', 'R'};  // flashccl doctor report
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 20;  // magic, version, rank, length (u64)
constexpr int kReadTimeoutSeconds = 30;
constexpr char kAck = 'K';

using Clock = std::chrono::steady_clock;

std::string systemError(const std::string& what) { return what + ": " + std::strerror(errno); }

void setTimeouts(int fd, int seconds) {
  timeval tv{};
  tv.tv_sec = seconds;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

bool readExactly(int fd, void* buffer, size_t bytes) {
  char* out = static_cast<char*>(buffer);
  while (bytes > 0) {
    const ssize_t n = recv(fd, out, bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    bytes -= size_t(n);
  }
  return true;
}

bool writeExactly(int fd, const void* buffer, size_t bytes) {
  const char* in = static_cast<const char*>(buffer);
  while (bytes > 0) {
    const ssize_t n = send(fd, in, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    in += n;
    bytes -= size_t(n);
  }
  return true;
}

void putU32(unsigned char* at, uint32_t value) {
  for (int i = 0; i < 4; ++i) at[i] = (value >> (8 * i)) & 0xFF;
}
uint32_t getU32(const unsigned char* at) {
  return uint32_t(at[0]) | uint32_t(at[1]) << 8 | uint32_t(at[2]) << 16 | uint32_t(at[3]) << 24;
}

// Reads one message from an accepted connection; false with *problem for a bad one.
bool receiveOne(int fd, int worldSize, int* rank, std::string* payload, std::string* problem) {
  unsigned char header[kHeaderBytes];
  if (!readExactly(fd, header, sizeof(header))) {
    *problem = "a connection closed or timed out before its header";
    return false;
  }
  if (std::memcmp(header, kMagic, 4) != 0 || getU32(header + 4) != kVersion) {
    *problem = "a connection that is not a doctor report (wrong magic or version)";
    return false;
  }
  *rank = int(getU32(header + 8));
  const uint64_t length = uint64_t(getU32(header + 12)) | uint64_t(getU32(header + 16)) << 32;
  if (*rank <= 0 || *rank >= worldSize) {
    *problem = "a report from rank " + std::to_string(*rank) + ", outside 1.." + std::to_string(worldSize - 1);
    return false;
  }
  if (length > kMaxReportBytes) {
    *problem = "rank " + std::to_string(*rank) + " sent " + std::to_string(length) +
               " bytes, more than the " + std::to_string(kMaxReportBytes) + " allowed";
    return false;
  }
  payload->resize(size_t(length));
  if (!readExactly(fd, &(*payload)[0], size_t(length))) {
    *problem = "rank " + std::to_string(*rank) + "'s report was cut short";
    return false;
  }
  const char ack = kAck;
  writeExactly(fd, &ack, 1);
  return true;
}

}  // namespace

ReportCollector::~ReportCollector() {
  if (fd_ >= 0) close(fd_);
}

bool ReportCollector::listen(int port, std::string* error) {
  // Dual-stack IPv6 takes IPv4 connections too; fall back to IPv4 where IPv6 is off.
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  bool v6 = fd >= 0;
  if (!v6) fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    *error = systemError("socket");
    return false;
  }
  const int yes = 1, no = 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  int rc;
  if (v6) {
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof(no));
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_addr = in6addr_any;
    address.sin6_port = htons(uint16_t(port));
    rc = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  } else {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = htons(uint16_t(port));
    rc = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  }
  if (rc != 0 || ::listen(fd, 128) != 0) {
    *error = systemError("cannot listen on port " + std::to_string(port));
    close(fd);
    return false;
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  port_ = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                   : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  fd_ = fd;
  return true;
}

std::map<int, std::string> ReportCollector::collect(int worldSize, int timeoutSeconds,
                                                    std::vector<std::string>* problems) {
  std::map<int, std::string> reports;
  const auto deadline = Clock::now() + std::chrono::seconds(timeoutSeconds);
  while (int(reports.size()) < worldSize - 1) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    pollfd waiting{fd_, POLLIN, 0};
    const int ready = poll(&waiting, 1, int(std::min<long long>(left.count(), 1000)));
    if (ready <= 0) continue;
    const int connection = accept(fd_, nullptr, nullptr);
    if (connection < 0) continue;
    setTimeouts(connection, kReadTimeoutSeconds);
    int rank = -1;
    std::string payload, problem;
    if (receiveOne(connection, worldSize, &rank, &payload, &problem)) {
      if (!reports.emplace(rank, payload).second) problems->push_back("rank " + std::to_string(rank) + " reported twice");
    } else {
      problems->push_back(problem);
    }
    close(connection);
  }
  for (int rank = 1; rank < worldSize; ++rank) {
    if (!reports.count(rank)) {
      problems->push_back("rank " + std::to_string(rank) + " sent no report within " +
                          std::to_string(timeoutSeconds) + " s");
    }
  }
  return reports;
}

bool sendReport(const std::string& host, int port, int rank, const std::string& payload,
                int timeoutSeconds, std::string* error) {
  if (payload.size() > kMaxReportBytes) {
    *error = "report of " + std::to_string(payload.size()) + " bytes is over the limit";
    return false;
  }
  unsigned char header[kHeaderBytes];
  std::memcpy(header, kMagic, 4);
  putU32(header + 4, kVersion);
  putU32(header + 8, uint32_t(rank));
  putU32(header + 12, uint32_t(uint64_t(payload.size()) & 0xFFFFFFFFu));
  putU32(header + 16, uint32_t(uint64_t(payload.size()) >> 32));

  const auto deadline = Clock::now() + std::chrono::seconds(timeoutSeconds);
  std::string lastError = "no attempt";
  while (Clock::now() < deadline) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* addresses = nullptr;
    const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &addresses);
    if (rc != 0) {
      lastError = "cannot resolve " + host + ": " + gai_strerror(rc);
    } else {
      for (addrinfo* a = addresses; a != nullptr; a = a->ai_next) {
        const int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) continue;
        // Rank 0 acknowledges when it has read the message; give it the whole time left.
        const auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline - Clock::now());
        setTimeouts(fd, std::max<int>(kReadTimeoutSeconds, int(left.count())));
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
          lastError = systemError("connect to " + host + ":" + std::to_string(port));
          close(fd);
          continue;
        }
        char ack = 0;
        const bool sent = writeExactly(fd, header, sizeof(header)) &&
                          writeExactly(fd, payload.data(), payload.size()) &&
                          readExactly(fd, &ack, 1) && ack == kAck;
        close(fd);
        if (sent) {
          freeaddrinfo(addresses);
          return true;
        }
        lastError = "rank 0 did not acknowledge the report";
      }
      freeaddrinfo(addresses);
    }
    // Rank 0 may still be starting, or busy measuring before it accepts: try again shortly.
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  *error = lastError + " (gave up after " + std::to_string(timeoutSeconds) + " s)";
  return false;
}

}  // namespace doctor
}  // namespace flashccl
