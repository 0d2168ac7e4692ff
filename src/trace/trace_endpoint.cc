#include "trace/trace_endpoint.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/hash.h"

namespace flashccl {

TraceEndpoint endpointWithoutChannel(int cudaDev) {
  TraceEndpoint endpoint;
  endpoint.magic = kTraceEndpointMagic;
  endpoint.pid = static_cast<int32_t>(getpid());
  endpoint.cudaDev = cudaDev;
  std::strncpy(endpoint.host, traceHostName().c_str(), sizeof(endpoint.host) - 1);
  return endpoint;
}

bool hasSideChannel(const TraceEndpoint& endpoint) {
  return endpoint.magic == kTraceEndpointMagic && endpoint.port != 0 &&
         (endpoint.family == 4 || endpoint.family == 6);
}

bool makeTraceToken(uint8_t token[kTraceTokenBytes]) {
  size_t filled = 0;
  while (filled < kTraceTokenBytes) {
    const ssize_t got = getrandom(token + filled, kTraceTokenBytes - filled, 0);
    if (got > 0) {
      filled += static_cast<size_t>(got);
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  if (filled == kTraceTokenBytes) return true;
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  while (filled < kTraceTokenBytes) {
    const ssize_t got = read(fd, token + filled, kTraceTokenBytes - filled);
    if (got > 0) {
      filled += static_cast<size_t>(got);
    } else if (!(got < 0 && errno == EINTR)) {
      break;
    }
  }
  close(fd);
  return filled == kTraceTokenBytes;
}

bool sameToken(const uint8_t a[kTraceTokenBytes], const uint8_t b[kTraceTokenBytes]) {
  uint8_t difference = 0;
  for (size_t i = 0; i < kTraceTokenBytes; ++i) difference |= a[i] ^ b[i];
  return difference == 0;
}

std::string endpointAddressText(const TraceEndpoint& endpoint) {
  if (!hasSideChannel(endpoint)) return "none";
  char text[INET6_ADDRSTRLEN] = "";
  if (endpoint.family == 4) {
    inet_ntop(AF_INET, endpoint.address, text, sizeof(text));
    return std::string(text) + ":" + std::to_string(endpoint.port);
  }
  inet_ntop(AF_INET6, endpoint.address, text, sizeof(text));
  return "[" + std::string(text) + "]:" + std::to_string(endpoint.port);
}

bool endpointSockaddr(const TraceEndpoint& endpoint, sockaddr_storage* addr, socklen_t* length) {
  std::memset(addr, 0, sizeof(*addr));
  if (!hasSideChannel(endpoint)) return false;
  if (endpoint.family == 4) {
    sockaddr_in* in = reinterpret_cast<sockaddr_in*>(addr);
    in->sin_family = AF_INET;
    in->sin_port = htons(endpoint.port);
    std::memcpy(&in->sin_addr, endpoint.address, 4);
    *length = sizeof(sockaddr_in);
  } else {
    sockaddr_in6* in6 = reinterpret_cast<sockaddr_in6*>(addr);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(endpoint.port);
    std::memcpy(&in6->sin6_addr, endpoint.address, 16);
    *length = sizeof(sockaddr_in6);
  }
  return true;
}

void setEndpointAddress(TraceEndpoint* endpoint, const sockaddr* addr) {
  std::memset(endpoint->address, 0, sizeof(endpoint->address));
  if (addr->sa_family == AF_INET) {
    const sockaddr_in* in = reinterpret_cast<const sockaddr_in*>(addr);
    endpoint->family = 4;
    endpoint->port = ntohs(in->sin_port);
    std::memcpy(endpoint->address, &in->sin_addr, 4);
  } else if (addr->sa_family == AF_INET6) {
    const sockaddr_in6* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    endpoint->family = 6;
    endpoint->port = ntohs(in6->sin6_port);
    std::memcpy(endpoint->address, &in6->sin6_addr, 16);
  }
}

uint64_t commHashOf(const std::vector<TraceEndpoint>& endpoints) {
  uint64_t hash = kFnvOffset;
  for (const TraceEndpoint& endpoint : endpoints) hash = fnv1aValue(hash, endpoint);
  return hash;
}

const std::string& traceHostName() {
  // Never destroyed: the watchdog may still name this host while the process exits.
  static const std::string* name = [] {
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    if (char* dot = std::strchr(host, '.')) *dot = '\0';
    return new std::string(host);
  }();
  return *name;
}

}  // namespace flashccl
